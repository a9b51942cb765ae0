// Package workpool runs a fixed number of calls at a time: the one worker
// pool of the gate and of campaign verify.
package workpool

import "sync"

// ForEach calls f(k) for every k from 0 to n-1, dispatched in that order,
// at most workers calls at a time (at least one), and returns when every
// call has returned. f is called from other goroutines: what it shares it
// guards.
func ForEach(workers, n int, f func(k int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for k := range work {
				f(k)
			}
		})
	}
	for k := range n {
		work <- k
	}
	close(work)
	wg.Wait()
}
