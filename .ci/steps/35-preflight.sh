#!/usr/bin/env bash
# Offline operator preflight: the reference cell into a fresh 0700 directory,
# then every reader on the pair it wrote (validate, replay at zero provider
# calls, bundle, ledger verify); every fault cell, each of which must exit 2
# with an excluded ledger, its fault, and no artefact.
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=$(mktemp -d)/obaudit
go build -o "$bin" ./cmd/obaudit
out=$(mktemp -d)
chmod 0700 "$out"
trap 'rm -rf "$out" "$(dirname "$bin")"' EXIT

echo "-- reference cell"
"$bin" preflight --output-dir "$out"
"$bin" validate "$out/episode_artifact.json" >/dev/null
replay=$("$bin" replay "$out/episode_artifact.json")
grep -q '^provider calls *0$' <<<"$replay" || { echo "replay: $replay"; exit 1; }
"$bin" bundle "$out/episode_artifact.json" "$out/execution_ledger.ndjson" >/dev/null
verify=$("$bin" ledger verify "$out/execution_ledger.ndjson")
grep -q ': scored$' <<<"$verify" || { echo "ledger verify: $verify"; exit 1; }

echo "-- fault cells"
for cell in 429 500 invalid-body wrong-model transport; do
  set +e
  report=$("$bin" --json preflight --output-dir "$out" --fault "$cell" 2>/dev/null); code=$?
  set -e
  [ "$code" -eq 2 ] || { echo "fault cell $cell exited $code, want 2"; exit 1; }
  grep -q '"cell_as_expected":true' <<<"$report" || { echo "fault cell $cell did not end as it must: $report"; exit 1; }
  grep -q '"episode_artefact_written":false' <<<"$report" || { echo "fault cell $cell wrote an artefact"; exit 1; }
done
ls "$out"
[ "$(ls "$out" | wc -l)" -eq 7 ] || { echo "unexpected files in the output directory"; exit 1; }

echo "-- refusals"
set +e
"$bin" preflight --output-dir "$out" --max-calls 61 >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 1 ] || { echo "--max-calls 61 exited $code, want 1"; exit 1; }
set +e
OPENAI_API_KEY=placeholder "$bin" preflight --output-dir "$out" >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 1 ] || { echo "preflight beside OPENAI_API_KEY exited $code, want 1"; exit 1; }
echo "preflight step passed"
