package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestLedgerCompare holds the rerun's byte comparison to the digest
// comparison it replaces: the same rows match, and a changed, missing or
// extra row (or none at all) does not.
func TestLedgerCompare(t *testing.T) {
	rows := func(l *ledger, n int, last string) {
		for i := 0; i < n; i++ {
			v := "x"
			if i == n-1 {
				v = last
			}
			l.row("2031-03-03T09:00:00Z", "timer_cancelled", fStr("event_id", v))
		}
	}
	var kept []byte
	first := &ledger{keep: &kept, noRows: true}
	rows(first, 3, "x")
	d := first.digest()
	if sum := sha256.Sum256(kept); hex.EncodeToString(sum[:]) != d {
		t.Fatalf("kept bytes hash to %x, digest %s", sum, d)
	}
	for _, c := range []struct {
		name string
		n    int
		last string
		want bool
	}{{"same", 3, "x", true}, {"changed", 3, "y", false}, {"shorter", 2, "x", false}, {"longer", 4, "x", false}, {"empty", 0, "x", false}} {
		l := &ledger{comparing: true, ref: kept, noRows: true}
		rows(l, c.n, c.last)
		if got := l.finishCompare(); got != c.want {
			t.Errorf("%s: matched = %v, want %v", c.name, got, c.want)
		}
	}
	var none []byte
	empty := &ledger{keep: &none}
	empty.digest()
	if l := (&ledger{comparing: true, ref: none}); !l.finishCompare() {
		t.Error("two empty trajectories do not match")
	}
}
