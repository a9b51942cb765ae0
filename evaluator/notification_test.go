package evaluator_test

import (
	"slices"
	"testing"

	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/schemas"
)

// transferRecord builds a small transferred record in the shape 0.9.0
// writes for V2's close: the issue report, the exception request that
// opened checkpoint_2 on work_cycle_2, the operator taking ownership, the
// transfer notice (delivered or failed), and the transfer. It is not a
// whole V2 run; it exercises only what the notification rule reads.
func transferRecord(dispatch string) evaluator.Run {
	at := func(s string) string { return "2031-03-07T" + s + "Z" }
	rows := []map[string]any{
		{"record_type": "event_observed", "at": "2031-03-03T09:00:00Z", "event_id": "v2_e01", "event_type": "customer_issue_reported", "actor_id": "customer_1", "code": "ACCEPTED", "observational": false},
		{"record_type": "action_proposed", "at": at("08:30:00"), "proposal_id": "proposal_4", "action_type": "request_exception_resolution", "payload": map[string]any{}, "evidence_refs": []any{}},
		{"record_type": "checkpoint_opened", "at": at("08:30:00"), "checkpoint_id": "checkpoint_2", "checkpoint_type": "maintenance_exception_resolution", "assignee_actor_id": "operator_1", "required": true, "deadline_at": at("08:30:00")},
		{"record_type": "effect_accepted", "at": at("08:30:00"), "proposal_id": "proposal_4", "action_type": "request_exception_resolution", "code": "ACCEPTED", "cycle_id": "work_cycle_2", "bindings": map[string]any{"checkpoint_id": "checkpoint_2"}},
		{"record_type": "checkpoint_resolved", "at": at("11:30:00"), "checkpoint_id": "checkpoint_2", "checkpoint_type": "maintenance_exception_resolution", "resolution": "TAKE_OWNERSHIP"},
		{"record_type": "action_proposed", "at": at("11:30:00"), "proposal_id": "proposal_5", "action_type": "send_message", "evidence_refs": []any{},
			"payload": map[string]any{"correlation_id": "work_cycle_2", "message_fixture_id": "msg_transfer_notice", "recipient_actor_id": "customer_1"}},
	}
	switch dispatch {
	case "failed":
		rows = append(rows, map[string]any{"record_type": "side_effect_failed", "at": at("11:30:00"), "channel": "message_dispatch", "committed_decision_preserved": true, "message_fixture_id": "msg_transfer_notice", "recipient_actor_id": "customer_1"})
	case "delivered":
		rows = append(rows, map[string]any{"record_type": "side_effect", "at": at("11:30:00"), "channel": "message_dispatch", "status": "DELIVERED", "message_fixture_id": "msg_transfer_notice", "recipient_actor_id": "customer_1"})
	}
	rows = append(rows,
		map[string]any{"record_type": "effect_accepted", "at": at("11:30:00"), "proposal_id": "proposal_5", "action_type": "send_message", "code": "ACCEPTED", "cycle_id": "work_cycle_2", "bindings": map[string]any{}},
		map[string]any{"record_type": "terminal_proposed", "at": at("11:30:00"), "reason": "an authorised operator has accepted ownership", "evidence_refs": []any{}},
		map[string]any{"record_type": "terminal_accepted", "at": at("11:30:00"), "outcome": "transferred_to_human_ownership", "operator_actor_id": "operator_1", "replay_final": true},
	)
	traj := make([]any, len(rows))
	for i, r := range rows {
		r["index"] = int64(i)
		traj[i] = r
	}
	events := []any{map[string]any{"event_id": "v2_e01", "event_type": "customer_issue_reported", "actor_id": "customer_1",
		"at": "2031-03-03T09:00:00Z", "disposition": "accepted", "verdict_code": "ACCEPTED", "payload": map[string]any{}}}
	final := map[string]any{
		"approvals": map[string]any{}, "quotes": map[string]any{}, "invoices": map[string]any{}, "cycles": map[string]any{},
		"exceptions": map[string]any{}, "obligations": map[string]any{}, "authoritative_records": map[string]any{}, "assertions": []any{},
		"payment":                  map[string]any{"status": "NOT_REQUESTED", "invoice_id": nil, "cycle_id": nil, "request_id": nil},
		"ownership_transferred_to": "operator_1",
		"transfer_notice_sent":     true,
		"communications": []any{map[string]any{"at": at("11:30:00"), "correlation_id": "work_cycle_2",
			"message_fixture_id": "msg_transfer_notice", "recipient_actor_id": "customer_1"}},
	}
	ok := true
	return evaluator.Run{Status: "transferred_to_human_ownership", ReplayFinal: true, SimulatedMinutes: 5910, AgentInvocations: 8,
		FinalState: final, Trajectory: traj, Events: events, ReplayOK: &ok}
}

