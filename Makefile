# Convenience targets; CI runs .ci/run.
.PHONY: test fuzz bench ci

test:
	go test ./...

# The canonicaliser's fuzz target for 60 s (issue: no failure in 60 s).
fuzz:
	go test ./canon -run '^$$' -fuzz FuzzTransform -fuzztime 60s

bench:
	go test -run '^$$' -bench . -benchmem ./...

ci:
	bash .ci/run
