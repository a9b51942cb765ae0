package artefact_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
)

// SameCanonical is exactly equality of upstream canonical bytes: checked
// on hand-picked near misses and on seeded random edits of real artefacts.
func TestSameCanonicalIsCanonicalByteEquality(t *testing.T) {
	// agree holds SameCanonical(a, b) to canonical-byte equality; baseBytes,
	// when not nil, are a's canonical bytes (the unedited base, encoded once).
	var baseBytes []byte
	agree := func(a, b any) {
		t.Helper()
		x, errX := baseBytes, error(nil)
		if x == nil {
			x, errX = canon.Upstream(a)
		}
		y, errY := canon.Upstream(b)
		want := errX == nil && errY == nil && bytes.Equal(x, y)
		if got := artefact.SameCanonical(a, b); got != want {
			t.Errorf("SameCanonical(%v, %v) = %v; canonical bytes equal = %v", a, b, got, want)
		}
	}
	negZero := math.Copysign(0, -1)
	for _, p := range [][2]any{
		{int64(1), 1.0}, {1.0, 1.0}, {0.0, negZero}, {negZero, negZero}, {int64(1), 1}, {true, int64(1)},
		{nil, map[string]any{}}, {[]any{}, map[string]any{}}, {"a", "a"}, {"a", "b"}, {"\xff", "\xff"},
		{int64(1 << 53), int64(1 << 53)}, {map[string]any{"a": nil}, map[string]any{"b": nil}},
		{map[string]any{"a": int64(1)}, map[string]any{"a": int64(1), "b": int64(2)}},
		{[]any{int64(1), int64(2)}, []any{int64(2), int64(1)}}, {math.Inf(1), math.Inf(1)},
	} {
		agree(p[0], p[1])
		agree(p[1], p[0])
	}
	rng := rand.New(rand.NewChaCha8([32]byte{'s', 'a', 'm', 'e'}))
	for _, name := range []string{fixtureDet, fixtureModel, fixtureV1} {
		base := tree(t, name)
		baseBytes = nil
		agree(base, artefact.Clone(base))
		var err error
		if baseBytes, err = canon.Upstream(base); err != nil {
			t.Fatal(err)
		}
		var all [][]step
		paths(base, nil, &all)
		for n := 0; n < 150; n++ {
			d := artefact.Clone(base).(map[string]any)
			p := all[rng.IntN(len(all))]
			last := p[len(p)-1]
			parent := parentOf(d, p)
			r := artefact.Clone(replacements[rng.IntN(len(replacements))])
			if last.arr {
				parent.([]any)[last.i] = r
			} else {
				parent.(map[string]any)[last.key] = r
			}
			agree(base, d)
		}
		baseBytes = nil
	}
}
