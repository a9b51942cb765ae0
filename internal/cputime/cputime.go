// Package cputime gives benchmarks this process's CPU time, which they
// report per operation beside wall time: on a shared, loaded machine wall
// time measures the neighbours as well, CPU time measures the code (GC
// workers and the code's own goroutines included).
//
// This package is imported only by tests.
package cputime

import (
	"testing"
	"time"
)

// Process returns this process's user+system CPU time so far (zero if the
// host cannot say: getrusage(2) is unix-only).
func Process() time.Duration { return process() }

// Report runs body as the benchmark loop (b.Loop) and reports the CPU time
// per iteration as the metric "cpu-ns/op".
func Report(b *testing.B, body func()) {
	start := Process()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	b.ReportMetric(float64(Process()-start)/float64(n), "cpu-ns/op")
}
