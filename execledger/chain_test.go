package execledger_test

import (
	"errors"

	"bytes"
	"github.com/obaudit/obaudit/internal/limits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/execledger/internal/vectors"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

var chainClasses = map[string]bool{
	"ledger/not-json": true, "ledger/duplicate-key": true, "ledger/version": true, "ledger/row-index": true,
	"ledger/back-link": true, "ledger/row-digest": true, "ledger/after-terminal": true,
}

// chainMay are the further classes VerifyChain may raise for a journal's
// shape (a row kind outside the vocabulary, a non-object row, rows out of
// order).
var chainMay = map[string]bool{"ledger/row-order": true, "ledger/vocabulary": true, "ledger/schema": true}

// TestVerifyChainAgreesWithRead: on every vector, the chain-only pass
// refuses exactly the chain refusals Read names, accepts what Read accepts
// with the same tip and terminal, and accepts (being chain-only) journals
// that Read refuses only for their content.
func TestVerifyChainAgreesWithRead(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorDir, "*", "*.ndjson"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		_, data, _ := vectors.Split(b)
		a, rerr := execledger.Read(bytes.NewReader(data), execledger.Options{})
		c, cerr := execledger.VerifyChain(bytes.NewReader(data))
		rc, _ := refusal.ClassOf(rerr)
		cc, _ := refusal.ClassOf(cerr)
		switch {
		case rerr == nil:
			if cerr != nil || c.ChainTip != a.ChainTip || c.Rows != a.RowsVerified || c.TruncatedTail != a.TruncatedTail ||
				(a.Complete() && c.TerminalKind != a.Status()) || (!a.Complete() && c.TerminalKind != "") {
				t.Errorf("%s: Read ok (%s) but VerifyChain = %+v, %v", p, a.Status(), c, cerr)
			}
		case chainClasses[string(rc)]:
			if string(cc) != string(rc) {
				t.Errorf("%s: Read %s, VerifyChain %v", p, rc, cerr)
			}
		default:
			if cerr != nil && !chainClasses[string(cc)] && !chainMay[string(cc)] {
				t.Errorf("%s: VerifyChain refused with a non-chain class: %v", p, cerr)
			}
		}
	}
}

func TestVerifyChainUpstream(t *testing.T) {
	c, err := execledger.VerifyChain(bytes.NewReader(upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson")))
	if err != nil || c.Rows != 48 || c.TerminalKind != "scored" || c.Version != 2 ||
		c.ChainTip != "73f0c6b77ff6e774ded0c325ee007fe62f62999627ffcd8ae915474809f41b2f" {
		t.Fatalf("VerifyChain(upstream) = %+v, %v", c, err)
	}
	if strings.Contains(c.ChainTip, " ") {
		t.Fatal("bad tip")
	}
}

// TestLineBound: a row longer than limits.MaxLedgerLineBytes is refused as
// limits/exceeded by both passes, before it is parsed.
func TestLineBound(t *testing.T) {
	long := append([]byte(`{"x": "`), bytes.Repeat([]byte("a"), limits.MaxLedgerLineBytes+10)...)
	long = append(long, []byte("\"}\n")...)
	for _, data := range [][]byte{long, append(bytes.Repeat(long, 3), '\n')} {
		if _, err := execledger.Read(bytes.NewReader(data), execledger.Options{}); !errors.Is(err, limits.ErrExceeded) {
			t.Errorf("Read = %v, want limits/exceeded", err)
		}
		if _, err := execledger.VerifyChain(bytes.NewReader(data)); !errors.Is(err, limits.ErrExceeded) {
			t.Errorf("VerifyChain = %v, want limits/exceeded", err)
		}
	}
}

// TestVerifyChainNestedEnvelope: an envelope member whose value is a
// structure holding the right scalar (re-digested, so the row hashes to what
// it states) is refused as the slow path refuses it, never read as the
// scalar inside.
func TestVerifyChainNestedEnvelope(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want *refusal.Refusal
	}{
		{"row_index", execledger.ErrRowIndex},
		{"ledger_version", execledger.ErrVersion},
		{"row_kind", execledger.ErrVocabulary},
		{"previous_row_digest_sha256", execledger.ErrBackLink},
	} {
		rows := lt.Rows(lt.Scored())[:2]
		rows[1][tc.key] = map[string]any{"x": rows[1][tc.key]}
		lt.Redigest(rows[1])
		data := lt.Rewrite(rows)
		if _, err := execledger.VerifyChain(bytes.NewReader(data)); !errors.Is(err, tc.want) {
			t.Errorf("%s nested in an object: VerifyChain = %v, want %s", tc.key, err, tc.want.Class)
		}
		if _, err := execledger.Read(bytes.NewReader(data), execledger.Options{}); err == nil {
			t.Errorf("%s nested in an object: Read accepted it", tc.key)
		}
	}
}
