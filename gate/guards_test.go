package gate_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// The guards the seeds list as covered-by-test, each driven by an agent
// that runs the reference path on V1 and crosses one guard once: the
// runtime's refusal is in the trajectory, and the evaluator names the
// crossing from the record on its own.

// intervene runs the reference and, the first time the reference is about
// to return a business decision that swap accepts, returns swap's decision
// instead (once).
type intervene struct {
	t     *testing.T
	inner *maintenance.Reference
	swap  func(obs *engine.Observation, d engine.Decision) *engine.Act
	spent bool
}

func (a *intervene) BeginEpisode(id engine.AgentIdentity) {
	a.inner = maintenance.NewReference()
	a.inner.BeginEpisode(id)
	a.spent = false
}

func (a *intervene) Decide(obs *engine.Observation) (engine.Decision, error) {
	d, err := a.inner.Decide(obs)
	if err != nil || a.spent {
		return d, err
	}
	if _, reading := d.(*engine.Retrieve); reading {
		return d, nil
	}
	act := a.swap(obs, d)
	if act == nil {
		return d, nil
	}
	for _, tool := range obs.RequiredReads(act.ActionType) {
		if _, ok := obs.Served[tool]; !ok {
			a.t.Errorf("intervention %s at invocation %d lacks read %s", act.ActionType, obs.InvocationIndex, tool)
		}
	}
	a.spent = true
	a.inner.DecisionBoundary(act.ActionType)
	return act, nil
}

