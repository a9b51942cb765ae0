package engine

import (
	"regexp"
	"slices"

	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// SelfCheck names how a run checks its own determinism (upstream's
// deterministic_replay).
type SelfCheck int

const (
	// SelfCheckNone runs once; the evaluator grades REPLAY_NOT_CHECKED.
	SelfCheckNone SelfCheck = iota
	// SelfCheckRerun executes the whole episode a second time with a fresh
	// agent from the factory and the same instance id (what a deterministic
	// agent gets).
	SelfCheckRerun
	// SelfCheckPlayback re-executes the environment with the first
	// execution's decision tape played back (no agent is run a second time;
	// what a model-backed agent gets).
	SelfCheckPlayback
)

// Config is one run. Zero values are not usable: Domain, NewAgent,
// OperationInstanceID and EngineVersion are required.
type Config struct {
	Domain Domain
	// NewAgent returns a fresh agent for one execution (called once per
	// execution, so twice under SelfCheckRerun).
	NewAgent func() Agent
	// AgentID and AgentKind name the agent in the result ("reference",
	// "negative", …); the engine does not interpret them.
	AgentID, AgentKind string
	// OperationInstanceID is "opinst_" + 32 lower-case hex digits. It is
	// injected: the engine never mints one.
	OperationInstanceID string
	// EngineVersion is schemas.EngineUpstream or schemas.EngineObaudit. The
	// runtime is identical for both; it is carried into the result.
	EngineVersion string
	SelfCheck     SelfCheck
}

var instanceIDPattern = regexp.MustCompile(`^opinst_[0-9a-f]{32}$`)

// ValidInstanceID reports whether s is a well-formed operation instance id.
func ValidInstanceID(s string) bool { return instanceIDPattern.MatchString(s) }

// Episode is everything one run produced, before evaluation. Every tree is a
// canon value tree with upstream field names (map[string]any, []any, string,
// int64, bool, nil); treat them as read-only.
type Episode struct {
	EngineVersion       string
	OperationInstanceID string
	AgentID, AgentKind  string
	// Meta is the pack's run metadata (scenario id, label, expected
	// terminal, spec identity payload).
	Meta ScenarioMeta

	Status           string
	TerminalOutcome  any // nil or string
	ReplayFinal      bool
	StartedAt        string
	EndedAt          string
	SimulatedMinutes int64
	Invocations      int

	// Trajectory is the ledger: one map per row, {index, at, record_type, …}.
	Trajectory []any
	// Events are the delivered events in delivery order, each with
	// disposition and verdict_code.
	Events []any
	// FinalState is the canonical state including hidden truth.
	FinalState map[string]any
	// Decisions is the decision tape of the first execution: one
	// {invocation_index, turn_index, observation_digest_sha256, outcome} per
	// agent call.
	Decisions []any
	// ObservationDigests are the decisions' observation digests, in order.
	ObservationDigests []string

	TrajectoryDigest string // trajectory_digest_sha256
	FinalStateDigest string // final_state_digest_sha256
	DecisionsDigest  string // decisions_digest_sha256

	// Contract is the pack's grading contract for this scenario, when the
	// domain implements [Graded] (nil otherwise).
	Contract *GradingContract

	// ReplayOK is the determinism self-check: nil when not run, else whether
	// the second execution reproduced the final-state and trajectory digests.
	ReplayOK *bool
	// SelfCheck is how ReplayOK was obtained.
	SelfCheck SelfCheck
}

// Run executes one episode (twice with a self-check) and returns the first
// execution's result. A configuration problem is a refusal; an agent error
// (a playback mismatch, say) aborts the run and is returned as is.
func Run(cfg Config) (*Episode, error) {
	if cfg.Domain == nil || cfg.NewAgent == nil {
		return nil, refusal.New(ErrConfig, "a run needs a domain and an agent factory")
	}
	if !ValidInstanceID(cfg.OperationInstanceID) {
		return nil, refusal.New(ErrMalformedInstanceID, "%q is not opinst_ followed by 32 lower-case hex digits", cfg.OperationInstanceID)
	}
	if !slices.Contains(schemas.Engines(), cfg.EngineVersion) {
		return nil, refusal.New(ErrUnknownEngineVersion, "%q is not one of %v", cfg.EngineVersion, schemas.Engines())
	}
	if cfg.SelfCheck < SelfCheckNone || cfg.SelfCheck > SelfCheckPlayback {
		return nil, refusal.New(ErrConfig, "unknown self-check mode %d", cfg.SelfCheck)
	}
	first, err := Execute(cfg.Domain, cfg.NewAgent(), cfg.OperationInstanceID)
	if err != nil {
		return nil, err
	}
	first.EngineVersion = cfg.EngineVersion
	first.AgentID, first.AgentKind = cfg.AgentID, cfg.AgentKind
	first.SelfCheck = cfg.SelfCheck
	if g, ok := cfg.Domain.(Graded); ok {
		first.Contract = g.GradingContract()
	}
	var second *Episode
	switch cfg.SelfCheck {
	case SelfCheckRerun:
		second, err = execute(cfg.Domain, cfg.NewAgent(), cfg.OperationInstanceID, true)
	case SelfCheckPlayback:
		second, err = execute(cfg.Domain, NewPlayback(first.Decisions), cfg.OperationInstanceID, false)
	}
	if err != nil {
		return nil, err
	}
	if second != nil {
		ok := second.FinalStateDigest == first.FinalStateDigest && second.TrajectoryDigest == first.TrajectoryDigest
		first.ReplayOK = &ok
	}
	return first, nil
}

// Execute runs one episode once with agent, recording its decision tape.
func Execute(d Domain, agent Agent, instanceID string) (*Episode, error) {
	return execute(d, agent, instanceID, false)
}

func execute(d Domain, agent Agent, instanceID string, noDigests bool) (*Episode, error) {
	plan := d.Plan()
	start, err := ParseInstant(plan.StartsAt)
	if err != nil {
		return nil, err
	}
	x := &execution{
		dom: d, static: d.Static(), plan: plan, state: d.NewState(), agent: agent, instID: instanceID,
		seen: map[string]bool{}, readHistory: map[string]string{},
		claims: map[string]bool{}, noDigests: noDigests,
	}
	x.ctx = &Context{x}
	x.ledger.digestOnly = noDigests
	// Scratch buffers sized for the largest row and observation of a
	// typical episode, so neither grows by doubling mid-run.
	x.ledger.scratch = make([]byte, 0, 16<<10)
	if !noDigests {
		x.obsScratch = make([]byte, 0, 24<<10)
		x.ledger.rows = make([]any, 0, 256)
	}
	x.clock = clock{start: start, now: start, nowText: plan.StartsAt}
	for i := range plan.Events {
		p := &plan.Events[i]
		if p.Trigger != nil {
			x.conditionals = append(x.conditionals, p)
			continue
		}
		x.push(toEvent(p, p.At, nil, nil))
	}
	if x.err == nil {
		x.run()
	}
	if x.err != nil {
		return nil, x.err
	}
	if pb, ok := agent.(*Playback); ok {
		if err := pb.CheckExhausted(); err != nil {
			return nil, err
		}
	}
	return x.finish()
}

func (x *execution) finish() (*Episode, error) {
	terminal := x.state.TerminalOutcome()
	status := x.halt
	if status == "" {
		switch {
		case terminal != nil && x.state.ReplayFinal():
			status = terminal.(string)
		case len(x.queue) == 0:
			status = StatusHorizon
		default:
			status = StatusDeadlock
		}
	}
	x.ledger.row(x.clock.nowText, "episode_ended", fStr("phase", "ended"), fStr("status", status), fInt("invocations", int64(x.invocations)))
	var final map[string]any
	var finalDigest string
	if enc, ok := x.state.(StateEncoder); ok {
		b := enc.AppendCanonical(x.ledger.scratch[:0])
		x.ledger.scratch = b
		finalDigest = hexSum(b)
		if !x.noDigests {
			final = x.state.Canonical()
		}
	} else {
		final = x.state.Canonical()
		finalDigest = CanonicalDigest(final)
	}
	ep := &Episode{
		OperationInstanceID: x.instID,
		Meta:                x.plan.Meta,
		Status:              status,
		TerminalOutcome:     terminal,
		ReplayFinal:         x.state.ReplayFinal(),
		StartedAt:           x.plan.StartsAt,
		EndedAt:             x.clock.nowText,
		SimulatedMinutes:    x.clock.elapsedMinutes(),
		Invocations:         x.invocations,
		Trajectory:          x.ledger.rows,
		Events:              x.delivered,
		FinalState:          final,
		Decisions:           x.decisions,
		ObservationDigests:  x.obsDigests,
	}
	if ep.Events == nil {
		ep.Events = []any{}
	}
	if ep.Decisions == nil {
		ep.Decisions = []any{}
	}
	ep.TrajectoryDigest = x.ledger.digest()
	ep.FinalStateDigest = finalDigest
	ep.DecisionsDigest = x.decisionsDigest()
	return ep, nil
}

// DeterministicExecution is the agent_execution object upstream writes for
// every deterministic (in-process, no provider) agent.
func DeterministicExecution() map[string]any {
	return map[string]any{
		"attempts": []any{}, "excluded": false, "exclusion_code": nil, "exclusion_detail": "",
		"max_output_tokens": nil, "model": nil, "outcome_source": "deterministic",
		"protocol_version": nil, "retry_count": int64(0), "transport_calls": int64(0),
	}
}
