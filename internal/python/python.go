// Package python renders canon value trees (nil, bool, string, int64, int,
// float64, []any, []string, map[string]any) the way Python's built-ins
// would, for the texts obaudit writes where upstream OperateBench, which is
// Python, writes repr(), str() or type(v).__name__, and reads them as
// Python's bool() does.
//
// # Styles
//
// [Quote], [StrList], [Repr] and [Str] are CPython's: a str is quoted as
// repr quotes it (every character str.isprintable rejects escaped) and a
// float is written as repr writes it ("30.0", "1e+16", "nan"). The
// evaluator's finding details use them.
//
// [Loose] is the rendering the engine, the maintenance pack, the gate and
// the negative-control agents have always used: it escapes only the C0 and
// C1 control characters, DEL, and the quote and backslash, writes every
// other character as it is, and writes a float as Go's fmt.Sprint does
// ("30", "1e+06", "NaN"). It agrees with CPython on every string of
// printable characters and on every integer; it differs only on strings
// holding other non-printable characters (U+00A0, U+00AD, U+200B, U+2028,
// …) or U+FFFD, and on floats. Loose is kept so that no trajectory or
// report byte moves; moving a caller to CPython's style is a change of its
// output.
package python

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
)

// A Style is a way of rendering values: CPython's (the package-level
// functions) or [Loose].
type Style struct{ loose bool }

// Loose is the engine's historic style (see the package documentation).
var Loose = Style{loose: true}

var exact = Style{}

// Quote is Python's repr(s) for a str.
func Quote(s string) string { return exact.Quote(s) }

// StrList is Python's repr of a list of str: ['a', 'b'].
func StrList(list []string) string { return exact.StrList(list) }

// Repr is Python's repr(v). A dict is written with its keys sorted (a
// parsed tree has no insertion order left to honour).
func Repr(v any) string { return exact.Repr(v) }

// Str is Python's str(v) (what an f-string inserts for {v}).
func Str(v any) string { return exact.Str(v) }

// Float is Python's repr of a float, nan and the infinities included.
func Float(f float64) string {
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

// Quote is repr(s) in style st.
func (st Style) Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	st.writeQuote(&b, s)
	return b.String()
}

// StrList is the repr of a list of str in style st.
func (st Style) StrList(list []string) string {
	var b strings.Builder
	st.writeStrList(&b, list)
	return b.String()
}

// Repr is repr(v) in style st.
func (st Style) Repr(v any) string {
	if s, ok := st.scalar(v); ok {
		return s
	}
	if s, ok := v.(string); ok {
		return st.Quote(s)
	}
	var b strings.Builder
	st.writeRepr(&b, v)
	return b.String()
}

// Str is str(v) in style st: a string as it is, anything else as Repr.
func (st Style) Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return st.Repr(v)
}

// scalar renders None, a bool or a number; ok is false for anything else.
func (st Style) scalar(v any) (s string, ok bool) {
	switch x := v.(type) {
	case nil:
		return "None", true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case float64:
		if st.loose {
			return fmt.Sprint(x), true
		}
		return Float(x), true
	}
	return "", false
}

func (st Style) writeRepr(b *strings.Builder, v any) {
	if s, ok := st.scalar(v); ok {
		b.WriteString(s)
		return
	}
	switch x := v.(type) {
	case string:
		st.writeQuote(b, x)
	case []any:
		writeSeq(b, "[]", x, func(el any) { st.writeRepr(b, el) })
	case []string:
		st.writeStrList(b, x)
	case map[string]any:
		writeSeq(b, "{}", slices.Sorted(maps.Keys(x)), func(k string) {
			st.writeQuote(b, k)
			b.WriteString(": ")
			st.writeRepr(b, x[k])
		})
	default:
		b.WriteString(fmt.Sprint(v))
	}
}

func (st Style) writeStrList(b *strings.Builder, list []string) {
	writeSeq(b, "[]", list, func(s string) { st.writeQuote(b, s) })
}

// writeSeq writes brackets[0], each item (write) separated by ", ", and
// brackets[1].
func writeSeq[T any](b *strings.Builder, brackets string, items []T, write func(T)) {
	b.WriteByte(brackets[0])
	for i, x := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		write(x)
	}
	b.WriteByte(brackets[1])
}

// writeQuote writes s quoted as repr quotes a str: in single quotes unless
// s holds a single quote and no double quote.
func (st Style) writeQuote(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
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
			writeEscape(b, `\x`, r, 2)
		case r < 0x7f:
			b.WriteRune(r)
		case st.loose:
			if r < 0xa0 {
				writeEscape(b, `\x`, r, 2)
			} else {
				b.WriteRune(r)
			}
		case r == utf8.RuneError:
			// Invalid UTF-8 never reaches here from canon; keep it visible.
			b.WriteString(`\ufffd`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			writeEscape(b, `\x`, r, 2)
		case r <= 0xffff:
			writeEscape(b, `\u`, r, 4)
		default:
			writeEscape(b, `\U`, r, 8)
		}
	}
	b.WriteByte(quote)
}

// writeEscape writes prefix and r in lower-case hex, zero-padded to width.
func writeEscape(b *strings.Builder, prefix string, r rune, width int) {
	b.WriteString(prefix)
	h := strconv.FormatInt(int64(r), 16)
	for n := len(h); n < width; n++ {
		b.WriteByte('0')
	}
	b.WriteString(h)
}

// TypeName is Python's type(v).__name__ ("object" for a value that is not
// a canon value).
func TypeName(v any) string {
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

// Truthy is Python's bool(v).
func Truthy(v any) bool {
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
