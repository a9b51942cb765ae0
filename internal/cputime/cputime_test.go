//go:build unix

package cputime_test

import (
	"testing"

	"github.com/obaudit/obaudit/internal/cputime"
)

// TestProcessAdvances: work done on this goroutine shows up as CPU time.
func TestProcessAdvances(t *testing.T) {
	start := cputime.Process()
	if start <= 0 {
		t.Fatalf("Process() = %v at start, want a positive CPU time", start)
	}
	x := uint64(1)
	for cputime.Process() == start {
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if got := cputime.Process(); got <= start {
		t.Fatalf("Process() = %v after work, want more than %v (x=%d)", got, start, x)
	}
}

func BenchmarkReport(b *testing.B) {
	cputime.Report(b, func() { _ = cputime.Process() })
}
