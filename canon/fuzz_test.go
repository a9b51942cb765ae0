package canon_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
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
			if up, err := canon.TransformForm(b, canon.UpstreamForm); err == nil {
				f.Add(append(up, '\n'))
			}
		}
	}
	for _, s := range []string{`{"a":-0}` + "\n", `{"b":1,"a":2}` + "\n", `{"a":"\u0041"}` + "\n", `{"a":"\n\u001f\"é"}` + "\n",
		`{"a":1.0,"b":[1e+100,{"d":{},"c":[]}]}` + "\n", `{"a":1.00}` + "\n", `{"a":1}`, `{"a":1}` + "\n\n", `[1]` + "\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, perr := canon.Parse(data)
		// ParseCanonical reads what Parse reads, and finds data canonical
		// exactly when it is the upstream encoding of an object plus "\n",
		// each member's bytes then that member's encoding.
		ctree, members, cerr := canon.ParseCanonical(data)
		if (cerr == nil) != (perr == nil) || perr == nil && !reflect.DeepEqual(ctree, tree) {
			t.Fatalf("ParseCanonical = %v, %v; Parse = %v, %v", ctree, cerr, tree, perr)
		}
		if perr == nil {
			up, err := canon.Upstream(tree)
			obj, isObj := tree.(map[string]any)
			if want := err == nil && isObj && string(up)+"\n" == string(data); want != (members != nil) {
				t.Fatalf("ParseCanonical(%q) canonical = %v, want %v", data, members != nil, want)
			}
			for k, b := range members {
				if want, _ := canon.Upstream(obj[k]); !bytes.Equal(b, want) || len(members) != len(obj) {
					t.Fatalf("member %q is %q, want %q", k, b, want)
				}
			}
		}
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
