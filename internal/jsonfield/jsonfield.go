// Package jsonfield holds the field rules of the readers of decoded JSON trees
// (canon.Parse values: nil, bool, string, int64, float64, []any,
// map[string]any), each once: a value's JSON kind, non-empty text, an
// integer in bounds, a boolean, membership of a closed vocabulary, the one
// instant form (internal/instant), an object's exact key set; and the tree
// rules built of them ([Rule]: records of members, lists, maps, nullable
// values), with which a reader declares a whole document's shape once.
//
// What differs between readers is what they refuse with: a [Reader] names
// its reader's refusal classes and how a refusal's detail names the value
// it is about; every refusal it builds carries that value's RFC 6901
// pointer ([PointerOf]). The rules never decide the wording of a reader's
// other refusals, and a reader whose rule differs keeps its own.
package jsonfield

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/refusal"
)

// Reader holds values to the field rules and refuses with its reader's
// classes.
type Reader struct {
	// Bad is the class of a value of the wrong JSON kind or form.
	Bad *refusal.Refusal
	// Unknown is the class of a value outside its closed vocabulary.
	Unknown *refusal.Refusal
	// UnknownField and MissingField are the classes of an object whose key
	// set is not exactly its fields ([Reader.Exact]).
	UnknownField, MissingField *refusal.Refusal
	// Prefix leads every refusal's detail, and Whole names the whole
	// document (pointer "") in it: a refusal about the value at p reads
	// "<Prefix><p> <what is wrong>" ("<Prefix><Whole> ..." at "", and just
	// "<Prefix><what is wrong>" there when Whole is empty).
	Prefix, Whole string
	// At, when set, builds the refusals instead (a reader whose refusals
	// carry a cause of its own): the refusal of class about the value at
	// the RFC 6901 pointer (relative to what the reader reads), the detail
	// format and args.
	At func(class *refusal.Refusal, pointer, format string, args ...any) error
}

// Refuse is the reader's refusal of class about the value at the RFC 6901
// pointer p, the detail format and args led as [Reader.Prefix] says; its
// cause carries p ([PointerOf]). Every rule refuses through it (through
// At, when that is set).
func (r *Reader) Refuse(class *refusal.Refusal, p, format string, args ...any) error {
	if r.At != nil {
		return r.At(class, p, format, args...)
	}
	lead := p
	if p == "" {
		lead = r.Whole
	}
	if lead != "" {
		lead += " "
	}
	return &refusal.Refusal{Class: class.Class, Detail: r.Prefix + lead + fmt.Sprintf(format, args...), Err: &pointerCause{p}}
}

// pointerCause is the cause of a [Reader]'s refusal: the pointer of the
// value it is about.
type pointerCause struct{ pointer string }

func (c *pointerCause) Error() string { return "at " + c.pointer }

// PointerOf returns the RFC 6901 pointer of the value a [Reader]'s refusal
// err (or a refusal that wraps one) is about ("" the whole document); ok is
// false for any other error.
func PointerOf(err error) (pointer string, ok bool) {
	var c *pointerCause
	if errors.As(err, &c) {
		return c.pointer, true
	}
	return "", false
}

// Object holds x to a JSON object.
func (r *Reader) Object(x any, p string) (map[string]any, error) {
	m, ok := x.(map[string]any)
	if !ok {
		return nil, r.Refuse(r.Bad, p, "must be a JSON object, got %s", Kind(x))
	}
	return m, nil
}

// Array holds x to a JSON array.
func (r *Reader) Array(x any, p string) ([]any, error) {
	a, ok := x.([]any)
	if !ok {
		return nil, r.Refuse(r.Bad, p, "must be a JSON array, got %s", Kind(x))
	}
	return a, nil
}

// String holds x to a string, empty or not.
func (r *Reader) String(x any, p string) error {
	if _, ok := x.(string); !ok {
		return r.Refuse(r.Bad, p, "must be a string, got %s", Kind(x))
	}
	return nil
}

// Text holds x to a non-empty string.
func (r *Reader) Text(x any, p string) error {
	if s, ok := x.(string); !ok || s == "" {
		return r.Refuse(r.Bad, p, "must be a non-empty string, got %s", Show(x))
	}
	return nil
}

// OptText holds x to null or a non-empty string.
func (r *Reader) OptText(x any, p string) error {
	if x == nil {
		return nil
	}
	return r.Text(x, p)
}

// TextList holds x to a JSON array of non-empty strings.
func (r *Reader) TextList(x any, p string) error { return r.each(x, p, r.Text) }

