#!/usr/bin/env bash
# A short fuzzing pass over the canonicaliser on every CI run (the full
# 60-second run is `make fuzz`).
set -euo pipefail
# An execution count rather than a duration (see 30-ledger.sh); about 15 s on
# two idle cores (230000x took 12.1 s, 2026-12-01).
go test ./canon -run '^$' -fuzz FuzzTransform -fuzztime 300000x -fuzzminimizetime 2s
# The string encoder's word-at-a-time scan against the byte-by-byte escape
# rule (issue 11: it replaces a 200,000-iteration random loop); an execution
# count for the same reason (100000x took 7.1 s of fuzzing, 15 s with the
# build, under load 8.7, 2026-12-02, when it fuzzed the engine's copy).
go test ./canon -run '^$' -fuzz '^FuzzAppendString$' -fuzztime 100000x -fuzzminimizetime 2s
