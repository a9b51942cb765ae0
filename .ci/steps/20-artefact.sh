#!/usr/bin/env bash
# Artefact round trips with the built binary:
#  1. `obaudit run --engine 0.9.0 ... --output` writes upstream's V1 artefact byte for byte;
#  2. every scenario and every registered agent, under both engines: the artefact obaudit
#     just wrote validates (named checks and the published JSON Schema, always both) and replays;
#  3. the upstream fixtures validate under their own contracts, contract 8 replays, and
#     contract 1 is refused by name (read, never reproduced).
set -euo pipefail
cd "$(dirname "$0")/../.."

up=../shared/upstream
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/obaudit
go build -o "$bin" ./cmd/obaudit

pinned=opinst_0123456789abcdef0123456789abcdef
"$bin" run --engine 0.9.0 --scenario V1 --agent reference --operation-instance-id $pinned --output "$tmp/v1.json" >/dev/null
echo "45f2f3bec377230a0fc464c5ea1b64798a053beeb588c3ec4bdb477eaf7cfab5  $tmp/v1.json" | sha256sum -c -
if [ -f "$up/artifact8-deterministic-reference-v1.json" ]; then
  cmp "$tmp/v1.json" "$up/artifact8-deterministic-reference-v1.json"
fi

# The registry: the reference agent and the eight negative controls.
agents="reference complete_early always_act always_wait always_escalate ignore_new_events trust_actor_claim stale_after_wake duplicate_after_wake"
n=0
for engine in 0.9.0 0.9.0+obaudit.1; do
  for scenario in V1 V2 V3; do
    for agent in $agents; do
      out=$tmp/$engine-$scenario-$agent.json
      # exit 2 would mean the determinism self-check failed: not tolerated here.
      "$bin" run --engine "$engine" --scenario "$scenario" --agent "$agent" --output "$out" >/dev/null 2>&1
      "$bin" validate "$out" >/dev/null
      "$bin" replay "$out" >/dev/null
      n=$((n + 1))
    done
  done
done
echo "ran, validated (named checks and the JSON Schema) and replayed $n fresh artefacts"

if [ ! -d "$up" ]; then
  if [ "${OBAUDIT_REQUIRE_UPSTREAM:-}" = 1 ]; then echo "upstream fixtures required but $up is missing"; exit 1; fi
  echo "upstream fixtures not present; skipping the fixture checks"; exit 0
fi
for f in artifact8-deterministic-reference-v1.json artifact8-fake-openai-reference-v1.json; do
  "$bin" validate "$up/$f" >/dev/null
  "$bin" replay "$up/$f" >/dev/null
done
"$bin" validate "$up/artifact1-reference-V1.json" >/dev/null
set +e
"$bin" replay "$up/artifact1-reference-V1.json" >/dev/null 2>"$tmp/err"
code=$?
set -e
if [ $code -ne 1 ] || ! grep -q '^refused: artefact/not-reproducible: ' "$tmp/err"; then
  echo "replay of the contract-1 fixture: exit $code, want 1 with artefact/not-reproducible"; cat "$tmp/err"; exit 1
fi
echo "upstream fixtures: both contract-8 artefacts validate and replay; contract 1 validates and is refused for replay"
