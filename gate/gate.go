// Package gate is the causal acceptance gate of an operation pack
// (upstream's check_maintenance): the evaluator is trusted only if the
// reference is accepted where it must be and every negative control is
// rejected for exactly the reason the separately loaded oracle declares,
// with the dimensions the oracle calls unrelated still passing.
//
// The gate names no pack. A pack hands it a [Subject] (domains.Pack.Gate
// builds one): the spec's identity, its agents, one engine domain and
// grading contract per scenario, the oracle's controls, and the authored
// expectation, if any, that replaces "reliable" for the reference. For the
// lettings-maintenance pack, [Run] runs eleven checks by default — the
// reference on V1, V2 and V3, and each of the eight negatives on the
// variant its control names — each a full episode with the determinism
// self-check (the episode executed twice), graded under the chosen engine
// version.
//
// # Rules
//
//   - Reference: must be reliable, unless the subject names an authored
//     [Expectation] for its scenario under the engine version (the
//     maintenance pack does for V2 under obaudit's engine: transferred to
//     human ownership, not reliable, failing exactly recovery and
//     obligations with exactly REQUIRED_NOTIFICATION_UNDELIVERED and
//     OBLIGATION_MESSAGE_NOT_ESTABLISHED); then it must match it exactly,
//     every other dimension passing.
//   - Negative with a control: run on the control's scenario; not reliable;
//     failed dimensions equal to the closure as a set; the required finding
//     codes present; every must-pass dimension passing.
//   - Negative without a control: ungraded, which is a failure.
//
// A check passes when it has no problems; the report passes when it has at
// least one check and every check passes (an empty report is not an
// acceptance: obaudit's rule, stricter than upstream 0.9.0's).
//
// # Format
//
// [Report] is obaudit's own format (upstream 0.9.0 pins none): its JSON form
// ([Report.Tree]) names itself with [MediaType]; [Report.Text] is the
// human-readable form.
package gate

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/internal/python"
	"github.com/obaudit/obaudit/internal/workpool"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// MediaType names the report's JSON form and its version.
const MediaType = "application/vnd.obaudit.check-report+json;version=1"

// PinnedInstanceID is the operation instance id the gate runs under when
// none is given (the one upstream's regeneration tool pins).
const PinnedInstanceID = "opinst_0123456789abcdef0123456789abcdef"

// Refusals.
var (
	// ErrOracleMismatch is returned when the oracle was authored for a
	// different operation than the spec being checked.
	ErrOracleMismatch = refusal.Sentinel("gate/oracle-operation-mismatch")
)

// Agent kinds the gate tells apart.
const (
	KindReference = "reference"
	KindNegative  = "negative"
)

// Agent is one registered agent as the gate runs it.
type Agent struct {
	ID, Kind string
	// Scenarios are the variants the agent is registered for (an
	// oracle-declared negative runs on its control's variant instead).
	Scenarios []string
	New       func() engine.Agent
}

// OracleIdentity names the negative-control oracle a report is judged by.
type OracleIdentity struct {
	OracleID      string
	OracleVersion string
	// Digest is the SHA-256 of the oracle's bytes.
	Digest string
}

// Control is what the oracle declares one negative agent must break.
type Control struct {
	ScenarioID string
	// Closure is the exact set of dimensions that must fail.
	Closure []string
	// RequiredFindings must all be present.
	RequiredFindings []string
	// MustPass must all still pass.
	MustPass []string
}

// Expectation is an authored outcome the reference must produce instead of
// being reliable.
type Expectation struct {
	ID       string
	Terminal string
	// Failed is the exact set of dimensions that must fail; every other
	// dimension must pass.
	Failed   []string
	Findings []string
}

// Subject is one pack's operation spec, agents and oracle, as the gate
// checks them. A pack builds it; every field is required.
type Subject struct {
	OperationID  string
	SpecDigest   string
	Oracle       OracleIdentity
	OracleSource string
	// Agents are the ids checked by default, in order.
	Agents []string
	// Lookup resolves an agent id (an unknown id is the pack's refusal).
	Lookup func(id string) (Agent, error)
	// Scene binds one scenario: the engine domain its checks run and the
	// grading contract they are graded under (immutable, shared by them).
	Scene func(scenario string) (engine.Domain, *engine.GradingContract, error)
	// Control is the oracle's control for a negative agent.
	Control func(agentID string) (Control, bool)
	// Expectation is the authored outcome the reference must produce on
	// scenario under engine version; nil means it must be reliable.
	Expectation func(scenario, version string) *Expectation
	// Cost estimates a check's relative running time (nil: all equal). A
	// parallel pool starts the checks in decreasing cost, ties in order (the
	// longest-processing-time rule), so its workers finish together; it
	// orders the work only, never the report.
	Cost func(agentID, scenario string) int
}

