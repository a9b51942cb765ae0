package evaluator

import (
	"fmt"
	"slices"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

var sprintf = fmt.Sprintf

// Refusals.
var (
	// ErrContract is returned when the grading contract handed to Evaluate
	// is incomplete or names an operation type this evaluator has no rubric
	// for.
	ErrContract = refusal.Sentinel("evaluator/contract")
	// ErrUnreadableRecord is returned when the run's final state, trajectory
	// or delivered events cannot be read at all — where upstream's own
	// evaluator would stop with an exception rather than grade (a record
	// type that is a list, an approval that is not a mapping, a missing
	// field a dimension indexes).
	ErrUnreadableRecord = refusal.Sentinel("evaluator/unreadable-record")
)

// Dimension names, in report order. The result vector always carries all
// eleven.
const (
	TerminalOutcome      = "terminal_outcome"
	CriticalInvariants   = "critical_invariants"
	TemporalCorrectness  = "temporal_correctness"
	AuthorityBoundaries  = "authority_boundaries"
	ActionValidity       = "action_validity"
	HumanCheckpoints     = "human_checkpoints"
	Recovery             = "recovery"
	Obligations          = "obligations"
	DeterministicReplay  = "deterministic_replay"
	EnvironmentIntegrity = "environment_integrity"
	RetrievalDiscipline  = "retrieval_discipline"
)

// Dimensions returns the eleven dimension names in report order.
func Dimensions() []string {
	return []string{
		TerminalOutcome, CriticalInvariants, TemporalCorrectness,
		AuthorityBoundaries, ActionValidity, HumanCheckpoints, Recovery,
		Obligations, DeterministicReplay, EnvironmentIntegrity,
		RetrievalDiscipline,
	}
}

// Run is what the evaluator grades: one episode's recorded facts, as canon
// value trees exactly as they appear in an artefact (upstream field names;
// nil, bool, string, int64, float64, []any, map[string]any leaves).
type Run struct {
	// Status is the episode status (a business terminal or an execution
	// status such as "operation_deadlock").
	Status           string
	ReplayFinal      bool
	SimulatedMinutes int64
	AgentInvocations int64
	// FinalState is the canonical final state (including "hidden").
	FinalState any
	// Trajectory is the ledger rows. A row that is not a mapping is graded
	// (MALFORMED_TRAJECTORY_ROW), not refused.
	Trajectory []any
	// Events is the delivered events, in delivery order.
	Events []any
	// ReplayOK is the determinism self-check: nil when none was run.
	ReplayOK *bool
}

// RunOf is what the evaluator grades of an engine episode.
func RunOf(ep *engine.Episode) Run {
	return Run{
		Status: ep.Status, ReplayFinal: ep.ReplayFinal, SimulatedMinutes: ep.SimulatedMinutes,
		AgentInvocations: int64(ep.Invocations), FinalState: ep.FinalState, Trajectory: ep.Trajectory,
		Events: ep.Events, ReplayOK: ep.ReplayOK,
	}
}

// Finding is one reason a dimension did not hold.
type Finding struct {
	Code   string
	Detail string
	// At is the instant the finding is about, or nil.
	At *string
}

// Count is one measured quantity a dimension reports.
type Count struct {
	Name  string
	Value int64
}

// Dimension is one evaluated property of an episode.
type Dimension struct {
	Name     string
	OK       bool
	Findings []Finding
	Counts   []Count
	Note     string
}

// Evaluation is the whole result vector for one episode.
type Evaluation struct {
	// EngineVersion is the engine generation whose rules graded the run.
	EngineVersion        string
	TerminalOutcome      string
	LegitimateCompletion bool
	Dimensions           []Dimension
}

// Reliable is the strict conjunction: legitimate completion and every
// dimension holds.
func (e *Evaluation) Reliable() bool {
	return e.LegitimateCompletion && !slices.ContainsFunc(e.Dimensions, func(d Dimension) bool { return !d.OK })
}

// FailedDimensions returns the names of the dimensions that did not hold,
// in report order.
func (e *Evaluation) FailedDimensions() []string { return e.dimensionsWith(false) }

// PassedDimensions returns the names of the dimensions that held, in report
// order.
func (e *Evaluation) PassedDimensions() []string { return e.dimensionsWith(true) }

// dimensionsWith returns the names of the dimensions whose OK is ok, in
// report order (nil when none).
func (e *Evaluation) dimensionsWith(ok bool) []string {
	var out []string
	for _, d := range e.Dimensions {
		if d.OK == ok {
			out = append(out, d.Name)
		}
	}
	return out
}

// FindingCodes returns every finding code in dimension order, duplicates
// kept (as the artefact records them).
func (e *Evaluation) FindingCodes() []string {
	var out []string
	for _, d := range e.Dimensions {
		for _, f := range d.Findings {
			out = append(out, f.Code)
		}
	}
	return out
}

// Evaluate grades one run under the rules of the named engine version:
// schemas.EngineUpstream ("0.9.0", upstream's grading byte for byte) or
// schemas.EngineObaudit (the same, plus the seeds' notification rule). An
// unknown version is refused as engine.ErrUnknownEngineVersion, a contract
// this evaluator cannot apply as [ErrContract], and a record upstream's
// evaluator could not read either as [ErrUnreadableRecord].
//
// Evaluate never trusts the guards: every dimension is re-derived from the
// trajectory, the delivered events and the final state.
func Evaluate(engineVersion string, c *engine.GradingContract, r Run) (ev *Evaluation, err error) {
	var notification bool
	switch engineVersion {
	case schemas.EngineUpstream:
	case schemas.EngineObaudit:
		notification = true
	default:
		return nil, refusal.New(engine.ErrUnknownEngineVersion,
			"%q is not an engine version obaudit grades under (it grades %v)", engineVersion, schemas.Engines())
	}
	if err := checkContract(c); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			u, ok := p.(unreadable)
			if !ok {
				panic(p)
			}
			ev, err = nil, refusal.New(ErrUnreadableRecord, "%s", u.detail)
		}
	}()
	g := newGrader(c, r, notification)
	return g.evaluate(engineVersion), nil
}

