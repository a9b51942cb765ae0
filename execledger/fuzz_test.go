package execledger

import (
	"bytes"
	"errors"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// slowDigestInput is the reference: parse, drop row_digest_sha256,
// re-encode in the upstream compact form.
func slowDigestInput(line []byte) ([]byte, bool) {
	v, err := canon.Parse(line)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	if _, has := m["row_digest_sha256"]; !has {
		return nil, false
	}
	delete(m, "row_digest_sha256")
	b, err := canon.Upstream(m)
	return b, err == nil
}

// TestFastPathTaken: every line this build writes and every upstream line
// takes the fast path, with the slow path's bytes.
func TestFastPathTaken(t *testing.T) {
	var lines [][]byte
	lines = append(lines, bytes.Split(bytes.TrimSpace(upstreamStyle(t, 3)), []byte("\n"))...)
	lines = append(lines, bytes.Split(bytes.TrimSpace(upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson")), []byte("\n"))...)
	for i, l := range lines {
		fast, ok := compactCanonical(nil, l)
		slow, _ := slowDigestInput(l)
		if !ok {
			t.Fatalf("line %d did not take the fast path", i)
		}
		if !bytes.Equal(fast, slow) {
			t.Fatalf("line %d: fast and slow digest inputs differ:\n%s\n%s", i, fast, slow)
		}
	}
}

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
}

// FuzzCompactCanonical: whenever the fast path accepts a line, its bytes are
// exactly the slow path's.
func FuzzCompactCanonical(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		fast, ok := compactCanonical(nil, line)
		if !ok {
			return
		}
		slow, sok := slowDigestInput(line)
		if !sok || !bytes.Equal(fast, slow) {
			t.Fatalf("fast path accepted %q as %q; slow path gives %q (%v)", line, fast, slow, sok)
		}
	})
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
