package canon_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/obaudit/obaudit/canon"
)

// FuzzTransform checks, for arbitrary input: no panic; the streaming
// transform refuses exactly what the tree parser (or the RFC 8785 encoder)
// refuses; accepted input is canonicalised identically by both paths and by
// gowebpki/jcs (the oracle); the output is idempotent and decodes to the
// same value. Seed corpus: testdata/fuzz/FuzzTransform plus the vectors.
//
//	go test ./canon -run '^$' -fuzz FuzzTransform -fuzztime 60s
func FuzzTransform(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/input/*.json")
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, perr := canon.Parse(data)
		out, terr := canon.Transform(data)
		var eerr error
		if perr == nil {
			_, eerr = canon.JCS(tree)
		}
		// Transform refuses exactly what Parse refuses, plus values that
		// parse but have no RFC 8785 form (JCS(tree) refuses those).
		if (terr == nil) != (perr == nil && eerr == nil) {
			t.Fatalf("Parse err %v, JCS err %v, Transform err %v", perr, eerr, terr)
		}
		if perr != nil {
			// Both refuse; with several defects the two paths may stop at
			// different ones, so only the kind (a canon refusal) is compared.
			var te *canon.Error
			if !errors.As(terr, &te) {
				t.Fatalf("Transform refused with a non-canon error: %v", terr)
			}
			return
		}
		if terr != nil {
			var we, te *canon.Error
			if !errors.As(eerr, &we) || !errors.As(terr, &te) || we.Class != te.Class {
				t.Fatalf("refusal classes differ: JCS(tree) %v vs Transform %v", eerr, terr)
			}
		}
		for _, form := range []canon.Form{canon.UpstreamForm, canon.UpstreamSpacedForm} {
			up, err := canon.TransformForm(data, form)
			if err != nil {
				t.Fatalf("%s refused what Parse accepted: %v", form, err)
			}
			upTree, err := canon.Encode(tree, form)
			if err != nil || !bytes.Equal(up, upTree) {
				t.Fatalf("%s: stream %q, tree %q (%v)", form, up, upTree, err)
			}
			if again, err := canon.TransformForm(up, form); err != nil || !bytes.Equal(again, up) {
				t.Fatalf("%s not idempotent: %q -> %q (%v)", form, up, again, err)
			}
		}
		if terr != nil {
			return
		}
		enc, err := canon.JCS(tree)
		if err != nil || !bytes.Equal(enc, out) {
			t.Fatalf("JCS(Parse) = %q, %v; Transform = %q", enc, err, out)
		}
		want, err := jcs.Transform(data)
		if err != nil || !bytes.Equal(want, out) {
			t.Fatalf("gowebpki/jcs = %q, %v; Transform = %q", want, err, out)
		}
		again, err := canon.Transform(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
		}
	})
}
