package episode_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user+system CPU time. Benchmarks report it per
// operation beside wall time: on a shared, loaded machine wall time
// measures the neighbours, CPU time measures the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU wraps a benchmark loop body and reports cpu-ns/op.
func reportCPU(b *testing.B, body func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
}
