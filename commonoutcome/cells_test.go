package commonoutcome_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commonoutcome"
)

// The common-outcome family of the §11 matrix as hand-authored data
// (testdata/cells.json): a SUCCESS base projection and, per cell, the edits
// that make it one FAILURE per business conjunct or one ERROR per malformed
// common category, with the status, failing predicates and codes expected.

type op struct {
	Op    string          `json:"op"`
	Entry int             `json:"entry"`
	At    int             `json:"at"`
	Field string          `json:"field"`
	Value json.RawMessage `json:"value"`
}

type cell struct {
	Cell    string   `json:"cell"`
	Ops     []op     `json:"ops"`
	Status  string   `json:"status"`
	Failing []string `json:"failing"`
	Codes   []string `json:"codes"`
}

// tree parses raw as a fresh canon tree (an absent value is null).
func tree(t *testing.T, raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	x, err := canon.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func projection(t *testing.T, raw any) *notimewire.ProjectionV1 {
	m := raw.(map[string]any)
	p := &notimewire.ProjectionV1{Integrity: m["integrity_status"].(string), TerminalOutcome: m["terminal_outcome"], ReplayFinal: m["replay_final"].(bool)}
	for _, e := range m["entries"].([]any) {
		em := e.(map[string]any)
		p.Entries = append(p.Entries, notimewire.EntryV1{Kind: em["kind"].(string), Fields: em["fields"].(map[string]any)})
	}
	return p
}

func TestCommonOutcomeCells(t *testing.T) {
	b, err := os.ReadFile("testdata/cells.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Base  json.RawMessage `json:"base"`
		Cells []cell          `json:"cells"`
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	conjuncts := map[string]bool{}
	for _, c := range doc.Cells {
		base := tree(t, doc.Base) // a fresh canon tree per cell
		p := projection(t, base)
		for _, o := range c.Ops {
			v := tree(t, o.Value)
			switch o.Op {
			case "top":
				switch o.Field {
				case "terminal_outcome":
					p.TerminalOutcome = v
				case "replay_final":
					p.ReplayFinal = v.(bool)
				case "integrity_status":
					p.Integrity = v.(string)
				}
			case "set":
				p.Entries[o.Entry].Fields[o.Field] = v
			case "unset":
				delete(p.Entries[o.Entry].Fields, o.Field)
			case "kind":
				p.Entries[o.Entry].Kind = v.(string)
			case "delete":
				p.Entries = slices.Delete(p.Entries, o.Entry, o.Entry+1)
			case "insert":
				em := v.(map[string]any)
				p.Entries = slices.Insert(p.Entries, o.At, notimewire.EntryV1{Kind: em["kind"].(string), Fields: em["fields"].(map[string]any)})
			case "nil":
				p = nil
			default:
				t.Fatalf("%s: unknown op %q", c.Cell, o.Op)
			}
		}
		got := commonoutcome.Evaluate(p, commonoutcome.Cards["V1"])
		want := c.Failing
		verdict := notimewire.VerdictFail
		if c.Status == notimewire.StatusError {
			want, verdict = commonoutcome.Predicates, notimewire.VerdictError
		}
		var failing []string
		for _, id := range commonoutcome.Predicates {
			if got.PredicateVerdicts[id] == verdict {
				failing = append(failing, id)
			}
		}
		if got.Status != c.Status || !slices.Equal(failing, want) && len(want)+len(failing) > 0 || !slices.Equal(got.FindingCodes, c.Codes) && len(c.Codes)+len(got.FindingCodes) > 0 {
			t.Errorf("%s: %+v", c.Cell, got)
		}
		if c.Status == notimewire.StatusFailure && len(c.Failing) == 1 {
			conjuncts[c.Failing[0]] = true
		}
	}
	for _, id := range commonoutcome.Predicates {
		if !conjuncts[id] {
			t.Errorf("no targeted FAILURE cell for %s", id)
		}
	}
}
