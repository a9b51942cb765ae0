package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
)

// AppendCanonical appends the upstream canonical JSON of a canon tree to
// dst: byte-identical to canon.Upstream (a test holds it so over every row,
// observation and state of the reference runs), specialised for the small
// objects the engine writes many of. It panics on a value canon would refuse
// (the engine only ever builds well-formed trees); see
// [AppendCanonicalChecked] for values from elsewhere.
func AppendCanonical(dst []byte, v any) []byte { return appendValue(dst, v, 0) }

// AppendCanonicalChecked is AppendCanonical for a tree the engine did not
// build (an artefact's, say): where canon would refuse the value, it returns
// canon's own error (the value is then handed to canon.Append, so the bytes
// or the error are exactly canon's). TestAppendCanonicalChecked holds it to
// canon.Append over random trees, deep ones, invalid UTF-8 and out-of-range
// numbers included.
func AppendCanonicalChecked(dst []byte, v any) ([]byte, error) {
	if b, ok := tryAppendCanonical(dst, v); ok {
		return b, nil
	}
	return canon.Append(dst, v, canon.UpstreamForm)
}

func tryAppendCanonical(dst []byte, v any) (b []byte, ok bool) {
	defer func() {
		if recover() != nil {
			b, ok = nil, false
		}
	}()
	return appendValue(dst, v, 0), true
}

func appendValue(dst []byte, v any, depth int) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		if x {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case string:
		return appendString(dst, x)
	case int64:
		return appendSafeInt(dst, x)
	case int:
		return appendSafeInt(dst, int64(x))
	case []any:
		checkDepth(depth)
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e, depth+1)
		}
		return append(dst, ']')
	case []string:
		checkDepth(depth)
		return appendStrings(dst, x)
	case map[string]any:
		checkDepth(depth)
		return appendObjectAt(dst, x, "", nil, depth)
	}
	b, err := canon.Append(dst, v, canon.UpstreamForm)
	if err != nil {
		panic("engine: value has no canonical JSON form: " + err.Error())
	}
	return b
}

// checkDepth refuses nesting canon refuses (more than canon.MaxDepth
// containers).
func checkDepth(depth int) {
	if depth >= canon.MaxDepth {
		panic("engine: value nests deeper than canon allows")
	}
}

// AppendString appends the upstream canonical JSON of the string s (what
// AppendCanonical writes for it, without boxing s into an interface).
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// AppendInt appends the canonical JSON of n; it panics outside ±(2^53-1),
// where canon refuses integers.
func AppendInt(dst []byte, n int64) []byte { return appendSafeInt(dst, n) }

// AppendBool appends true or false.
func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// AppendOptString writes *p as a canonical JSON string, or null for nil.
func AppendOptString(dst []byte, p *string) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return appendString(dst, *p)
}

// appendOptInt writes *p as a canonical JSON integer, or null for nil.
func appendOptInt(dst []byte, p *int64) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return appendSafeInt(dst, *p)
}

func appendSafeInt(dst []byte, n int64) []byte {
	if n > canon.MaxSafeInteger || n < -canon.MaxSafeInteger {
		panic("engine: integer outside ±(2^53-1)")
	}
	return strconv.AppendInt(dst, n, 10)
}

// appendObject encodes m with sorted keys; when rawKey is set its value is
// written as the pre-encoded raw bytes instead of m[rawKey].
func appendObject(dst []byte, m map[string]any, rawKey string, raw []byte) []byte {
	return appendObjectAt(dst, m, rawKey, raw, 0)
}

func appendObjectAt(dst []byte, m map[string]any, rawKey string, raw []byte, depth int) []byte {
	var stack [16]member
	ms := stack[:0]
	for k, v := range m {
		ms = append(ms, member{k, v})
	}
	if len(ms) <= 12 {
		// Insertion sort: most objects here are small.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
	} else {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
	}
	dst = append(dst, '{')
	for i := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, ms[i].k)
		dst = append(dst, ':')
		if raw != nil && ms[i].k == rawKey {
			dst = append(dst, raw...)
			continue
		}
		dst = appendValue(dst, ms[i].v, depth+1)
	}
	return append(dst, '}')
}

// member is one key and value of an object being encoded.
type member struct {
	k string
	v any
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// needsCare reports whether any of the 8 bytes in w is a control character
// (< 0x20), '"', '\' or non-ASCII (>= 0x80).
func needsCare(w uint64) bool {
	less := (w - lsb*0x20) &^ w
	quote := w ^ (lsb * '"')
	slash := w ^ (lsb * '\\')
	eq := ((quote - lsb) &^ quote) | ((slash - lsb) &^ slash)
	return (less|eq|w)&msb != 0
}

// le64 is the little-endian word of the first 8 bytes of s (one load).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// careful marks the bytes a string cannot hold between quotes as it is:
// control characters, '"', '\\' and every byte at or above 0x80.
var careful = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

// plainASCII reports whether s has no byte below 0x20, no '"', no '\\' and
// no byte at or above 0x80: it is written between quotes as it is.
func plainASCII(s string) bool {
	n := len(s)
	if n < 8 {
		for i := 0; i < n; i++ {
			if careful[s[i]] {
				return false
			}
		}
		return true
	}
	i := 0
	for ; i+8 <= n; i += 8 {
		if needsCare(le64(s[i:])) {
			return false
		}
	}
	// The last word overlaps the one before it.
	return i == n || !needsCare(le64(s[n-8:]))
}

func appendString(dst []byte, s string) []byte {
	if plainASCII(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain && utf8.ValidString(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	b, err := canon.Append(dst, s, canon.UpstreamForm)
	if err != nil {
		panic("engine: string is not valid UTF-8")
	}
	return b
}

// appendKey writes "k": for a key the engine spells itself (plain ASCII,
// nothing to escape).
func appendKey(dst []byte, k string) []byte {
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

func hexSum(b []byte) string { return hexPrefix(b, 2*sha256.Size) }

// VersionOf is the record version of already-encoded records: the first n
// hex characters of their SHA-256.
func VersionOf(recordsJSON []byte, n int) string { return hexPrefix(recordsJSON, n) }

// hexPrefix is the first n hex characters of the SHA-256 of b, allocating
// only the string.
func hexPrefix(b []byte, n int) string {
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:n])
}
