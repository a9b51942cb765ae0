package jsonfield_test

import (
	"slices"
	"testing"

	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

var (
	errBad          = refusal.Sentinel("fieldtest/bad-field")
	errUnknown      = refusal.Sentinel("fieldtest/unknown-value")
	errUnknownField = refusal.Sentinel("fieldtest/unknown-field")
	errMissingField = refusal.Sentinel("fieldtest/missing-field")
)

var reader = &jsonfield.Reader{Bad: errBad, Unknown: errUnknown, UnknownField: errUnknownField, MissingField: errMissingField, Whole: "/"}

func TestRules(t *testing.T) {
	set := []string{"A", "B"}
	ok := refusal.Class("")
	tests := []struct {
		name string
		run  func() error
		want refusal.Class
	}{
		{"object", func() error { _, err := reader.Object(map[string]any{}, "/x"); return err }, ok},
		{"object of array", func() error { _, err := reader.Object([]any{}, "/x"); return err }, errBad.Class},
		{"array", func() error { _, err := reader.Array([]any{}, "/x"); return err }, ok},
		{"array of null", func() error { _, err := reader.Array(nil, "/x"); return err }, errBad.Class},
		{"string empty", func() error { return reader.String("", "/x") }, ok},
		{"string of int", func() error { return reader.String(int64(1), "/x") }, errBad.Class},
		{"text", func() error { return reader.Text("a", "/x") }, ok},
		{"text empty", func() error { return reader.Text("", "/x") }, errBad.Class},
		{"text of null", func() error { return reader.Text(nil, "/x") }, errBad.Class},
		{"opt text null", func() error { return reader.OptText(nil, "/x") }, ok},
		{"opt text empty", func() error { return reader.OptText("", "/x") }, errBad.Class},
		{"text list", func() error { return reader.TextList([]any{"a", "b"}, "/x") }, ok},
		{"text list item empty", func() error { return reader.TextList([]any{"a", ""}, "/x") }, errBad.Class},
		{"text list of object", func() error { return reader.TextList(map[string]any{}, "/x") }, errBad.Class},
		{"flag", func() error { return reader.Flag(false, "/x") }, ok},
		{"flag of string", func() error { return reader.Flag("true", "/x") }, errBad.Class},
		{"int at minimum", func() error { _, err := reader.Int(int64(1), "/x", 1); return err }, ok},
		{"int below minimum", func() error { _, err := reader.Int(int64(0), "/x", 1); return err }, errBad.Class},
		{"int of bool", func() error { _, err := reader.Int(true, "/x", 0); return err }, errBad.Class},
		{"int of float", func() error { _, err := reader.Int(1.0, "/x", 0); return err }, errBad.Class},
		{"member", func() error { return reader.Member("A", set, "/x") }, ok},
		{"member of int", func() error { return reader.Member(int64(1), set, "/x") }, errUnknown.Class},
		{"member outside", func() error { return reader.Member("C", set, "/x") }, errUnknown.Class},
		{"one of int", func() error { return reader.OneOf(int64(1), set, "/x") }, errBad.Class},
		{"one of empty", func() error { return reader.OneOf("", set, "/x") }, errUnknown.Class},
		{"text one of empty", func() error { return reader.TextOneOf("", set, "/x") }, errBad.Class},
		{"text one of outside", func() error { return reader.TextOneOf("C", set, "/x") }, errUnknown.Class},
		{"text one of", func() error { return reader.TextOneOf("B", set, "/x") }, ok},
		{"instant", func() error { _, err := reader.Instant("2026-02-28T23:59:59Z", "/x"); return err }, ok},
		{"instant impossible", func() error { _, err := reader.Instant("2026-02-31T00:00:00Z", "/x"); return err }, errBad.Class},
		{"instant unpadded", func() error { _, err := reader.Instant("2026-2-28T00:00:00Z", "/x"); return err }, errBad.Class},
		{"instant of int", func() error { _, err := reader.Instant(int64(0), "/x"); return err }, errBad.Class},
		{"opt instant null", func() error { return reader.OptInstant(nil, "/x") }, ok},
		{"opt instant bad", func() error { return reader.OptInstant("soon", "/x") }, errBad.Class},
		{"exact", func() error { return reader.Exact(map[string]any{"a": 1, "b": 2}, []string{"b", "a"}, "/x") }, ok},
		{"exact unknown", func() error { return reader.Exact(map[string]any{"a": 1, "c": 2}, []string{"a", "b"}, "/x") }, errUnknownField.Class},
		{"exact missing", func() error { return reader.Exact(map[string]any{"a": 1}, []string{"a", "b"}, "/x") }, errMissingField.Class},
	}
	for _, tc := range tests {
		if got := refusal.Of(tc.run()); got != tc.want {
			t.Errorf("%s: class %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRefusalPointers holds where each refusal says it is.
func TestRefusalPointers(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{reader.TextList([]any{"a", 7}, "/list"), "/list/1"},
		{reader.Exact(map[string]any{"a": 1, "z/~": 2, "y": 3}, []string{"a"}, "/obj"), "/obj/y"},
		{reader.Exact(map[string]any{"a/b": 1}, []string{"c"}, "/obj"), "/obj/a~1b"},
		{reader.Exact(map[string]any{}, []string{"c"}, "/obj"), "/obj"},
		{reader.Flag(nil, ""), ""},
	}
	for i, tc := range tests {
		if p, ok := jsonfield.PointerOf(tc.err); !ok || p != tc.want {
			t.Errorf("%d: %v: pointer %q (%t), want %q", i, tc.err, p, ok, tc.want)
		}
	}
	// A refusal that wraps a reader's keeps its pointer; an error that
	// carries none has none, and a reader with At builds its own.
	wrapped := refusal.Because(errBad, reader.Flag(nil, "/x"), "wrapped")
	if p, ok := jsonfield.PointerOf(wrapped); !ok || p != "/x" {
		t.Errorf("wrapped: pointer %q (%t)", p, ok)
	}
	if _, ok := jsonfield.PointerOf(refusal.New(errBad, "no pointer")); ok {
		t.Error("a refusal with no pointer has one")
	}
	own := &jsonfield.Reader{Bad: errBad, At: func(class *refusal.Refusal, _, format string, args ...any) error {
		return refusal.New(errUnknown, format, args...)
	}}
	if err := own.Flag(nil, "/x"); refusal.Of(err) != errUnknown.Class {
		t.Errorf("At is not the reader's refusal: %v", err)
	} else if _, ok := jsonfield.PointerOf(err); ok {
		t.Error("a refusal At built carries the reader's pointer")
	}
}

func TestPointers(t *testing.T) {
	if got := jsonfield.Key("/a", "b~c/d"); got != "/a/b~0c~1d" {
		t.Errorf("Key: %q", got)
	}
	if got := jsonfield.Index("/a", 12); got != "/a/12" {
		t.Errorf("Index: %q", got)
	}
}

// TestExactAllocatesNothing: the check of every object a reader reads costs
// no allocation when the object holds.
func TestExactAllocatesNothing(t *testing.T) {
	m := map[string]any{"a": 1, "b": 2, "c": 3}
	fields := []string{"a", "b", "c"}
	if n := testing.AllocsPerRun(100, func() { _ = reader.Exact(m, fields, "/x") }); n != 0 {
		t.Errorf("Exact allocates %v times for an object that holds", n)
	}
}

func TestKeySets(t *testing.T) {
	m := map[string]any{"d": 1, "a": 2, "c": 3}
	fields := []string{"c", "b", "a", "e"}
	if got := jsonfield.Unknown(m, fields); !slices.Equal(got, []string{"d"}) {
		t.Errorf("Unknown: %q", got)
	}
	if got := jsonfield.Missing(m, fields); !slices.Equal(got, []string{"b", "e"}) {
		t.Errorf("Missing: %q", got)
	}
	held := []string{"a", "c", "d"}
	if got := jsonfield.Unknown(m, held); got != nil {
		t.Errorf("Unknown of a held set: %q", got)
	}
	if got := jsonfield.Missing(m, held); got != nil {
		t.Errorf("Missing of a held set: %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = jsonfield.Unknown(m, held), jsonfield.Missing(m, held) }); n != 0 {
		t.Errorf("Unknown and Missing allocate %v times for a held set", n)
	}
}
