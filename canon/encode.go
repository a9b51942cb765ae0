package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Form names one canonical rendering.
type Form uint8

const (
	// JCSForm is RFC 8785.
	JCSForm Form = iota
	// UpstreamForm is upstream OperateBench's compact canonical JSON.
	UpstreamForm
	// UpstreamSpacedForm is the upstream form with ", " and ": " separators
	// (upstream's execution-ledger lines).
	UpstreamSpacedForm
)

// String returns the form's name as the CLI spells it.
func (f Form) String() string {
	switch f {
	case JCSForm:
		return "jcs"
	case UpstreamForm:
		return "upstream"
	case UpstreamSpacedForm:
		return "upstream-spaced"
	}
	return "form(" + strconv.Itoa(int(f)) + ")"
}

// ParseForm maps "jcs", "upstream" or "upstream-spaced" to a Form.
func ParseForm(s string) (Form, bool) {
	for _, f := range []Form{JCSForm, UpstreamForm, UpstreamSpacedForm} {
		if f.String() == s {
			return f, true
		}
	}
	return 0, false
}

// appendComma appends the member separator of form f.
func (f Form) appendComma(dst []byte) []byte {
	if f == UpstreamSpacedForm {
		return append(dst, ',', ' ')
	}
	return append(dst, ',')
}

// appendColon appends the key separator of form f.
func (f Form) appendColon(dst []byte) []byte {
	if f == UpstreamSpacedForm {
		return append(dst, ':', ' ')
	}
	return append(dst, ':')
}

// compareKeys orders object keys for form f: UTF-16 code units for JCS,
// code points (UTF-8 bytes) for the upstream forms.
func compareKeys(f Form, a, b string) int {
	if f != JCSForm {
		return strings.Compare(a, b)
	}
	return compareUTF16(a, b)
}

// compareKeyBytes is compareKeys over byte slices, without conversion.
func compareKeyBytes(f Form, a, b []byte) int {
	if f != JCSForm {
		return bytes.Compare(a, b)
	}
	return compareUTF16(a, b)
}

// compareUTF16 compares two valid UTF-8 strings by their UTF-16 code units.
// This differs from code-point order only where a supplementary character
// (encoded with surrogates D800–DFFF) meets a character in E000–FFFF.
func compareUTF16[S string | []byte](a, b S) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < 0x80 && b[i] < 0x80 {
		return int(a[i]) - int(b[i])
	}
	// Back up to the start of the rune that differs.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	// At most one rune's bytes each: the conversion needs no allocation.
	ra, _ := utf8.DecodeRuneInString(string(a[i:min(len(a), i+utf8.UTFMax)]))
	rb, _ := utf8.DecodeRuneInString(string(b[i:min(len(b), i+utf8.UTFMax)]))
	return utf16Key(ra) - utf16Key(rb)
}

// utf16Key maps a rune to a value whose order is the order of its UTF-16
// code units: supplementary characters (surrogate pairs, first unit
// D800–DBFF) sort after U+D7FF and before U+E000.
func utf16Key(r rune) int {
	if r >= 0x10000 {
		return 0xD800<<12 + int(r-0x10000)
	}
	return int(r) << 12
}

// MapLeaves returns a copy of the tree v with every object and array
// rebuilt and f applied to every other value (a tree of what [Parse]
// returns): the walk under the arms' normalisations and the schema
// library's number form.
func MapLeaves(v any, f func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = MapLeaves(e, f)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = MapLeaves(e, f)
		}
		return l
	}
	return f(v)
}

// Append appends the canonical encoding of v in form f to dst.
//
// v is a tree of nil, bool, string, int, int64, float64, []any, []string and
// map[string]any (what [Parse] returns, plus int and []string for
// convenience). Strings must be valid UTF-8; integers within ±MaxSafeInteger;
// floats finite; nesting at most MaxDepth containers.
func Append(dst []byte, v any, f Form) ([]byte, error) {
	e := encoder{form: f}
	return e.value(dst, v, 0)
}

// JCS returns the RFC 8785 encoding of v.
func JCS(v any) ([]byte, error) { return Append(nil, v, JCSForm) }

// Upstream returns upstream OperateBench's canonical encoding of v.
func Upstream(v any) ([]byte, error) { return Append(nil, v, UpstreamForm) }