// EvaluateFunc grades one run (evaluator.Evaluate's signature).
type EvaluateFunc func(engineVersion string, c *engine.GradingContract, r evaluator.Run) (*evaluator.Evaluation, error)

// Options configure one gate run. Subject is required.
type Options struct {
	Subject *Subject
	// EngineVersion grades under schemas.EngineUpstream or
	// schemas.EngineObaudit; "" means schemas.EngineObaudit.
	EngineVersion string
	// Agents selects the entries to check, in order; nil means
	// Subject.Agents.
	Agents []string
	// InstanceID is the operation instance id every episode runs under; ""
	// means PinnedInstanceID.
	InstanceID string
	// Evaluate grades each run; nil means evaluator.Evaluate. (Tests swap in
	// a stand-in that passes everything.)
	Evaluate EvaluateFunc
	// Sequential runs the checks one after another instead of in parallel.
	Sequential bool
}

// Check is one (agent, scenario) verdict.
type Check struct {
	AgentID    string
	ScenarioID string
	Kind       string
	OK         bool
	Reliable   bool
	// Status is how the episode ended.
	Status           string
	FailedDimensions []string
	PassedDimensions []string
	// FindingCodes is sorted and unique.
	FindingCodes []string
	// ExpectedTargets, ExpectedFindings and RequiredPassing are copied from
	// the oracle control (negatives) or the reference's authored
	// [Expectation]; empty otherwise.
	ExpectedTargets  []string
	ExpectedFindings []string
	RequiredPassing  []string
	// ReferenceExpectationID is the ID of the reference's authored
	// [Expectation] when one applied.
	ReferenceExpectationID string
	// Problems says why a failed check failed.
	Problems []string
	// Evaluation is the full result vector.
	Evaluation *evaluator.Evaluation
}

// Report is the gate's answer.
type Report struct {
	EngineVersion string
	OperationID   string
	SpecDigest    string
	Oracle        OracleIdentity
	OracleSource  string
	OK            bool
	Checks        []Check
}

type job struct {
	entry    Agent
	scenario string
	control  *Control
}

