package engine

import (
	"slices"
	"sync"

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
	// NoDigests skips what only a recorded run reads: the decision tape,
	// the observation digests and the trajectory, final-state and
	// decisions digests, which the Episode leaves empty. It is for a caller
	// that grades the episode and reads none of them (the gate); the
	// rerun's self-check is unaffected (it compares bytes). Playback,
	// which replays the tape and compares digests, cannot do without them.
	NoDigests bool
}

// instanceIDPrefix and instanceIDDigits spell an operation instance id:
// ^opinst_[0-9a-f]{32}$.
const (
	instanceIDPrefix = "opinst_"
	instanceIDDigits = 32
)

// ValidInstanceID reports whether s is a well-formed operation instance id:
// "opinst_" followed by exactly 32 lower-case hex digits. (A byte loop, not a
// regexp: compiling ^opinst_[0-9a-f]{32}$ costs every process more than the
// episodes' own checks of it.)
func ValidInstanceID(s string) bool {
	if len(s) != len(instanceIDPrefix)+instanceIDDigits || s[:len(instanceIDPrefix)] != instanceIDPrefix {
		return false
	}
	for i := len(instanceIDPrefix); i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

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

	// The digests; "" (and Decisions and ObservationDigests empty) under
	// [Config.NoDigests].
	TrajectoryDigest string // trajectory_digest_sha256
	FinalStateDigest string // final_state_digest_sha256
	DecisionsDigest  string // decisions_digest_sha256

	// Contract is the pack's grading contract for this scenario, when the
	// domain implements [Graded] (nil otherwise).
	Contract *GradingContract

	// ReplayOK is the determinism self-check: nil when not run, else whether
	// the second execution reproduced the final-state and trajectory digests
	// (under SelfCheckRerun: their canonical bytes, byte for byte).
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
	if cfg.NoDigests && cfg.SelfCheck == SelfCheckPlayback {
		return nil, refusal.New(ErrConfig, "the playback self-check needs the decision tape and the digests NoDigests skips")
	}
	var ref *replayRef
	if cfg.SelfCheck == SelfCheckRerun {
		ref = newReplayRef()
		defer ref.release()
	}
	first, err := execute(cfg.Domain, cfg.NewAgent(), cfg.OperationInstanceID, execOpts{noDigests: cfg.NoDigests, keep: ref})
	if err != nil {
		return nil, err
	}
	first.EngineVersion = cfg.EngineVersion
	first.AgentID, first.AgentKind = cfg.AgentID, cfg.AgentKind
	first.SelfCheck = cfg.SelfCheck
	if g, ok := cfg.Domain.(Graded); ok {
		first.Contract = g.GradingContract()
	}
	switch cfg.SelfCheck {
	case SelfCheckRerun:
		// The rerun is a whole second execution with a fresh agent and a
		// fresh state. It shares nothing mutable with the first: it only
		// reads the first execution's finished trajectory and final-state
		// bytes, as the reference its own bytes are compared with. Equal
		// canonical bytes are equal digests (and unequal bytes unequal
		// digests, collisions aside), so this is the digest comparison
		// without hashing the rerun.
		if _, err := execute(cfg.Domain, cfg.NewAgent(), cfg.OperationInstanceID, execOpts{noDigests: true, noResult: true, compare: ref}); err != nil {
			return nil, err
		}
		ok := ref.matched
		first.ReplayOK = &ok
	case SelfCheckPlayback:
		second, err := execute(cfg.Domain, NewPlayback(first.Decisions), cfg.OperationInstanceID, execOpts{})
		if err != nil {
			return nil, err
		}
		ok := second.FinalStateDigest == first.FinalStateDigest && second.TrajectoryDigest == first.TrajectoryDigest
		first.ReplayOK = &ok
	}
	return first, nil
}

