package notimeverify_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/refusal"
)

// clone deep-copies a run through its wire form (so a mutation touches one
// copy only).
func clone(t *testing.T, r *notimewire.RunV1) *notimewire.RunV1 {
	t.Helper()
	c := *r
	c.Trajectory = make([]map[string]any, len(r.Trajectory))
	for i, row := range r.Trajectory {
		m := make(map[string]any, len(row))
		for k, v := range row {
			m[k] = v
		}
		c.Trajectory[i] = m
	}
	c.Plan.Events = make([]notimewire.EventV1, len(r.Plan.Events))
	for i, e := range r.Plan.Events {
		e.FinalityRelations = copyRel(e.FinalityRelations)
		p := make(map[string]any, len(e.Payload))
		for k, v := range e.Payload {
			p[k] = v
		}
		e.Payload = p
		c.Plan.Events[i] = e
	}
	c.Plan.FinalityCutSpecs = append([]notimewire.CutSpecV1(nil), r.Plan.FinalityCutSpecs...)
	return &c
}

func copyRel(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func rowIndex(r *notimewire.RunV1, pred func(map[string]any) bool) int {
	for i, row := range r.Trajectory {
		if pred(row) {
			return i
		}
	}
	return -1
}

// The correspondence and allowlist families of §11 on the V1 reference
// pair: the unmutated pair matches without any timestamp; each mutation
// of the No-Time side (or of the Full side) is refused as a mismatch.
func TestMutatedPairsAreRefused(t *testing.T) {
	full, nt := pair(t, "V1", "reference")
	if _, err := notimeverify.Verify(full, nt); err != nil {
		t.Fatalf("timestamp-independent match: %v", err)
	}
	event18 := func(row map[string]any) bool { return row["event_id"] == "v1_e18" }
	cases := map[string]func(r *notimewire.RunV1){
		"duplicate key: an event delivered twice": func(r *notimewire.RunV1) {
			i := rowIndex(r, func(row map[string]any) bool { return row["event_id"] == "v1_e03" })
			r.Trajectory = append(r.Trajectory[:i+1], r.Trajectory[i:]...)
		},
		"missing event": func(r *notimewire.RunV1) {
			i := rowIndex(r, event18)
			r.Trajectory = append(r.Trajectory[:i], r.Trajectory[i+1:]...)
		},
		"extra event": func(r *notimewire.RunV1) {
			r.Trajectory = append(r.Trajectory, map[string]any{"record_type": "event_audit_only", "event_id": "v1_e99", "event_type": "x", "actor_id": "y", "code": "ACCEPTED"})
		},
		"ambiguous occurrence: an event authored twice": func(r *notimewire.RunV1) {
			r.Plan.Events = append(r.Plan.Events, r.Plan.Events[0])
		},
		"altered business payload": func(r *notimewire.RunV1) {
			i := rowIndex(r, func(row map[string]any) bool { return row["record_type"] == "action_proposed" })
			p := map[string]any{}
			for k, v := range r.Trajectory[i]["payload"].(map[string]any) {
				p[k] = v
			}
			p["cycle_id"] = "work_cycle_9"
			r.Trajectory[i]["payload"] = p
		},
		"altered plan payload": func(r *notimewire.RunV1) { r.Plan.Events[4].Payload["amount_minor"] = int64(1) },
		"event moved across its cut": func(r *notimewire.RunV1) {
			for i := range r.Plan.Events {
				if r.Plan.Events[i].EventID == "v1_e18" {
					for k := range r.Plan.Events[i].FinalityRelations {
						r.Plan.Events[i].FinalityRelations[k] = notimewire.PreFinality
					}
				}
			}
		},
		"closure digest": func(r *notimewire.RunV1) {
			r.Plan.FinalityCutSpecs[0].Closure.ClosureDigest = r.Plan.FinalityCutSpecs[1].Closure.ClosureDigest
		},
		"bound changed":      func(r *notimewire.RunV1) { r.Plan.MaxTransitions++ },
		"origin plan digest": func(r *notimewire.RunV1) { r.Plan.OriginPlanDigest = r.PlanDigest },
		"finality treated as an ordinary audit": func(r *notimewire.RunV1) {
			i := rowIndex(r, func(row map[string]any) bool { return row["record_type"] == "finality_cut" })
			r.Trajectory[i]["record_type"] = "event_audit_only"
		},
		"post-cut event invoked the subject": func(r *notimewire.RunV1) {
			i := rowIndex(r, event18)
			r.Trajectory = append(r.Trajectory, map[string]any{"record_type": "agent_invoked", "trigger_event_id": "v1_e18", "index": int64(i)})
		},
		"mutation after final": func(r *notimewire.RunV1) {
			i := rowIndex(r, event18)
			r.Trajectory[i]["record_type"] = "event_observed"
		},
		"activation id reused": func(r *notimewire.RunV1) {
			var first any
			for _, row := range r.Trajectory {
				if row["record_type"] == "finality_activation" {
					if first == nil {
						first = row["activation_id"]
					} else {
						row["activation_id"] = first
					}
				}
			}
		},
		"wrong activation cancelled": func(r *notimewire.RunV1) {
			i := rowIndex(r, func(row map[string]any) bool { return row["record_type"] == "finality_activation_cancelled" })
			r.Trajectory[i]["activation_id"] = r.Plan.FinalityCutSpecs[0].ProvisionalCloseCommonCauseKey
		},
		"forbidden raw category": func(r *notimewire.RunV1) {
			r.Trajectory = append(r.Trajectory, map[string]any{"record_type": "timer_scheduled", "event_id": "timer_x"})
		},
		"Full time leaked": func(r *notimewire.RunV1) {
			r.Trajectory[0]["note"] = "2031-03-03T09:00:00Z"
		},
		"terminal facts": func(r *notimewire.RunV1) { r.ReplayFinal = false },
		"a delivered conditional claimed closed untriggered": func(r *notimewire.RunV1) {
			i := rowIndex(r, func(row map[string]any) bool { return row["record_type"] == "finality_cut" })
			closed := map[string]any{"record_type": "conditional_closed", "event_id": "v1_e13", "reason": "UNTRIGGERED_AT_FINALITY"}
			r.Trajectory = append(r.Trajectory[:i:i], append([]map[string]any{closed}, r.Trajectory[i:]...)...)
		},
		"contract": func(r *notimewire.RunV1) { r.Contract = "obaudit.arm.other.v1" },
	}
	for name, mutate := range cases {
		m := clone(t, nt)
		mutate(m)
		_, err := notimeverify.Verify(full, m)
		if c, _ := refusal.ClassOf(err); refusal.Of(err) != notimeverify.ErrMismatch.Class || c != "notimeverify/mismatch" {
			t.Errorf("%s: %v, want notimeverify/mismatch", name, err)
		}
	}
	// The Full side mutated: a Full row outside the allowlist, and a Full
	// business row dropped.
	fullCases := map[string]func(rows []any) []any{
		"Full row outside the allowlist": func(rows []any) []any {
			return append(rows, map[string]any{"record_type": "mystery_row"})
		},
		"Full business row dropped": func(rows []any) []any {
			for i, r := range rows {
				if r.(map[string]any)["record_type"] == "effect_accepted" {
					return append(rows[:i:i], rows[i+1:]...)
				}
			}
			return rows
		},
	}
	for name, mutate := range fullCases {
		f := full
		f.Trajectory = mutate(append([]any(nil), full.Trajectory...))
		if _, err := notimeverify.Verify(f, nt); refusal.Of(err) != notimeverify.ErrMismatch.Class {
			t.Errorf("%s: %v, want a mismatch", name, err)
		}
	}
}

// allowlist positives: the V1 and V2 reference pairs exercise the allowed
// raw categories on each side.
func TestAllowlistPositives(t *testing.T) {
	want := map[string]bool{"no_time:wait_removed": true, "no_time:timer_obligation_removed": true, "no_time:finality_activation": true,
		"no_time:finality_activation_cancelled": true, "no_time:finality_cut": true, "no_time:deadline_removed": true,
		"full:timer_scheduled": true, "full:timer_cancelled": true, "full:wait_declared": true}
	seen := map[string]bool{}
	for _, sc := range []string{"V1", "V2"} {
		f, nt := pair(t, sc, "reference")
		rep, err := notimeverify.Verify(f, nt)
		if err != nil {
			t.Fatal(err)
		}
		for k := range rep.RawDifferences {
			seen[k] = true
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("allowed raw category %s not exercised", k)
		}
	}
}