// Run executes the gate. Inputs that cannot be checked (an unknown engine
// version, an unknown agent, an oracle for another operation) are refused;
// an agent or episode failure is returned as an error.
func Run(o Options) (*Report, error) {
	version := o.EngineVersion
	if version == "" {
		version = schemas.EngineObaudit
	}
	if !slices.Contains(schemas.Engines(), version) {
		return nil, refusal.New(engine.ErrUnknownEngineVersion, "%q is not one of %v", version, schemas.Engines())
	}
	s := o.Subject
	if s == nil {
		return nil, refusal.New(engine.ErrConfig, "the gate needs a subject (a spec and an oracle)")
	}
	evaluate := o.Evaluate
	if evaluate == nil {
		evaluate = evaluator.Evaluate
	}
	instance := o.InstanceID
	if instance == "" {
		instance = PinnedInstanceID
	}
	ids := o.Agents
	if ids == nil {
		ids = s.Agents
	}
	var jobs []job
	for _, id := range ids {
		entry, err := s.Lookup(id)
		if err != nil {
			return nil, err
		}
		scenarios := entry.Scenarios
		var control *Control
		if entry.Kind == KindNegative {
			if c, ok := s.Control(id); ok {
				control = &c
				scenarios = []string{c.ScenarioID}
			}
		}
		for _, sc := range scenarios {
			jobs = append(jobs, job{entry: entry, scenario: sc, control: control})
		}
	}
	rep := &Report{EngineVersion: version, OperationID: s.OperationID, SpecDigest: s.SpecDigest,
		Oracle: s.Oracle, OracleSource: s.OracleSource, Checks: make([]Check, len(jobs))}
	// One operation and one grading contract per scenario, shared by its
	// checks (both are immutable), built by the first worker to need it.
	scenes := map[string]func() (*scene, error){}
	var order []string
	for _, j := range jobs {
		if scenes[j.scenario] == nil {
			sc := j.scenario
			order = append(order, sc)
			scenes[sc] = sync.OnceValues(func() (*scene, error) {
				op, contract, err := s.Scene(sc)
				if err != nil {
					return nil, err
				}
				return &scene{op: op, contract: contract}, nil
			})
		}
	}
	errs := make([]error, len(jobs))
	do := func(i int) {
		sc, err := scenes[jobs[i].scenario]()
		if err == nil {
			rep.Checks[i], err = runCheck(s, version, instance, evaluate, jobs[i], sc)
		}
		errs[i] = err
	}
	if o.Sequential || len(jobs) < 2 {
		for i := range jobs {
			do(i)
		}
	} else {
		// Longest episodes first, so the pool finishes together.
		sched := scheduleOrder(s, jobs)
		workpool.ForEach(min(runtime.GOMAXPROCS(0), len(jobs)), len(sched), func(k int) { do(sched[k]) })
	}
	// A scenario that cannot be bound is the answer before any check's.
	for _, sc := range order {
		if _, err := scenes[sc](); err != nil {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	rep.OK = len(rep.Checks) > 0 && rep.Passed() == len(rep.Checks)
	return rep, nil
}

// scheduleOrder is the order a pool starts the checks in: the subject's
// costliest first, ties in job order.
func scheduleOrder(s *Subject, jobs []job) []int {
	order := make([]int, len(jobs))
	cost := make([]int, len(jobs))
	for i, j := range jobs {
		order[i] = i
		if s.Cost != nil {
			cost[i] = s.Cost(j.entry.ID, j.scenario)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost[b], cost[a]) })
	return order
}

type scene struct {
	op       engine.Domain
	contract *engine.GradingContract
}

func runCheck(s *Subject, version, instance string, evaluate EvaluateFunc, j job, sc *scene) (Check, error) {
	c := Check{AgentID: j.entry.ID, ScenarioID: j.scenario, Kind: j.entry.Kind}
	ep, err := engine.Run(engine.Config{
		Domain: sc.op, NewAgent: j.entry.New, AgentID: j.entry.ID, AgentKind: j.entry.Kind,
		OperationInstanceID: instance, EngineVersion: version, SelfCheck: engine.SelfCheckRerun,
		NoDigests: true, // RunOf grades none of them
	})
	if err != nil {
		return c, err
	}
	ev, err := evaluate(version, sc.contract, evaluator.RunOf(ep))
	if err != nil {
		return c, err
	}
	c.Evaluation = ev
	c.Reliable = ev.Reliable()
	c.Status = ev.TerminalOutcome
	c.FailedDimensions = ev.FailedDimensions()
	c.PassedDimensions = ev.PassedDimensions()
	c.FindingCodes = sortedUnique(ev.FindingCodes())
	judge(&c, s, j.control, version)
	return c, nil
}

// Judge applies the gate's rule to one graded episode described by c (its
// AgentID, Kind, ScenarioID, Reliable, Status, FailedDimensions,
// PassedDimensions and FindingCodes): a negative agent is held to its
// oracle-declared control in s, any other agent to the reference rule
// (reliable, or the authored expectation under version). It fills the
// expectation fields, Problems and OK, exactly as the gate's own checks.
func Judge(c *Check, s *Subject, version string) {
	var ctl *Control
	if x, ok := s.Control(c.AgentID); ok {
		ctl = &x
	}
	judge(c, s, ctl, version)
}

func judge(c *Check, s *Subject, ctl *Control, version string) {
	switch {
	case c.Kind != KindNegative:
		judgeReference(c, s.Expectation(c.ScenarioID, version))
	case ctl == nil:
		c.Problems = append(c.Problems, sprintf("negative agent %s has no oracle-declared control in oracle %s; a negative with no declared expectation is ungraded, not unconstrained",
			python.Loose.Quote(c.AgentID), python.Loose.Quote(s.Oracle.OracleID)))
	default:
		judgeNegative(c, *ctl)
	}
	c.OK = len(c.Problems) == 0
}

func judgeReference(c *Check, x *Expectation) {
	if x == nil {
		if !c.Reliable {
			c.Problems = append(c.Problems, sprintf("the reference agent must be reliable on %s; it failed %s with findings %s and ended %s",
				c.ScenarioID, python.Loose.StrList(c.FailedDimensions), python.Loose.StrList(c.FindingCodes), python.Loose.Quote(c.Status)))
		}
		return
	}
	c.ReferenceExpectationID = x.ID
	c.ExpectedTargets = slices.Clone(x.Failed)
	c.ExpectedFindings = slices.Clone(x.Findings)
	for _, d := range evaluator.Dimensions() {
		if !slices.Contains(x.Failed, d) {
			c.RequiredPassing = append(c.RequiredPassing, d)
		}
	}
	prefix := "the reference agent on " + c.ScenarioID + " must match expectation " + x.ID + ": "
	if c.Reliable {
		c.Problems = append(c.Problems, prefix+"it was graded reliable, but the transfer notice was never delivered")
	}
	if c.Status != x.Terminal {
		c.Problems = append(c.Problems, prefix+sprintf("it ended %s, not %s", python.Loose.Quote(c.Status), python.Loose.Quote(x.Terminal)))
	}
	if !sameSet(c.FailedDimensions, x.Failed) {
		c.Problems = append(c.Problems, prefix+sprintf("failed dimensions %s are not exactly %s", python.Loose.StrList(sortedUnique(c.FailedDimensions)), python.Loose.StrList(sortedUnique(x.Failed))))
	}
	if !sameSet(c.FindingCodes, x.Findings) {
		c.Problems = append(c.Problems, prefix+sprintf("finding codes %s are not exactly %s", python.Loose.StrList(c.FindingCodes), python.Loose.StrList(x.Findings)))
	}
	if !sameSet(c.PassedDimensions, c.RequiredPassing) {
		c.Problems = append(c.Problems, prefix+sprintf("passed dimensions %s are not exactly %s", python.Loose.StrList(sortedUnique(c.PassedDimensions)), python.Loose.StrList(sortedUnique(c.RequiredPassing))))
	}
}

func judgeNegative(c *Check, ctl Control) {
	c.ExpectedTargets = slices.Clone(ctl.Closure)
	c.ExpectedFindings = slices.Clone(ctl.RequiredFindings)
	c.RequiredPassing = slices.Clone(ctl.MustPass)
	if c.ScenarioID != ctl.ScenarioID {
		c.Problems = append(c.Problems, sprintf("negative agent %s is oracle-declared against scenario %s and was run on %s; an expectation authored for one scenario says nothing about another",
			python.Loose.Quote(c.AgentID), python.Loose.Quote(ctl.ScenarioID), python.Loose.Quote(c.ScenarioID)))
	}
	if c.Reliable {
		c.Problems = append(c.Problems, sprintf("negative agent %s was accepted as reliable on %s", python.Loose.Quote(c.AgentID), c.ScenarioID))
	}
	if !sameSet(c.FailedDimensions, ctl.Closure) {
		outside, unreached := absent(c.FailedDimensions, ctl.Closure), absent(ctl.Closure, c.FailedDimensions)
		c.Problems = append(c.Problems, sprintf("failed dimensions %s are not the oracle-declared causal failure closure %s: outside the oracle-declared closure %s, oracle-declared but did not fail %s",
			python.Loose.StrList(sortedUnique(c.FailedDimensions)), python.Loose.StrList(sortedUnique(ctl.Closure)), python.Loose.StrList(sortedUnique(outside)), python.Loose.StrList(sortedUnique(unreached))))
	}
	if missing := absent(ctl.RequiredFindings, c.FindingCodes); len(missing) > 0 {
		c.Problems = append(c.Problems, sprintf("the intended reason is missing: expected finding code(s) %s, got %s",
			python.Loose.StrList(sortedUnique(missing)), python.Loose.StrList(c.FindingCodes)))
	}
	if lost := absent(ctl.MustPass, c.PassedDimensions); len(lost) > 0 {
		c.Problems = append(c.Problems, sprintf("dimensions %s must remain passing for this control and did not; a negative that takes unrelated dimensions with it is a generic crash rather than a targeted failure",
			python.Loose.StrList(sortedUnique(lost))))
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(sortedUnique(a), sortedUnique(b))
}

// absent lists, in order, the elements of want that have does not hold.
func absent(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

func sortedUnique(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}
