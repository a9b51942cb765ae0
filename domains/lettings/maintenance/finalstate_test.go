package maintenance_test

import (
	"slices"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// roundTrip returns a state as a reader sees it: its upstream canonical
// bytes parsed back strictly.
func roundTrip(t testing.TB, state map[string]any) map[string]any {
	t.Helper()
	b, err := canon.Upstream(state)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := canon.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

// Every final state the gate's cells produce (the reference and the eight
// negatives on V1, V2 and V3, under both engine versions) is one the
// validator accepts.
func TestFinalStateOfEveryCellValidates(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	cells := 0
	for _, version := range schemas.Engines() {
		for _, scenario := range []string{"V1", "V2", "V3"} {
			op, err := maintenance.NewOperation(spec, scenario)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range agents.Entries() {
				ep, err := engine.Run(engine.Config{
					Domain: op, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind,
					OperationInstanceID: pinnedInstance, EngineVersion: version,
				})
				if err != nil {
					t.Fatalf("%s %s %s: %v", version, scenario, a.ID, err)
				}
				if err := maintenance.ValidateFinalState(roundTrip(t, ep.FinalState), version, 8, false); err != nil {
					t.Errorf("%s %s %s: %v", version, scenario, a.ID, err)
				}
				cells++
			}
		}
	}
	if cells != 2*27 {
		t.Fatalf("validated %d cells, want 54 (9 agents x 3 variants x 2 engines)", cells)
	}
}

func fixtureState(t testing.TB, name string) (map[string]any, string, int) {
	t.Helper()
	tree, err := canon.Parse(upstreamtest.Read(t, name))
	if err != nil {
		t.Fatal(err)
	}
	doc := tree.(map[string]any)
	return doc["final_state"].(map[string]any), doc["engine_version"].(string), int(doc["artifact_version"].(int64))
}

// The upstream artefacts' final states (contract 8 deterministic and
// fake-provider references, contract 1 reference) validate.
func TestFinalStateOfUpstreamFixturesValidates(t *testing.T) {
	for _, name := range []string{"artifact8-deterministic-reference-v1.json", "artifact8-fake-openai-reference-v1.json", "artifact1-reference-V1.json"} {
		state, version, contract := fixtureState(t, name)
		if err := maintenance.ValidateFinalState(state, version, contract, false); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The validator's root set is the pack's published observable roots plus
// hidden (and issue_reporting_actor_id only for the engines that wrote it).
func TestStateFieldsAreThePublishedRoots(t *testing.T) {
	want := append(slices.Clone(maintenance.ObservableRoots), "hidden")
	slices.Sort(want)
	if got := maintenance.StateFields(schemas.EngineUpstream); !slices.Equal(got, want) {
		t.Fatalf("StateFields(0.9.0) = %v, want %v", got, want)
	}
	if got := maintenance.StateFields("0.12.0"); !slices.Contains(got, "issue_reporting_actor_id") || len(got) != len(want)+1 {
		t.Fatalf("StateFields(0.12.0) = %v, want the roots plus issue_reporting_actor_id", got)
	}
}

// A named mutation of the V1 fixture's final state.
type stateMutation struct {
	name    string
	edit    func(s map[string]any)
	class   *refusal.Refusal
	pointer string
}

func obj(s map[string]any, path ...string) map[string]any {
	m := s
	for _, k := range path {
		m = m[k].(map[string]any)
	}
	return m
}

func stateMutations() []stateMutation {
	cycle := func(s map[string]any) map[string]any { return obj(s, "cycles", "work_cycle_2") }
	return []stateMutation{
		// unknown fields, at the root and nested
		{"root-extra-field", func(s map[string]any) { s["notes"] = "x" }, maintenance.ErrStateUnknownField, "/notes"},
		{"reporting-actor-under-0.9.0", func(s map[string]any) { s["issue_reporting_actor_id"] = "customer_1" }, maintenance.ErrStateUnknownField, "/issue_reporting_actor_id"},
		{"cycle-extra-field", func(s map[string]any) { cycle(s)["paid"] = true }, maintenance.ErrStateUnknownField, "/cycles/work_cycle_2/paid"},
		{"payment-extra-field", func(s map[string]any) { obj(s, "payment")["amount_minor"] = int64(1) }, maintenance.ErrStateUnknownField, "/payment/amount_minor"},
		{"communication-dispatch-channel-without-recovery", func(s map[string]any) {
			s["communications"].([]any)[0].(map[string]any)["dispatch_channel"] = "secondary"
		}, maintenance.ErrStateUnknownField, "/communications/0/dispatch_channel"},
		{"hidden-is-free-but-terminal-is-not", func(s map[string]any) { obj(s, "terminal")["by"] = "x" }, maintenance.ErrStateUnknownField, "/terminal/by"},
		// missing fields
		{"root-missing", func(s map[string]any) { delete(s, "reopen_count") }, maintenance.ErrStateMissingField, ""},
		{"quote-missing-valid-until", func(s map[string]any) { delete(obj(s, "quotes", "quote_1:v1"), "valid_until") }, maintenance.ErrStateMissingField, "/quotes/quote_1:v1"},
		{"authoritative-record-without-kind", func(s map[string]any) { delete(obj(s, "authoritative_records", "evidence_1"), "kind") }, maintenance.ErrStateMissingField, "/authoritative_records/evidence_1"},
		// wrong types and forms
		{"phase-not-string", func(s map[string]any) { s["phase"] = int64(3) }, maintenance.ErrStateBadField, "/phase"},
		{"cycles-is-a-list", func(s map[string]any) { s["cycles"] = []any{} }, maintenance.ErrStateBadField, "/cycles"},
		{"reopen-count-negative", func(s map[string]any) { s["reopen_count"] = int64(-1) }, maintenance.ErrStateBadField, "/reopen_count"},
		{"reopen-count-float", func(s map[string]any) { s["reopen_count"] = 1.0 }, maintenance.ErrStateBadField, "/reopen_count"},
		{"quote-version-zero", func(s map[string]any) { obj(s, "approvals", "checkpoint_1")["quote_version"] = int64(0) }, maintenance.ErrStateBadField, "/approvals/checkpoint_1/quote_version"},
		{"amount-is-boolean", func(s map[string]any) { obj(s, "invoices", "invoice_1")["amount_minor"] = true }, maintenance.ErrStateBadField, "/invoices/invoice_1/amount_minor"},
		{"flag-is-string", func(s map[string]any) { cycle(s)["requires_payment"] = "true" }, maintenance.ErrStateBadField, "/cycles/work_cycle_2/requires_payment"},
		{"empty-text", func(s map[string]any) { s["issue_id"] = "" }, maintenance.ErrStateBadField, "/issue_id"},
		{"impossible-instant", func(s map[string]any) { obj(s, "terminal")["at"] = "2031-02-30T10:00:00Z" }, maintenance.ErrStateBadField, "/terminal/at"},
		{"offset-instant", func(s map[string]any) {
			obj(s, "obligations", "visit_progress:work_cycle_1")["due_at"] = "2031-03-06T09:00:00+00:00"
		}, maintenance.ErrStateBadField, "/obligations/visit_progress:work_cycle_1/due_at"},
		{"hidden-float", func(s map[string]any) { obj(s, "hidden")["band"] = 2.5 }, maintenance.ErrStateBadField, "/hidden/band"},
		{"assertion-not-object", func(s map[string]any) { s["assertions"] = []any{"WORK_COMPLETE"} }, maintenance.ErrStateBadField, "/assertions/0"},
		{"terminal-is-string", func(s map[string]any) { s["terminal"] = "completed_successfully" }, maintenance.ErrStateBadField, "/terminal"},
		// vocabularies
		{"unknown-phase", func(s map[string]any) { s["phase"] = "DONE" }, maintenance.ErrStateUnknownValue, "/phase"},
		{"unknown-visit-status", func(s map[string]any) { cycle(s)["visit_status"] = "VERIFIED" }, maintenance.ErrStateUnknownValue, "/cycles/work_cycle_2/visit_status"},
		{"unknown-payment-status", func(s map[string]any) { obj(s, "payment")["status"] = "PAID" }, maintenance.ErrStateUnknownValue, "/payment/status"},
		{"unknown-terminal", func(s map[string]any) { obj(s, "terminal")["outcome"] = "operation_deadlock" }, maintenance.ErrStateUnknownValue, "/terminal/outcome"},
		{"unknown-record-kind", func(s map[string]any) { obj(s, "authoritative_records", "evidence_1")["kind"] = "photo" }, maintenance.ErrStateUnknownValue, "/authoritative_records/evidence_1/kind"},
		{"unknown-obligation-status", func(s map[string]any) {
			obj(s, "obligations", "completion_notice:work_cycle_2")["status"] = "DONE"
		}, maintenance.ErrStateUnknownValue, "/obligations/completion_notice:work_cycle_2/status"},
		// identities
		{"cycle-filed-under-another-id", func(s map[string]any) { cycle(s)["cycle_id"] = "work_cycle_9" }, maintenance.ErrStateKeyMismatch, "/cycles/work_cycle_2/cycle_id"},
		{"quote-revision-under-old-key", func(s map[string]any) { obj(s, "quotes", "quote_1:v1")["version"] = int64(2) }, maintenance.ErrStateKeyMismatch, "/quotes/quote_1:v1"},
		{"attendance-under-another-visit", func(s map[string]any) {
			obj(s, "authoritative_records", "attendance:visit_1")["visit_id"] = "visit_9"
		}, maintenance.ErrStateKeyMismatch, "/authoritative_records/attendance:visit_1"},
		// dangling references
		{"current-cycle-dangles", func(s map[string]any) { s["current_cycle_id"] = "work_cycle_9" }, maintenance.ErrStateDanglingReference, "/current_cycle_id"},
		{"approval-quote-dangles", func(s map[string]any) { obj(s, "approvals", "checkpoint_1")["quote_id"] = "quote_9" }, maintenance.ErrStateDanglingReference, "/approvals/checkpoint_1/quote_id"},
		{"work-evidence-dangles", func(s map[string]any) { cycle(s)["work_evidence_id"] = "evidence_9" }, maintenance.ErrStateDanglingReference, "/cycles/work_cycle_2/work_evidence_id"},
		{"work-evidence-of-another-cycle", func(s map[string]any) { cycle(s)["work_evidence_id"] = "evidence_2" }, maintenance.ErrStateDanglingReference, "/cycles/work_cycle_2/work_evidence_id"},
		{"payment-invoice-dangles", func(s map[string]any) { obj(s, "payment")["invoice_id"] = "invoice_9" }, maintenance.ErrStateDanglingReference, "/payment/invoice_id"},
		{"settlement-is-a-validation", func(s map[string]any) { obj(s, "payment")["settlement_id"] = "validation_1" }, maintenance.ErrStateDanglingReference, "/payment/settlement_id"},
		{"terminal-cycle-dangles", func(s map[string]any) { obj(s, "terminal")["cycle_id"] = "work_cycle_4" }, maintenance.ErrStateDanglingReference, "/terminal/cycle_id"},
		{"obligation-cycle-dangles", func(s map[string]any) {
			obj(s, "obligations", "visit_progress:work_cycle_1")["cycle_id"] = "work_cycle_0"
		}, maintenance.ErrStateDanglingReference, "/obligations/visit_progress:work_cycle_1/cycle_id"},
		{"validation-of-another-invoice", func(s map[string]any) {
			obj(s, "authoritative_records", "validation_1")["invoice_id"] = "invoice_2"
		}, maintenance.ErrStateDanglingReference, "/invoices/invoice_1/validation_id"},
		{"settlement-invoice-dangles", func(s map[string]any) {
			obj(s, "authoritative_records", "settlement_1")["invoice_id"] = "invoice_2"
		}, maintenance.ErrStateDanglingReference, "/authoritative_records/settlement_1/invoice_id"},
	}
}

// Each named mutation of the V1 fixture's final state is refused for its
// class, at its pointer; the unmutated state is accepted.
func TestFinalStateMutationsAreRefusedByClass(t *testing.T) {
	for _, m := range stateMutations() {
		t.Run(m.name, func(t *testing.T) {
			state, version, contract := fixtureState(t, "artifact8-deterministic-reference-v1.json")
			if err := maintenance.ValidateFinalState(state, version, contract, false); err != nil {
				t.Fatalf("unmutated: %v", err)
			}
			m.edit(state)
			err := maintenance.ValidateFinalState(state, version, contract, false)
			if refusal.Of(err) != m.class.Class {
				t.Fatalf("err = %v, want class %s", err, m.class.Class)
			}
			if p, ok := maintenance.StatePointer(err); !ok || p != m.pointer {
				t.Fatalf("pointer = %q (%v), want %q", p, ok, m.pointer)
			}
		})
	}
}

// issue_reporting_actor_id is a root for engines 0.11.0 to 0.13.0 (and then
// required), and an optional text.
func TestReportingActorEngines(t *testing.T) {
	state, _, _ := fixtureState(t, "artifact8-deterministic-reference-v1.json")
	if err := maintenance.ValidateFinalState(state, "0.12.0", 8, false); refusal.Of(err) != maintenance.ErrStateMissingField.Class {
		t.Fatalf("0.12.0 without the root: %v, want %s", err, maintenance.ErrStateMissingField.Class)
	}
	state["issue_reporting_actor_id"] = "customer_1"
	if err := maintenance.ValidateFinalState(state, "0.12.0", 8, false); err != nil {
		t.Fatalf("0.12.0 with the root: %v", err)
	}
	state["issue_reporting_actor_id"] = int64(1)
	if err := maintenance.ValidateFinalState(state, "0.12.0", 8, false); refusal.Of(err) != maintenance.ErrStateBadField.Class {
		t.Fatalf("0.12.0 with a numeric actor: %v, want %s", err, maintenance.ErrStateBadField.Class)
	}
}

// Delivery-recovery communications (operation 0.7.0): every row carries
// dispatch_status; a secondary-channel row re-sends exactly one earlier
// failed transfer notice, once.
func TestRecoveryCommunications(t *testing.T) {
	base := func() map[string]any {
		state, _, _ := fixtureState(t, "artifact8-deterministic-reference-v1.json")
		comms := state["communications"].([]any)
		for _, c := range comms {
			c.(map[string]any)["dispatch_status"] = "DELIVERED"
		}
		failed := map[string]any{"recipient_actor_id": "customer_1", "message_fixture_id": maintenance.MsgTransferNotice,
			"correlation_id": nil, "at": "2031-03-10T16:00:00Z", "dispatch_status": "FAILED"}
		recovered := map[string]any{"recipient_actor_id": "customer_1", "message_fixture_id": maintenance.MsgTransferNotice,
			"correlation_id": nil, "at": "2031-03-10T16:30:00Z", "dispatch_status": "DELIVERED",
			"recovery_of": int64(len(comms)), "dispatch_channel": "secondary"}
		state["communications"] = append(comms, failed, recovered)
		return state
	}
	if err := maintenance.ValidateFinalState(base(), schemas.EngineUpstream, 8, true); err != nil {
		t.Fatalf("a bound recovery: %v", err)
	}
	// Without the recovery operation the secondary-channel fields are unknown.
	if err := maintenance.ValidateFinalState(base(), schemas.EngineUpstream, 8, false); refusal.Of(err) != maintenance.ErrStateUnknownField.Class {
		t.Fatalf("recovery fields outside operation 0.7.0: %v, want %s", err, maintenance.ErrStateUnknownField.Class)
	}
	for _, tc := range []struct {
		name  string
		edit  func(comms []any)
		class *refusal.Refusal
	}{
		{"recovers-a-delivered-message", func(c []any) { c[len(c)-2].(map[string]any)["dispatch_status"] = "DELIVERED" }, maintenance.ErrStateRecoveryUnbound},
		{"recovers-itself", func(c []any) { c[len(c)-1].(map[string]any)["recovery_of"] = int64(len(c) - 1) }, maintenance.ErrStateRecoveryUnbound},
		{"recovers-another-recipient", func(c []any) { c[len(c)-1].(map[string]any)["recipient_actor_id"] = "operator_1" }, maintenance.ErrStateRecoveryUnbound},
		{"unknown-dispatch-status", func(c []any) { c[0].(map[string]any)["dispatch_status"] = "QUEUED" }, maintenance.ErrStateUnknownValue},
		{"unknown-channel", func(c []any) { c[len(c)-1].(map[string]any)["dispatch_channel"] = "pigeon" }, maintenance.ErrStateUnknownValue},
		{"one-row-without-status", func(c []any) { delete(c[0].(map[string]any), "dispatch_status") }, maintenance.ErrStateMissingField},
	} {
		state := base()
		tc.edit(state["communications"].([]any))
		if err := maintenance.ValidateFinalState(state, schemas.EngineUpstream, 8, true); refusal.Of(err) != tc.class.Class {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.class.Class)
		}
	}
	// A second recovery of the same failed intent.
	state := base()
	comms := state["communications"].([]any)
	again := map[string]any{}
	for k, v := range comms[len(comms)-1].(map[string]any) {
		again[k] = v
	}
	state["communications"] = append(comms, again)
	if err := maintenance.ValidateFinalState(state, schemas.EngineUpstream, 8, true); refusal.Of(err) != maintenance.ErrStateRecoveryUnbound.Class {
		t.Errorf("recovered twice: %v, want %s", err, maintenance.ErrStateRecoveryUnbound.Class)
	}
}
