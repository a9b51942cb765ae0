package engine

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
)

func TestParseInstant(t *testing.T) {
	for _, ok := range []string{"2031-03-03T09:00:00Z", "2000-02-29T23:59:59Z"} {
		if _, err := ParseInstant(ok); err != nil {
			t.Errorf("ParseInstant(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"2031-3-3T9:0:0Z", "2031-03-03T09:00:00+00:00", "2031-03-03 09:00:00Z", "2031-02-30T09:00:00Z", "2031-03-03T09:00:00.5Z", ""} {
		if _, err := ParseInstant(bad); !isClass(err, ErrMalformedInstant) {
			t.Errorf("ParseInstant(%q) = %v, want %s", bad, err, ErrMalformedInstant.Class)
		}
	}
	if _, err := ShiftMinutes("2031-03-03T09:00:00Z", -1); !isClass(err, ErrClockRewind) {
		t.Errorf("ShiftMinutes(-1) = %v, want %s", err, ErrClockRewind.Class)
	}
	if s, _ := ShiftMinutes("2031-03-09T12:30:00Z", 720); s != "2031-03-10T00:30:00Z" {
		t.Errorf("ShiftMinutes(+720) = %s", s)
	}
	c := clock{}
	c.now, c.nowText = 100, FormatInstant(100)
	if err := c.advanceTo(40); !isClass(err, ErrClockRewind) {
		t.Errorf("advanceTo(past) = %v, want %s", err, ErrClockRewind.Class)
	}
}

func TestDecisionContract(t *testing.T) {
	for name, tc := range map[string]struct {
		d    Decision
		want bool // acceptable
	}{
		"wait with neither":       {&Wait{Reason: "x"}, false},
		"wait with zero fallback": {&Wait{Reason: "x", FallbackAfterMinutes: Minutes(0)}, false},
		"wait with wake":          {&Wait{Reason: "x", WakeOn: []string{"a"}}, true},
		"wait with fallback":      {&Wait{Reason: "x", FallbackAfterMinutes: Minutes(5)}, true},
		"act without type":        {&Act{}, false},
		"act with empty evidence": {&Act{ActionType: "a", EvidenceRefs: []string{""}}, false},
		"escalate without ids":    {&Escalate{DeadlineAfterMinutes: 1}, false},
		"escalate zero deadline":  {&Escalate{CheckpointID: "c", ExceptionType: "e"}, false},
		"ask without wait":        {&Ask{RecipientActorID: "r", MessageFixtureID: "m"}, false},
		"complete":                {&Complete{}, true},
		"malformed":               {&Malformed{Code: "X"}, false},
	} {
		if got := contractProblem(tc.d) == ""; got != tc.want {
			t.Errorf("%s: acceptable = %v, want %v (%s)", name, got, tc.want, contractProblem(tc.d))
		}
	}
}

func TestDecisionRecordRoundTrip(t *testing.T) {
	c := "work_cycle_1"
	for _, d := range []Decision{
		&Act{ActionType: "send_message", Payload: map[string]any{"a": int64(1)}, EvidenceRefs: []string{"e"}, Rationale: "r"},
		&Wait{Reason: "w", WakeOn: []string{"x"}, FallbackAfterMinutes: Minutes(9)},
		&Ask{RecipientActorID: "r", MessageFixtureID: "m", CorrelationID: &c, Wait: &Wait{Reason: "w", WakeOn: []string{"x"}}},
		&Escalate{CheckpointID: "c", ExceptionType: "e", EvidenceRefs: []string{}, DeadlineAfterMinutes: 1440, Rationale: "r"},
		&Complete{Reason: "done", EvidenceRefs: []string{"e"}},
		&Retrieve{Requests: []Request{{Tool: "b"}, {Tool: "a"}, {Tool: "b"}}},
		&Malformed{Code: "MODEL_OUTPUT_UNCLASSIFIED"},
	} {
		rec := d.Record()
		b1, _ := canon.Upstream(rec)
		parsed, _ := canon.Parse(b1)
		back, err := DecisionFromRecord(parsed.(map[string]any))
		if err != nil {
			t.Fatalf("DecisionFromRecord(%s): %v", b1, err)
		}
		b2, _ := canon.Upstream(back.Record())
		if string(b1) != string(b2) {
			t.Errorf("round trip %s -> %s", b1, b2)
		}
	}
	if _, err := DecisionFromRecord(map[string]any{"kind": "SHOUT"}); !isClass(err, ErrMalformedDecision) {
		t.Errorf("unknown kind: %v, want %s", err, ErrMalformedDecision.Class)
	}
}
