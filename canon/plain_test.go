package canon

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
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
