package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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
	many := func(n int, pattern ...Request) []Request { // more than the scratch arrays hold
		var out []Request
		for i := range n {
			out = append(out, pattern[i%len(pattern)])
		}
		return out
	}
	for _, c := range []struct {
		reqs []Request
		want string
	}{
		{nil, `[]`},
		{[]Request{{Tool: "b"}, {Tool: "a"}, {Tool: "b", Arguments: map[string]any{}}}, `[{"arguments":{},"tool":"a"},{"arguments":{},"tool":"b"}]`},
		{[]Request{{Tool: "b", Arguments: kv}, {Tool: "a"}}, `[{"arguments":{},"tool":"a"},{"arguments":{"k":"v"},"tool":"b"}]`},
		{[]Request{{Tool: "b", Arguments: kv}, {Tool: "b", Arguments: map[string]any{"k": "v"}}, {Tool: "a"}}, `[{"arguments":{},"tool":"a"},{"arguments":{"k":"v"},"tool":"b"}]`},
		{[]Request{{Tool: "c"}, {Tool: "b", Arguments: kv}, {Tool: "b"}}, `[{"arguments":{},"tool":"c"},{"arguments":{"k":"v"},"tool":"b"},{"arguments":{},"tool":"b"}]`},
		{many(18, Request{Tool: "b", Arguments: kv}, Request{Tool: "a"}), `[{"arguments":{},"tool":"a"},{"arguments":{"k":"v"},"tool":"b"}]`},
		{append(many(9, Request{Tool: "b"}), Request{Tool: "b", Arguments: kv}), `[` + strings.Repeat(`{"arguments":{},"tool":"b"},`, 9) + `{"arguments":{"k":"v"},"tool":"b"}]`},
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

// foreignDecision is a Decision type from outside the engine (not
// declared): the tape holds its Record as it is.
type foreignDecision struct{}

func (foreignDecision) Kind() string { return "FOREIGN" }
func (foreignDecision) Record() map[string]any {
	return map[string]any{"kind": "FOREIGN", "z": []any{"\u2028"}}
}

// TestDecisionTape holds the decision tape's bytes (what the decisions
// digest is taken over) to canon.Upstream of its entries, each entry to its
// four keys and its outcome to the decision's Record (the record the
// agent_outcome row shares), for declared kinds, a nil decision, a nil
// Wait and a foreign Decision type.
func TestDecisionTape(t *testing.T) {
	x := &execution{}
	var tape []byte
	decisions := []Decision{
		&Act{ActionType: "a", Payload: map[string]any{"k": "v"}, EvidenceRefs: []string{"e"}, Rationale: "r\"q"},
		nil,
		(*Wait)(nil),
		&Retrieve{Requests: []Request{{Tool: "b"}, {Tool: "a", Arguments: map[string]any{"k": "v"}}}},
		foreignDecision{},
	}
	for i, d := range decisions {
		obs := &Observation{InvocationIndex: i + 1, TurnIndex: 300 + i, digest: fmt.Sprintf("%064x", i)}
		x.recordDecision(obs, d)
		tape = append(tape, x.decScratch...)
		entry := x.decisions[i].(map[string]any)
		if got := slices.Sorted(maps.Keys(entry)); !slices.Equal(got, []string{"invocation_index", "observation_digest_sha256", "outcome", "turn_index"}) {
			t.Errorf("entry %d keys %v", i, got)
		}
		if entry["invocation_index"] != int64(i+1) || entry["turn_index"] != int64(300+i) || entry["observation_digest_sha256"] != obs.digest || x.obsDigests[i] != obs.digest {
			t.Errorf("entry %d: %v", i, entry)
		}
		if d == nil {
			d = &Malformed{Code: "MODEL_OUTPUT_UNCLASSIFIED"}
		}
		if got, want := canon.String(x.lastRecord, canon.UpstreamForm), canon.String(d.Record(), canon.UpstreamForm); got != want || canon.String(entry["outcome"], canon.UpstreamForm) != want {
			t.Errorf("entry %d: outcome %s, want %s", i, got, want)
		}
	}
	want, err := canon.Upstream(x.decisions)
	if err != nil {
		t.Fatal(err)
	}
	if string(tape)+"]" != string(want) {
		t.Errorf("tape bytes\n got %s]\nwant %s", tape, want)
	}
	if got := x.decisionsDigest(); got != canon.SHA256Hex(want) {
		t.Errorf("decisions digest %s, want %s", got, canon.SHA256Hex(want))
	}
}
