#!/usr/bin/env bash
# A short fuzzing pass over the canonicaliser on every CI run (the full
# 60-second run is `make fuzz`).
set -euo pipefail
go test ./canon -run '^$' -fuzz FuzzTransform -fuzztime 15s
