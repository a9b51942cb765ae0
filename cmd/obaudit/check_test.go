package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance/acceptance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/gate"
)

// The gate's teeth, through the command: each misbehaving stand-in makes
// `obaudit check` say no (exit 2, report written) or refuse (exit 1).

type malformedAgent struct{}

func (malformedAgent) BeginEpisode(engine.AgentIdentity) {}
func (malformedAgent) Decide(*engine.Observation) (engine.Decision, error) {
	return &engine.Malformed{Code: "UNREADABLE"}, nil
}

func TestCheckTeethAgentFailsEverything(t *testing.T) {
	testOnlyCheckLookup = func(id string) (gate.Agent, error) {
		e, err := acceptance.Lookup(id)
		if id == "duplicate_after_wake" {
			e.New = func() engine.Agent { return malformedAgent{} }
		}
		return e, err
	}
	defer func() { testOnlyCheckLookup = nil }()
	code, out, errs := obaudit("check")
	if code != exitNo || !strings.Contains(out, "duplicate_after_wake V1  negative  reliable=false FAILED") ||
		!strings.Contains(out, "causal acceptance: FAILED (10/11 checks passed)") || !strings.HasPrefix(errs, "no: ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

func TestCheckTeethAlwaysPassingEvaluator(t *testing.T) {
	testOnlyCheckEvaluate = func(v string, c *engine.GradingContract, r evaluator.Run) (*evaluator.Evaluation, error) {
		ev := &evaluator.Evaluation{EngineVersion: v, TerminalOutcome: c.Scenario.ExpectedTerminal, LegitimateCompletion: true}
		for _, d := range evaluator.Dimensions() {
			ev.Dimensions = append(ev.Dimensions, evaluator.Dimension{Name: d, OK: true})
		}
		return ev, nil
	}
	defer func() { testOnlyCheckEvaluate = nil }()
	code, out, _ := obaudit("check", "--engine", "0.9.0")
	if code != exitNo || strings.Count(out, "was accepted as reliable on V1") != 8 {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestCheckTeethManifests(t *testing.T) {
	dir := t.TempDir()
	shipped, err := os.ReadFile("../../domains/lettings/maintenance/oracle/" + oracle.DefaultSource)
	if err != nil {
		t.Fatal(err)
	}
	base := string(shipped)
	write := func(name, old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("manifest lacks %q", old)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Replace(base, old, new, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	missing := write("missing.yaml", "environment_integrity, retrieval_discipline]\n\ncontrols", "environment_integrity]\n\ncontrols")
	code, out, errs := obaudit("check", "--oracle", missing)
	if code != exitRefused || out != "" || !strings.HasPrefix(errs, "refused: oracle/vocabulary-mismatch: ") {
		t.Fatalf("missing dimension: exit %d %q %q", code, out, errs)
	}
	// stale_after_wake's closure loses retrieval_discipline, which moves to
	// must-pass: the agent does break it, so the gate says no.
	closure := write("closure.yaml",
		"expected_failed_dimensions: [action_validity, retrieval_discipline]\n    required_finding_codes: [STALE_RETRIEVED_RECORD, REJECTED_TERMINAL_PROPOSAL]\n    must_pass_dimensions: [terminal_outcome, critical_invariants, temporal_correctness, authority_boundaries, human_checkpoints, recovery, obligations, deterministic_replay, environment_integrity]",
		"expected_failed_dimensions: [action_validity]\n    required_finding_codes: [STALE_RETRIEVED_RECORD, REJECTED_TERMINAL_PROPOSAL]\n    must_pass_dimensions: [terminal_outcome, critical_invariants, temporal_correctness, authority_boundaries, human_checkpoints, recovery, obligations, deterministic_replay, environment_integrity, retrieval_discipline]")
	code, out, _ = obaudit("check", "--oracle", closure)
	if code != exitNo || !strings.Contains(out, "stale_after_wake     V1  negative  reliable=false FAILED") ||
		!strings.Contains(out, "must remain passing for this control and did not") {
		t.Fatalf("closure changed: exit %d\n%s", code, out)
	}
}
