package strictyaml_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/internal/strictyaml"
	"github.com/obaudit/obaudit/refusal"
)

var (
	errMalformed = refusal.Sentinel("strictyamltest/malformed")
	errDuplicate = refusal.Sentinel("strictyamltest/duplicate-key")
	errPlain     = refusal.Sentinel("strictyamltest/plain")
)

// reader reads plain scalars as text, except "refuse", which Plain refuses,
// and "one", which it reads as the number 1.
func reader(mergeKeys bool) *strictyaml.Reader {
	return &strictyaml.Reader{
		Malformed: errMalformed, DuplicateKey: errDuplicate, MaxDepth: 3, RefuseMergeKeys: mergeKeys,
		Plain: func(s, pos string) (any, error) {
			if s == "refuse" {
				return nil, refusal.New(errPlain, "%s: refused", pos)
			}
			if s == "one" {
				return int64(1), nil
			}
			return s, nil
		},
	}
}

func TestRead(t *testing.T) {
	got, err := reader(true).Read([]byte("a: one\nb: 'one'\nc: [\"one\", x]\nd:\n  e: |\n    lit\n  f: >\n    fold\n"), "doc")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "b": "one", "c": []any{"one", "x"}, "d": map[string]any{"e": "lit\n", "f": "fold\n"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %#v, want %#v", got, want)
	}
}

func TestRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		doc       string
		mergeKeys bool
		want      *refusal.Refusal
	}{
		"empty":               {"", true, errMalformed},
		"not yaml":            {"a: [", true, errMalformed},
		"two documents":       {"a: b\n---\nc: d\n", true, errMalformed},
		"not a mapping":       {"- a\n", true, errMalformed},
		"anchor":              {"a: &x b\n", true, errMalformed},
		"alias":               {"a: &x b\nc: *x\n", true, errMalformed},
		"tag":                 {"a: !!str b\n", true, errMalformed},
		"complex key":         {"? [a]\n: b\n", true, errMalformed},
		"non-string key":      {"one: a\n", true, errMalformed},
		"too deep":            {"a: [[[[b]]]]\n", true, errMalformed},
		"merge key":           {"<<: {a: b}\n", true, errMalformed},
		"duplicate key":       {"a: b\na: c\n", true, errDuplicate},
		"plain refusal":       {"a: refuse\n", true, errPlain},
		"plain refusal (key)": {"refuse: a\n", true, errPlain},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := reader(tc.mergeKeys).Read([]byte(tc.doc), name)
			if refusal.Of(err) != tc.want.Class {
				t.Fatalf("Read(%q) = %v, want %s", tc.doc, err, tc.want.Class)
			}
		})
	}
}

func TestMergeKeysAllowed(t *testing.T) {
	if got, err := reader(true).Read([]byte("'<<': a\n"), "doc"); err != nil || got["<<"] != "a" {
		t.Fatalf("Read(quoted <<) = %v, %v; a quoted << is a key", got, err)
	}
	if got, err := reader(false).Read([]byte("<<: a\n"), "doc"); err != nil || got["<<"] != "a" {
		t.Fatalf("Read(<< without RefuseMergeKeys) = %v, %v", got, err)
	}
}

func TestDuplicateKeyDefaultsToMalformed(t *testing.T) {
	r := reader(true)
	r.DuplicateKey = nil
	if _, err := r.Read([]byte("a: b\na: c\n"), "doc"); !errors.Is(err, errMalformed) {
		t.Fatalf("Read(duplicate, no DuplicateKey class) = %v, want %s", err, errMalformed.Class)
	}
}

func TestType11(t *testing.T) {
	for s, want := range map[string]string{
		"": "null", "~": "null", "null": "null", "NULL": "null",
		"yes": "boolean", "Off": "boolean", "TRUE": "boolean",
		"0": "integer", "-12": "integer", "0x1F": "integer", "017": "integer", "0b101": "integer", "1_000": "integer", "1:30": "integer", "0o17": "integer",
		"1.5": "float", ".5": "float", "1e5": "float", "1.0e+3": "float", ".inf": "float", "-.Inf": "float", ".nan": "float", "1:30.5": "float",
		"2031-03-03": "timestamp", "2031-3-3 9:00:00": "timestamp", "2031-03-03T09:00:00Z": "timestamp",
		"text": "", "y": "", "0x": "", "1.2.3": "", "2031-03-03T09:00": "",
		"Null": "null", "On": "boolean", "+1": "integer", "+.5": "float", "-.5e3": "float", "0o": "",
		"-": "", "~x": "", "nulls": "", "o": "", "TRue": "", "x1": "", " 1": "", "_1": "",
	} {
		if got := strictyaml.Type11(s); got != want {
			t.Errorf("Type11(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestSizeBoundBeforeParse: a document over limits.MaxYAMLBytes is refused
// as limits/exceeded without being parsed (here it is not even YAML).
func TestSizeBoundBeforeParse(t *testing.T) {
	b := make([]byte, limits.MaxYAMLBytes+1)
	for i := range b {
		b[i] = '['
	}
	_, err := reader(false).Read(b, "big.yaml")
	if c, _ := refusal.ClassOf(err); c != limits.ErrExceeded.Class {
		t.Fatalf("Read(%d bytes) = %v, want %s", len(b), err, limits.ErrExceeded.Class)
	}
	ok := []byte("a: b\n")
	if _, err := reader(false).Read(ok, "small.yaml"); err != nil {
		t.Fatal(err)
	}
}
