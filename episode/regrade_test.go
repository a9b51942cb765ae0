package episode_test

import (
	"testing"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/refusal"
)

func regradeConfig(t *testing.T) episode.RegradeConfig {
	g := operation(t, "V1").(engine.Graded)
	return episode.RegradeConfig{Contract: g.GradingContract(), Terminal: func(fs map[string]any) (*string, bool, error) {
		rf, _ := fs["replay_final"].(bool)
		t, _ := fs["terminal"].(map[string]any)
		if o, ok := t["outcome"].(string); ok {
			return &o, rf, nil
		}
		return nil, rf, nil
	}}
}

// TestRegrade: the upstream fixture re-grades to exactly what it states;
// each edit of a derived field is refused by its class, even with the
// vector's derived lists re-derived.
func TestRegrade(t *testing.T) {
	cfg := regradeConfig(t)
	r, err := episode.Regrade(readFixture(t, fixtureDet), cfg)
	if err != nil || !r.Rederived || len(r.Carried) != 1 {
		t.Fatalf("Regrade(fixture) = %+v, %v; want re-derived, the self-check carried", r, err)
	}
	for _, c := range []struct {
		name string
		want *refusal.Refusal
		edit func(d map[string]any)
	}{
		{"count", episode.ErrEvaluationMismatch, func(d map[string]any) {
			mm(ll(mm(d["evaluation"])["dimensions"])[2])["counts"].(map[string]any)["waits_declared"] = int64(11)
		}},
		{"note", episode.ErrEvaluationMismatch, func(d map[string]any) { mm(ll(mm(d["evaluation"])["dimensions"])[1])["note"] = "by hand" }},
		{"status", episode.ErrSummaryMismatch, func(d map[string]any) { d["status"] = "operation_deadlock" }},
		{"minutes", episode.ErrSummaryMismatch, func(d map[string]any) { d["simulated_minutes"] = int64(1) }},
		{"invocations", episode.ErrSummaryMismatch, func(d map[string]any) { d["agent_invocations"] = int64(15) }},
		{"terminal", episode.ErrSummaryMismatch, func(d map[string]any) { d["terminal_outcome"] = nil }},
		{"invented code", episode.ErrUnraisableFinding, func(d map[string]any) {
			ev := mm(d["evaluation"])
			dim := mm(ll(ev["dimensions"])[1])
			dim["ok"], dim["findings"] = false, []any{map[string]any{"code": "INVENTED", "detail": "", "at": nil}}
			ev["failed_dimensions"], ev["finding_codes"], ev["reliable"] = []any{"critical_invariants"}, []any{"INVENTED"}, false
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := episode.Regrade(edited(t, fixtureDet, c.edit), cfg)
			if got, _ := refusal.ClassOf(err); got != c.want.Class {
				t.Fatalf("Regrade = %v, want %s", err, c.want.Class)
			}
		})
	}
	// Without the spec's grading contract, everything is carried, by name.
	r, err = episode.Regrade(readFixture(t, fixtureDet), episode.RegradeConfig{})
	if err != nil || r.Rederived || len(r.Carried) != 8 {
		t.Fatalf("Regrade without a contract = %+v, %v; want the summary and evaluation carried", r, err)
	}
}
