package refusal

import "slices"

// What only the tests use.

// Classes returns every registered class, sorted.
func Classes() []Class {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Class, 0, len(registry))
	for c := range registry {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
