package engine

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"slices"

	"github.com/obaudit/obaudit/canon"
)

// Agent is what an evaluated agent implements. Decide is called once per
// turn with the observation the engine built; it returns a [Decision] (a
// business outcome, a [*Retrieve] read step, or [*Malformed]). An error
// aborts the episode (a playback mismatch, a provider failure): it is not a
// decision and the episode has no result.
type Agent interface {
	BeginEpisode(id AgentIdentity)
	Decide(obs *Observation) (Decision, error)
}

// AgentIdentity is what an agent is told about the episode it starts: the
// operation and this run's opaque instance, never the scenario.
type AgentIdentity struct {
	OperationID         string
	OperationInstanceID string
}

// Envelope is the waking event as a claim, not a fact.
type Envelope struct {
	EventID, EventType, ActorID string
	Payload                     map[string]any // read-only
	Authority                   string
	IsAuthoritative             bool

	enc []byte
}

func (e *Envelope) json() []byte {
	if e.enc == nil {
		e.enc = AppendCanonical(nil, e.Tree())
	}
	return e.enc
}

// Tree is the envelope as the observation shows it.
func (e *Envelope) Tree() map[string]any {
	if e == nil {
		return nil
	}
	return map[string]any{
		"event_id": e.EventID, "event_type": e.EventType, "actor_id": e.ActorID,
		"payload": copyMap(e.Payload), "authority": e.Authority, "is_authoritative": e.IsAuthoritative,
	}
}

// Rejection is the most recent refused proposal, wait or read.
type Rejection struct {
	ActionType, Code, Detail string
}

// Observation is what an agent sees on one call. Everything in it is
// read-only. Static vocabulary is reached through [Observation.Static].
type Observation struct {
	OperationInstanceID string
	OperationID         string
	Now                 string
	InvocationIndex     int
	TurnIndex           int
	Phase               string
	// Event is the waking event, nil for a fallback wake.
	Event *Envelope
	// LastRejection is nil unless something was refused since the last
	// accepted proposal in this invocation.
	LastRejection *Rejection
	// Served holds the reads served since the latest invalidation.
	Served map[string]*ToolResult
	// BatchBudgetRemaining is the retrieval batches left in this invocation.
	BatchBudgetRemaining int

	static *Static
	digest string
	mid    *midstates // the execution's digest cache
}

// Static is the operation's published vocabulary (policy view, action
// schemas, catalogue, wake types, …).
func (o *Observation) Static() *Static { return o.static }

