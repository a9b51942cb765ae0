#!/usr/bin/env bash
# A short fuzzing pass over the canonicaliser on every CI run (the full
# 60-second run is `make fuzz`).
set -euo pipefail
# An execution count rather than a duration (see 30-ledger.sh); about 15 s on
# two idle cores (230000x took 12.1 s, 2026-12-01).
go test ./canon -run '^$' -fuzz FuzzTransform -fuzztime 300000x -fuzzminimizetime 2s