// Flag holds x to true or false.
func (r *Reader) Flag(x any, p string) error {
	if _, ok := x.(bool); !ok {
		return r.Refuse(r.Bad, p, "must be true or false, got %s", Show(x))
	}
	return nil
}

// Int holds x to an integer of at least minimum and returns it. A boolean
// or a float is not an integer.
func (r *Reader) Int(x any, p string, minimum int64) (int64, error) {
	if err := r.integer(x, p, minimum, math.MaxInt64); err != nil {
		return 0, err
	}
	return x.(int64), nil
}

// Member holds x to one of the strings of set. Whatever else x is, string
// or not, it is outside the vocabulary (class Unknown).
func (r *Reader) Member(x any, set []string, p string) error {
	if s, ok := x.(string); !ok || !slices.Contains(set, s) {
		return r.Refuse(r.Unknown, p, "%s is not one of %v", Show(x), set)
	}
	return nil
}

// OneOf holds x to a string (class Bad), then to one of set (class
// Unknown).
func (r *Reader) OneOf(x any, set []string, p string) error {
	if err := r.String(x, p); err != nil {
		return err
	}
	return r.Member(x, set, p)
}

// TextOneOf holds x to a non-empty string (class Bad), then to one of set
// (class Unknown).
func (r *Reader) TextOneOf(x any, set []string, p string) error {
	if err := r.Text(x, p); err != nil {
		return err
	}
	return r.Member(x, set, p)
}

// Instant holds x to the one instant form, YYYY-MM-DDTHH:MM:SSZ, strictly
// (internal/instant: zero-padded, a real date and time) and returns its
// Unix seconds.
func (r *Reader) Instant(x any, p string) (int64, error) {
	s, ok := x.(string)
	if !ok {
		return 0, r.Refuse(r.Bad, p, "must be an instant string YYYY-MM-DDTHH:MM:SSZ, got %s", Kind(x))
	}
	t, ok := instant.Parse(s)
	if !ok {
		return 0, r.Refuse(r.Bad, p, "%q is not an instant of the form YYYY-MM-DDTHH:MM:SSZ (a real date and time)", s)
	}
	return t, nil
}

// OptInstant holds x to null or an instant.
func (r *Reader) OptInstant(x any, p string) error {
	if x == nil {
		return nil
	}
	_, err := r.Instant(x, p)
	return err
}

// Exact holds the object m at p to exactly the keys fields: a key not in
// fields is refused first (class UnknownField, at the first such key in
// sorted order), then a missing one (class MissingField, at p). It
// allocates nothing for an object that holds.
func (r *Reader) Exact(m map[string]any, fields []string, p string) error {
	if unknown := Unknown(m, fields); unknown != nil {
		return r.Refuse(r.UnknownField, Key(p, unknown[0]), "unknown field(s) %q; this record carries exactly %v", unknown, slices.Sorted(slices.Values(fields)))
	}
	if len(m) == len(fields) {
		return nil
	}
	return r.Required(m, fields, p)
}

// Required holds the object m at p to having each of fields (class
// MissingField, at p); any other key is free.
func (r *Reader) Required(m map[string]any, fields []string, p string) error {
	if missing := Missing(m, fields); missing != nil {
		return r.Refuse(r.MissingField, p, "missing required field(s) %q", missing)
	}
	return nil
}

// Unknown returns the keys of m that are not in fields, sorted, or nil
// (allocating nothing) when there are none.
func Unknown(m map[string]any, fields []string) []string {
	var unknown []string
	for k := range m {
		if !slices.Contains(fields, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// Missing returns the fields that are not keys of m, sorted, or nil
// (allocating nothing) when there are none.
func Missing(m map[string]any, fields []string) []string {
	var missing []string
	for _, k := range fields {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	return missing
}

// Key extends the JSON pointer p by the object key k, escaped per RFC 6901.
func Key(p, k string) string {
	if strings.ContainsAny(k, "~/") {
		k = strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
	}
	return p + "/" + k
}

// Index extends the JSON pointer p by the array index i.
func Index(p string, i int) string { return p + "/" + strconv.Itoa(i) }

// Kind names the JSON kind of x, for a refusal detail.
func Kind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case int64, int:
		return "an integer"
	case float64:
		return "a float"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a non-JSON value (%T)", x)
}

// Show renders a scalar for a refusal detail (a string cut at 80 bytes, a
// float with its point: 8.0), and a container by its kind.
func Show(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case string:
		if len(v) > 80 {
			v = v[:80] + "…"
		}
		return fmt.Sprintf("%q", v)
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case bool, int64, int:
		return fmt.Sprint(v)
	}
	return Kind(x)
}
