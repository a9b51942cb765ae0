package gate_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/acceptance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

const (
	oracleDigest = "c3cc69543e8baa35f53a63916554be0fc5355b2ac6f003d03ad7dccfaa80b10e"
	specDigest   = "9e99b409b153e03aeb240c6402e14ff21c8bf0df3b9a1df2016c8fa64138e44d"
)

// shippedOracle is the bytes of the manifest the oracle package embeds.
func shippedOracle(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../domains/lettings/maintenance/oracle/" + oracle.DefaultSource)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func defaults(t testing.TB) (*maintenance.Spec, *oracle.Manifest) {
	t.Helper()
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	m, err := oracle.Default(acceptance.Vocabulary())
	if err != nil {
		t.Fatal(err)
	}
	return spec, m
}

// contract is the grading contract of one scenario of spec.
func contract(spec *maintenance.Spec, scenario string) (*engine.GradingContract, error) {
	op, err := maintenance.NewOperation(spec, scenario)
	if err != nil {
		return nil, err
	}
	return op.GradingContract(), nil
}

// subject binds spec and m for the gate.
func subject(t testing.TB, spec *maintenance.Spec, m *oracle.Manifest) *gate.Subject {
	t.Helper()
	s, err := acceptance.Subject(spec, m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustRun(t testing.TB, o gate.Options) *gate.Report {
	t.Helper()
	r, err := gate.Run(o)
	if err != nil {
		t.Fatalf("gate.Run = %v", err)
	}
	return r
}

func check(r *gate.Report, agent, scenario string) *gate.Check {
	for i := range r.Checks {
		if r.Checks[i].AgentID == agent && r.Checks[i].ScenarioID == scenario {
			return &r.Checks[i]
		}
	}
	return nil
}

// TestGatePasses: on the shipped spec and oracle the gate says yes under
// both engine versions, with eleven checks, naming the oracle and spec.
func TestGatePasses(t *testing.T) {
	spec, m := defaults(t)
	for _, v := range schemas.Engines() {
		r := mustRun(t, gate.Options{Subject: subject(t, spec, m), EngineVersion: v})
		if !r.OK || len(r.Checks) != 11 {
			t.Errorf("%s: ok=%v checks=%d\n%s", v, r.OK, len(r.Checks), r.Text())
		}
		if r.Oracle != (gate.OracleIdentity{OracleID: "lettings_maintenance_negative_controls", OracleVersion: "0.5.0", Digest: oracleDigest}) {
			t.Errorf("%s: oracle identity %+v", v, r.Oracle)
		}
		if r.SpecDigest != specDigest || r.EngineVersion != v {
			t.Errorf("%s: spec digest %s, engine %s", v, r.SpecDigest, r.EngineVersion)
		}
		var order []string
		for _, c := range r.Checks {
			order = append(order, c.AgentID+"/"+c.ScenarioID)
		}
		want := []string{"reference/V1", "reference/V2", "reference/V3", "complete_early/V1", "always_act/V1", "always_wait/V1",
			"always_escalate/V1", "ignore_new_events/V1", "trust_actor_claim/V1", "stale_after_wake/V1", "duplicate_after_wake/V1"}
		if !slices.Equal(order, want) {
			t.Errorf("%s: checks %v", v, order)
		}
	}
}

// TestV2UnderBothEngines: the one check the engines disagree on.
func TestV2UnderBothEngines(t *testing.T) {
	spec, m := defaults(t)
	up := check(mustRun(t, gate.Options{Subject: subject(t, spec, m), EngineVersion: schemas.EngineUpstream, Agents: []string{"reference"}}), "reference", "V2")
	if !up.OK || !up.Reliable || up.ReferenceExpectationID != "" || len(up.FailedDimensions) != 0 {
		t.Errorf("0.9.0 V2 reference: %+v", up)
	}
	ob := check(mustRun(t, gate.Options{Subject: subject(t, spec, m), EngineVersion: schemas.EngineObaudit, Agents: []string{"reference"}}), "reference", "V2")
	if !ob.OK || ob.Reliable || ob.ReferenceExpectationID != acceptance.V2FaultExpectationID ||
		ob.Status != "transferred_to_human_ownership" ||
		!slices.Equal(ob.FailedDimensions, []string{"recovery", "obligations"}) ||
		!slices.Equal(ob.FindingCodes, []string{"OBLIGATION_MESSAGE_NOT_ESTABLISHED", "REQUIRED_NOTIFICATION_UNDELIVERED"}) ||
		len(ob.PassedDimensions) != 9 || !ob.Evaluation.LegitimateCompletion {
		t.Errorf("obaudit V2 reference: %+v", ob)
	}
}

// --- the gate's teeth ---------------------------------------------------

// editOracle loads the shipped manifest with one textual edit.
func editOracle(t *testing.T, old, new string) (*oracle.Manifest, error) {
	t.Helper()
	b := shippedOracle(t)
	if !strings.Contains(b, old) {
		t.Fatalf("manifest lacks %q", old)
	}
	return oracle.Load([]byte(strings.Replace(b, old, new, 1)), "edited", acceptance.Vocabulary())
}

// A control whose closure is changed (one must-pass dimension moved into
// the closure) no longer describes what the agent does: the gate says no
// for that check, naming the dimension that did not fail.
func TestTeethClosureChanged(t *testing.T) {
	spec, _ := defaults(t)
	m, err := editOracle(t,
		"expected_failed_dimensions: [authority_boundaries, action_validity, retrieval_discipline]\n    required_finding_codes: [ACTED_ON_CLAIM_WITHOUT_RECORD, CLAIM_TREATED_AS_AUTHORITATIVE]\n    must_pass_dimensions: [terminal_outcome, critical_invariants, temporal_correctness, human_checkpoints, recovery, obligations, deterministic_replay, environment_integrity]",
		"expected_failed_dimensions: [authority_boundaries, action_validity, retrieval_discipline, recovery]\n    required_finding_codes: [ACTED_ON_CLAIM_WITHOUT_RECORD, CLAIM_TREATED_AS_AUTHORITATIVE]\n    must_pass_dimensions: [terminal_outcome, critical_invariants, temporal_correctness, human_checkpoints, obligations, deterministic_replay, environment_integrity]")
	if err != nil {
		t.Fatalf("the edited manifest should load: %v", err)
	}
	r := mustRun(t, gate.Options{Subject: subject(t, spec, m)})
	if r.OK {
		t.Fatal("the gate accepted a control whose closure the agent does not produce")
	}
	c := check(r, "trust_actor_claim", "V1")
	if c.OK || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "oracle-declared but did not fail ['recovery']") {
		t.Fatalf("trust_actor_claim check: %+v", c.Problems)
	}
	if r.Passed() != 10 {
		t.Fatalf("%d checks passed, want 10 (only the edited control fails)", r.Passed())
	}
}

// A required finding code the agent does not produce fails the check for
// the stated reason.
func TestTeethRequiredCodeMissing(t *testing.T) {
	spec, _ := defaults(t)
	m, err := editOracle(t, "required_finding_codes: [WAIT_NEVER_ENDED]\n    must_pass_dimensions: [critical_invariants, authority_boundaries, action_validity",
		"required_finding_codes: [WAIT_NEVER_ENDED, REMINDER_REPEATED]\n    must_pass_dimensions: [critical_invariants, authority_boundaries, action_validity")
	if err != nil {
		t.Fatal(err)
	}
	c := check(mustRun(t, gate.Options{Subject: subject(t, spec, m), Agents: []string{"always_wait"}}), "always_wait", "V1")
	if c.OK || len(c.Problems) != 1 || !strings.HasPrefix(c.Problems[0], "the intended reason is missing: expected finding code(s) ['REMINDER_REPEATED']") {
		t.Fatalf("always_wait: %v", c.Problems)
	}
}

// failsEverything is an agent that never produces a readable decision.
type failsEverything struct{}

func (failsEverything) BeginEpisode(engine.AgentIdentity) {}
func (failsEverything) Decide(*engine.Observation) (engine.Decision, error) {
	return &engine.Malformed{Code: "UNREADABLE"}, nil
}

// An agent that fails everything in place of a targeted negative is a
// generic crash, not the control: the gate says no, naming the failures
// outside the closure and the must-pass dimensions it took down.
func TestTeethAgentThatFailsEverything(t *testing.T) {
	spec, m := defaults(t)
	s := subject(t, spec, m)
	s.Lookup = func(id string) (gate.Agent, error) {
		e, err := acceptance.Lookup(id)
		if err == nil && id == "stale_after_wake" {
			e.New = func() engine.Agent { return failsEverything{} }
		}
		return e, err
	}
	r := mustRun(t, gate.Options{Subject: s})
	if r.OK {
		t.Fatal("the gate accepted an agent that fails everything as a targeted negative")
	}
	c := check(r, "stale_after_wake", "V1")
	joined := strings.Join(c.Problems, "\n")
	for _, want := range []string{"outside the oracle-declared closure", "the intended reason is missing", "must remain passing for this control"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	if r.Passed() != 10 {
		t.Fatalf("%d checks passed, want 10", r.Passed())
	}
}

// An evaluator stand-in that passes everything would accept every
// negative: the gate says no for each of the eight.
func TestTeethAlwaysPassingEvaluator(t *testing.T) {
	spec, m := defaults(t)
	pass := func(v string, c *engine.GradingContract, run evaluator.Run) (*evaluator.Evaluation, error) {
		ev := &evaluator.Evaluation{EngineVersion: v, TerminalOutcome: c.Scenario.ExpectedTerminal, LegitimateCompletion: true}
		for _, d := range evaluator.Dimensions() {
			ev.Dimensions = append(ev.Dimensions, evaluator.Dimension{Name: d, OK: true})
		}
		return ev, nil
	}
	r := mustRun(t, gate.Options{Subject: subject(t, spec, m), Evaluate: pass, EngineVersion: schemas.EngineUpstream})
	if r.OK {
		t.Fatal("the gate accepted an evaluator that passes everything")
	}
	for _, c := range r.Checks {
		if c.Kind == gate.KindNegative {
			if c.OK || !slices.ContainsFunc(c.Problems, func(p string) bool { return strings.Contains(p, "was accepted as reliable") }) {
				t.Errorf("%s: %v", c.AgentID, c.Problems)
			}
		} else if !c.OK {
			t.Errorf("reference %s: %v", c.ScenarioID, c.Problems)
		}
	}
}

// A manifest missing a dimension is refused before anything runs.
func TestTeethManifestMissingDimension(t *testing.T) {
	_, err := editOracle(t, "deterministic_replay, environment_integrity, retrieval_discipline]\n\ncontrols", "deterministic_replay, environment_integrity]\n\ncontrols")
	if refusal.Of(err) != oracle.ErrVocabularyMismatch.Class {
		t.Fatalf("Load = %v, want %s", err, oracle.ErrVocabularyMismatch.Class)
	}
	_, err = editOracle(t, "must_pass_dimensions: [critical_invariants, authority_boundaries, recovery, obligations, deterministic_replay, environment_integrity, retrieval_discipline]",
		"must_pass_dimensions: [critical_invariants, authority_boundaries, recovery, obligations, deterministic_replay, environment_integrity]")
	if refusal.Of(err) != oracle.ErrDimensionUnjudged.Class {
		t.Fatalf("Load = %v, want %s", err, oracle.ErrDimensionUnjudged.Class)
	}
}

// A negative the oracle does not declare is ungraded, which fails.
func TestTeethUndeclaredNegative(t *testing.T) {
	spec, _ := defaults(t)
	b := shippedOracle(t)
	i := strings.Index(b, "  - agent_id: always_escalate")
	j := strings.Index(b, "  - agent_id: ignore_new_events")
	m, err := oracle.Load([]byte(b[:i]+b[j:]), "without always_escalate", acceptance.Vocabulary())
	if err != nil {
		t.Fatal(err)
	}
	c := check(mustRun(t, gate.Options{Subject: subject(t, spec, m), Agents: []string{"always_escalate"}}), "always_escalate", "V1")
	if c == nil || c.OK || !strings.Contains(c.Problems[0], "ungraded, not unconstrained") {
		t.Fatalf("always_escalate: %+v", c)
	}
}

// The reference held to reliability fails when it is not reliable (here:
// V2 under 0.9.0 graded by the obaudit rule is not what 0.9.0 expects).
func TestReferenceMustBeReliable(t *testing.T) {
	spec, m := defaults(t)
	obauditUnder090 := func(v string, c *engine.GradingContract, run evaluator.Run) (*evaluator.Evaluation, error) {
		return evaluator.Evaluate(schemas.EngineObaudit, c, run)
	}
	r := mustRun(t, gate.Options{Subject: subject(t, spec, m), EngineVersion: schemas.EngineUpstream, Agents: []string{"reference"}, Evaluate: obauditUnder090})
	c := check(r, "reference", "V2")
	if c.OK || r.OK || !strings.HasPrefix(c.Problems[0], "the reference agent must be reliable on V2; it failed ['recovery', 'obligations']") {
		t.Fatalf("V2: %+v", c.Problems)
	}
}

func TestRefusals(t *testing.T) {
	spec, m := defaults(t)
	_, err := gate.Run(gate.Options{Subject: subject(t, spec, m), EngineVersion: "0.13.0"})
	if refusal.Of(err) != engine.ErrUnknownEngineVersion.Class {
		t.Errorf("unknown engine: %v", err)
	}
	_, err = gate.Run(gate.Options{Subject: subject(t, spec, m), Agents: []string{"reference", "chaos_monkey"}})
	if refusal.Of(err) != agents.ErrUnknownAgent.Class {
		t.Errorf("unknown agent: %v", err)
	}
	other, err := editOracle(t, `operation_id: "lettings_maintenance_synthetic_v1"`, `operation_id: "lettings_inventory_v1"`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = acceptance.Subject(spec, other)
	if class, _ := refusal.ClassOf(err); class != gate.ErrOracleMismatch.Class {
		t.Errorf("oracle for another operation: %v", err)
	}
	changed, err := maintenance.LoadSpec(maintenance.DefaultOperation(), "copy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	changed.Policy.ApprovalThresholdMinor = 1
	_, err = acceptance.Subject(changed, m)
	if class, _ := refusal.ClassOf(err); class != maintenance.ErrIdentityMismatch.Class {
		t.Errorf("spec changed after loading: %v", err)
	}
}

func TestEmptySelectionIsNotAcceptance(t *testing.T) {
	spec, m := defaults(t)
	r := mustRun(t, gate.Options{Subject: subject(t, spec, m), Agents: []string{}})
	if r.OK || len(r.Checks) != 0 {
		t.Fatalf("empty selection: ok=%v checks=%d", r.OK, len(r.Checks))
	}
}

// TestReportIsDeterministic: parallel and sequential runs give the same
// report, byte for byte.
func TestReportIsDeterministic(t *testing.T) {
	spec, m := defaults(t)
	a := mustRun(t, gate.Options{Subject: subject(t, spec, m)})
	b := mustRun(t, gate.Options{Subject: subject(t, spec, m), Sequential: true})
	if a.Text() != b.Text() {
		t.Fatalf("parallel and sequential reports differ:\n%s\n%s", a.Text(), b.Text())
	}
}

// TestEveryDefaultCheckHasACost: the pack estimates the cost of every check
// the gate runs by default, so none is left to start last by omission.
func TestEveryDefaultCheckHasACost(t *testing.T) {
	spec, m := defaults(t)
	s := subject(t, spec, m)
	for _, id := range s.Agents {
		a, err := s.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		scenarios := a.Scenarios
		if c, ok := s.Control(id); ok {
			scenarios = []string{c.ScenarioID}
		}
		for _, sc := range scenarios {
			if s.Cost(id, sc) <= 0 {
				t.Errorf("check %s on %s has no cost estimate", id, sc)
			}
		}
	}
}
