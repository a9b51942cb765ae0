// Package episode is the run loop shared by `obaudit run` and `obaudit
// replay`: engine → evaluator → artefact. It names no domain: the operation
// (an [engine.Domain] bound to one scenario) and the agents are passed in by
// the caller, which is cmd/obaudit.
//
// [Run] executes one episode with an in-process agent (twice, for the
// determinism self-check), grades it under the engine version the run names
// and builds the contract-8 artefact upstream would write for it. [Replay]
// re-executes an artefact's episode under the engine version it names and
// compares the rebuilt artefact with the recorded one section by section.
//
// # Refusals
//
//   - [ErrEngineMismatch]: replay of an artefact whose engine version this
//     build does not run.
//   - [ErrSpecMismatch]: replay against an operation spec whose digest is
//     not the one the artefact records, or a scenario it does not name.
//   - [ErrUnknownAgent]: replay of a deterministic artefact whose agent no
//     registry passed in can rebuild.
//   - [ErrProviderCallForbidden]: anything on a replay path tried to reach
//     a provider.
//   - [ErrRequestDigestMismatch]: replay of a model record whose request
//     digests were rebuilt (an injected [ReplayConfig.RequestDigests]) and
//     are not the recorded ones.
//
// Refusals from the engine (playback: tape exhausted or unconsumed,
// decision order, observation mismatch), the evaluator and package artefact
// (not reproducible, retrieval provenance) keep their own classes.
package episode

import (
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrEngineMismatch is returned by Replay when the artefact names an
	// engine version this build does not run: replay requires the original
	// engine contract, not execution under a different runtime.
	ErrEngineMismatch = refusal.Sentinel("replay/engine-mismatch")
	// ErrSpecMismatch is returned by Replay when the operation spec supplied
	// is not the one the artefact was produced from (another spec digest or
	// another operation): a replay against it would compare two different
	// runs.
	ErrSpecMismatch = refusal.Sentinel("replay/spec-mismatch")
	// ErrUnknownAgent is returned by Replay when a deterministic artefact
	// names an agent the registry passed in does not hold.
	ErrUnknownAgent = refusal.Sentinel("replay/unknown-agent")
	// ErrProviderCallForbidden is returned by [ForbiddenTransport] for every
	// call: recorded outcomes are replayed, never re-requested.
	ErrProviderCallForbidden = refusal.Sentinel("replay/provider-call-forbidden")
	// ErrRequestDigestMismatch is returned by Replay when a model record's
	// request digests were rebuilt ([ReplayConfig.RequestDigests]) and do not
	// equal the recorded attempts': another model, ceiling or request
	// mapping produced the recorded requests, or the attempts list more or
	// fewer requests, or other turns, than the replayed episode asks. The
	// request identity is part of what produced the decisions, not a label
	// beside them.
	ErrRequestDigestMismatch = refusal.Sentinel("replay/request-digest-mismatch")
	// ErrAgentUnbound is returned by Replay when a model record's agent_id
	// is not the one its provider execution binding names
	// ([artefact.ModelAgentID] of the bound provider and model): the run
	// would read as another agent's, or another vendor's.
	ErrAgentUnbound = refusal.Sentinel("replay/agent-unbound")
)

// Config is one run of an in-process (deterministic) agent.
type Config struct {
	// Domain is the operation, bound to the scenario to run.
	Domain engine.Domain
	// NewAgent returns a fresh agent (called once per execution, so twice:
	// the determinism self-check reruns the whole episode).
	NewAgent func() engine.Agent
	// AgentID and AgentKind name the agent as its registry does.
	AgentID, AgentKind string
	// OperationInstanceID is "opinst_" + 32 lowercase hex. It is injected:
	// pin it to reproduce a recorded run.
	OperationInstanceID string
	// EngineVersion is the engine the run names and is graded under.
	EngineVersion string
}

// Result is one run: the engine's episode, its evaluation and the artefact.
type Result struct {
	Episode    *engine.Episode
	Evaluation *evaluator.Evaluation
	Artefact   *artefact.Artefact
}

// Run executes one episode with the determinism self-check (a whole second
// execution with a fresh agent and the same instance id), grades the first
// execution and builds its contract-8 artefact.
func Run(cfg Config) (*Result, error) {
	ep, err := engine.Run(engine.Config{
		Domain: cfg.Domain, NewAgent: cfg.NewAgent, AgentID: cfg.AgentID, AgentKind: cfg.AgentKind,
		OperationInstanceID: cfg.OperationInstanceID, EngineVersion: cfg.EngineVersion,
		SelfCheck: engine.SelfCheckRerun,
	})
	if err != nil {
		return nil, err
	}
	ev, err := grade(ep)
	if err != nil {
		return nil, err
	}
	a, err := Build(ep, ev, DeterministicExecution(), nil)
	if err != nil {
		return nil, err
	}
	return &Result{Episode: ep, Evaluation: ev, Artefact: a}, nil
}