func codesOf(ev *evaluator.Evaluation, dim string) []string {
	d, _ := ev.Dimension(dim)
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.Code)
	}
	return out
}

// TestNotificationRule: a committed transfer notice whose dispatch failed
// fails recovery and obligations under obaudit's engine, and nothing under
// 0.9.0; a delivered one satisfies both.
func TestNotificationRule(t *testing.T) {
	c := maintenanceContract("V2")
	for _, tc := range []struct {
		dispatch, engine         string
		wantRecovery, wantOblige []string
	}{
		{"failed", schemas.EngineObaudit, []string{"REQUIRED_NOTIFICATION_UNDELIVERED"}, []string{"OBLIGATION_MESSAGE_NOT_ESTABLISHED"}},
		{"failed", schemas.EngineUpstream, nil, nil},
		{"delivered", schemas.EngineObaudit, nil, nil},
		{"delivered", schemas.EngineUpstream, nil, nil},
		// No dispatch row at all: a notice nobody recorded delivering.
		{"none", schemas.EngineObaudit, []string{"REQUIRED_NOTIFICATION_UNDELIVERED"}, []string{"OBLIGATION_MESSAGE_NOT_ESTABLISHED"}},
	} {
		ev, err := evaluator.Evaluate(tc.engine, c, transferRecord(tc.dispatch))
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.dispatch, tc.engine, err)
		}
		if got := codesOf(ev, evaluator.Recovery); !slices.Equal(got, tc.wantRecovery) {
			t.Errorf("%s/%s recovery = %v, want %v", tc.dispatch, tc.engine, got, tc.wantRecovery)
		}
		if got := codesOf(ev, evaluator.Obligations); !slices.Equal(got, tc.wantOblige) {
			t.Errorf("%s/%s obligations = %v, want %v", tc.dispatch, tc.engine, got, tc.wantOblige)
		}
	}
}

// TestNotificationRuleWrongRecipient: a delivered notice to somebody other
// than the reporter does not establish the customer's notice.
func TestNotificationRuleWrongRecipient(t *testing.T) {
	r := transferRecord("delivered")
	for _, row := range r.Trajectory {
		m := row.(map[string]any)
		if p, ok := m["payload"].(map[string]any); ok && p["message_fixture_id"] == "msg_transfer_notice" {
			p["recipient_actor_id"] = "approver_1"
		}
		if m["record_type"] == "side_effect" {
			m["recipient_actor_id"] = "approver_1"
		}
	}
	ev, err := evaluator.Evaluate(schemas.EngineObaudit, maintenanceContract("V2"), r)
	if err != nil {
		t.Fatal(err)
	}
	if got := codesOf(ev, evaluator.Recovery); !slices.Equal(got, []string{"REQUIRED_NOTIFICATION_UNDELIVERED"}) {
		t.Errorf("recovery = %v", got)
	}
}

// TestFailedCompletionNoticeMustBeDelivered: a committed completion notice whose
// dispatch failed, never re-sent, fails recovery under obaudit's engine.
func TestFailedCompletionNoticeMustBeDelivered(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	// Turn V1's first completion notice dispatch into a failure.
	p := findRow(t, doc, "side_effect", map[string]any{"message_fixture_id": "msg_completion_notice"})
	r := row(doc, p)
	delete(r, "status")
	r["record_type"] = "side_effect_failed"
	r["committed_decision_preserved"] = true
	up, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), runOf(t, doc, yes()))
	if err != nil {
		t.Fatal(err)
	}
	if !up.Reliable() {
		t.Fatalf("0.9.0 has no notification rule, yet failed %v", up.FailedDimensions())
	}
	ob, err := evaluator.Evaluate(schemas.EngineObaudit, maintenanceContract("V1"), runOf(t, doc, yes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := ob.FailedDimensions(); !slices.Equal(got, []string{evaluator.Recovery}) {
		t.Fatalf("FailedDimensions = %v, want [recovery]", got)
	}
}
