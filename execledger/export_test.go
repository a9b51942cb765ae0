package execledger

import "slices"

// What only the tests use: the field table and the field set it must cover.

// FieldKinds returns the ledger's field table, in row order.
func FieldKinds() []FieldKind { return slices.Clone(fieldKinds) }

// TableFields returns every field pointer the table must have a row for,
// from the exact field sets the reader enforces.
func TableFields() []string {
	out := slices.Clone(envelopeBase)
	add := func(prefix string, names []string) {
		for _, n := range names {
			out = append(out, prefix+n)
		}
	}
	for _, f := range headerFields {
		switch f {
		case "provider":
			add("header/provider/", providerFields)
		case "controls":
			add("header/controls/", controlsFields)
		default:
			out = append(out, "header/"+f)
		}
	}
	for _, f := range callFields {
		switch f {
		case "attempts":
			add("call/attempts/[]/", attemptFields)
		case "decision":
			add("call/decision/", decisionFields)
		default:
			out = append(out, "call/"+f)
		}
	}
	for _, f := range terminalFields {
		if f == "totals" {
			add("terminal/totals/", totalsFields)
			continue
		}
		out = append(out, "terminal/"+f)
	}
	return out
}
