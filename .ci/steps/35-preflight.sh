#!/usr/bin/env bash
# Offline operator preflight, on every lane: the reference cell into a fresh
# 0700 directory, then every reader on the pair it wrote (validate, replay at
# zero provider calls, bundle, ledger verify); every fault cell of the lane,
# each of which must exit 2 with an excluded ledger, its fault, and no
# artefact.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=$(mktemp -d)/obaudit
go build -o "$bin" ./cmd/obaudit
root=$(mktemp -d)
trap 'rm -rf "$root" "$(dirname "$bin")"' EXIT

# Names carry the operation instance id (issue 17, point 6).
id=opinst_0123456789abcdef0123456789abcdef
common="429 500 400 overloaded invalid-body wrong-model truncated stream-cut transport"
for lane in openai-responses anthropic-messages chat-completions; do
  out="$root/$lane"
  mkdir -m 0700 "$out"
  echo "-- $lane: reference cell"
  "$bin" preflight --lane "$lane" --output-dir "$out" --operation-instance-id "$id"
  "$bin" validate "$out/$id.episode_artifact.json" >/dev/null
  replay=$("$bin" replay "$out/$id.episode_artifact.json")
  grep -q '^provider calls *0$' <<<"$replay" || { echo "replay: $replay"; exit 1; }
  grep -q '^request digests *46 rebuilt' <<<"$replay" || { echo "replay: $replay"; exit 1; }
  "$bin" bundle "$out/$id.episode_artifact.json" "$out/$id.execution_ledger.ndjson" >/dev/null
  verify=$("$bin" ledger verify "$out/$id.execution_ledger.ndjson")
  grep -q ': scored$' <<<"$verify" || { echo "ledger verify: $verify"; exit 1; }

  echo "-- $lane: fault cells"
  cells=$common
  [ "$lane" = anthropic-messages ] && cells="$cells spend-limit"
  n=2
  for cell in $cells; do
    set +e
    report=$("$bin" --json preflight --lane "$lane" --output-dir "$out" --operation-instance-id "$id" --fault "$cell" 2>/dev/null); code=$?
    set -e
    [ "$code" -eq 2 ] || { echo "$lane fault cell $cell exited $code, want 2"; exit 1; }
    grep -q '"cell_as_expected":true' <<<"$report" || { echo "$lane fault cell $cell did not end as it must: $report"; exit 1; }
    grep -q '"episode_artefact_written":false' <<<"$report" || { echo "$lane fault cell $cell wrote an artefact"; exit 1; }
    [ -f "$out/$id.$cell.execution_ledger.ndjson" ] || { echo "$lane fault cell $cell wrote no $id.$cell.execution_ledger.ndjson"; exit 1; }
    n=$((n + 1))
  done
  [ "$(ls "$out" | wc -l)" -eq "$n" ] || { echo "unexpected files in $out"; ls "$out"; exit 1; }
done
out="$root/openai-responses"

echo "-- refusals"
set +e
"$bin" preflight --output-dir "$out" --max-calls 61 >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 1 ] || { echo "--max-calls 61 exited $code, want 1"; exit 1; }
set +e
OPENAI_API_KEY=placeholder "$bin" preflight --output-dir "$out" >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 1 ] || { echo "preflight beside OPENAI_API_KEY exited $code, want 1"; exit 1; }
set +e
ANTHROPIC_API_KEY=placeholder "$bin" preflight --lane anthropic-messages --output-dir "$out" >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 1 ] || { echo "preflight beside ANTHROPIC_API_KEY exited $code, want 1"; exit 1; }
set +e
"$bin" run --model anthropic-claude-haiku-4-5-20251001 --scenario V1 --output-dir "$out" >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 1 ] || { echo "run --model without --live exited $code, want 1"; exit 1; }
echo "preflight step passed"
