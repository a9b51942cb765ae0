package engine

import "slices"

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

// The envelope's two forms, its bytes encoded once from its tree
// (twoForms).
func (e *Envelope) canonTree() any { return e.Tree() }
func (e *Envelope) appendCanonical(b []byte) []byte {
	if e.enc == nil {
		e.enc = AppendCanonical(nil, e.Tree())
	}
	return append(b, e.enc...)
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

// The observation's members, declared once in key order: Projection and
// Tree, the projection's canonical JSON and the digest's midstate cache
// (which writes the projection's head and tail separately) all derive from
// these (Members). The waking event and the served results keep their own
// encodings and are declared with both forms (twoForms).

// projection declares the model-visible projection.
func (o *Observation) projection(m *Members) { o.members(m, true) }

// published declares the full observation.
func (o *Observation) published(m *Members) { o.members(m, false) }

// members declares the observation's 14 members, the action schemas as
// projected or as published.
func (o *Observation) members(m *Members, projected bool) {
	f := o.static.fragments()
	m.Object("action_schemas", func(m *Members) {
		for i := range f.actions {
			a := &f.actions[i]
			switch {
			case !projected:
				m.Value(a.key, a.published)
			case o.readsMet(a):
				m.formed(a.key, a.full)
			default:
				m.Object(a.key, func(m *Members) { m.Object("reads", func(m *Members) { o.unmetReads(m, a) }) })
			}
		}
	})
	m.formed("actors", f.actors)
	if o.Event == nil {
		m.Object("event", nil)
	} else {
		m.formed("event", o.Event)
	}
	m.Int("invocation_index", int64(o.InvocationIndex))
	if o.LastRejection == nil {
		m.Object("last_rejection", nil)
	} else {
		m.Object("last_rejection", o.LastRejection.members)
	}
	m.formed("message_fixture_ids", f.fixtures)
	m.Str("now", o.Now)
	m.Str("operation_id", o.OperationID)
	m.Str("operation_instance_id", o.OperationInstanceID)
	m.Str("phase", o.Phase)
	m.formed("policy", f.policy)
	m.Object("retrieval", func(m *Members) {
		m.Int("batch_budget_remaining", int64(o.BatchBudgetRemaining))
		m.formed("catalogue", f.catalogue)
		m.Int("max_requests_per_batch", MaxRequestsPerBatch)
		m.formed("record_contract", f.contract)
		m.Object("served", o.servedMembers)
	})
	m.Int("turn_index", int64(o.TurnIndex))
	m.formed("wake_event_types", f.wake)
}

// readsMet reports whether every required read of a is served ok.
func (o *Observation) readsMet(a *actionFrag) bool {
	for _, r := range a.reads {
		if !r.optional && !o.servedOK(r.tool) {
			return false
		}
	}
	return true
}

// unmetReads declares the reads of an action schema collapsed for its
// unmet required reads: those, and its optional reads.
func (o *Observation) unmetReads(m *Members, a *actionFrag) {
	for _, r := range a.reads {
		if r.optional || !o.servedOK(r.tool) {
			m.Value(r.tool, r.strength)
		}
	}
}

func (o *Observation) servedOK(tool string) bool {
	r, ok := o.Served[tool]
	return ok && r.OK
}

// servedMembers declares the served results by tool.
func (o *Observation) servedMembers(m *Members) {
	var stack [16]string
	tools := stack[:0]
	for t := range o.Served {
		tools = append(tools, t)
	}
	sortStrings(tools)
	for _, t := range tools {
		r := o.Served[t]
		m.Object(t, func(m *Members) { r.members(m, nil) })
	}
}

func (r *Rejection) members(m *Members) {
	m.Str("action_type", r.ActionType)
	m.Str("code", r.Code)
	m.Str("detail", r.Detail)
}

// Tree is the full observation (upstream's as_dict): action schemas in
// their published {required, optional, reads, evidence_refs} form. The
// returned tree shares read-only parts with the engine.
func (o *Observation) Tree() map[string]any { return MembersTree(o.published) }

// Projection is the model-visible projection the observation digest is
// taken over: the 14 fields, with an action schema whose required reads are
// not all served ok collapsed to {"reads": {<unmet tool>: "required", …}}
// (with its optional reads) and one whose required reads are all served
// shown as {required, optional, evidence_refs[, reads: its optional
// reads]}. The returned tree shares read-only parts with the engine.
func (o *Observation) Projection() map[string]any { return MembersTree(o.projection) }

// ProjectionJSON is the canonical JSON the observation digest is taken over
// (the bytes form of [Observation.Projection]).
func (o *Observation) ProjectionJSON() []byte { return AppendMembers(nil, o.projection) }

// Digest is observation_digest_sha256: the SHA-256 of
// [Observation.ProjectionJSON].
func (o *Observation) Digest() string {
	if o.digest == "" {
		if o.mid != nil {
			o.digest = o.mid.digest(o)
		} else {
			o.digest = hexSum(o.ProjectionJSON())
		}
	}
	return o.digest
}

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
