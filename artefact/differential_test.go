package artefact_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/artefact/schema"
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

// TestNamedChecksCoverSchema is a seeded differential test between the two
// engines: for random single edits of the real artefacts (a value replaced
// by another JSON value, a key deleted or added), whenever the published
// JSON Schema refuses the result the named checks refuse it too. Together
// with TestSchemaRefusesShapeMutations this is the evidence that skipping
// the schema pass by default loses no coverage.
func TestNamedChecksCoverSchema(t *testing.T) {
	rng := rand.New(rand.NewChaCha8([32]byte{'o', 'b', 'a', 'u', 'd', 'i', 't'}))
	const perFixture = 120
	for _, name := range []string{fixtureDet, fixtureModel} {
		base := tree(t, name)
		var all [][]step
		paths(base, nil, &all)
		refusedBySchema := 0
		for n := 0; n < perFixture; n++ {
			d := artefact.Clone(base).(map[string]any)
			p := all[rng.IntN(len(all))]
			last := p[len(p)-1]
			parent := parentOf(d, p)
			var what string
			switch op := rng.IntN(4); {
			case op == 0 && !last.arr:
				delete(parent.(map[string]any), last.key)
				what = "delete"
			case op == 1 && !last.arr:
				parent.(map[string]any)["zz_added"] = "x"
				what = "add key"
			default:
				r := artefact.Clone(replacements[rng.IntN(len(replacements))])
				if last.arr {
					parent.([]any)[last.i] = r
				} else {
					parent.(map[string]any)[last.key] = r
				}
				what = "replace"
			}
			upstreamtest.Reseal(t, d)
			if schema.Check(d) == nil {
				continue
			}
			refusedBySchema++
			if _, err := artefact.Validate(d, testOptions()); err == nil {
				t.Errorf("%s: %s at %v: the schema refuses it and the named checks accept it", name, what, p)
			}
		}
		t.Logf("%s: %d of %d random edits violate the schema", name, refusedBySchema, perFixture)
		if refusedBySchema < perFixture/4 {
			t.Errorf("%s: only %d of %d random edits were schema violations; the generator lost its teeth", name, refusedBySchema, perFixture)
		}
	}
}
