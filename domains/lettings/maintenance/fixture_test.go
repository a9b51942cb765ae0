package maintenance_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/schemas"
)

const pinnedInstance = "opinst_0123456789abcdef0123456789abcdef"

// defaultOp binds the embedded default spec to scenario.
func defaultOp(t testing.TB, scenario string) *maintenance.Operation {
	t.Helper()
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	op, err := maintenance.NewOperation(spec, scenario)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func runReference(t testing.TB, scenario string, check engine.SelfCheck) *engine.Episode {
	t.Helper()
	ep, err := engine.Run(engine.Config{
		Domain: defaultOp(t, scenario), NewAgent: func() engine.Agent { return maintenance.NewReference() },
		AgentID: "reference", AgentKind: "reference", OperationInstanceID: pinnedInstance,
		EngineVersion: schemas.EngineUpstream, SelfCheck: check,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// firstDifference names the first key at which two canon trees differ.
func firstDifference(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want object", path, got)
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		}) {
			gv, gok := g[k]
			wv, wok := w[k]
			if gok != wok {
				return fmt.Sprintf("%s.%s: present=%v, want present=%v", path, k, gok, wok)
			}
			if d := firstDifference(path+"."+k, gv, wv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want list", path, got)
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: %d items, want %d", path, len(g), len(w))
		}
		for i := range w {
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); d != "" {
				return d
			}
		}
		return ""
	}
	gb, _ := canon.Upstream(got)
	wb, _ := canon.Upstream(want)
	if string(gb) != string(wb) {
		return fmt.Sprintf("%s: got %s, want %s", path, gb, wb)
	}
	return ""
}

func TestReferenceV1MatchesUpstreamFixture(t *testing.T) {
	raw := upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")
	doc, err := canon.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := doc.(map[string]any)
	ep := runReference(t, "V1", engine.SelfCheckRerun)

	wantTraj := want["trajectory"].([]any)
	for i := 0; i < min(len(ep.Trajectory), len(wantTraj)); i++ {
		if d := firstDifference("", ep.Trajectory[i], wantTraj[i]); d != "" {
			rt := wantTraj[i].(map[string]any)["record_type"]
			t.Fatalf("trajectory record %d (%v) differs at %s", i, rt, d)
		}
	}
	if len(ep.Trajectory) != len(wantTraj) || len(ep.Trajectory) != 306 {
		t.Fatalf("trajectory has %d records, fixture %d, want 306", len(ep.Trajectory), len(wantTraj))
	}
	for _, c := range []struct {
		name string
		got  any
		key  string
	}{
		{"events", ep.Events, "events"},
		{"final_state", ep.FinalState, "final_state"},
		{"decisions", ep.Decisions, "decisions"},
	} {
		if d := firstDifference(c.name, c.got, want[c.key]); d != "" {
			t.Errorf("%s differs: %s", c.name, d)
		}
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"trajectory_digest_sha256", ep.TrajectoryDigest, want["trajectory_digest_sha256"]},
		{"final_state_digest_sha256", ep.FinalStateDigest, want["final_state_digest_sha256"]},
		{"decisions_digest_sha256", ep.DecisionsDigest, want["decisions_digest_sha256"]},
		{"status", ep.Status, want["status"]},
		{"terminal_outcome", ep.TerminalOutcome, want["terminal_outcome"]},
		{"replay_final", ep.ReplayFinal, want["replay_final"]},
		{"started_at", ep.StartedAt, want["started_at"]},
		{"ended_at", ep.EndedAt, want["ended_at"]},
		{"simulated_minutes", ep.SimulatedMinutes, want["simulated_minutes"]},
		{"agent_invocations", int64(ep.Invocations), want["agent_invocations"]},
		{"decisions", int64(len(ep.Decisions)), int64(46)},
		{"scenario_label", ep.Meta.ScenarioLabel, want["scenario_label"]},
		{"semantic_scenario_id", ep.Meta.SemanticScenarioID, want["semantic_scenario_id"]},
		{"expected_terminal", ep.Meta.ExpectedTerminal, want["expected_terminal"]},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if d := firstDifference("operation", ep.Meta.Operation, want["operation"]); d != "" {
		t.Errorf("operation identity differs: %s", d)
	}
	if ep.ReplayOK == nil || !*ep.ReplayOK {
		t.Errorf("self-check rerun: ReplayOK = %v, want true", ep.ReplayOK)
	}
}