// Digest returns the lower-case hex SHA-256 of v's RFC 8785 bytes.
func Digest(v any) (string, error) { return DigestForm(v, JCSForm) }

// UpstreamDigest returns the lower-case hex SHA-256 of v's upstream
// canonical bytes: the digest upstream artefacts and ledgers carry.
func UpstreamDigest(v any) (string, error) { return DigestForm(v, UpstreamForm) }

// DigestForm returns the lower-case hex SHA-256 of v's bytes in form f.
func DigestForm(v any, f Form) (string, error) {
	b, err := Append(nil, v, f)
	if err != nil {
		return "", err
	}
	return SHA256Hex(b), nil
}

// SHA256Hex returns the lower-case hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

type encoder struct {
	form Form
}

// treeMember is one key of an object being encoded, with its value.
type treeMember struct {
	k string
	v any
}

// sortMembers orders an object's members by key for form f: an insertion
// sort for the small objects most trees hold.
func sortMembers(ms []treeMember, f Form) {
	if len(ms) > 12 {
		slices.SortFunc(ms, func(a, b treeMember) int { return compareKeys(f, a.k, b.k) })
		return
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && compareKeys(f, ms[j].k, ms[j-1].k) < 0; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func (e *encoder) value(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendText(dst, x, "string is not valid UTF-8")
	case int64:
		return appendInt(dst, x)
	case int:
		return appendInt(dst, int64(x))
	case float64:
		return appendFloat(dst, x, e.form)
	case []any:
		return appendList(e, dst, x, depth)
	case []string:
		return appendList(e, dst, x, depth)
	case map[string]any:
		if depth >= MaxDepth {
			return dst, errf(ErrTooDeep, "more than %d nested containers", MaxDepth)
		}
		// The members are collected with their values (no second lookup),
		// in a stack array for the small objects most trees hold.
		var stack [24]treeMember
		ms := stack[:0]
		if len(x) > len(stack) {
			ms = make([]treeMember, 0, len(x))
		}
		for k, v := range x {
			ms = append(ms, treeMember{k, v})
		}
		sortMembers(ms, e.form)
		dst = append(dst, '{')
		var err error
		for i := range ms {
			if i > 0 {
				dst = e.form.appendComma(dst)
			}
			if dst, err = appendText(dst, ms[i].k, "object key is not valid UTF-8"); err != nil {
				return dst, err
			}
			dst = e.form.appendColon(dst)
			if dst, err = e.value(dst, ms[i].v, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, errf(ErrUnsupportedValue, "no JSON form for Go type %T", v)
}

// appendList appends the list xs (a []any, or a []string, whose elements
// are strings) at depth.
func appendList[T any](e *encoder, dst []byte, xs []T, depth int) ([]byte, error) {
	if depth >= MaxDepth {
		return dst, errf(ErrTooDeep, "more than %d nested containers", MaxDepth)
	}
	dst = append(dst, '[')
	var err error
	for i, x := range xs {
		if i > 0 {
			dst = e.form.appendComma(dst)
		}
		if dst, err = e.value(dst, x, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendText appends the string s quoted, a run of plain bytes as it is,
// or refuses it (what) when it is not valid UTF-8.
func appendText(dst []byte, s, what string) ([]byte, error) {
	if plainEnd(s, 0) == len(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"'), nil
	}
	if !utf8.ValidString(s) {
		return dst, errf(ErrInvalidUTF8, "%s", what)
	}
	return appendQuoted(dst, s), nil
}

func appendInt(dst []byte, n int64) ([]byte, error) {
	if n > MaxSafeInteger || n < -MaxSafeInteger {
		return dst, errf(ErrNumberOutOfRange, "integer %d is outside ±(2^53-1)", n)
	}
	return strconv.AppendInt(dst, n, 10), nil
}

// String renders v in form f for messages; it never fails (an unencodable
// value renders as its refusal).
func String(v any, f Form) string {
	b, err := Append(nil, v, f)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// Clone is a deep copy of the tree v: every object and list is new, the
// scalars are shared (they are immutable).
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = Clone(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = Clone(e)
		}
		return a
	}
	return v
}

// StringList is xs as a tree list (the []any a canonical encoder takes),
// never nil.
func StringList(xs []string) []any {
	out := make([]any, len(xs))
	for i, s := range xs {
		out[i] = s
	}
	return out
}
