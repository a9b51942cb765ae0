package execledger

import (
	"bytes"
	"encoding/binary"
	"slices"
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
	var s rowScanner
	out, _, ok := s.scan(dst, line)
	return out, ok
}

// rowScanner is the fast path's state that outlives one line: the float
// literals already proven canonical (a row repeats the same few durations,
// and proving one costs a parse and a render).
type rowScanner struct {
	floats [4]string
	next   int
	cuts   []int32 // scratch
}

// canonicalFloat reports whether lit (a literal with a fraction or an
// exponent) is the upstream rendering of the float it denotes.
func (s *rowScanner) canonicalFloat(lit []byte) bool {
	for _, f := range s.floats {
		if f != "" && f == string(lit) {
			return true
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return false
	}
	var buf [32]byte
	r, err := canon.Append(buf[:0], f, canon.UpstreamForm)
	if err != nil || !bytes.Equal(r, lit) {
		return false
	}
	s.floats[s.next] = string(lit)
	s.next = (s.next + 1) % len(s.floats)
	return true
}

// key8 is the first eight bytes of k, big-endian, zero-padded. The fast
// path's keys hold no byte below 0x20, so comparing two of them orders keys
// whose first eight bytes differ, and equal words mean equal keys when
// either is eight bytes or shorter.
func key8(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var w uint64
	for j, c := range k {
		w |= uint64(c) << (56 - 8*j)
	}
	return w
}

// The little-endian words of the literals.
const (
	wordTrue = 't' | 'r'<<8 | 'u'<<16 | 'e'<<24
	wordNull = 'n' | 'u'<<8 | 'l'<<16 | 'l'<<24
	wordFals = 'f' | 'a'<<8 | 'l'<<16 | 's'<<24
)

// scan is the fast path: see [compactCanonical]. It also captures the
// envelope's raw values. One pass validates the line and notes where the
// compact form differs from it (the space after each structural ',' and
// ':', and the top-level row_digest_sha256 member with one separator);
// strings are scanned eight bytes at a time, inline, for their closing
// quote, a backslash or a control byte (a string needing an escape takes
// the slow path). A second pass copies the spans between the cuts.
func (s *rowScanner) scan(dst, line []byte) ([]byte, envelope, bool) {
	const (
		lo  = 0x0101010101010101
		hi  = 0x8080808080808080
		sp  = 0x2020202020202020
		quo = 0x2222222222222222 // '"'
		bsl = 0x5c5c5c5c5c5c5c5c // '\\'
		// Ledger rows nest a few levels; deeper input takes the slow path.
		maxDepth = 16
	)
	var (
		env      envelope
		stack    [maxDepth + 1]byte // '{' or '['
		lastKey  [maxDepth + 1][]byte
		depth    int
		i, j     int
		c        byte
		isKey    bool
		high     uint64 // every string byte, or-ed: was any 0x80 or above?
		member   []byte // the top-level member being read
		memberAt int    // its key's opening quote
		first    bool   // it is the object's first member
		valueAt  int    // its value's first byte
		skipping bool   // it is row_digest_sha256
		// the compact form is line less cuts (one byte each) and less
		// line[skipFrom:skipTo]
		cuts             = s.cuts[:0]
		skipFrom, skipTo int
	)
	n := len(line)
	if n < 2 || line[0] != '{' || line[n-1] != '}' || bytes.IndexByte(line, '\\') >= 0 {
		return dst, env, false
	}
	// A string needing an escape takes the slow path: with no backslash and
	// no byte below 0x20 anywhere, a string ends at its next quote.
	if high = plainBytes(line); high == badLine {
		return dst, env, false
	}
	i = 0
value:
	if i >= n {
		goto fail
	}
	switch c = line[i]; c {
	case '"':
		isKey = false
		goto str
	case '{', '[':
		if depth >= maxDepth {
			goto fail
		}
		depth++
		stack[depth] = c
		lastKey[depth] = nil
		i++
		if i < n && (c == '{' && line[i] == '}' || c == '[' && line[i] == ']') {
			i++
			depth--
			goto afterValue
		}
		if c == '{' {
			goto key
		}
		goto value
	case 't':
		if i+4 > n || binary.LittleEndian.Uint32(line[i:]) != wordTrue {
			goto fail
		}
		i += 4
	case 'n':
		if i+4 > n || binary.LittleEndian.Uint32(line[i:]) != wordNull {
			goto fail
		}
		i += 4
	case 'f':
		if i+5 > n || binary.LittleEndian.Uint32(line[i:]) != wordFals || line[i+4] != 'e' {
			goto fail
		}
		i += 5
	default:
		if c != '-' && (c < '0' || c > '9') {
			goto fail
		}
		j = i
		if c == '-' {
			j++
		}
		float := false
		for j < n {
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
		if float {
			if !s.canonicalFloat(line[i:j]) {
				goto fail
			}
		} else {
			digits := line[i:j]
			if c == '-' {
				digits = digits[1:]
			}
			// canonical: no leading zero, no "-0", within ±(2^53−1)
			if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' && (len(digits) > 1 || c == '-') {
				goto fail
			}
		}
		i = j
	}
afterValue:
	if depth == 1 && member != nil {
		v := line[valueAt:i]
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
		if skipping {
			// Leave out the member and one separator: the ", " before
			// it (whose space is the last cut), or the ", " after it.
			skipping = false
			if !first {
				if len(cuts) == 0 || int(cuts[len(cuts)-1]) != memberAt-1 {
					goto fail
				}
				cuts = cuts[:len(cuts)-1]
				skipFrom, skipTo = memberAt-2, i
			} else if i+1 < n && line[i] == ',' && line[i+1] == ' ' {
				skipFrom, skipTo = memberAt, i+2
			} else {
				skipFrom, skipTo = memberAt, i
			}
		}
		member = nil
	}
	if depth == 0 {
		if i != n || env.digest == nil {
			goto fail
		}
		// Every byte outside a string was ASCII structure; a string
		// byte at or above 0x80 asks for the whole encoding check.
		if high&hi != 0 && !utf8.Valid(line) {
			goto fail
		}
		s.cuts = cuts
		return compact(dst, line, cuts, skipFrom, skipTo), env, true
	}
	if i+1 < n && line[i] == ',' {
		if line[i+1] != ' ' {
			goto fail
		}
		if !skipping && i+1 >= skipTo {
			cuts = append(cuts, int32(i+1))
		}
		i += 2
		if stack[depth] == '[' {
			goto value
		}
		goto key
	}
	if i < n && (line[i] == '}' && stack[depth] == '{' || line[i] == ']' && stack[depth] == '[') {
		i++
		depth--
		goto afterValue
	}
	goto fail
key:
	if i >= n || line[i] != '"' {
		goto fail
	}
	isKey = true
str:
	// line[i] is an opening quote; the line holds no backslash and no
	// control byte, so the next quote closes the string.
	if j = bytes.IndexByte(line[i+1:], '"'); j < 0 {
		goto fail
	}
	j += i + 1
	if !isKey {
		i = j + 1
		goto afterValue
	}
	{
		k := line[i+1 : j]
		if last := lastKey[depth]; last != nil {
			// strictly ascending: unsorted or duplicate keys fail
			if a, b := key8(last), key8(k); a > b || a == b && (len(last) < 8 || bytes.Compare(last, k) >= 0) {
				goto fail
			}
		}
		if j+2 >= n || line[j+1] != ':' || line[j+2] != ' ' {
			goto fail
		}
		if depth == 1 {
			member, memberAt, first = k, i, lastKey[1] == nil
			skipping = string(k) == "row_digest_sha256"
			valueAt = j + 3
		}
		lastKey[depth] = k
		if !skipping {
			cuts = append(cuts, int32(j+2))
		}
		i = j + 3
		goto value
	}
fail:
	s.cuts = cuts
	return dst, envelope{}, false
}

const badLine = ^uint64(0)

// plainBytes returns badLine if line holds a byte below 0x20, else the
// bytes of line or-ed eight at a time (was any 0x80 or above?).
func plainBytes(line []byte) uint64 {
	const (
		hi = 0x8080808080808080
		sp = 0x2020202020202020
	)
	var high, bad uint64
	for len(line) >= 16 {
		x := binary.LittleEndian.Uint64(line)
		y := binary.LittleEndian.Uint64(line[8:])
		high |= x | y
		// has-less-than(x, 0x20): exact in whether any byte is flagged
		bad |= ((x - sp) &^ x) | ((y - sp) &^ y)
		line = line[16:]
	}
	for _, c := range line {
		high |= uint64(c)
		if c < 0x20 {
			return badLine
		}
	}
	if bad&hi != 0 {
		return badLine
	}
	return high &^ 0x7f7f7f7f7f7f7f7f
}

// compact appends line less the bytes at cuts (ascending) and less
// line[skipFrom:skipTo] (which holds no cut). Spans are copied a word at a
// time while eight bytes remain readable past them.
func compact(dst, line []byte, cuts []int32, skipFrom, skipTo int) []byte {
	dst = slices.Grow(dst, len(line))
	prev := 0
	for _, c := range cuts {
		if skipTo > prev && int(c) >= skipTo {
			dst = append(dst, line[prev:skipFrom]...)
			prev = skipTo
		}
		dst = append(dst, line[prev:c]...)
		prev = int(c) + 1
	}
	if skipTo > prev {
		dst = append(dst, line[prev:skipFrom]...)
		prev = skipTo
	}
	return append(dst, line[prev:]...)
}
