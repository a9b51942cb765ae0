package jsonfield_test

import (
	"math"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// TestTreeRules holds each tree rule to what it accepts, and to the class
// and the pointer of what it refuses.
func TestTreeRules(t *testing.T) {
	r, f := reader, jsonfield.Field
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	record := r.Closed(f("b", r.Flag), f("a", r.Text))
	open := r.Open(f("n", r.Integer(0, math.MaxInt64)))
	digest := r.Hex("", 4)
	ok := refusal.Class("")
	tests := []struct {
		name  string
		rule  jsonfield.Rule
		x     any
		want  refusal.Class
		where string // the refusal's pointer
	}{
		{"closed", record, obj("a", "x", "b", true), ok, ""},
		{"closed not an object", record, []any{}, errBad.Class, "/p"},
		{"closed unknown before missing and bad", record, obj("b", "no", "c", 1), errUnknownField.Class, "/p/c"},
		{"closed missing before bad", record, obj("b", "no"), errMissingField.Class, "/p"},
		{"closed members in order", record, obj("a", "", "b", "no"), errBad.Class, "/p/b"},
		{"closed member", record, obj("a", "", "b", true), errBad.Class, "/p/a"},
		{"open other keys free", open, obj("n", int64(0), "z", nil), ok, ""},
		{"open missing", open, obj("z", nil), errMissingField.Class, "/p"},
		{"open member", open, obj("n", int64(-1)), errBad.Class, "/p/n"},
		{"open of nothing is any object", r.Open(), obj("k", []any{}), ok, ""},
		{"open of nothing of a string", r.Open(), "{}", errBad.Class, "/p"},
		{"list", r.List(r.Text), []any{"a", "b"}, ok, ""},
		{"list empty", r.List(r.Text), []any{}, ok, ""},
		{"list item", r.List(r.Text), []any{"a", ""}, errBad.Class, "/p/1"},
		{"list of object", r.List(r.Text), obj(), errBad.Class, "/p"},
		{"distinct", r.Distinct(r.String), []any{"a", "", "b"}, ok, ""},
		{"distinct repeat", r.Distinct(r.String), []any{"a", "b", "a"}, errBad.Class, "/p/2"},
		{"distinct item before a later repeat", r.Distinct(digest), []any{"00ff", "00FF", "00ff"}, errBad.Class, "/p/1"},
		{"distinct of non-strings", r.Distinct(r.OptText), []any{nil}, errBad.Class, "/p/0"},
		{"keyed", r.Keyed(digest, r.Enum("x")), obj("00ff", "x", "abcd", "x"), ok, ""},
		{"keyed key", r.Keyed(digest, r.Enum("x")), obj("0/ff", "x"), errBad.Class, "/p/0~1ff"},
		{"keyed value, keys in order", r.Keyed(digest, r.Enum("x")), obj("abcd", "y", "00ff", "y"), errUnknown.Class, "/p/00ff"},
		{"or null of null", jsonfield.OrNull(r.Text), nil, ok, ""},
		{"or null of the rule's", jsonfield.OrNull(r.Text), "", errBad.Class, "/p"},
		{"null", r.Null, nil, ok, ""},
		{"null of zero", r.Null, int64(0), errBad.Class, "/p"},
		{"enum", r.Enum("a", "b"), "b", ok, ""},
		{"enum outside", r.Enum("a", "b"), "c", errUnknown.Class, "/p"},
		{"enum of a non-string", r.Enum("1"), int64(1), errUnknown.Class, "/p"},
		{"integer at its bounds", r.Integer(1, 8), int64(8), ok, ""},
		{"integer below", r.Integer(1, 8), int64(0), errBad.Class, "/p"},
		{"integer above", r.Integer(1, 8), int64(9), errBad.Class, "/p"},
		{"integer integral float", r.Integer(1, 8), 8.0, errBad.Class, "/p"},
		{"integer boolean", r.Integer(0, 1), true, errBad.Class, "/p"},
		{"integer a constant", r.Integer(1, 1), int64(1), ok, ""},
		{"integer unbounded", r.Integer(math.MinInt64, math.MaxInt64), int64(math.MinInt64), ok, ""},
		{"chars at the bound in code points", r.Chars(1, 3), "é𝄞x", ok, ""},
		{"chars past the bound", r.Chars(1, 3), "éé𝄞x", errBad.Class, "/p"},
		{"chars empty", r.Chars(1, 3), "", errBad.Class, "/p"},
		{"chars of a non-string", r.Chars(0, 3), nil, errBad.Class, "/p"},
		{"match", r.Match("a", func(s string) bool { return s == "a" }), "a", ok, ""},
		{"match refused", r.Match("a", func(s string) bool { return s == "a" }), "b", errBad.Class, "/p"},
		{"match of a non-string", r.Match("any", func(string) bool { return true }), int64(1), errBad.Class, "/p"},
		{"hex", r.Hex("x_", 4), "x_09af", ok, ""},
		{"hex upper case", r.Hex("x_", 4), "x_09AF", errBad.Class, "/p"},
		{"hex short", r.Hex("x_", 4), "x_09a", errBad.Class, "/p"},
		{"hex not hex", r.Hex("x_", 4), "x_09ag", errBad.Class, "/p"},
		{"hex no prefix", r.Hex("x_", 4), "09af", errBad.Class, "/p"},
		{"hex non-ASCII", r.Hex("", 2), "é", errBad.Class, "/p"},
	}
	for _, tc := range tests {
		err := tc.rule(tc.x, "/p")
		if got := refusal.Of(err); got != tc.want {
			t.Errorf("%s: class %q, want %q (%v)", tc.name, got, tc.want, err)
			continue
		}
		if err == nil {
			continue
		}
		if p, ok := jsonfield.PointerOf(err); !ok || p != tc.where {
			t.Errorf("%s: pointer %q (%t), want %q", tc.name, p, ok, tc.where)
		}
	}
}

func TestIsLowerHex(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want bool
	}{{"", 0, true}, {"0a", 2, true}, {"0A", 2, false}, {"0a", 3, false}, {"0g", 2, false}, {strings.Repeat("f", 64), 64, true}} {
		if got := jsonfield.IsLowerHex(tc.s, tc.n); got != tc.want {
			t.Errorf("IsLowerHex(%q, %d) = %t", tc.s, tc.n, got)
		}
	}
}

// TestRuleAllocations: a declared record that holds costs no allocation
// but its members' pointers (one a member at most), never a refusal's
// detail.
func TestRuleAllocations(t *testing.T) {
	rule := reader.Closed(jsonfield.Field("a", reader.Integer(0, 9)), jsonfield.Field("b", reader.Hex("", 2)))
	v := map[string]any{"a": int64(1), "b": "ff"}
	if err := rule(v, "/r"); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = rule(v, "/r") }); n > 2 {
		t.Errorf("a record of two members that holds allocates %v times", n)
	}
}
