package episode

import (
	"slices"
	"sync/atomic"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// Transport is the seam through which a model-backed agent would send a
// request to a provider. Nothing on a replay path may use one; a replay
// hands its agents a [ForbiddenTransport] and reports how often it was
// called (always zero, or the replay is refused).
type Transport interface {
	Send(body []byte) ([]byte, error)
}

// ForbiddenTransport refuses every call and counts them.
type ForbiddenTransport struct{ calls atomic.Int64 }

// Send counts the call and refuses it with [ErrProviderCallForbidden].
func (f *ForbiddenTransport) Send([]byte) ([]byte, error) {
	n := f.calls.Add(1)
	return nil, refusal.New(ErrProviderCallForbidden, "provider call %d was attempted on a path that must not make one; recorded outcomes are replayed, never re-requested", n)
}

// Calls is how many calls were attempted.
func (f *ForbiddenTransport) Calls() int64 { return f.calls.Load() }

// Registered is one in-process agent a deterministic artefact can name.
type Registered struct {
	Kind string
	New  func() engine.Agent
}

// ReplayConfig is what a replay needs besides the artefact.
type ReplayConfig struct {
	// Domain is the operation spec the replay runs against, bound to the
	// artefact's scenario. Its spec digest must be the artefact's.
	Domain engine.Domain
	// Agents looks up a registered in-process agent by id (deterministic
	// artefacts are reproduced by rerunning it).
	Agents func(id string) (Registered, bool)
	// Transport is handed to model playback; nil means a fresh
	// ForbiddenTransport. A replay whose transport was called is refused.
	Transport *ForbiddenTransport
	// RequestDigests, when set, is asked once for a model record's request
	// rebuilder. A nil answer means the record's request mapping is not one
	// this build speaks: its request digests are listed as unverified. With
	// a rebuilder, the request the recorded identity sends is rebuilt from
	// every observation the replayed episode offers, and the sequence of
	// (invocation, turn, request digest) must be the recorded attempts',
	// else the replay is refused ([ErrRequestDigestMismatch]). Nil: never
	// rebuilt (listed as unverified).
	RequestDigests func(doc *artefact.Document) RequestRebuilder
}

// RequestRebuilder returns the request identity digest
// (request_digest_sha256) of the request a model record's recorded identity
// sends for obs. It is injected (episode imports no provider).
type RequestRebuilder func(obs *engine.Observation) (string, error)

// rebuiltRequest is one request rebuilt during playback.
type rebuiltRequest struct {
	invocation, turn int64
	digest           string
}

// modelPlayback replays a model record's decisions from its tape. It holds
// the forbidden transport where a live model agent holds its provider
// client; the tape answers every turn, so the transport is never asked.
type modelPlayback struct {
	*engine.Playback
	transport Transport
	rebuild   RequestRebuilder // nil: requests not rebuilt
	requests  []rebuiltRequest
}

// Decide rebuilds the request for obs (when a rebuilder is set), then
// answers from the tape.
func (p *modelPlayback) Decide(obs *engine.Observation) (engine.Decision, error) {
	if p.rebuild != nil {
		d, err := p.rebuild(obs)
		if err != nil {
			return nil, err
		}
		p.requests = append(p.requests, rebuiltRequest{int64(obs.InvocationIndex), int64(obs.TurnIndex), d})
	}
	return p.Playback.Decide(obs)
}

// checkRequests holds the rebuilt requests to the recorded attempts.
func checkRequests(rebuilt []rebuiltRequest, attempts []artefact.Attempt) error {
	if len(rebuilt) != len(attempts) {
		return refusal.New(ErrRequestDigestMismatch, "the replayed episode sends %d request(s) and the record lists %d attempt(s)", len(rebuilt), len(attempts))
	}
	for i, r := range rebuilt {
		a := attempts[i]
		if r.invocation != a.InvocationIndex || r.turn != a.TurnIndex {
			return refusal.New(ErrRequestDigestMismatch, "/agent_execution/attempts/%d: recorded for invocation %d turn %d, rebuilt for invocation %d turn %d", i, a.InvocationIndex, a.TurnIndex, r.invocation, r.turn)
		}
		if r.digest != a.RequestDigest {
			return refusal.New(ErrRequestDigestMismatch, "/agent_execution/attempts/%d/request_digest_sha256: recorded %s, and the recorded identity sends %s for the observation the episode offers; the request identity is part of what produced the decisions, not a label beside them", i, a.RequestDigest, r.digest)
		}
	}
	return nil
}

// Replay re-executes the episode a validated contract-8 artefact records,
// under the engine version it names, and compares the artefact that
// reproduction would have written with the recorded one, section by
// section, on canonical bytes.
//
// A deterministic record is reproduced by rerunning its registered agent
// under the recorded operation instance id (nothing is carried). A recorded
// or model record is reproduced by playing its own decision tape back
// against the live episode: every decision must be asked for at the
// recorded invocation and turn and be offered an observation with the
// recorded digest. For a model record the execution record and the provider
// execution binding are copied from the record (the ledger is never
// opened); its request digests are rebuilt when cfg.RequestDigests speaks
// the record's request mapping (and must match, else
// [ErrRequestDigestMismatch]), and are listed as unverified otherwise. The
// environment (clock,
// events, reducers, ledger, evaluator) is re-executed in every mode, and no
// provider or network is reached.
func Replay(doc *artefact.Document, cfg ReplayConfig) (*artefact.ReplayReport, error) {
	if err := artefact.NotReproducible(doc.Version()); err != nil {
		return nil, err
	}
	rec := doc.Artefact
	if !slices.Contains(schemas.Engines(), rec.EngineVersion) {
		return nil, refusal.New(ErrEngineMismatch, "this artefact records engine version %q, and this build runs %v; replay requires the original engine contract, not execution under a different runtime", rec.EngineVersion, schemas.Engines())
	}
	if cfg.Domain == nil {
		return nil, refusal.New(ErrSpecMismatch, "no operation spec to replay against")
	}
	meta := cfg.Domain.Plan().Meta
	if meta.SpecDigest != rec.Operation.SpecDigest {
		return nil, refusal.New(ErrSpecMismatch, "this artefact was produced from spec digest %s, and the operation supplied has digest %s; a replay against a different operation would compare two different runs", rec.Operation.SpecDigest, meta.SpecDigest)
	}
	if meta.ScenarioID != rec.ScenarioID {
		return nil, refusal.New(ErrSpecMismatch, "the operation supplied is bound to scenario %q, and this artefact records scenario %q", meta.ScenarioID, rec.ScenarioID)
	}
	transport := cfg.Transport
	if transport == nil {
		transport = &ForbiddenTransport{}
	}
	run := engine.Config{
		Domain: cfg.Domain, AgentID: rec.AgentID, OperationInstanceID: rec.OperationInstanceID,
		EngineVersion: rec.EngineVersion,
	}
	source := rec.Execution.OutcomeSource
	var reproduction string
	var carried, unverified []string
	var players []*modelPlayback
	var rebuild RequestRebuilder
	if source == artefact.SourceModel && rec.ProviderExecution != nil {
		if want := artefact.ModelAgentID(rec.ProviderExecution.Provider, rec.ProviderExecution.Model); rec.AgentID != want {
			return nil, refusal.New(ErrAgentUnbound, "/agent_id: %q, and the binding (%s, %s) names %q", rec.AgentID, rec.ProviderExecution.Provider, rec.ProviderExecution.Model, want)
		}
	}
	if source == artefact.SourceModel && cfg.RequestDigests != nil {
		rebuild = cfg.RequestDigests(doc)
	}
	switch source {
	case artefact.SourceDeterministic:
		reg, ok := lookup(cfg.Agents, rec.AgentID)
		if !ok {
			return nil, refusal.New(ErrUnknownAgent, "agent %q is not registered in this build, so the run it produced cannot be rerun", rec.AgentID)
		}
		run.NewAgent, run.AgentKind = reg.New, reg.Kind
		reproduction = artefact.ReproductionRerun
	default:
		tape := doc.Tree["decisions"].([]any)
		run.NewAgent = func() engine.Agent {
			pb := &modelPlayback{Playback: engine.NewPlayback(tape), transport: transport, rebuild: rebuild}
			players = append(players, pb)
			return pb
		}
		run.AgentKind = artefact.KindRecorded
		if source == artefact.SourceModel {
			run.AgentKind = artefact.KindModel
		}
		reproduction = artefact.ReproductionPlayback
		carried = []string{"agent_id", "agent_kind", "decisions", "decisions_digest_sha256"}
	}
	// The replay's execution is the determinism self-check's second
	// execution of the recorded one: when it reproduces the recorded
	// trajectory and final-state digests (which the read recomputed from the
	// recorded content) the self-check passes without a third execution.
	// Otherwise the engine's own self-check decides, as the run did (a rerun
	// for a registered agent, a playback of the tape otherwise).
	ep, err := engine.Run(run)
	if err == nil && (ep.TrajectoryDigest != rec.TrajectoryDigest || ep.FinalStateDigest != rec.FinalStateDigest) {
		players, run.SelfCheck = nil, engine.SelfCheckPlayback
		if source == artefact.SourceDeterministic {
			run.SelfCheck = engine.SelfCheckRerun
		}
		ep, err = engine.Run(run)
	} else if err == nil {
		ok := true
		ep.ReplayOK = &ok
	}
	if err != nil {
		return nil, err
	}
	for _, pb := range players {
		// The engine checks exhaustion for its own Playback type only.
		if err := pb.CheckExhausted(); err != nil {
			return nil, err
		}
		if rebuild != nil {
			if err := checkRequests(pb.requests, rec.Execution.Attempts); err != nil {
				return nil, err
			}
		}
	}
	ev, err := grade(ep)
	if err != nil {
		return nil, err
	}
	ex, binding := DeterministicExecution(), (*artefact.Binding)(nil)
	var rebuiltRequests int64
	switch source {
	case artefact.SourceRecorded:
		ex = &artefact.Execution{OutcomeSource: artefact.SourceRecorded, Attempts: []artefact.Attempt{}}
	case artefact.SourceModel:
		ex, binding = rec.Execution, rec.ProviderExecution
		carried = append(carried, "agent_execution", "provider_execution")
		switch {
		case rebuild != nil:
			rebuiltRequests = int64(len(rec.Execution.Attempts))
		case cfg.RequestDigests == nil:
			unverified = append(unverified, "agent_execution.attempts[].request_digest_sha256: not rebuilt (no request rebuilder was configured)")
		default:
			unverified = append(unverified, "agent_execution.attempts[].request_digest_sha256: not rebuilt (the record's request mapping is not one this build rebuilds)")
		}
	}
	rebuilt, err := Build(ep, ev, ex, binding)
	if err != nil {
		return nil, err
	}
	if transport.Calls() != 0 {
		return nil, refusal.New(ErrProviderCallForbidden, "%d provider call(s) were attempted during replay", transport.Calls())
	}
	replayed := rebuilt.Tree()
	r, err := artefact.Compare(doc, replayed, carried)
	if err != nil {
		return nil, err
	}
	// Identical trajectories carry identical served reads; only a differing
	// trajectory needs the row-by-row provenance gate, which is a refusal
	// rather than a difference.
	if v, _ := r.Section("trajectory"); !v.Matches {
		if err := artefact.CheckRetrievalProvenance(doc.Tree, replayed); err != nil {
			return nil, err
		}
	}
	r.Reproduction = reproduction
	r.Unverified = unverified
	r.RequestDigestsRebuilt = rebuiltRequests
	r.ProviderCalls = transport.Calls()
	return r, nil
}

func lookup(f func(string) (Registered, bool), id string) (Registered, bool) {
	if f == nil {
		return Registered{}, false
	}
	return f(id)
}
