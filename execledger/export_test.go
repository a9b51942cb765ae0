package execledger

import "slices"

// What only the tests use: the field table and the field set it must cover.

// The writer's state, for the durability tests.

// Finalized reports whether the terminal row is durable.
func (w *Writer) Finalized() bool { return w.terminal != nil }

// ChainTip is the digest of the last durable row.
func (w *Writer) ChainTip() string { return w.prev }

// LedgerDigest is the terminal row's digest, or "" before Finalize.
func (w *Writer) LedgerDigest() string {
	if w.terminal == nil {
		return ""
	}
	return w.prev
}

// Calls returns the number of durable call rows.
func (w *Writer) Calls() int64 { return w.t.calls }

// FieldKinds returns the ledger's field table, in row order.
func FieldKinds() []FieldKind { return slices.Clone(fieldKinds) }

// TableFields returns every field pointer the table must have a row for,
// from the exact field sets the reader enforces.
func TableFields() []string {
	// Each nested object's fields stand under its own prefix.
	nested := map[string]struct {
		prefix string
		fields []string
	}{
		"header/provider": {"header/provider/", providerFields},
		"header/controls": {"header/controls/", controlsFields},
		"call/attempts":   {"call/attempts/[]/", attemptFields},
		"call/decision":   {"call/decision/", decisionFields},
		"terminal/totals": {"terminal/totals/", totalsFields},
	}
	out := slices.Clone(envelopeBase)
	for _, row := range []struct {
		kind   string
		fields []string
	}{{"header", headerFields}, {"call", callFields}, {"terminal", terminalFields}} {
		for _, f := range row.fields {
			n, ok := nested[row.kind+"/"+f]
			if !ok {
				out = append(out, row.kind+"/"+f)
				continue
			}
			for _, name := range n.fields {
				out = append(out, n.prefix+name)
			}
		}
	}
	return out
}
