package main

import (
	"context"
	"io"
	"testing"

	"github.com/obaudit/obaudit/internal/cputime"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// BenchmarkValidate times `obaudit validate FILE` in-process, exactly as
// the command runs it (everything but starting the process): the command
// line parsed, the 220 KB V1 reference artefact read from disk, the strict
// read with every named check of contract 8, the maintenance pack's
// final-state validator, the three digests and the canonical-form check,
// the published JSON Schema concurrently with them, and the report
// written. The fake-provider (model) artefact is the second case.
func BenchmarkValidate(b *testing.B) {
	for _, name := range []string{"artifact8-deterministic-reference-v1.json", "artifact8-fake-openai-reference-v1.json"} {
		b.Run(name, func(b *testing.B) {
			path := upstreamtest.Path(b, name)
			args := []string{"validate", path}
			if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
				b.Fatalf("obaudit validate exited %d", code)
			}
			b.ReportAllocs()
			cputime.Report(b, func() {
				if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
					b.Fatalf("obaudit validate exited %d", code)
				}
			})
		})
	}
}
