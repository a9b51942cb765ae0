package canon

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNotPlain8IsPlainTable: notPlain8's lowest mark is the first byte the
// table calls not plain, for every byte value in every lane among plain
// neighbours, for every pair of byte
// values in adjacent lanes (the borrows plain8 reasons about), and for
// random words.
func TestNotPlain8IsPlainTable(t *testing.T) {
	check := func(w [8]byte) {
		t.Helper()
		want := 8
		for i := 7; i >= 0; i-- {
			if !plain[w[i]] {
				want = i
			}
		}
		m := notPlain8(binary.LittleEndian.Uint64(w[:]))
		if got := bits.TrailingZeros64(m) / 8; got != want || m&^0x8080808080808080 != 0 {
			t.Fatalf("notPlain8(%q) = %#x: first byte %d, want %d", w, m, got, want)
		}
	}
	base := [8]byte{'a', 'b', 'c', ' ', '~', '!', '#', '['}
	for lane := range 8 {
		for c := range 256 {
			w := base
			w[lane] = byte(c)
			check(w)
		}
	}
	for lane := range 7 {
		for c := range 256 {
			for d := range 256 {
				w := base
				w[lane], w[lane+1] = byte(c), byte(d)
				check(w)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64())
		check(w)
		w[r.IntN(8)] = byte(0x20 + r.IntN(0x60)) // mostly plain words too
		check(w)
	}
}

// TestPlainStrBoundaries: plainStr takes exactly the strings of plain bytes,
// at every length around plainEnd's eight-byte steps, and declines one
// ending or holding a byte that is not.
func TestPlainStrBoundaries(t *testing.T) {
	for n := range 40 {
		body := make([]byte, n)
		for i := range body {
			body[i] = 'a' + byte(i%26)
		}
		for _, tail := range []string{`"`, `"x`, ``, `\"`, "\x01\"", "é\""} {
			data := append(append([]byte{'"'}, body...), tail...)
			s := scanner{data: data}
			got, ok := s.plainStr()
			wantOK := len(tail) > 0 && tail[0] == '"'
			if ok != wantOK || ok && (string(got) != string(body) || s.pos != n+2) || !ok && s.pos != 0 {
				t.Errorf("plainStr(%q) = %q, %v, pos %d", data, got, ok, s.pos)
			}
		}
	}
}

// TestSharedValues: string values are read right past the shared table's
// bound and its length limit, repeated or not.
func TestSharedValues(t *testing.T) {
	var want []string
	for i := range 5000 {
		want = append(want, fmt.Sprintf("v%d", i), fmt.Sprintf("v%d", i%7), fmt.Sprintf("%0*d", maxSharedValue+i%3-1, i))
	}
	doc, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := v.([]any)
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("value %d = %v, want %q", i, got[i], want[i])
		}
	}
}

// FuzzAppendString holds AppendString (whose runs of plain bytes are found
// a word at a time) to the byte-by-byte escape rule on any string, and to
// a refusal exactly when the string is not UTF-8; the seeds mix plain
// ASCII with every byte class the word scan must catch, around its 8-byte
// steps (CI fuzzes it briefly, .ci/steps/10-canon-fuzz.sh).
func FuzzAppendString(f *testing.F) {
	pieces := []string{"a", "Z", "0", " ", "~", "\x00", "\x1f", "\x7f", "\"", "\\", "\u00e9", "\u2028", "\U0001F600", "/", "<", "bad\xff", "\xc3"}
	for i, p := range pieces {
		for _, n := range []int{0, 7, 8, 15} {
			f.Add(strings.Repeat("a", n) + p + strings.Repeat("b", i%3))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := AppendString([]byte("x"), s)
		if !utf8.ValidString(s) {
			if e, ok := err.(*Error); !ok || e.Class != ErrInvalidUTF8.Class {
				t.Fatalf("AppendString(%q) = %q, %v; want %s", s, got, err, ErrInvalidUTF8.Class)
			}
			return
		}
		want := []byte(`x"`)
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				want = append(want, '\\', c)
			case c == '\b':
				want = append(want, `\b`...)
			case c == '\f':
				want = append(want, `\f`...)
			case c == '\n':
				want = append(want, `\n`...)
			case c == '\r':
				want = append(want, `\r`...)
			case c == '\t':
				want = append(want, `\t`...)
			case c < 0x20:
				want = fmt.Appendf(want, `\u%04x`, c)
			default:
				want = append(want, c)
			}
		}
		want = append(want, '"')
		if err != nil || string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, %v; want %s", s, got, err, want)
		}
	})
}
