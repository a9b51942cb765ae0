package engine

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// TestDecisionEncoding holds the direct decision encoder to canon.Upstream of
// the decision's Record() for every kind, with empty, nil and escaped
// fields, and for the kinds it hands back to Record() (nil pointers,
// retrieval arguments, conflicting arguments).
func TestDecisionEncoding(t *testing.T) {
	c, empty := "work_cycle_1", ""
	odd := "quote\"back\\slash\ttab \u00e9 \u2028"
	for _, d := range []Decision{
		&Act{ActionType: "send_message", Payload: map[string]any{"b": int64(1), "a": nil, "c": map[string]any{"z": []any{odd}}}, EvidenceRefs: []string{"e", odd}, Rationale: odd},
		&Act{},
		&Act{ActionType: "x", Payload: map[string]any{}, EvidenceRefs: []string{}},
		&Wait{Reason: "w", WakeOn: []string{"x", "a"}, FallbackAfterMinutes: Minutes(9)},
		&Wait{},
		&Ask{RecipientActorID: "r", MessageFixtureID: "m", CorrelationID: &c, Wait: &Wait{Reason: odd, WakeOn: []string{"x"}}},
		&Ask{CorrelationID: &empty},
		&Escalate{CheckpointID: "c", ExceptionType: "e", EvidenceRefs: []string{}, DeadlineAfterMinutes: 1440, Rationale: "r"},
		&Escalate{DeadlineAfterMinutes: -3},
		&Complete{Reason: "done", EvidenceRefs: []string{"e"}},
		&Complete{},
		&Retrieve{Requests: []Request{{Tool: "b"}, {Tool: "a"}, {Tool: "b", Arguments: map[string]any{}}}},
		&Retrieve{},
		&Retrieve{Requests: []Request{{Tool: odd}}},
		&Retrieve{Requests: []Request{{Tool: "b", Arguments: map[string]any{"k": "v"}}, {Tool: "a"}}},
		&Retrieve{Requests: []Request{{Tool: "b", Arguments: map[string]any{"k": "v"}}, {Tool: "b"}}},
		&Malformed{Code: "MODEL_OUTPUT_UNCLASSIFIED"},
		&Malformed{},
		(*Wait)(nil),
	} {
		want, err := canon.Upstream(d.Record())
		if err != nil {
			t.Fatal(err)
		}
		if got := appendDecision(new(Members), []byte("x"), d); string(got) != "x"+string(want) {
			t.Errorf("%T: got %s, want %s", d, got[1:], want)
		}
		if r, ok := d.(*Retrieve); ok {
			full, _ := canon.Upstream(map[string]any{"kind": "RETRIEVE", "requests": r.requestsFull()})
			if string(full) != string(want) {
				t.Errorf("Retrieve.Record() = %s, the full rule gives %s", want, full)
			}
		}
	}
}
