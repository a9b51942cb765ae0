package execledger

import (
	"bytes"
	"errors"
	"testing"

	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/refusal"
)

func seedLines(f *testing.F) {
	for _, v := range []int{2, 3} {
		for _, l := range bytes.Split(upstreamStyle(&testing.T{}, v), []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"a": 1, "row_digest_sha256": "x", "z": [1.5, -0.0, 1e+16, {"k": null}]}`))
	f.Add([]byte(`{"b": 01, "row_digest_sha256": "x"}`))
	f.Add([]byte(`{"z": 1, "a": 2, "row_digest_sha256": "x"}`))
	f.Add([]byte(`{"a": "\u00e9", "row_digest_sha256": "x"}`))
	// where the digest member sits: first, last, alone, holding a
	// structure, and nested (kept)
	f.Add([]byte(`{"row_digest_sha256": "x", "z": 1}`))
	f.Add([]byte(`{"a": [1, 2], "row_digest_sha256": "x"}`))
	f.Add([]byte(`{"row_digest_sha256": "x"}`))
	f.Add([]byte(`{"a": 0.5, "row_digest_sha256": {"k": [1, {"m": 2.5}], "l": "v"}, "s": {"row_digest_sha256": "y"}}`))
	f.Add([]byte(`{"": "é", "row_digest_sha256": "x"}` + "\n" + `{"a": 0.5, "b": 0.50, "row_digest_sha256": "x"}`))
}

// FuzzRead: the reader never panics; every error on in-memory input is a
// named refusal; an accepted journal reads the same twice and a strict read
// agrees with its completeness.
func FuzzRead(f *testing.F) {
	seedLines(f)
	for _, v := range []int{2, 3} {
		full := upstreamStyle(&testing.T{}, v)
		f.Add(full)
		f.Add(full[:len(full)-5])
		f.Add(append(append([]byte(nil), full...), full...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			if _, ok := refusal.ClassOf(err); !ok && !errors.Is(err, limits.ErrExceeded) {
				t.Fatalf("unclassed error %v", err)
			}
			return
		}
		if a.RowsVerified < 1 || a.ChainTip == "" || (a.Complete() && a.LedgerDigest() != a.ChainTip) {
			t.Fatalf("incoherent audit %+v", a)
		}
		if a.Complete() && a.TruncatedTail {
			t.Fatal("a complete journal with a torn tail")
		}
		b, err := Read(bytes.NewReader(data), Options{RequireComplete: true})
		if a.Complete() != (err == nil) || (err != nil && !errors.Is(err, ErrIncomplete)) {
			t.Fatalf("strict read %v disagrees with status %s", err, a.Status())
		}
		if b != nil && b.ChainTip != a.ChainTip {
			t.Fatal("two reads disagree")
		}
	})
}
