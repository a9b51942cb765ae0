package evaluator

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/internal/python"
)

// Upstream's evaluator is Python, and its finding details, its equality and
// its idea of "missing" are Python's. The records it grades are canon value
// trees (nil, bool, string, int64, float64, []any, map[string]any; int is
// accepted too). These helpers, with package python's repr, str, type
// names and bool (CPython's style), give those trees Python's semantics, so
// the same record yields the same findings, byte for byte.

// unreadable is raised (panicked) where upstream's evaluator would itself
// fail on a record it cannot read (a KeyError, TypeError or AttributeError in
// Python). Evaluate recovers it and refuses the record by class.
type unreadable struct{ detail string }

func fail(format string, args ...any) {
	panic(unreadable{detail: sprintf(format, args...)})
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
		return ok && slices.EqualFunc(x, y, pyEq)
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && maps.EqualFunc(x, y, pyEq)
	}
	return false
}

// pyIn is Python's "v in list" (membership by ==).
func pyIn(v any, list []any) bool {
	return slices.ContainsFunc(list, func(el any) bool { return pyEq(v, el) })
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
			fail("cannot convert float %s to integer", python.Float(x))
		}
		return int64(x)
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			fail("invalid literal for int() with base 10: %s", python.Quote(x))
		}
		return n
	}
	fail("int() argument must be a string or a number, not '%s'", python.TypeName(v))
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
	if !pyIsStrictInt(v) || pyInt(v) < 0 {
		return nil
	}
	return pyInt(v)
}

// hashable fails like Python does when an unhashable value (list, dict) is
// used as a set member or dict key.
func hashable(v any) {
	switch v.(type) {
	case []any, map[string]any:
		fail("unhashable type: '%s'", python.TypeName(v))
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
	fail("'%s' object is not iterable", python.TypeName(v))
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
		fail("'%s' object has no attribute 'get'", python.TypeName(m))
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
		fail("'%s' object is not subscriptable", python.TypeName(m))
	}
	v, ok := mm[key]
	if !ok {
		fail("KeyError: %s", python.Quote(key))
	}
	return v
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(keys)
	return keys
}
