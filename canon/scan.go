package canon

import (
	"bytes"
	"encoding/hex"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest container nesting accepted (upstream's
// MAX_JSON_DEPTH): 64 nested arrays or objects read; the 65th is refused.
const MaxDepth = 64

// MaxSafeInteger bounds integers: |n| ≤ 2^53−1 (I-JSON), so that every
// integer has one exact rendering in both forms.
const MaxSafeInteger = 1<<53 - 1

// plain marks the bytes a string run can copy unchanged: printable ASCII
// other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// notPlain8 marks, a word at a time, the bytes of x (little-endian) that
// are not plain: the high bit of each byte is set that has its own high bit
// set (x), is below 0x20 (x - 0x20 in each byte borrows) or is '"' or '\\'
// (x XOR that byte in each, less one, borrows). A borrow also marks bytes
// above one already marked, so the lowest mark is exact: the first byte
// that is not plain, or 0 when all eight are.
func notPlain8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := x^'"'*ones, x^'\\'*ones
	return (x | (x - 0x20*ones) | (q - ones) | (b - ones)) & highs
}

// plainEnd returns the end of the run of plain bytes d[i:] begins with.
func plainEnd[S string | []byte](d S, i int) int {
	for ; i+8 <= len(d); i += 8 {
		if m := notPlain8(load8(d, i)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(d) && plain[d[i]] {
		i++
	}
	return i
}

// load8 is the little-endian word of d[i:i+8] (one load).
func load8[S string | []byte](d S, i int) uint64 {
	w := d[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) start() error {
	if len(s.data) >= 3 && s.data[0] == 0xEF && s.data[1] == 0xBB && s.data[2] == 0xBF {
		return errAt(ErrBOM, 0, "byte order mark")
	}
	return nil
}

func (s *scanner) end() error {
	s.ws()
	if s.pos < len(s.data) {
		return errAt(ErrTrailingData, s.pos, "data after the JSON value")
	}
	return nil
}

func (s *scanner) unexpected() error {
	if s.pos >= len(s.data) {
		return errAt(ErrSyntax, s.pos, "unexpected end of input")
	}
	return errAt(ErrSyntax, s.pos, "unexpected byte %q", s.data[s.pos])
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos >= len(word) && string(s.data[s.pos:s.pos+len(word)]) == word {
		s.pos += len(word)
		return nil
	}
	return s.unexpected()
}

// nonFinite refuses the NaN / Infinity / -Infinity tokens that Python's
// reader accepts and JSON does not.
func (s *scanner) nonFinite() error {
	rest := s.data[s.pos:]
	if c := rest[0]; c != 'N' && c != 'I' && (c != '-' || len(rest) < 2 || rest[1] != 'I') {
		return nil
	}
	for _, w := range []string{"NaN", "Infinity", "-Infinity"} {
		if len(rest) >= len(w) && string(rest[:len(w)]) == w {
			return errAt(ErrNonFinite, s.pos, "%s is not a JSON number", w)
		}
	}
	return nil
}

// number scans a number literal at pos. It returns the literal and whether
// it is an integer (no fraction, no exponent).
func (s *scanner) number() (lit []byte, isInt bool, err error) {
	if err := s.nonFinite(); err != nil {
		return nil, false, err
	}
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i >= len(d) {
		return nil, false, errAt(ErrSyntax, i, "truncated number")
	}
	switch {
	case d[i] == '0':
		i++
		if i < len(d) && d[i] >= '0' && d[i] <= '9' {
			return nil, false, errAt(ErrSyntax, i, "leading zero in number")
		}
	case d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return nil, false, errAt(ErrSyntax, i, "invalid number")
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false, errAt(ErrSyntax, i, "digit expected after decimal point")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == j {
			return nil, false, errAt(ErrSyntax, i, "digit expected in exponent")
		}
	}
	lit = d[s.pos:i]
	s.pos = i
	return lit, isInt, nil
}

// parseInt converts an integer literal, refusing values beyond ±MaxSafeInteger.
func parseInt(lit []byte, off int) (int64, error) {
	digits, neg := bytes.CutPrefix(lit, []byte{'-'})
	var v int64
	for _, c := range digits {
		// Refused as soon as it passes the bound: no overflow.
		if v = v*10 + int64(c-'0'); v > MaxSafeInteger {
			return 0, errAt(ErrNumberOutOfRange, off, "integer %s is outside ±(2^53-1)", lit)
		}
	}
	if neg {
		v = -v
	}
	return v, nil
}

func parseFloat(lit []byte, off int) (float64, error) {
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		// Syntax was checked by the scanner, so this is ErrRange: overflow.
		return 0, errAt(ErrNonFinite, off, "number %s overflows to infinity", lit)
	}
	return f, nil
}

// hex4 reads the four hex digits (either case) b begins with.
func hex4(b []byte) (rune, bool) {
	var u [2]byte
	if len(b) < 4 {
		return 0, false
	}
	if _, err := hex.Decode(u[:], b[:4]); err != nil {
		return 0, false
	}
	return rune(u[0])<<8 | rune(u[1]), true
}

// escape reads the escape sequence starting at s.pos (which holds '\\') and
// returns the code point it denotes.
func (s *scanner) escape() (rune, error) {
	d := s.data
	start := s.pos
	if s.pos+1 >= len(d) {
		return 0, errAt(ErrSyntax, s.pos, "truncated escape")
	}
	c := d[s.pos+1]
	s.pos += 2
	if i := strings.IndexByte(shortEscapes, c); i >= 0 {
		return rune(shortEscaped[i]), nil
	}
	if c != 'u' {
		return 0, errAt(ErrSyntax, start, "invalid escape \\%c", c)
	}
	r, ok := hex4(d[s.pos:])
	if !ok {
		return 0, errAt(ErrSyntax, start, "invalid \\u escape")
	}
	s.pos += 4
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, errAt(ErrLoneSurrogate, start, "lone low surrogate \\u%04x", r)
	case r >= 0xD800 && r <= 0xDBFF:
		if s.pos+6 <= len(d) && d[s.pos] == '\\' && d[s.pos+1] == 'u' {
			lo, ok := hex4(d[s.pos+2:])
			if ok && lo >= 0xDC00 && lo <= 0xDFFF {
				s.pos += 6
				return utf16.DecodeRune(r, lo), nil
			}
		}
		return 0, errAt(ErrLoneSurrogate, start, "lone high surrogate \\u%04x", r)
	}
	return r, nil
}

// plainStr steps past the string at s.pos (which holds '"') and returns
// its contents when they are all plain bytes, which then need no decoding
// and are spelled canonically; otherwise it returns false and leaves s.pos.
func (s *scanner) plainStr() ([]byte, bool) {
	end := plainEnd(s.data, s.pos+1)
	if end >= len(s.data) || s.data[end] != '"' {
		return nil, false
	}
	body := s.data[s.pos+1 : end]
	s.pos = end + 1
	return body, true
}

// str reads the string at s.pos (which holds '"'). With decode it appends
// the decoded UTF-8 bytes to dst; otherwise it appends the string's
// canonical encoding, quotes included.
func (s *scanner) str(dst []byte, decode bool) ([]byte, error) {
	d := s.data
	s.pos++ // opening quote
	if !decode {
		dst = append(dst, '"')
	}
	for {
		i := plainEnd(d, s.pos)
		dst = append(dst, d[s.pos:i]...)
		s.pos = i
		if i >= len(d) {
			return dst, errAt(ErrSyntax, i, "unterminated string")
		}
		c := d[i]
		switch {
		case c == '"':
			s.pos++
			if !decode {
				dst = append(dst, '"')
			}
			return dst, nil
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return dst, err
			}
			if decode {
				dst = utf8.AppendRune(dst, r)
			} else {
				dst = appendRuneEscaped(dst, r)
			}
		case c < 0x20:
			return dst, errAt(ErrSyntax, i, "raw control character 0x%02x in string", c)
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return dst, errAt(ErrInvalidUTF8, i, "invalid UTF-8 byte 0x%02x", c)
			}
			dst = append(dst, d[i:i+size]...)
			s.pos += size
		}
	}
}