// ServedTools lists the tools served (ok) in the current window, sorted.
func (o *Observation) ServedTools() []string {
	out := make([]string, 0, len(o.Served))
	for t, r := range o.Served {
		if r.OK {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// RequiredReads lists the reads the published schema of outcomeKey marks
// "required", sorted (what an agent is told it must read first).
func (o *Observation) RequiredReads(outcomeKey string) []string {
	s := o.static.ActionSchemas[outcomeKey]
	reads, _ := s["reads"].(map[string]any)
	var out []string
	for t, v := range reads {
		if v == "required" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

func (o *Observation) lastRejectionTree() any {
	if o.LastRejection == nil {
		return nil
	}
	return map[string]any{"action_type": o.LastRejection.ActionType, "code": o.LastRejection.Code, "detail": o.LastRejection.Detail}
}

func (o *Observation) retrievalTree() map[string]any {
	cat := make(map[string]any, len(o.static.Catalogue))
	for t, e := range o.static.Catalogue {
		cat[t] = e.Tree()
	}
	served := make(map[string]any, len(o.Served))
	for t, r := range o.Served {
		served[t] = r.Tree()
	}
	return map[string]any{
		"catalogue": cat, "record_contract": slices.Clone(o.static.RecordContract), "served": served,
		"batch_budget_remaining": int64(o.BatchBudgetRemaining), "max_requests_per_batch": int64(MaxRequestsPerBatch),
	}
}

func (o *Observation) common(schemas map[string]any) map[string]any {
	return map[string]any{
		"operation_instance_id": o.OperationInstanceID,
		"operation_id":          o.OperationID,
		"now":                   o.Now,
		"invocation_index":      int64(o.InvocationIndex),
		"turn_index":            int64(o.TurnIndex),
		"policy":                o.static.Policy,
		"actors":                o.static.Actors,
		"message_fixture_ids":   canon.StringList(o.static.MessageFixtureIDs),
		"action_schemas":        schemas,
		"wake_event_types":      canon.StringList(o.static.WakeEventTypes),
		"last_rejection":        o.lastRejectionTree(),
		"phase":                 o.Phase,
		"event":                 o.Event.Tree(),
		"retrieval":             o.retrievalTree(),
	}
}

// Tree is the full observation (upstream's as_dict): action schemas in
// their published {required, optional, reads, evidence_refs} form. The
// returned tree shares read-only parts with the engine.
func (o *Observation) Tree() map[string]any {
	schemas := make(map[string]any, len(o.static.ActionSchemas))
	for k, s := range o.static.ActionSchemas {
		schemas[k] = s
	}
	return o.common(schemas)
}

// Projection is the model-visible projection the observation digest is
// taken over: the 14 fields, with an action schema whose required reads are
// not all served collapsed to {"reads": {<unmet tool>: "required", …}} and
// one whose reads are all served shown as {required, optional,
// evidence_refs}.
func (o *Observation) Projection() map[string]any {
	schemas := make(map[string]any, len(o.static.ActionSchemas))
	for k, s := range o.static.ActionSchemas {
		reads, _ := s["reads"].(map[string]any)
		unmet := map[string]any{}
		optional := map[string]any{}
		for t, strength := range reads {
			if strength == "optional" {
				optional[t] = strength
				continue
			}
			if r, ok := o.Served[t]; !ok || !r.OK {
				unmet[t] = strength
			}
		}
		if len(unmet) > 0 {
			for t, v := range optional {
				unmet[t] = v
			}
			schemas[k] = map[string]any{"reads": unmet}
			continue
		}
		schemas[k] = fullSchema(s, optional)
	}
	return o.common(schemas)
}

// fullSchema is an action schema as projected once its required reads are
// met: its required, optional and evidence_refs fields, and its optional
// reads (when it has any).
func fullSchema(s, optional map[string]any) map[string]any {
	p := map[string]any{}
	for _, name := range []string{"required", "optional", "evidence_refs"} {
		if v, ok := s[name]; ok {
			p[name] = v
		}
	}
	if len(optional) > 0 {
		p["reads"] = optional
	}
	return p
}

// Digest is observation_digest_sha256: the SHA-256 of the upstream
// canonical JSON of [Observation.Projection] (written without building the
// tree; a test holds the two equal).
func (o *Observation) Digest() string {
	if o.digest == "" {
		if o.mid != nil {
			o.digest = o.mid.digest(o)
		} else {
			o.digest = hexSum(o.appendProjection(make([]byte, 0, 16<<10)))
		}
	}
	return o.digest
}

// midstates digests observations for one execution. The projection's
// prefix (action schemas and actors) repeats whenever the same tools are
// served ok, so the SHA-256 state after it is kept per served set and each
// digest hashes only the rest. The cache belongs to one execution and is
// keyed by everything the prefix depends on; TestServeCacheIsExact holds
// every digest to the hash of the whole canonical projection.
type midstates struct {
	states  map[string][]byte // servedKey → marshalled SHA-256 state after the prefix
	h       hash.Hash
	key     []byte
	scratch []byte
	sum     [sha256.Size]byte
}

func (m *midstates) digest(o *Observation) string {
	if m.h == nil {
		m.h = sha256.New()
		m.states = map[string][]byte{}
	}
	m.key = o.servedKey(m.key[:0])
	st, ok := m.states[string(m.key)]
	if !ok {
		m.h.Reset()
		m.scratch = o.appendPrefix(m.scratch[:0])
		m.h.Write(m.scratch)
		var err error
		if st, err = m.h.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
			panic("engine: sha256 state: " + err.Error())
		}
		m.states[string(m.key)] = st
	} else if err := m.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic("engine: sha256 state: " + err.Error())
	}
	// m.h now holds the state after the prefix.
	m.scratch = o.appendSuffix(m.scratch[:0])
	m.h.Write(m.scratch)
	return hex.EncodeToString(m.h.Sum(m.sum[:0]))
}

// ProjectionJSON is the canonical JSON the observation digest is taken over.
func (o *Observation) ProjectionJSON() []byte { return o.appendProjection(nil) }

func (x *execution) observation(env *Envelope, turn int) *Observation {
	served := x.served // never mutated in place: each batch or invalidation replaces it
	o := &Observation{
		OperationInstanceID: x.instID, OperationID: x.static.OperationID, Now: x.clock.nowText,
		InvocationIndex: x.invocations, TurnIndex: turn, Phase: x.state.Phase(), Event: env,
		Served: served, BatchBudgetRemaining: x.plan.MaxRetrievalBatchesPerInvocation - x.batches,
		static: x.static, mid: &x.mid,
	}
	if x.lastRej != nil {
		o.LastRejection = &Rejection{x.lastRej.actionType, x.lastRej.code, x.lastRej.detail}
	}
	return o
}
