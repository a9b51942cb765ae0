package artefact_test

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// readSeeds are FuzzRead's inline seeds (TestSchemaOracle judges them too).
var readSeeds = []string{
	`{}`, `[]`, `null`, `{"artifact_version":8}`, `{"artifact_version":1}`,
	`{"artifact_version":8,"trajectory":[{"index":0}],"decisions":[{"outcome":{"kind":"ASK","wait":{"kind":"WAIT"}}}]}`,
}

// FuzzRead: no input makes the reader panic, and whatever it accepts it
// can re-encode (Encode validates again) for contract 8.
func FuzzRead(f *testing.F) {
	for _, s := range readSeeds {
		f.Add([]byte(s))
	}
	for _, name := range []string{fixtureDet, fixtureModel, fixtureV1} {
		if b, err := readIfPresent(name); err == nil {
			f.Add(b)
		}
	}
	opts := testOptions()
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := artefact.Read(b, opts)
		if err != nil {
			return
		}
		if doc.Version() == artefact.Version {
			if _, err := artefact.Encode(doc.Artefact, opts); err != nil {
				t.Fatalf("accepted a contract-8 document it cannot re-encode: %v", err)
			}
		}
	})
}

// FuzzValidateEdits applies one fuzzer-chosen edit (a path in a real
// artefact, an operation, a replacement value) and validates the result:
// the reader never panics, whatever it is handed.
func FuzzValidateEdits(f *testing.F) {
	f.Add(uint32(0), uint8(0), uint8(0), uint8(0))
	f.Add(uint32(12345), uint8(2), uint8(5), uint8(1))
	var bases []map[string]any
	var all [][][]step
	for _, name := range []string{fixtureDet, fixtureModel, fixtureV1} {
		b, err := readIfPresent(name)
		if err != nil {
			continue
		}
		v, err := canon.Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, v.(map[string]any))
		var ps [][]step
		paths(v, nil, &ps)
		all = append(all, ps)
	}
	if len(bases) == 0 {
		f.Skip("upstream fixtures not present")
	}
	opts := testOptions()
	f.Fuzz(func(t *testing.T, at uint32, op, repl, which uint8) {
		i := int(which) % len(bases)
		d := artefact.Clone(bases[i]).(map[string]any)
		p := all[i][int(at)%len(all[i])]
		last := p[len(p)-1]
		parent := parentOf(d, p)
		switch {
		case op%3 == 0 && !last.arr:
			delete(parent.(map[string]any), last.key)
		case op%3 == 1 && !last.arr:
			parent.(map[string]any)["zz"] = artefact.Clone(replacements[int(repl)%len(replacements)])
		default:
			r := artefact.Clone(replacements[int(repl)%len(replacements)])
			if last.arr {
				parent.([]any)[last.i] = r
			} else {
				parent.(map[string]any)[last.key] = r
			}
		}
		if op&4 != 0 {
			upstreamtest.Reseal(t, d)
		}
		artefact.Validate(d, opts)
	})
}
