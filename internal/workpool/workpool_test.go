package workpool

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestForEach: every index is called exactly once, never more than
// workers at a time, and ForEach returns only after the last call.
func TestForEach(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 16} {
		const n = 200
		var mu sync.Mutex
		seen := make([]int, n)
		var running, peak, done atomic.Int64
		ForEach(workers, n, func(k int) {
			r := running.Add(1)
			for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
			}
			mu.Lock()
			seen[k]++
			mu.Unlock()
			running.Add(-1)
			done.Add(1)
		})
		if done.Load() != n {
			t.Fatalf("workers %d: ForEach returned after %d of %d calls", workers, done.Load(), n)
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("workers %d: index %d called %d times", workers, k, c)
			}
		}
		if limit := int64(max(workers, 1)); peak.Load() > limit {
			t.Fatalf("workers %d: %d calls ran at once", workers, peak.Load())
		}
	}
}
