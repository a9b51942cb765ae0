package artefact_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// leaves lists every JSON pointer-like path (as a step list) in a tree.
type step struct {
	key string
	i   int
	arr bool
}

func paths(x any, prefix []step, out *[][]step) {
	switch v := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(mapsKeys(v)) {
			p := append(slices.Clone(prefix), step{key: k})
			*out = append(*out, p)
			paths(v[k], p, out)
		}
	case []any:
		for i, e := range v {
			p := append(slices.Clone(prefix), step{i: i, arr: true})
			*out = append(*out, p)
			paths(e, p, out)
		}
	}
}

func parentOf(root any, p []step) any {
	cur := root
	for _, s := range p[:len(p)-1] {
		if s.arr {
			cur = cur.([]any)[s.i]
		} else {
			cur = cur.(map[string]any)[s.key]
		}
	}
	return cur
}

var replacements = []any{
	nil, true, false, "", "x", "2031-03-03T09:00:00Z", int64(-1), int64(0), int64(1), int64(7), 1.5,
	[]any{}, []any{"x"}, map[string]any{}, map[string]any{"k": "v"},
}

// randomEdits returns seeded single edits of the real contract-8
// artefacts (a value replaced by another JSON value, a key deleted or
// added), resealed, for TestSchemaOracle.
func randomEdits(t *testing.T) []map[string]any {
	rng := rand.New(rand.NewChaCha8([32]byte{'o', 'b', 'a', 'u', 'd', 'i', 't'}))
	const perFixture = 40
	var out []map[string]any
	for _, name := range []string{fixtureDet, fixtureModel} {
		base := tree(t, name)
		var all [][]step
		paths(base, nil, &all)
		for range perFixture {
			d := artefact.Clone(base).(map[string]any)
			p := all[rng.IntN(len(all))]
			last := p[len(p)-1]
			parent := parentOf(d, p)
			switch op := rng.IntN(4); {
			case op == 0 && !last.arr:
				delete(parent.(map[string]any), last.key)
			case op == 1 && !last.arr:
				parent.(map[string]any)["zz_added"] = "x"
			default:
				r := artefact.Clone(replacements[rng.IntN(len(replacements))])
				if last.arr {
					parent.([]any)[last.i] = r
				} else {
					parent.(map[string]any)[last.key] = r
				}
			}
			upstreamtest.Reseal(t, d)
			out = append(out, d)
		}
	}
	return out
}
