package jsonfield

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Rule holds the value x at the RFC 6901 pointer p to one rule, refusing
// with its [Reader]'s classes. A reader declares a document's shape as one
// Rule, built of the rules below; a Reader's method of this signature
// ([Reader.Text], [Reader.String], [Reader.Flag], [Reader.Null]) is a Rule
// too.
type Rule func(x any, p string) error

// Member is one member of a record and the rule its value keeps.
type Member struct {
	name string
	rule Rule
}

// Field is the record member name, its value held to rule.
func Field(name string, rule Rule) Member { return Member{name, rule} }

// Closed is a JSON object of exactly members ([Reader.Exact]: a key not
// among them refused first, then a missing one), each value held to its
// rule in the order given.
func (r *Reader) Closed(members ...Member) Rule { return r.record(r.Exact, members) }

// Open is a JSON object with at least members ([Reader.Required]), each
// value held to its rule in the order given; any other key is free. Open()
// is any object.
func (r *Reader) Open(members ...Member) Rule { return r.record(r.Required, members) }

func (r *Reader) record(keys func(m map[string]any, names []string, p string) error, members []Member) Rule {
	names := make([]string, len(members))
	for i, f := range members {
		names[i] = f.name
	}
	return func(x any, p string) error {
		m, err := r.Object(x, p)
		if err != nil {
			return err
		}
		if err := keys(m, names, p); err != nil {
			return err
		}
		for _, f := range members {
			if err := f.rule(m[f.name], Key(p, f.name)); err != nil {
				return err
			}
		}
		return nil
	}
}

// List is a JSON array each of whose items is held to item.
func (r *Reader) List(item Rule) Rule {
	return func(x any, p string) error { return r.each(x, p, item) }
}

func (r *Reader) each(x any, p string, item Rule) error {
	a, err := r.Array(x, p)
	if err != nil {
		return err
	}
	for i, e := range a {
		if err := item(e, Index(p, i)); err != nil {
			return err
		}
	}
	return nil
}

// Distinct is a JSON array of strings, each held to item, no two equal
// (every item is held to item first, then the first repeat is refused).
func (r *Reader) Distinct(item Rule) Rule {
	each := r.List(func(x any, p string) error {
		if err := item(x, p); err != nil {
			return err
		}
		return r.String(x, p)
	})
	return func(x any, p string) error {
		if err := each(x, p); err != nil {
			return err
		}
		a := x.([]any)
		seen := make(map[string]int, len(a))
		for i, e := range a {
			if j, dup := seen[e.(string)]; dup {
				return r.Refuse(r.Bad, Index(p, i), "repeats item %d, %s", j, Show(e))
			}
			seen[e.(string)] = i
		}
		return nil
	}
}

// Keyed is a JSON object each of whose keys is held to key and each value
// to value, in key order (a key's refusal is at its member's pointer).
func (r *Reader) Keyed(key, value Rule) Rule {
	return func(x any, p string) error {
		m, err := r.Object(x, p)
		if err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			kp := Key(p, k)
			if err := key(k, kp); err != nil {
				return err
			}
			if err := value(m[k], kp); err != nil {
				return err
			}
		}
		return nil
	}
}

// OrNull is null or a value rule holds.
func OrNull(rule Rule) Rule {
	return func(x any, p string) error {
		if x == nil {
			return nil
		}
		return rule(x, p)
	}
}

// Null holds x to null.
func (r *Reader) Null(x any, p string) error {
	if x != nil {
		return r.Refuse(r.Bad, p, "must be null, got %s", Show(x))
	}
	return nil
}

// Enum is one of the strings set (a constant is a set of one); anything
// else, string or not, is outside the vocabulary ([Reader.Member]).
func (r *Reader) Enum(set ...string) Rule {
	return func(x any, p string) error { return r.Member(x, set, p) }
}

// Integer is an integer literal from lo to hi (math.MaxInt64: no upper
// bound). A float is not one, even an integral one (14.0), nor a boolean.
func (r *Reader) Integer(lo, hi int64) Rule {
	return func(x any, p string) error { return r.integer(x, p, lo, hi) }
}

func (r *Reader) integer(x any, p string, lo, hi int64) error {
	if n, ok := x.(int64); ok && lo <= n && n <= hi {
		return nil
	}
	var want string
	switch {
	case lo == hi:
		want = fmt.Sprintf("the integer %d", lo)
	case lo == math.MinInt64 && hi == math.MaxInt64:
		want = "an integer"
	case hi == math.MaxInt64:
		want = fmt.Sprintf("an integer of at least %d", lo)
	default:
		want = fmt.Sprintf("an integer from %d to %d", lo, hi)
	}
	return r.Refuse(r.Bad, p, "must be %s (not a float or a boolean), got %s", want, Show(x))
}

// Chars is a string of lo to hi characters (code points).
func (r *Reader) Chars(lo, hi int) Rule {
	return func(x any, p string) error {
		s, ok := x.(string)
		if n := utf8.RuneCountInString(s); !ok || n < lo || n > hi {
			return r.Refuse(r.Bad, p, "must be a string of %d to %d characters, got %s", lo, hi, Show(x))
		}
		return nil
	}
}

// Match is a string that ok admits; want says which, for a refusal ("must
// be <want>").
func (r *Reader) Match(want string, ok func(string) bool) Rule {
	return func(x any, p string) error {
		if s, isString := x.(string); !isString || !ok(s) {
			return r.Refuse(r.Bad, p, "must be %s, got %s", want, Show(x))
		}
		return nil
	}
}

// Hex is a string of prefix followed by exactly n lowercase hex digits (a
// SHA-256 digest is Hex("", 64)).
func (r *Reader) Hex(prefix string, n int) Rule {
	want := fmt.Sprintf("%d lowercase hex digits", n)
	if prefix != "" {
		want = fmt.Sprintf("%q followed by %s", prefix, want)
	}
	return r.Match(want, func(s string) bool {
		rest, ok := strings.CutPrefix(s, prefix)
		return ok && IsLowerHex(rest, n)
	})
}

// IsLowerHex reports whether s is exactly n lowercase hex digits.
func IsLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