const hexDigits = "0123456789abcdef"

// shortEscapes are the characters a two-character escape "\c" names, and
// shortEscaped, in the same order, the characters they denote (JSON's
// escapes other than \u; '/' is read escaped, never written so).
const shortEscapes, shortEscaped = `"\/bfnrt`, "\"\\/\b\f\n\r\t"

// appendRuneEscaped appends r as it appears inside a canonical string.
func appendRuneEscaped(dst []byte, r rune) []byte {
	if i := strings.IndexRune(shortEscaped, r); i >= 0 && r != '/' {
		return append(dst, '\\', shortEscapes[i])
	}
	if r < 0x20 {
		return append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// appendQuoted appends the canonical encoding of s, which must be valid
// UTF-8 (checked by the caller): runs of plain bytes (and the bytes of
// non-ASCII characters) as they are, the rest escaped.
func appendQuoted[S string | []byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start, i := 0, 0
	for {
		if i = plainEnd(s, i); i == len(s) {
			break
		}
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			dst = append(dst, s[start:i]...)
			dst = appendRuneEscaped(dst, rune(c))
			start = i + 1
		}
		i++
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendString appends the canonical encoding of the string s (the same in
// every form), refusing one that is not valid UTF-8.
func AppendString(dst []byte, s string) ([]byte, error) {
	return appendText(dst, s, "string is not valid UTF-8")
}
