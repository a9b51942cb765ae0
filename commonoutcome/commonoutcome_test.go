package commonoutcome_test

import (
	"slices"
	"testing"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/commonoutcome"
)

// base is a hand-authored, well-formed SUCCESS projection for the V1 card:
// an event, a read serving the evidence, a proposal citing it and its
// accepted effect, an obligation created and discharged, a provisional
// close, the replay-final terminal and a post-terminal event.
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

func failing(o notimewire.CommonOutcomeV1, verdict string) []string {
	var out []string
	for _, p := range commonoutcome.Predicates {
		if o.PredicateVerdicts[p] == verdict {
			out = append(out, p)
		}
	}
	return out
}

func TestBaseIsSuccess(t *testing.T) {
	o := eval(base())
	if o.Status != notimewire.StatusSuccess || len(o.FindingCodes) != 0 || len(failing(o, notimewire.VerdictPass)) != 4 {
		t.Fatalf("%+v", o)
	}
}

// One well-formed FAILURE per business conjunct, each changing only that
// conjunct.
func TestOneFailurePerConjunct(t *testing.T) {
	cases := []struct {
		name, pred, code string
		mutate           func(p *notimewire.ProjectionV1)
	}{
		{"terminal not legitimate", commonoutcome.PredTerminal, commonoutcome.CodeTerminalNotLegitimate, func(p *notimewire.ProjectionV1) {
			p.TerminalOutcome = "transferred_to_human_ownership"
			p.Entries[8].Fields["outcome"] = "transferred_to_human_ownership"
		}},
		{"critical violation", commonoutcome.PredInvariant, commonoutcome.CodeCriticalViolation, func(p *notimewire.ProjectionV1) {
			p.Entries = slices.Insert(p.Entries, 1, notimewire.EntryV1{Kind: "critical", Fields: map[string]any{"record_type": "critical_violation", "code": "X"}})
		}},
		{"obligation left open", commonoutcome.PredObligations, commonoutcome.CodeObligationOpen, func(p *notimewire.ProjectionV1) {
			p.Entries = slices.Delete(p.Entries, 5, 6)
		}},
		{"obligation breached", commonoutcome.PredObligations, commonoutcome.CodeObligationBreached, func(p *notimewire.ProjectionV1) {
			p.Entries[5].Fields["record_type"] = "obligation_breached"
		}},
		{"required side effect failed", commonoutcome.PredObligations, commonoutcome.CodeSideEffectFailed, func(p *notimewire.ProjectionV1) {
			p.Entries = slices.Insert(p.Entries, 5, notimewire.EntryV1{Kind: "side_effect", Fields: map[string]any{"record_type": "side_effect_failed"}})
		}},
		{"evidence not served", commonoutcome.PredAuthority, commonoutcome.CodeEvidenceNotServed, func(p *notimewire.ProjectionV1) {
			p.Entries[2].Fields["evidence_refs"] = []any{"evidence_2"}
		}},
		{"proposal repeats an accepted effect", commonoutcome.PredAuthority, commonoutcome.CodeDuplicateOfAccepted, func(p *notimewire.ProjectionV1) {
			again := notimewire.EntryV1{Kind: "proposal", Fields: map[string]any{"record_type": "action_proposed", "proposal_id": "proposal_2", "action_type": "pay", "payload": map[string]any{}, "evidence_refs": []any{}}}
			p.Entries = slices.Insert(p.Entries, 6, again)
		}},
		{"mutation after final", commonoutcome.PredAuthority, commonoutcome.CodeMutationAfterFinal, func(p *notimewire.ProjectionV1) {
			p.Entries[9].Fields["record_type"] = "event_observed"
		}},
		{"terminal not reached", commonoutcome.PredTerminal, commonoutcome.CodeTerminalNotReached, func(p *notimewire.ProjectionV1) {
			p.TerminalOutcome, p.ReplayFinal = nil, false
			p.Entries = p.Entries[:8]
		}},
	}
	for _, c := range cases {
		p := base()
		c.mutate(p)
		o := eval(p)
		if o.Status != notimewire.StatusFailure || !slices.Equal(failing(o, notimewire.VerdictFail), []string{c.pred}) || !slices.Equal(o.FindingCodes, []string{c.code}) {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
}

// One integrity ERROR per malformed common category: every predicate is
// ERROR and the status is ERROR, never an inferred FAILURE.
func TestOneErrorPerMalformedCategory(t *testing.T) {
	cases := []struct {
		name, code string
		mutate     func(p *notimewire.ProjectionV1)
	}{
		{"integrity status", commonoutcome.CodeIntegrity, func(p *notimewire.ProjectionV1) { p.Integrity = "ERROR:INTEGRITY" }},
		{"unknown entry kind", commonoutcome.CodeUnknownEntryKind, func(p *notimewire.ProjectionV1) { p.Entries[0].Kind = "wait" }},
		{"malformed event", commonoutcome.CodeMalformedEntry, func(p *notimewire.ProjectionV1) { delete(p.Entries[0].Fields, "event_id") }},
		{"duplicate event", commonoutcome.CodeDuplicateEvent, func(p *notimewire.ProjectionV1) { p.Entries[9].Fields["event_id"] = "e1" }},
		{"effect without proposal", commonoutcome.CodeEffectWithoutProposal, func(p *notimewire.ProjectionV1) { p.Entries[4].Fields["proposal_id"] = "proposal_9" }},
		{"unmatched obligation transition", commonoutcome.CodeObligationUnknown, func(p *notimewire.ProjectionV1) { p.Entries[5].Fields["obligation_id"] = "o9" }},
		{"duplicate obligation", commonoutcome.CodeDuplicateObligationOpen, func(p *notimewire.ProjectionV1) {
			p.Entries = slices.Insert(p.Entries, 4, p.Entries[3])
		}},
		{"terminal facts inconsistent", commonoutcome.CodeTerminalFactsDisagree, func(p *notimewire.ProjectionV1) { p.ReplayFinal = false }},
		{"missing projection", commonoutcome.CodeIntegrity, nil},
	}
	for _, c := range cases {
		var o notimewire.CommonOutcomeV1
		if c.mutate == nil {
			o = eval(nil)
		} else {
			p := base()
			c.mutate(p)
			o = eval(p)
		}
		if o.Status != notimewire.StatusError || len(failing(o, notimewire.VerdictError)) != 4 || !slices.Equal(o.FindingCodes, []string{c.code}) {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
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
