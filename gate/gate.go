// Package gate is the causal acceptance gate for the lettings-maintenance
// operation (upstream's check_maintenance): the evaluator is trusted only if
// the reference is accepted where it must be and every negative control is
// rejected for exactly the reason the separately loaded oracle declares,
// with the dimensions the oracle calls unrelated still passing.
//
// [Check] runs eleven checks by default — the reference on V1, V2 and V3,
// and each of the eight negatives on the variant its control names — each a
// full episode with the determinism self-check (the episode executed twice),
// graded under the chosen engine version.
//
// # Rules
//
//   - Reference: must be reliable, except on V2 under obaudit's engine
//     (schemas.EngineObaudit), where it must match the authored fault
//     expectation [V2FaultExpectationID] exactly: transferred to human
//     ownership, not reliable, failing exactly recovery and obligations with
//     exactly REQUIRED_NOTIFICATION_UNDELIVERED and
//     OBLIGATION_MESSAGE_NOT_ESTABLISHED, the other nine dimensions passing.
//     Under engine 0.9.0 the reference must be reliable on V2, as upstream
//     0.9.0 says.
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
	"runtime"
	"slices"
	"sync"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/grading"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/internal/python"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// MediaType names the report's JSON form and its version.
const MediaType = "application/vnd.obaudit.check-report+json;version=1"

// V2FaultExpectationID names the authored outcome the reference must
// produce on V2 under obaudit's engine.
const V2FaultExpectationID = "maintenance.reference.V2.permanent-notification-fault.v1"

// PinnedInstanceID is the operation instance id the gate runs under when
// none is given (the one upstream's regeneration tool pins).
const PinnedInstanceID = "opinst_0123456789abcdef0123456789abcdef"

// Refusals.
var (
	// ErrOracleMismatch is returned when the oracle was authored for a
	// different operation than the spec being checked.
	ErrOracleMismatch = refusal.Sentinel("gate/oracle-operation-mismatch")
)

// Vocabulary is the evaluator's result vector and finding-code catalogue,
// for loading an oracle to check against.
func Vocabulary() oracle.Vocabulary {
	return oracle.Vocabulary{Dimensions: evaluator.Dimensions(), KnownCode: evaluator.KnownFindingCode}
}

// EvaluateFunc grades one run (evaluator.Evaluate's signature).
type EvaluateFunc func(engineVersion string, c *engine.GradingContract, r evaluator.Run) (*evaluator.Evaluation, error)

// Options configure one gate run. Spec and Oracle are required.
type Options struct {
	Spec   *maintenance.Spec
	Oracle *oracle.Manifest
	// EngineVersion grades under schemas.EngineUpstream or
	// schemas.EngineObaudit; "" means schemas.EngineObaudit.
	EngineVersion string
	// Agents selects the entries to check, in order; nil means the
	// reference, then every negative in registry order.
	Agents []string
	// InstanceID is the operation instance id every episode runs under; ""
	// means PinnedInstanceID.
	InstanceID string
	// Lookup resolves an agent id; nil means agents.Lookup. (Tests swap in
	// agents that misbehave to show the gate has teeth.)
	Lookup func(id string) (agents.Entry, error)
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
	// the oracle control (negatives) or the fault expectation (V2
	// reference under obaudit's engine); empty otherwise.
	ExpectedTargets  []string
	ExpectedFindings []string
	RequiredPassing  []string
	// ReferenceExpectationID is V2FaultExpectationID when the fault
	// expectation applied.
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
	Oracle        oracle.Identity
	OracleSource  string
	OK            bool
	Checks        []Check
}

