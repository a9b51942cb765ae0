#!/usr/bin/env bash
# Execution ledger and bundle audit: the crash test (200 SIGKILLed writer
# children; every surviving file reads as a verified prefix), short fuzz runs
# of the ledger reader and the bundle audit inputs, and
# CLI round trips with their exit codes against the upstream fixtures.
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "-- crash test"
go test ./execledger -run '^TestCrash$' -count=1 -v | grep -E '^(---|ok|FAIL|\s+crash_test)'

echo "-- 1 GiB journal verified in <= 64 MiB peak memory (full read)"
go test -tags ledger1gib ./execledger -run '^TestVerify1GiB$' -count=1 -v -timeout 30m | grep -E '^(---|ok|FAIL|\s+big_test)'

echo "-- fuzz (short)"
# Budgets are execution counts, not durations: a duration budget can end
# while a worker is inside a slow input and report "context deadline
# exceeded" as a failure (seen once in CI), which says nothing about the
# code. Each count is about 10 s of wall on two idle cores, measured
# 2026-12-01 (load < 2): FuzzRead 40000x 11.9 s, FuzzAudit 50000x 8.4 s. The
# fast digest path, the chain-only verifier and the typed call-row path and
# their fuzz targets were removed by issue 11. The earlier counts
# took 27-57 s each (80000x of FuzzRead: 57 s): a fuzz run's executions get
# dearer as its corpus grows, so a count is not linear in time.
go test ./execledger -run '^$' -fuzz '^FuzzRead$' -fuzztime 40000x -fuzzminimizetime 2s
go test ./bundle -run '^$' -fuzz '^FuzzAudit$' -fuzztime 50000x -fuzzminimizetime 2s
# The one instant (issue 11: these replace engine's 300,000-iteration
# fast-path loops): Parse against package time, Format against package time
# and Parse. 50000x each is about 4 s of fuzzing (13 s with the build) under
# load 9, 2026-12-02.
go test ./internal/instant -run '^$' -fuzz '^FuzzParse$' -fuzztime 50000x -fuzzminimizetime 2s
go test ./internal/instant -run '^$' -fuzz '^FuzzFormat$' -fuzztime 50000x -fuzzminimizetime 2s

echo "-- CLI round trips"
bin=$(mktemp -d)/obaudit
go build -o "$bin" ./cmd/obaudit
up=../shared/upstream
"$bin" ledger verify "$up/artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson" >/dev/null
"$bin" bundle "$up/artifact8-fake-openai-reference-v1.json" "$up/artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson" >/dev/null
prefix=$(mktemp)
sed '1,3d' execledger/testdata/vectors/ledger/v3/ok-never-finalised.ndjson > "$prefix"
set +e
"$bin" ledger verify "$prefix" >/dev/null 2>&1; code=$?
set -e
[ "$code" -eq 2 ] || { echo "ledger verify of a prefix exited $code, want 2"; exit 1; }
echo "ledger step passed"
