package commonoutcome_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/commonoutcome"
)

// base is a small well-formed SUCCESS projection for the V1 card (the
// family's cells are in testdata/cells.json, cells_test.go).
func base() *notimewire.ProjectionV1 {
	e := func(kind string, f map[string]any) notimewire.EntryV1 {
		return notimewire.EntryV1{Kind: kind, Fields: f}
	}
	return &notimewire.ProjectionV1{Integrity: "ok", TerminalOutcome: "completed_successfully", ReplayFinal: true, Entries: []notimewire.EntryV1{
		e("event", map[string]any{"record_type": "event_observed", "event_id": "e1"}),
		e("read", map[string]any{"record_type": "retrieval_served", "invocation_index": int64(1), "records": map[string]any{"ev": []any{"evidence_1"}}}),
		e("proposal", map[string]any{"record_type": "action_proposed", "proposal_id": "proposal_1", "action_type": "pay", "payload": map[string]any{}, "evidence_refs": []any{"evidence_1"}}),
		e("obligation", map[string]any{"record_type": "obligation_created", "obligation_id": "o1"}),
		e("effect", map[string]any{"record_type": "effect_accepted", "proposal_id": "proposal_1", "action_type": "pay"}),
		e("obligation", map[string]any{"record_type": "obligation_discharged", "obligation_id": "o1"}),
		e("terminal_proposal", map[string]any{"record_type": "terminal_proposed", "evidence_refs": []any{}}),
		e("provisional_close", map[string]any{"record_type": "provisional_close_entered", "cycle_id": "c1"}),
		e("terminal", map[string]any{"record_type": "terminal_accepted", "outcome": "completed_successfully", "replay_final": true}),
		e("event", map[string]any{"record_type": "event_after_terminal", "event_id": "e2"}),
	}}
}

func eval(p *notimewire.ProjectionV1) notimewire.CommonOutcomeV1 {
	return commonoutcome.Evaluate(p, commonoutcome.Cards["V1"])
}

// The wire object: exactly status, predicate_verdicts and finding_codes,
// status one of the three uppercase strings.
func TestTree(t *testing.T) {
	tr := commonoutcome.Tree(eval(base()))
	if len(tr) != 3 || tr["status"] != "SUCCESS" {
		t.Fatalf("%v", tr)
	}
	if _, ok := tr["finding_codes"].([]any); !ok {
		t.Fatal("finding_codes is not a list")
	}
}