// guardRun runs V1 (of spec, or the default) with the intervention and
// grades it under both engines (the guards are the same in both).
func guardRun(t *testing.T, spec *maintenance.Spec, swap func(*engine.Observation, engine.Decision) *engine.Act) (*engine.Episode, *evaluator.Evaluation) {
	t.Helper()
	if spec == nil {
		spec, _ = defaults(t)
	}
	op, err := maintenance.NewOperation(spec, "V1")
	if err != nil {
		t.Fatal(err)
	}
	ep, err := engine.Run(engine.Config{Domain: op, NewAgent: func() engine.Agent { return &intervene{t: t, swap: swap} },
		AgentID: "guard", AgentKind: "negative", OperationInstanceID: gate.PinnedInstanceID,
		EngineVersion: schemas.EngineObaudit, SelfCheck: engine.SelfCheckRerun})
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract(spec, "V1")
	if err != nil {
		t.Fatal(err)
	}
	var evs []*evaluator.Evaluation
	for _, v := range schemas.Engines() {
		ev, err := evaluator.Evaluate(v, c, evaluator.RunOf(ep))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if !slices.Equal(evs[0].FindingCodes(), evs[1].FindingCodes()) {
		t.Fatalf("the engines disagree on a guard: %v vs %v", evs[0].FindingCodes(), evs[1].FindingCodes())
	}
	return ep, evs[0]
}

// refusals returns the (record_type, code) of every refusal row.
func refusals(ep *engine.Episode) []string {
	var out []string
	for _, r := range ep.Trajectory {
		m := r.(map[string]any)
		switch m["record_type"] {
		case "action_rejected", "terminal_rejected", "event_rejected":
			out = append(out, m["record_type"].(string)+":"+m["code"].(string))
		}
	}
	return out
}

func findings(ev *evaluator.Evaluation) map[string][]string {
	out := map[string][]string{}
	for _, d := range ev.Dimensions {
		for _, f := range d.Findings {
			out[d.Name] = append(out[d.Name], f.Code)
		}
	}
	return out
}

func actOf(d engine.Decision, actionType string) *engine.Act {
	if a, ok := d.(*engine.Act); ok && a.ActionType == actionType {
		return a
	}
	return nil
}

func with(a *engine.Act, payload map[string]any, refs ...string) *engine.Act {
	out := *a
	out.Payload = maps.Clone(a.Payload)
	maps.Copy(out.Payload, payload)
	if refs != nil {
		out.EvidenceRefs = refs
	}
	return &out
}

// Stale approval reuse: the approval granted quote_1 version 1; authorising
// version 2 (what a revision produces) on that approval is refused
// STALE_APPROVAL, and graded STALE_APPROVAL_USED.
func TestGuardStaleApprovalReuse(t *testing.T) {
	ep, ev := guardRun(t, nil, func(_ *engine.Observation, d engine.Decision) *engine.Act {
		if a := actOf(d, "authorise_supplier_work"); a != nil {
			return with(a, map[string]any{"quote_version": int64(2)})
		}
		return nil
	})
	if got := refusals(ep); !slices.Contains(got, "action_rejected:STALE_APPROVAL") {
		t.Fatalf("refusals = %v", got)
	}
	f := findings(ev)
	if !slices.Equal(f[evaluator.AuthorityBoundaries], []string{"STALE_APPROVAL_USED"}) ||
		!slices.Equal(f[evaluator.ActionValidity], []string{"REJECTED_ACTION_PROPOSAL"}) ||
		!slices.Equal(ev.FailedDimensions(), []string{evaluator.AuthorityBoundaries, evaluator.ActionValidity}) {
		t.Fatalf("findings = %v, failed %v", f, ev.FailedDimensions())
	}
	if ep.Status != "completed_successfully" {
		t.Fatalf("status %s: a refused proposal must not derail the run", ep.Status)
	}
}

// payInvoice1 asks to pay invoice_1 with the reference's accepted payload.
func payInvoice1(rationale string) *engine.Act {
	return &engine.Act{ActionType: "request_payment",
		Payload:      map[string]any{"invoice_id": "invoice_1", "amount_minor": int64(64000), "currency": "GBP"},
		EvidenceRefs: []string{"invoice_1", "evidence_1"}, Rationale: rationale}
}

// Premature payment: asking to pay an invoice that is not yet validated is
// refused INVOICE_NOT_VALIDATED; the attempt is graded, nothing commits.
func TestGuardPrematurePayment(t *testing.T) {
	ep, ev := guardRun(t, nil, func(_ *engine.Observation, d engine.Decision) *engine.Act {
		if a := actOf(d, "request_invoice_validation"); a != nil {
			return payInvoice1("pay before validation")
		}
		return nil
	})
	if !slices.Contains(refusals(ep), "action_rejected:INVOICE_NOT_VALIDATED") {
		t.Fatalf("refusals = %v", refusals(ep))
	}
	if f := findings(ev); !slices.Equal(ev.FailedDimensions(), []string{evaluator.ActionValidity}) ||
		!slices.Equal(f[evaluator.ActionValidity], []string{"REJECTED_ACTION_PROPOSAL"}) {
		t.Fatalf("findings = %v", f)
	}
	if d, _ := dimension(ev, evaluator.CriticalInvariants); !d.OK {
		t.Fatalf("critical_invariants: %v", d.Findings)
	}
}

// Duplicate payment: after the settled payment, asking again with the
// accepted payload is refused DUPLICATE_PAYMENT_REQUEST and graded both as a
// duplicate and as a repetition after a wake.
func TestGuardDuplicatePayment(t *testing.T) {
	ep, ev := guardRun(t, nil, func(obs *engine.Observation, d engine.Decision) *engine.Act {
		if obs.Event != nil && obs.Event.EventType == "payment_settlement_confirmed" {
			return payInvoice1("verified work plus a validated matching invoice")
		}
		return nil
	})
	if !slices.Contains(refusals(ep), "action_rejected:DUPLICATE_PAYMENT_REQUEST") {
		t.Fatalf("refusals = %v", refusals(ep))
	}
	f := findings(ev)
	if !slices.Equal(ev.FailedDimensions(), []string{evaluator.ActionValidity, evaluator.RetrievalDiscipline}) ||
		!slices.Equal(f[evaluator.ActionValidity], []string{"DUPLICATE_OR_INVALID_ACTION"}) ||
		!slices.Equal(f[evaluator.RetrievalDiscipline], []string{"REPEATED_ACTION_AFTER_WAKE"}) {
		t.Fatalf("findings = %v, failed %v", f, ev.FailedDimensions())
	}
}

// Wrong-cycle approval: the runtime's authorisation handler (upstream's,
// reproduced) does not check the payload's cycle, so an authorisation that
// names the wrong cycle on a real approval is accepted. The evaluator does
// not trust the guard: it re-derives the authority the committing proposal
// claimed and fails critical_invariants.
func TestGuardWrongCycleApproval(t *testing.T) {
	ep, ev := guardRun(t, nil, func(_ *engine.Observation, d engine.Decision) *engine.Act {
		if a := actOf(d, "authorise_supplier_work"); a != nil {
			return with(a, map[string]any{"cycle_id": "work_cycle_1"})
		}
		return nil
	})
	if got := refusals(ep); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "action_rejected") }) {
		t.Fatalf("the runtime refused it after all: %v", got)
	}
	f := findings(ev)
	if !slices.Equal(ev.FailedDimensions(), []string{evaluator.CriticalInvariants}) ||
		!slices.Equal(f[evaluator.CriticalInvariants], []string{"CRITICAL_WORK_AUTHORISED_WITHOUT_PRIOR_APPROVAL"}) {
		t.Fatalf("findings = %v, failed %v", f, ev.FailedDimensions())
	}
	d, _ := dimension(ev, evaluator.CriticalInvariants)
	if !strings.Contains(d.Findings[0].Detail, "the proposal names cycle 'work_cycle_1' but the effect committed against 'work_cycle_2'") {
		t.Fatalf("detail: %s", d.Findings[0].Detail)
	}
}

