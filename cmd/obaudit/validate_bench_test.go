package main

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

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
			start, n := cpuTime(), 0
			for b.Loop() {
				if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
					b.Fatalf("obaudit validate exited %d", code)
				}
				n++
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
		})
	}
}

// cpuTime is this process's user+system CPU time: on a shared machine wall
// time measures the neighbours as well, CPU time the code (GC workers and
// the schema's second goroutine included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
