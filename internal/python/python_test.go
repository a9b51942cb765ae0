package python_test

import (
	"math"
	"testing"

	"github.com/obaudit/obaudit/internal/python"
)

// The expectations are what CPython 3 prints.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"work_cycle_1": "'work_cycle_1'", "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "tab\t": `'tab\t'`, `back\`: `'back\\'`,
		"nl\ncr\r": `'nl\ncr\r'`, "\x00\x1f\x7f": `'\x00\x1f\x7f'`, "\u0085": `'\x85'`, "\u00a0": `'\xa0'`, "\u00ad": `'\xad'`,
		"é日本": "'é日本'", "\u200b": `'\u200b'`, "\u2028": `'\u2028'`, "\U000e0001": `'\U000e0001'`, "😀": "'😀'", "": "''",
	} {
		if got := python.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := python.StrList([]string{"a", "it's"}); got != `['a', "it's"]` {
		t.Errorf("StrList = %s", got)
	}
	if got := python.StrList(nil); got != "[]" {
		t.Errorf("StrList(nil) = %s", got)
	}
}

func TestLooseQuote(t *testing.T) {
	for in, want := range map[string]string{
		"work_cycle_1": "'work_cycle_1'", "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "tab\t": `'tab\t'`, `back\`: `'back\\'`,
		"\x00\x1f\x7f": `'\x00\x1f\x7f'`, "\u0085": `'\x85'`, "é日本": "'é日本'",
		// Where Loose departs from CPython: other non-printables are written as they are.
		"\u00a0": "'\u00a0'", "\u200b": "'\u200b'", "\ufffd": "'\ufffd'",
	} {
		if got := python.Loose.Quote(in); got != want {
			t.Errorf("Loose.Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := python.Loose.StrList([]string{"a", "b"}); got != "['a', 'b']" {
		t.Errorf("Loose.StrList = %s", got)
	}
	if got := python.Loose.StrList(nil); got != "[]" {
		t.Errorf("Loose.StrList(nil) = %s", got)
	}
}

func TestRepr(t *testing.T) {
	tree := map[string]any{"b": []any{int64(1), 2.5, nil, true, 30.0}, "a": "x", "c": map[string]any{}, "d": []string{"s"}, "e": 7}
	for _, tc := range []struct {
		name      string
		got, want string
	}{
		{"Repr(tree)", python.Repr(tree), "{'a': 'x', 'b': [1, 2.5, None, True, 30.0], 'c': {}, 'd': ['s'], 'e': 7}"},
		{"Loose.Repr(tree)", python.Loose.Repr(tree), "{'a': 'x', 'b': [1, 2.5, None, True, 30], 'c': {}, 'd': ['s'], 'e': 7}"},
		{"Repr(false)", python.Repr(false), "False"},
		{"Repr(1e16)", python.Repr(1e16), "1e+16"},
		{"Loose.Repr(1e6)", python.Loose.Repr(1e6), "1e+06"},
		{"Repr(1e6)", python.Repr(1e6), "1000000.0"},
		{"Repr(1e-05)", python.Repr(1e-05), "1e-05"},
		{"Str('x')", python.Str("x"), "x"},
		{"Str(nil)", python.Str(nil), "None"},
		{"Str(['x'])", python.Str([]any{"x"}), "['x']"},
		{"Str(nan)", python.Str(math.NaN()), "nan"},
		{"Str(-inf)", python.Str(math.Inf(-1)), "-inf"},
		{"Loose.Str('x')", python.Loose.Str("x"), "x"},
		{"Loose.Str(True)", python.Loose.Str(true), "True"},
		{"Float(30)", python.Float(30), "30.0"},
		{"Float(inf)", python.Float(math.Inf(1)), "inf"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestTypeName(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "NoneType"}, {true, "bool"}, {"s", "str"}, {int64(1), "int"}, {1, "int"}, {1.5, "float"},
		{[]any{}, "list"}, {map[string]any{}, "dict"}, {struct{}{}, "object"},
	} {
		if got := python.TypeName(tc.v); got != tc.want {
			t.Errorf("TypeName(%#v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

func TestTruthy(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{nil, false}, {false, false}, {true, true}, {"", false}, {"0", true}, {int64(0), false}, {int64(-1), true},
		{0, false}, {2, true}, {0.0, false}, {0.5, true}, {[]any{}, false}, {[]any{nil}, true},
		{map[string]any{}, false}, {map[string]any{"": nil}, true}, {struct{}{}, true},
	} {
		if got := python.Truthy(tc.v); got != tc.want {
			t.Errorf("Truthy(%#v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