// Wrong-cycle invoice: paying invoice_1 (work_cycle_2's) from the warranty
// cycle is refused; the attempt is graded.
func TestGuardWrongCycleInvoice(t *testing.T) {
	ep, ev := guardRun(t, nil, func(obs *engine.Observation, d engine.Decision) *engine.Act {
		if a := actOf(d, "send_message"); a != nil && a.Payload["message_fixture_id"] == "msg_revisit_complete" {
			return &engine.Act{ActionType: "request_invoice_validation", Payload: map[string]any{"invoice_id": "invoice_1"},
				EvidenceRefs: []string{"evidence_2"}, Rationale: "validate the invoice for the warranty cycle"}
		}
		return nil
	})
	if got := refusals(ep); !slices.Contains(got, "action_rejected:INVOICE_NOT_PENDING") {
		t.Fatalf("refusals = %v", got)
	}
	f := findings(ev)
	if !slices.Contains(ev.FailedDimensions(), evaluator.ActionValidity) || !slices.Contains(f[evaluator.ActionValidity], "REJECTED_ACTION_PROPOSAL") {
		t.Fatalf("findings = %v", f)
	}
	if d, _ := dimension(ev, evaluator.CriticalInvariants); !d.OK {
		t.Fatalf("critical_invariants: %v", d.Findings)
	}
}

// specWith returns the default spec text with a line inserted after the
// line that contains anchor (and the line after it).
func specWith(t *testing.T, anchor, insert string) []byte {
	t.Helper()
	b := string(maintenance.DefaultOperation())
	i := strings.Index(b, anchor)
	if i < 0 {
		t.Fatalf("spec lacks %q", anchor)
	}
	j := i + strings.Index(b[i:], "}}\n") + 3
	return []byte(b[:j] + insert + b[j:])
}

const secondSettlement = `      - {event_id: %s, type: payment_settlement_confirmed, actor: payment_system, on_action: {type: request_payment, cycle_id: work_cycle_2}, delay_minutes: 120,
         payload: {settlement_id: settlement_1, payment_request_id: payment_1, invoice_id: invoice_1, cycle_id: work_cycle_2, amount_minor: 64000, currency: GBP}}
`

// Duplicate event: an event identity cannot be authored twice (the spec is
// refused), and a second delivery of the same settlement under a new
// identity is refused by the operation instead of mutating twice; the
// evaluator reports the undeclared refusal and finds no double mutation.
func TestGuardDuplicateEvent(t *testing.T) {
	_, err := maintenance.LoadSpec(specWith(t, "event_id: v1_e12,", strings.Replace(secondSettlement, "%s", "v1_e12", 1)), "dup-id.yaml")
	if refusal.Of(err) != maintenance.ErrDuplicateIdentity.Class {
		t.Fatalf("an event id authored twice: %v, want %s", err, maintenance.ErrDuplicateIdentity.Class)
	}
	spec, err := maintenance.LoadSpec(specWith(t, "event_id: v1_e12,", strings.Replace(secondSettlement, "%s", "v1_e12b", 1)), "dup-settlement.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ep, ev := guardRun(t, spec, func(*engine.Observation, engine.Decision) *engine.Act { return nil })
	if !slices.ContainsFunc(refusals(ep), func(s string) bool { return strings.HasPrefix(s, "event_rejected:") }) {
		t.Fatalf("refusals = %v", refusals(ep))
	}
	settled := 0
	for _, r := range ep.Trajectory {
		if m := r.(map[string]any); m["record_type"] == "event_observed" && m["event_type"] == "payment_settlement_confirmed" {
			settled++
		}
	}
	if settled != 1 {
		t.Fatalf("the settlement mutated %d times", settled)
	}
	f := findings(ev)
	if !slices.Equal(ev.FailedDimensions(), []string{evaluator.EnvironmentIntegrity}) ||
		!slices.Equal(f[evaluator.EnvironmentIntegrity], []string{"UNEXPECTED_EVENT_REJECTION"}) {
		t.Fatalf("findings = %v, failed %v", f, ev.FailedDimensions())
	}
}

// dimension returns the named dimension of ev.
func dimension(ev *evaluator.Evaluation, name string) (*evaluator.Dimension, bool) {
	for i := range ev.Dimensions {
		if ev.Dimensions[i].Name == name {
			return &ev.Dimensions[i], true
		}
	}
	return nil, false
}
