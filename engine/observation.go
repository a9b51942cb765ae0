package engine

import (
	"slices"
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

	static  *Static
	digest  string
	scratch *[]byte // the execution's encoding buffer
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
		"message_fixture_ids":   strList(o.static.MessageFixtureIDs),
		"action_schemas":        schemas,
		"wake_event_types":      strList(o.static.WakeEventTypes),
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
		p := map[string]any{}
		for _, name := range []string{"required", "optional", "evidence_refs"} {
			if v, ok := s[name]; ok {
				p[name] = v
			}
		}
		if len(optional) > 0 {
			p["reads"] = optional
		}
		schemas[k] = p
	}
	return o.common(schemas)
}

// Digest is observation_digest_sha256: the SHA-256 of the upstream
// canonical JSON of [Observation.Projection] (written without building the
// tree; a test holds the two equal).
func (o *Observation) Digest() string {
	if o.digest == "" {
		var b []byte
		if o.scratch != nil {
			b = o.appendProjection((*o.scratch)[:0])
			*o.scratch = b
		} else {
			b = o.appendProjection(make([]byte, 0, 16<<10))
		}
		o.digest = hexSum(b)
	}
	return o.digest
}

// ProjectionJSON is the canonical JSON the observation digest is taken over.
func (o *Observation) ProjectionJSON() []byte { return o.appendProjection(nil) }

func (x *execution) observation(env *Envelope, turn int) *Observation {
	served := x.served // never mutated in place: each batch or invalidation replaces it
	o := &Observation{
		OperationInstanceID: x.instID, OperationID: x.static.OperationID, Now: x.clock.nowText,
		InvocationIndex: x.invocations, TurnIndex: turn, Phase: x.state.Phase(), Event: env,
		Served: served, BatchBudgetRemaining: x.plan.MaxRetrievalBatchesPerInvocation - x.batches,
		static: x.static, scratch: &x.obsScratch,
	}
	if x.lastRej != nil {
		o.LastRejection = &Rejection{x.lastRej.actionType, x.lastRej.code, x.lastRej.detail}
	}
	return o
}