func grade(ep *engine.Episode) (*evaluator.Evaluation, error) {
	return evaluator.Evaluate(ep.EngineVersion, ep.Contract, evaluator.RunOf(ep))
}

// DeterministicExecution is the execution record of every in-process agent:
// no provider, no model, no attempts.
func DeterministicExecution() *artefact.Execution {
	return &artefact.Execution{OutcomeSource: artefact.SourceDeterministic, Attempts: []artefact.Attempt{}}
}

// Build assembles the contract-8 artefact of one graded episode: identity
// from the episode's scenario metadata, every result-bearing field from the
// episode and the evaluation, the given execution record and provider
// execution binding (nil for a run that reached no provider), and the
// content digests computed over what it carries.
func Build(ep *engine.Episode, ev *evaluator.Evaluation, ex *artefact.Execution, binding *artefact.Binding) (*artefact.Artefact, error) {
	op := ep.Meta.Operation
	str := func(k string) string { s, _ := op[k].(string); return s }
	var ids []string
	if l, ok := op["scenario_ids"].([]any); ok {
		for _, x := range l {
			s, _ := x.(string)
			ids = append(ids, s)
		}
	}
	a := &artefact.Artefact{
		ArtifactVersion: artefact.Version,
		EngineVersion:   ep.EngineVersion,
		Operation: artefact.Operation{
			OperationID:        str("operation_id"),
			OperationType:      str("operation_type"),
			OperationVersion:   str("operation_version"),
			SemanticScenarioID: str("semantic_scenario_id"),
			PrivacyStatus:      str("privacy_status"),
			SpecDigest:         str("spec_digest_sha256"),
			ScenarioIDs:        ids,
		},
		OperationInstanceID: ep.OperationInstanceID,
		ScenarioID:          ep.Meta.ScenarioID,
		SemanticScenarioID:  ep.Meta.SemanticScenarioID,
		ScenarioLabel:       ep.Meta.ScenarioLabel,
		AgentID:             ep.AgentID,
		AgentKind:           ep.AgentKind,
		ExpectedTerminal:    ep.Meta.ExpectedTerminal,
		Status:              ep.Status,
		ReplayFinal:         ep.ReplayFinal,
		StartedAt:           ep.StartedAt,
		EndedAt:             ep.EndedAt,
		SimulatedMinutes:    ep.SimulatedMinutes,
		AgentInvocations:    int64(ep.Invocations),
		Events:              ep.Events,
		Trajectory:          ep.Trajectory,
		FinalState:          ep.FinalState,
		Execution:           ex,
		ProviderExecution:   binding,
		Note:                artefact.Note,
	}
	if s, ok := ep.TerminalOutcome.(string); ok {
		a.TerminalOutcome = &s
	}
	a.Evaluation = evaluationOf(ev)
	a.Decisions = make([]artefact.Decision, 0, len(ep.Decisions))
	for _, d := range ep.Decisions {
		m := d.(map[string]any)
		inv, _ := m["invocation_index"].(int64)
		turn, _ := m["turn_index"].(int64)
		obs, _ := m["observation_digest_sha256"].(string)
		out, _ := m["outcome"].(map[string]any)
		a.Decisions = append(a.Decisions, artefact.Decision{InvocationIndex: inv, TurnIndex: turn, ObservationDigest: obs, Outcome: out})
	}
	// The engine hashed what it produced as it produced it; an episode
	// without its digests is sealed here. Either way Encode recomputes all
	// three before a byte is written, and replay compares every field.
	a.TrajectoryDigest, a.FinalStateDigest, a.DecisionsDigest = ep.TrajectoryDigest, ep.FinalStateDigest, ep.DecisionsDigest
	if a.TrajectoryDigest == "" || a.FinalStateDigest == "" || a.DecisionsDigest == "" {
		if err := a.Seal(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func evaluationOf(ev *evaluator.Evaluation) artefact.Evaluation {
	out := artefact.Evaluation{
		TerminalOutcome:      ev.TerminalOutcome,
		LegitimateCompletion: ev.LegitimateCompletion,
		Reliable:             ev.Reliable(),
		FailedDimensions:     orEmpty(ev.FailedDimensions()),
		FindingCodes:         orEmpty(ev.FindingCodes()),
	}
	for _, d := range ev.Dimensions {
		dim := artefact.Dimension{Name: d.Name, OK: d.OK, Note: d.Note, Counts: map[string]int64{}, Findings: []artefact.Finding{}}
		for _, c := range d.Counts {
			dim.Counts[c.Name] = c.Value
		}
		for _, f := range d.Findings {
			dim.Findings = append(dim.Findings, artefact.Finding{Code: f.Code, Detail: f.Detail, At: f.At})
		}
		out.Dimensions = append(out.Dimensions, dim)
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