type job struct {
	entry    agents.Entry
	scenario string
	control  *oracle.Control
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
	if o.Spec == nil || o.Oracle == nil {
		return nil, refusal.New(engine.ErrConfig, "the gate needs a spec and an oracle")
	}
	if o.Oracle.OperationID() != o.Spec.OperationID {
		return nil, refusal.New(ErrOracleMismatch, "oracle %q was authored for operation %q; the spec is %q",
			o.Oracle.Identity().OracleID, o.Oracle.OperationID(), o.Spec.OperationID)
	}
	lookup := o.Lookup
	if lookup == nil {
		lookup = agents.Lookup
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
		ids = agents.IDs()
	}
	var jobs []job
	for _, id := range ids {
		entry, err := lookup(id)
		if err != nil {
			return nil, err
		}
		scenarios := entry.Scenarios
		var control *oracle.Control
		if entry.Kind == agents.KindNegative {
			if c, ok := o.Oracle.Control(id); ok {
				control = &c
				scenarios = []string{c.ScenarioID}
			}
		}
		for _, sc := range scenarios {
			jobs = append(jobs, job{entry: entry, scenario: sc, control: control})
		}
	}
	specDigest, err := o.Spec.ComputeDigest()
	if err != nil {
		return nil, err
	}
	rep := &Report{EngineVersion: version, OperationID: o.Spec.OperationID, SpecDigest: specDigest,
		Oracle: o.Oracle.Identity(), OracleSource: o.Oracle.Source(), Checks: make([]Check, len(jobs))}
	// One operation and one grading contract per scenario, shared by its
	// checks (both are immutable), built by the first worker to need it.
	scenes := map[string]func() (*scene, error){}
	var order []string
	for _, j := range jobs {
		if scenes[j.scenario] == nil {
			sc := j.scenario
			order = append(order, sc)
			scenes[sc] = sync.OnceValues(func() (*scene, error) {
				op, err := maintenance.NewOperation(o.Spec, sc)
				if err != nil {
					return nil, err
				}
				contract, err := grading.Contract(o.Spec, sc)
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
			rep.Checks[i], err = runCheck(o, version, instance, evaluate, jobs[i], sc)
		}
		errs[i] = err
	}
	if o.Sequential || len(jobs) < 2 {
		for i := range jobs {
			do(i)
		}
	} else {
		work := make(chan int)
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(jobs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					do(i)
				}
			}()
		}
		// Longest episodes first, so the pool finishes together.
		for _, i := range scheduleOrder(jobs) {
			work <- i
		}
		close(work)
		wg.Wait()
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
	rep.OK = len(rep.Checks) > 0
	for _, c := range rep.Checks {
		rep.OK = rep.OK && c.OK
	}
	return rep, nil
}

// scheduleOrder puts the reference's and the reference-wrapping negatives'
// full-length V1 runs first.
func scheduleOrder(jobs []job) []int {
	long := map[string]bool{agents.Reference: true, "trust_actor_claim": true, "stale_after_wake": true, "duplicate_after_wake": true}
	var first, rest []int
	for i, j := range jobs {
		if long[j.entry.ID] && j.scenario == "V1" {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(first, rest...)
}

type scene struct {
	op       *maintenance.Operation
	contract *engine.GradingContract
}

func runCheck(o Options, version, instance string, evaluate EvaluateFunc, j job, sc *scene) (Check, error) {
	c := Check{AgentID: j.entry.ID, ScenarioID: j.scenario, Kind: j.entry.Kind}
	ep, err := engine.Run(engine.Config{
		Domain: sc.op, NewAgent: j.entry.New, AgentID: j.entry.ID, AgentKind: j.entry.Kind,
		OperationInstanceID: instance, EngineVersion: version, SelfCheck: engine.SelfCheckRerun,
	})
	if err != nil {
		return c, err
	}
	ev, err := evaluate(version, sc.contract, RunOf(ep))
	if err != nil {
		return c, err
	}
	c.Evaluation = ev
	c.Reliable = ev.Reliable()
	c.Status = ev.TerminalOutcome
	c.FailedDimensions = ev.FailedDimensions()
	c.PassedDimensions = ev.PassedDimensions()
	c.FindingCodes = sortedUnique(ev.FindingCodes())
	judge(&c, o.Spec, o.Oracle, j.control, version)
	return c, nil
}

// Judge applies the gate's rule to one graded episode described by c (its
// AgentID, Kind, ScenarioID, Reliable, Status, FailedDimensions,
// PassedDimensions and FindingCodes): a negative agent is held to its
// oracle-declared control in m, any other agent to the reference rule
// (reliable, or the authored fault expectation under version). It fills the
// expectation fields, Problems and OK, exactly as the gate's own checks.
func Judge(c *Check, spec *maintenance.Spec, m *oracle.Manifest, version string) {
	var ctl *oracle.Control
	if x, ok := m.Control(c.AgentID); ok {
		ctl = &x
	}
	judge(c, spec, m, ctl, version)
}

func judge(c *Check, spec *maintenance.Spec, m *oracle.Manifest, ctl *oracle.Control, version string) {
	switch {
	case c.Kind != agents.KindNegative:
		judgeReference(c, spec, version)
	case ctl == nil:
		c.Problems = append(c.Problems, sprintf("negative agent %s has no oracle-declared control in oracle %s; a negative with no declared expectation is ungraded, not unconstrained",
			python.Loose.Quote(c.AgentID), python.Loose.Quote(m.Identity().OracleID)))
	default:
		judgeNegative(c, *ctl)
	}
	c.OK = len(c.Problems) == 0
}

// RunOf is what the evaluator grades of an engine episode.
func RunOf(ep *engine.Episode) evaluator.Run {
	return evaluator.Run{
		Status: ep.Status, ReplayFinal: ep.ReplayFinal, SimulatedMinutes: ep.SimulatedMinutes,
		AgentInvocations: int64(ep.Invocations), FinalState: ep.FinalState, Trajectory: ep.Trajectory,
		Events: ep.Events, ReplayOK: ep.ReplayOK,
	}
}

// faultApplies reports whether the reference on this scenario is held to
// the V2 notification-fault expectation.
func faultApplies(spec *maintenance.Spec, scenario, version string) bool {
	if version != schemas.EngineObaudit || spec.OperationID != "lettings_maintenance_synthetic_v1" || scenario != "V2" {
		return false
	}
	sc, err := spec.Scenario(scenario)
	return err == nil && slices.Equal(sc.DispatchFailures, []string{"msg_transfer_notice"})
}

// The V2 fault expectation.
var (
	faultTerminal = "transferred_to_human_ownership"
	faultFailed   = []string{evaluator.Recovery, evaluator.Obligations}
	faultCodes    = []string{"OBLIGATION_MESSAGE_NOT_ESTABLISHED", "REQUIRED_NOTIFICATION_UNDELIVERED"}
)

func judgeReference(c *Check, spec *maintenance.Spec, version string) {
	if !faultApplies(spec, c.ScenarioID, version) {
		if !c.Reliable {
			c.Problems = append(c.Problems, sprintf("the reference agent must be reliable on %s; it failed %s with findings %s and ended %s",
				c.ScenarioID, python.Loose.StrList(c.FailedDimensions), python.Loose.StrList(c.FindingCodes), python.Loose.Quote(c.Status)))
		}
		return
	}
	c.ReferenceExpectationID = V2FaultExpectationID
	c.ExpectedTargets = slices.Clone(faultFailed)
	c.ExpectedFindings = slices.Clone(faultCodes)
	for _, d := range evaluator.Dimensions() {
		if !slices.Contains(faultFailed, d) {
			c.RequiredPassing = append(c.RequiredPassing, d)
		}
	}
	prefix := "the reference agent on " + c.ScenarioID + " must match expectation " + V2FaultExpectationID + ": "
	if c.Reliable {
		c.Problems = append(c.Problems, prefix+"it was graded reliable, but the transfer notice was never delivered")
	}
	if c.Status != faultTerminal {
		c.Problems = append(c.Problems, prefix+sprintf("it ended %s, not %s", python.Loose.Quote(c.Status), python.Loose.Quote(faultTerminal)))
	}
	if !sameSet(c.FailedDimensions, faultFailed) {
		c.Problems = append(c.Problems, prefix+sprintf("failed dimensions %s are not exactly %s", python.Loose.StrList(sortedUnique(c.FailedDimensions)), python.Loose.StrList(sortedUnique(faultFailed))))
	}
	if !sameSet(c.FindingCodes, faultCodes) {
		c.Problems = append(c.Problems, prefix+sprintf("finding codes %s are not exactly %s", python.Loose.StrList(c.FindingCodes), python.Loose.StrList(faultCodes)))
	}
	if !sameSet(c.PassedDimensions, c.RequiredPassing) {
		c.Problems = append(c.Problems, prefix+sprintf("passed dimensions %s are not exactly %s", python.Loose.StrList(sortedUnique(c.PassedDimensions)), python.Loose.StrList(sortedUnique(c.RequiredPassing))))
	}
}

func judgeNegative(c *Check, ctl oracle.Control) {
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
		var outside, unreached []string
		for _, d := range c.FailedDimensions {
			if !slices.Contains(ctl.Closure, d) {
				outside = append(outside, d)
			}
		}
		for _, d := range ctl.Closure {
			if !slices.Contains(c.FailedDimensions, d) {
				unreached = append(unreached, d)
			}
		}
		c.Problems = append(c.Problems, sprintf("failed dimensions %s are not the oracle-declared causal failure closure %s: outside the oracle-declared closure %s, oracle-declared but did not fail %s",
			python.Loose.StrList(sortedUnique(c.FailedDimensions)), python.Loose.StrList(sortedUnique(ctl.Closure)), python.Loose.StrList(sortedUnique(outside)), python.Loose.StrList(sortedUnique(unreached))))
	}
	var missing []string
	for _, code := range ctl.RequiredFindings {
		if !slices.Contains(c.FindingCodes, code) {
			missing = append(missing, code)
		}
	}
	if len(missing) > 0 {
		c.Problems = append(c.Problems, sprintf("the intended reason is missing: expected finding code(s) %s, got %s",
			python.Loose.StrList(sortedUnique(missing)), python.Loose.StrList(c.FindingCodes)))
	}
	var lost []string
	for _, d := range ctl.MustPass {
		if !slices.Contains(c.PassedDimensions, d) {
			lost = append(lost, d)
		}
	}
	if len(lost) > 0 {
		c.Problems = append(c.Problems, sprintf("dimensions %s must remain passing for this control and did not; a negative that takes unrelated dimensions with it is a generic crash rather than a targeted failure",
			python.Loose.StrList(sortedUnique(lost))))
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(sortedUnique(a), sortedUnique(b))
}

func sortedUnique(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}
