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
	// where the digest member sits: first, last, alone, holding a
	// structure, and nested (kept)
	f.Add([]byte(`{"row_digest_sha256": "x", "z": 1}`))
	f.Add([]byte(`{"a": [1, 2], "row_digest_sha256": "x"}`))
	f.Add([]byte(`{"row_digest_sha256": "x"}`))
	f.Add([]byte(`{"a": 0.5, "row_digest_sha256": {"k": [1, {"m": 2.5}], "l": "v"}, "s": {"row_digest_sha256": "y"}}`))
	f.Add([]byte(`{"": "é", "row_digest_sha256": "x"}` + "\n" + `{"a": 0.5, "b": 0.50, "row_digest_sha256": "x"}`))
}

// FuzzCompactCanonical: whenever the fast path accepts a line, its bytes are
// exactly the slow path's, and the envelope it captured is the parsed row's.
// The input is split into lines scanned by one scanner, as a chain worker
// scans a chunk, so that what a scanner remembers from one line (the float
// literals it has proved canonical) is exercised on the next.
func FuzzCompactCanonical(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var rs rowScanner
		for _, line := range bytes.Split(data, []byte("\n")) {
			fast, env, ok := rs.scan([]byte("prefix"), line)
			if !ok {
				if string(fast) != "prefix" {
					t.Fatalf("a refused line left %q", fast)
				}
				continue
			}
			fast = fast[len("prefix"):]
			slow, sok := slowDigestInput(line)
			if !sok || !bytes.Equal(fast, slow) {
				t.Fatalf("fast path accepted %q as %q; slow path gives %q (%v)", line, fast, slow, sok)
			}
			checkEnvelope(t, line, env)
		}
	})
}

// checkEnvelope holds the fast path's captured top-level values to the
// parsed row's members, re-encoded.
func checkEnvelope(t *testing.T, line []byte, env envelope) {
	t.Helper()
	v, _ := canon.Parse(line)
	m := v.(map[string]any)
	for key, got := range map[string][]byte{
		"ledger_version": env.version, "row_index": env.index, "previous_row_digest_sha256": env.previous,
		"row_digest_sha256": env.digest, "row_kind": env.kind,
	} {
		mv, has := m[key]
		if !has {
			if got != nil {
				t.Fatalf("%q: captured %s = %q, absent in the row", line, key, got)
			}
			continue
		}
		want, err := canon.UpstreamSpaced(mv)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q: captured %s = %q, the row holds %q", line, key, got, want)
		}
	}
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

// FuzzVerifyChain holds the chain-only pass (fast path, workers, in-order
// judging) to the full reader on any input: it never panics; whatever Read
// accepts it accepts with the same rows, tip, tail and terminal; and where
// Read refuses with a chain class, it refuses with that class.
func FuzzVerifyChain(f *testing.F) {
	seedLines(f)
	for _, v := range []int{2, 3} {
		full := upstreamStyle(&testing.T{}, v)
		f.Add(full)
		f.Add(full[:len(full)-5])
		f.Add(append(append([]byte(nil), full...), full...))
	}
	chain := map[string]bool{
		"ledger/not-json": true, "ledger/duplicate-key": true, "ledger/version": true, "ledger/row-index": true,
		"ledger/back-link": true, "ledger/row-digest": true, "ledger/after-terminal": true,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, rerr := Read(bytes.NewReader(data), Options{})
		c, cerr := VerifyChain(bytes.NewReader(data))
		if cerr != nil {
			if _, ok := refusal.ClassOf(cerr); !ok && !errors.Is(cerr, limits.ErrExceeded) {
				t.Fatalf("unclassed error %v", cerr)
			}
		}
		rc, _ := refusal.ClassOf(rerr)
		cc, _ := refusal.ClassOf(cerr)
		switch {
		case rerr == nil:
			if cerr != nil || c.ChainTip != a.ChainTip || c.Rows != a.RowsVerified || c.TruncatedTail != a.TruncatedTail ||
				(a.Complete() && c.TerminalKind != a.Status()) || (!a.Complete() && c.TerminalKind != "") {
				t.Fatalf("Read ok (%s, %d rows) but VerifyChain = %+v, %v", a.Status(), a.RowsVerified, c, cerr)
			}
		case chain[string(rc)]:
			if cc != rc {
				t.Fatalf("Read refused %s, VerifyChain %v", rc, cerr)
			}
		}
	})
}