// execOpts shape one execution. noDigests: no decision tape, observation
// digests or trajectory, final-state and decisions digests. noResult: no
// kept rows, event list or final-state tree (the rerun). keep: also record
// the trajectory and final-state bytes into keep. compare: instead of
// hashing them, compare the trajectory and final-state bytes with
// compare's, setting matched.
type execOpts struct {
	noDigests, noResult bool
	keep, compare       *replayRef
}

// replayRef is the first execution's canonical trajectory and final-state
// bytes, which the rerun compares its own with.
type replayRef struct {
	trajectory, final []byte
	matched           bool
}

// scratch is one execution's encoding buffers (rows, observations), sized
// for the largest row and observation of a typical episode.
type scratch struct{ row, obs []byte }

var scratchPool = sync.Pool{New: func() any {
	return &scratch{row: make([]byte, 0, 16<<10), obs: make([]byte, 0, 24<<10)}
}}

var refPool = sync.Pool{New: func() any { return &replayRef{trajectory: make([]byte, 0, 256<<10)} }}

func newReplayRef() *replayRef {
	r := refPool.Get().(*replayRef)
	r.trajectory, r.final, r.matched = r.trajectory[:0], r.final[:0], false
	return r
}

// release returns the buffers for another run; every use overwrites them
// from the start.
func (r *replayRef) release() { refPool.Put(r) }

// Execute runs one episode once with agent, recording its decision tape.
func Execute(d Domain, agent Agent, instanceID string) (*Episode, error) {
	return execute(d, agent, instanceID, execOpts{})
}

func execute(d Domain, agent Agent, instanceID string, opts execOpts) (*Episode, error) {
	plan := d.Plan()
	start, err := ParseInstant(plan.StartsAt)
	if err != nil {
		return nil, err
	}
	x := &execution{
		dom: d, static: d.Static(), plan: plan, state: d.NewState(), agent: agent, instID: instanceID,
		seen: map[string]bool{}, readHistory: map[string]string{},
		claims: map[string]bool{}, noDigests: opts.noDigests,
	}
	x.ctx = &Context{x: x}
	x.ledger.noRows, x.ledger.noHash = opts.noResult, opts.noDigests
	x.keep, x.compare = opts.keep, opts.compare
	if x.keep != nil {
		x.ledger.keep = &x.keep.trajectory
	}
	if x.compare != nil {
		x.ledger.ref = x.compare.trajectory
		x.ledger.comparing = true
	}
	// Encoding scratch comes from a pool: every use overwrites it from the
	// start, and nothing the episode returns refers to it.
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	x.ledger.scratch, x.mid.scratch = sc.row[:0], sc.obs[:0]
	defer func() { sc.row, sc.obs = x.ledger.scratch[:0], x.mid.scratch[:0] }()
	if !opts.noResult {
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
	var finalBytes []byte
	if enc, ok := x.state.(StateEncoder); ok {
		finalBytes = enc.AppendCanonical(x.ledger.scratch[:0])
		x.ledger.scratch = finalBytes
		if !x.ledger.noRows {
			final = x.state.Canonical()
		}
	} else {
		final = x.state.Canonical()
		finalBytes = AppendCanonical(x.ledger.scratch[:0], final)
		x.ledger.scratch = finalBytes
	}
	var finalDigest string
	if x.compare != nil {
		x.compare.matched = string(finalBytes) == string(x.compare.final) && x.ledger.finishCompare()
	} else if !x.noDigests {
		finalDigest = hexSum(finalBytes)
	}
	if x.keep != nil {
		x.keep.final = append(x.keep.final, finalBytes...)
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
	switch {
	case x.compare != nil: // finishCompare closed it
	case x.noDigests:
		x.ledger.close() // the kept trajectory's end
	default:
		ep.TrajectoryDigest = x.ledger.digest()
	}
	ep.FinalStateDigest = finalDigest
	if !x.noDigests {
		ep.DecisionsDigest = x.decisionsDigest()
	}
	return ep, nil
}
