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
	}
}

// TestRetrieveRecord holds a retrieval's record to upstream's rule: the
// requests sorted by tool with duplicates collapsed (first wins), or, when
// one tool carries two argument sets, the requests as given.
func TestRetrieveRecord(t *testing.T) {
	kv := map[string]any{"k": "v"}
	for _, c := range []struct {
		reqs []Request
		want string
	}{
		{nil, `[]`},
		{[]Request{{Tool: "b"}, {Tool: "a"}, {Tool: "b", Arguments: map[string]any{}}}, `[{"arguments":{},"tool":"a"},{"arguments":{},"tool":"b"}]`},
		{[]Request{{Tool: "b", Arguments: kv}, {Tool: "a"}}, `[{"arguments":{},"tool":"a"},{"arguments":{"k":"v"},"tool":"b"}]`},
		{[]Request{{Tool: "b", Arguments: kv}, {Tool: "b", Arguments: map[string]any{"k": "v"}}, {Tool: "a"}}, `[{"arguments":{},"tool":"a"},{"arguments":{"k":"v"},"tool":"b"}]`},
		{[]Request{{Tool: "c"}, {Tool: "b", Arguments: kv}, {Tool: "b"}}, `[{"arguments":{},"tool":"c"},{"arguments":{"k":"v"},"tool":"b"},{"arguments":{},"tool":"b"}]`},
	} {
		d := &Retrieve{Requests: c.reqs}
		want := `{"kind":"RETRIEVE","requests":` + c.want + `}`
		if got := appendDecision(new(Members), nil, d); string(got) != want {
			t.Errorf("%v: bytes %s, want %s", c.reqs, got, want)
		}
		if got, _ := canon.Upstream(d.Record()); string(got) != want {
			t.Errorf("%v: record %s, want %s", c.reqs, got, want)
		}
	}
}
