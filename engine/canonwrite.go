package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/obaudit/obaudit/canon"
)

// AppendCanonical appends the upstream canonical JSON of a canon tree to
// dst (canon.Append in canon.UpstreamForm). It panics on a value canon
// refuses: the engine only ever builds well-formed trees; a tree from
// elsewhere goes to canon.Append itself.
func AppendCanonical(dst []byte, v any) []byte {
	b, err := canon.Append(dst, v, canon.UpstreamForm)
	if err != nil {
		panic("engine: value has no canonical JSON form: " + err.Error())
	}
	return b
}

// AppendString appends the upstream canonical JSON of the string s (what
// AppendCanonical writes for it, without boxing s into an interface).
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

func appendString(dst []byte, s string) []byte {
	b, err := canon.AppendString(dst, s)
	if err != nil {
		panic("engine: string is not valid UTF-8")
	}
	return b
}

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
