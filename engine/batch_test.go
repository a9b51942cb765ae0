package engine

import "testing"

// TestPlainBatchAgreesWithFull holds the argument-free fast path of
// batchProblem to the full upstream check sequence.
func TestPlainBatchAgreesWithFull(t *testing.T) {
	cat := map[string]CatalogueEntry{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", ""} {
		cat[n] = CatalogueEntry{Arguments: map[string]any{"k": "string"}}
	}
	x := &execution{static: &Static{Catalogue: cat}}
	reqs := func(tools ...string) *Retrieve {
		r := &Retrieve{}
		for _, t := range tools {
			r.Requests = append(r.Requests, Request{Tool: t})
		}
		return r
	}
	withArgs := reqs("a", "b")
	withArgs.Requests[1].Arguments = map[string]any{"k": "v"}
	conflict := reqs("a", "a")
	conflict.Requests[0].Arguments = map[string]any{"k": "v"}
	for _, b := range []*Retrieve{
		reqs(), reqs("a"), reqs("b", "a", "b"), reqs(""), reqs("a", ""), reqs("zz"), reqs("a", "zz"),
		reqs("a", "b", "c", "d", "e", "f", "g", "h"), reqs("a", "b", "c", "d", "e", "f", "g", "h", "i"),
		reqs("a", "b", "c", "d", "e", "f", "g", "h", "a", "b"), withArgs, conflict,
		{Requests: []Request{{Tool: "a", Arguments: map[string]any{}}}},
	} {
		for _, remaining := range []int{-1, 0, 1, 6} {
			gc, gd := x.batchProblem(b, remaining)
			wc, wd := x.fullBatchProblem(b, remaining)
			if gc != wc || gd != wd {
				t.Errorf("%v remaining %d: got %s %q, want %s %q", b.Requests, remaining, gc, gd, wc, wd)
			}
		}
	}
}
