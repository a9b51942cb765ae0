package evaluator

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
)

// Upstream's evaluator is Python, and its finding details, its equality and
// its idea of "missing" are Python's. The records it grades are canon value
// trees (nil, bool, string, int64, float64, []any, map[string]any; int is
// accepted too). These helpers give those trees Python's semantics, so the
// same record yields the same findings, byte for byte.

// unreadable is raised (panicked) where upstream's evaluator would itself
// fail on a record it cannot read (a KeyError, TypeError or AttributeError in
// Python). Evaluate recovers it and refuses the record by class.
type unreadable struct{ detail string }

func fail(format string, args ...any) {
	panic(unreadable{detail: sprintf(format, args...)})
}

// pyTypeName is Python's type(v).__name__ for a canon value.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case int64, int:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return "object"
}

// pyNumber returns v as a float64 and an exact integer flag when v is a
// Python number (bool counts: True == 1).
func pyNumber(v any) (i int64, f float64, isInt, ok bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, 1, true, true
		}
		return 0, 0, true, true
	case int64:
		return x, float64(x), true, true
	case int:
		return int64(x), float64(x), true, true
	case float64:
		return 0, x, false, true
	}
	return 0, 0, false, false
}

// pyEq is Python's == over canon values.
func pyEq(a, b any) bool {
	if ai, af, aInt, ok := pyNumber(a); ok {
		bi, bf, bInt, ok := pyNumber(b)
		if !ok {
			return false
		}
		if aInt && bInt {
			return ai == bi
		}
		return af == bf
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !pyEq(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !pyEq(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// pyIn is Python's "v in list" (membership by ==).
func pyIn(v any, list []any) bool {
	for _, el := range list {
		if pyEq(v, el) {
			return true
		}
	}
	return false
}

// pyTruthy is Python's bool(v).
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int64:
		return x != 0
	case int:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyStr is Python's str(v) (and what an f-string inserts with {v}).
func pyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return pyFloat(x)
	}
	return pyRepr(v)
}

func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return canon.String(f, canon.UpstreamForm)
}

// pyRepr is Python's repr(v). A dict renders with its keys sorted (a parsed
// tree has no insertion order left to honour).
func pyRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(pyQuote(x))
	case []any:
		b.WriteByte('[')
		for i, el := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, el)
		}
		b.WriteByte(']')
	case []string:
		b.WriteString(pyStrList(x))
	case map[string]any:
		keys := sortedKeys(x)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyQuote(k))
			b.WriteString(": ")
			writeRepr(b, x[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString(pyStr(v))
	}
}

// pyStrList renders a list of strings as Python prints it: ['a', 'b'].
func pyStrList(list []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyQuote(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyQuote is Python's repr of a str.
func pyQuote(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		case r < 0x7f:
			b.WriteRune(r)
		case r == utf8.RuneError:
			// Invalid UTF-8 never reaches here from canon; keep it visible.
			b.WriteString(`\ufffd`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		case r <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(hexN(int(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hexN(int(r), 8))
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func hex2(n int) string { return hexN(n, 2) }

func hexN(n, width int) string {
	s := strconv.FormatInt(int64(n), 16)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// pyInt is Python's int(v) for the values a well-formed index can hold.
func pyInt(v any) int64 {
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			fail("cannot convert float %s to integer", pyFloat(x))
		}
		return int64(x)
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			fail("invalid literal for int() with base 10: %s", pyQuote(x))
		}
		return n
	}
	fail("int() argument must be a string or a number, not '%s'", pyTypeName(v))
	return 0
}

// pyIsInt is isinstance(v, int) (bools included, as in Python).
func pyIsInt(v any) bool {
	switch v.(type) {
	case bool, int64, int:
		return true
	}
	return false
}

// pyIsStrictInt is isinstance(v, int) and not isinstance(v, bool).
func pyIsStrictInt(v any) bool {
	switch v.(type) {
	case int64, int:
		return true
	}
	return false
}

// counterValue is upstream's _counter_value: the non-negative integer a
// field states, or nil.
func counterValue(v any) any {
	if !pyIsStrictInt(v) {
		return nil
	}
	if pyInt(v) < 0 {
		return nil
	}
	return pyInt(v)
}

// hashable fails like Python does when an unhashable value (list, dict) is
// used as a set member or dict key.
func hashable(v any) {
	switch v.(type) {
	case []any, map[string]any:
		fail("unhashable type: '%s'", pyTypeName(v))
	}
}

// inStrings is "v in frozenset_of_strings": it fails on an unhashable v.
func inStrings(v any, set map[string]bool) bool {
	hashable(v)
	s, ok := v.(string)
	return ok && set[s]
}

// pyList is Python's list(v) for a value formatted with {list(v)}.
func pyList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out
	case map[string]any:
		out := make([]any, 0, len(x))
		for _, k := range sortedKeys(x) {
			out = append(out, k)
		}
		return out
	}
	fail("'%s' object is not iterable", pyTypeName(v))
	return nil
}

// pyHashKey normalises a hashable value to a comparable key with Python's
// hash equality (1, 1.0 and True are one element).
func pyHashKey(v any) any {
	hashable(v)
	if i, f, isInt, ok := pyNumber(v); ok {
		if isInt {
			return float64(i)
		}
		return f
	}
	return v
}

// get is mapping.get(key) on a value upstream treats as a Mapping.
func get(m any, key string) any {
	mm, ok := m.(map[string]any)
	if !ok {
		fail("'%s' object has no attribute 'get'", pyTypeName(m))
	}
	return mm[key]
}

// has is "key in mapping".
func has(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
}

// idx is mapping[key]: it fails like Python on a missing key or a value
// that is not a mapping.
func idx(m any, key string) any {
	mm, ok := m.(map[string]any)
	if !ok {
		if m == nil {
			fail("'NoneType' object is not subscriptable")
		}
		if _, isList := m.([]any); isList {
			fail("list indices must be integers or slices, not str")
		}
		if _, isStr := m.(string); isStr {
			fail("string indices must be integers, not 'str'")
		}
		fail("'%s' object is not subscriptable", pyTypeName(m))
	}
	v, ok := mm[key]
	if !ok {
		fail("KeyError: %s", pyQuote(key))
	}
	return v
}

// asMap returns v as a mapping, or nil and false.
func asMap(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sortedSet returns the members of a string set in Python's sorted order.
func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