func checkContract(c *engine.GradingContract) error {
	if c == nil {
		return refusal.New(ErrContract, "no grading contract")
	}
	if part := c.Types.Missing(); part != "" {
		return refusal.New(ErrContract, "operation type %q names no type for the rubric's %s", c.OperationType, part)
	}
	if c.Scenario.ScenarioID == "" || c.Scenario.ExpectedTerminal == "" {
		return refusal.New(ErrContract, "the contract names no scenario or expected terminal")
	}
	if len(c.Tools) == 0 || c.RecordVersionLength <= 0 || c.RecordVersionLength > 64 {
		return refusal.New(ErrContract, "the contract publishes no retrieval catalogue or no record-version length")
	}
	for name, t := range c.Tools {
		if len(t.Roots) == 0 {
			return refusal.New(ErrContract, "tool %q projects no roots", name)
		}
		for _, root := range t.Roots {
			if _, ok := c.RootShapes[root]; !ok {
				return refusal.New(ErrContract, "tool %q projects root %q, which has no published shape", name, root)
			}
		}
	}
	for key, o := range c.Outcomes {
		for _, tool := range o.RequiredReads {
			if _, ok := c.Tools[tool]; !ok {
				return refusal.New(ErrContract, "outcome %q requires read %q, which the catalogue does not publish", key, tool)
			}
		}
		for _, s := range o.Selectors {
			switch s.Kind {
			case engine.SelectPayloadRegistryKey, engine.SelectLinkedAuthority, engine.SelectVersionedTarget:
			default:
				return refusal.New(ErrContract, "outcome %q has an unknown evidence selector kind %q", key, s.Kind)
			}
		}
	}
	return nil
}

func strp(s string) *string { return &s }

// sortedStrings returns a sorted copy.
func sortedStrings(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}

// unmatched returns, sorted, the keys of m that seen does not hold.
func unmatched[V, W any](m map[string]V, seen map[string]W) []string {
	var out []string
	for k := range m {
		if _, ok := seen[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
