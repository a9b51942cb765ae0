package execledger

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
)

// envelope holds the raw top-level values the fast path captured (the
// bytes between the member's ": " and its end, as written).
type envelope struct {
	version, index, previous, digest, kind []byte
}

// compactCanonical is the fast path of the row digest. When line is already
// in the upstream spaced canonical form (sorted keys, ", " and ": "
// separators, canonical numbers, strings without escapes), it appends to
// dst the compact canonical bytes of the row without its top-level
// row_digest_sha256 member and returns ok; otherwise ok is false and the
// caller takes the slow path (parse, delete, re-encode). The fast path
// accepts only input for which both paths produce the same bytes (a fuzz
// target checks the two against each other).
func compactCanonical(dst, line []byte) ([]byte, bool) {
	out, _, ok := scanCanonical(dst, line)
	return out, ok
}

// stringEnd finds the closing quote of a string whose body starts at i. It
// refuses (-1) a backslash or a control byte: strings with escapes take the
// slow path. Eight bytes at a time (SWAR) while no special byte is seen.
func stringEnd(line []byte, i int) int {
	const (
		lo  = 0x0101010101010101
		hi  = 0x8080808080808080
		quo = 0x2222222222222222 // '"'
		bsl = 0x5c5c5c5c5c5c5c5c // '\\'
	)
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		q := x ^ quo
		b := x ^ bsl
		// has-zero-byte(q) | has-zero-byte(b) | has-less-than(x, 0x20)
		m := ((q - lo) &^ q) | ((b - lo) &^ b) | ((x - 0x2020202020202020) &^ x)
		if m&hi != 0 {
			break
		}
	}
	for ; i < len(line); i++ {
		c := line[i]
		if c == '"' {
			return i
		}
		if c == '\\' || c < 0x20 {
			return -1
		}
	}
	return -1
}

func scanCanonical(dst, line []byte) ([]byte, envelope, bool) {
	var env envelope
	if len(line) < 2 || line[0] != '{' || !utf8.Valid(line) {
		return dst, env, false
	}
	// Ledger rows nest a few levels; deeper input takes the slow path.
	const maxDepth = 16
	var stack [maxDepth + 1]byte // '{' or '['
	var lastKey [maxDepth + 1][]byte
	depth := 0
	i := 0
	start := len(dst)
	topEmitted := false
	skipping := false // inside the skipped top-level member
	var member []byte
	var valueStart int
	emit := func(b ...byte) {
		if !skipping {
			dst = append(dst, b...)
		}
	}
	emitS := func(b []byte) {
		if !skipping {
			dst = append(dst, b...)
		}
	}
	for {
		// expect a value at line[i]
		if i >= len(line) {
			return dst[:start], env, false
		}
		c := line[i]
		switch {
		case c == '{' || c == '[':
			if depth >= maxDepth {
				return dst[:start], env, false
			}
			depth++
			stack[depth] = c
			lastKey[depth] = nil
			emit(c)
			i++
			if i < len(line) && (line[i] == '}' && c == '{' || line[i] == ']' && c == '[') {
				emit(line[i])
				i++
				depth--
				goto afterValue
			}
			if c == '{' {
				goto key
			}
			continue
		case c == '"':
			e := stringEnd(line, i+1)
			if e < 0 {
				return dst[:start], env, false
			}
			emitS(line[i : e+1])
			i = e + 1
		case c == 't' && bytes.HasPrefix(line[i:], []byte("true")):
			emitS(line[i : i+4])
			i += 4
		case c == 'f' && bytes.HasPrefix(line[i:], []byte("false")):
			emitS(line[i : i+5])
			i += 5
		case c == 'n' && bytes.HasPrefix(line[i:], []byte("null")):
			emitS(line[i : i+4])
			i += 4
		case c == '-' || c >= '0' && c <= '9':
			j := i
			if line[j] == '-' {
				j++
			}
			float := false
			for j < len(line) {
				d := line[j]
				if d >= '0' && d <= '9' {
					j++
					continue
				}
				if d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
					float = true
					j++
					continue
				}
				break
			}
			lit := line[i:j]
			if float {
				f, err := strconv.ParseFloat(string(lit), 64)
				if err != nil {
					return dst[:start], env, false
				}
				var buf [32]byte
				r, err := canon.Append(buf[:0], f, canon.UpstreamForm)
				if err != nil || !bytes.Equal(r, lit) {
					return dst[:start], env, false
				}
			} else {
				digits := lit
				if digits[0] == '-' {
					digits = digits[1:]
				}
				// canonical: no leading zero, no "-0", within ±(2^53−1)
				if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' && (len(digits) > 1 || lit[0] == '-') {
					return dst[:start], env, false
				}
			}
			emitS(lit)
			i = j
		default:
			return dst[:start], env, false
		}
	afterValue:
		if depth == 1 && member != nil {
			v := line[valueStart:i]
			switch string(member) {
			case "ledger_version":
				env.version = v
			case "row_index":
				env.index = v
			case "previous_row_digest_sha256":
				env.previous = v
			case "row_digest_sha256":
				env.digest = v
			case "row_kind":
				env.kind = v
			}
			member = nil
			skipping = false
		}
		if depth == 0 {
			if i != len(line) {
				return dst[:start], env, false
			}
			return dst, env, env.digest != nil
		}
		if i < len(line) && line[i] == ',' {
			if i+1 >= len(line) || line[i+1] != ' ' {
				return dst[:start], env, false
			}
			i += 2
			if stack[depth] == '[' {
				emit(',')
				continue
			}
			goto key
		}
		if i < len(line) && (line[i] == '}' && stack[depth] == '{' || line[i] == ']' && stack[depth] == '[') {
			emit(line[i])
			i++
			depth--
			goto afterValue
		}
		return dst[:start], env, false
	key:
		{
			if i >= len(line) || line[i] != '"' {
				return dst[:start], env, false
			}
			e := stringEnd(line, i+1)
			if e < 0 {
				return dst[:start], env, false
			}
			k := line[i+1 : e]
			if lastKey[depth] != nil && bytes.Compare(lastKey[depth], k) >= 0 {
				return dst[:start], env, false // unsorted or duplicate
			}
			first := lastKey[depth] == nil
			lastKey[depth] = k
			if e+2 >= len(line) || line[e+1] != ':' || line[e+2] != ' ' {
				return dst[:start], env, false
			}
			if depth == 1 {
				member = k
				if string(member) == "row_digest_sha256" {
					skipping = true
				} else {
					if topEmitted {
						dst = append(dst, ',')
					}
					topEmitted = true
				}
				dst = dstKey(dst, skipping, line[i:e+1])
			} else {
				if !first {
					emit(',')
				}
				emitS(line[i : e+1])
				emit(':')
			}
			i = e + 3
			valueStart = i
			continue
		}
	}
}

func dstKey(dst []byte, skipping bool, quoted []byte) []byte {
	if skipping {
		return dst
	}
	dst = append(dst, quoted...)
	return append(dst, ':')
}
