package engine

// Hooks for a runtime other than this engine's timed loop (a treatment arm
// such as stateful_time_removed) to drive an unchanged domain and unchanged
// agents. Each hook reuses the engine's own rule; none reimplements it.

// ContextHost is the environment behind a hosted [Context]: what a domain
// reducer reaches through ctx.Now, Record, ScheduleTimer, CancelTimer,
// DispatchFails and Shift.
type ContextHost interface {
	Now() string
	Record(recordType string, payload map[string]any)
	ScheduleTimer(eventID, eventType, actorID string, delayMinutes int64, payload map[string]any, triggersAgent bool)
	CancelTimer(eventID string) bool
	DispatchFails(messageFixtureID string) bool
	Shift(m int64) string
}

// NewHostedContext returns a context whose every method is answered by h.
func NewHostedContext(h ContextHost) *Context { return &Context{h: h} }

// ObservationFields are the per-call parts of an observation a hosted
// runtime fills in; the static vocabulary is passed separately.
type ObservationFields struct {
	OperationInstanceID, OperationID, Now, Phase     string
	InvocationIndex, TurnIndex, BatchBudgetRemaining int
	Event                                            *Envelope
	LastRejection                                    *Rejection
	Served                                           map[string]*ToolResult
}

// NewObservation builds an observation over static (digest computed on
// demand from the same projection the engine's observations use).
func NewObservation(static *Static, f ObservationFields) *Observation {
	return &Observation{
		OperationInstanceID: f.OperationInstanceID, OperationID: f.OperationID, Now: f.Now,
		InvocationIndex: f.InvocationIndex, TurnIndex: f.TurnIndex, Phase: f.Phase, Event: f.Event,
		LastRejection: f.LastRejection, Served: f.Served, BatchBudgetRemaining: f.BatchBudgetRemaining,
		static: static,
	}
}

// ContractProblem says why d cannot be read as a business outcome, or ""
// (the engine's outcome contract).
func ContractProblem(d Decision) string { return contractProblem(d) }

// Matches reports whether a cause (kind, type, cycle) satisfies the trigger.
func (t *Trigger) Matches(kind, typ string, cycle any) bool { return t.matches(kind, typ, cycle) }

// BatchProblem is the engine's retrieval-batch check against static's
// catalogue with remaining batches left: a refusal code and detail, or "".
func BatchProblem(static *Static, b *Retrieve, remaining int) (code, detail string) {
	return (&execution{static: static}).batchProblem(b, remaining)
}

// CanonicalTools is the sorted, unique tool list of a batch (what Serve is
// asked for).
func CanonicalTools(b *Retrieve) []string { return canonicalTools(b) }

// GuardInput is the read-guard context of one proposal.
type GuardInput struct {
	Domain   Domain
	Static   *Static
	State    State
	Now      string
	Served   map[string]*ToolResult
	History  map[string]string // tool → last served record version in the episode
	Claims   map[string]bool   // the waking event's claim values
	TrigAuth bool              // whether the waking event is authoritative
}

// ReadGuard is the engine's read guard for outcome key with evidence refs:
// a refusal code and detail, or "".
func ReadGuard(g GuardInput, key string, refs []string) (code, detail string) {
	x := &execution{dom: g.Domain, static: g.Static, state: g.State, served: g.Served,
		readHistory: g.History, claims: g.Claims, trigAuth: g.TrigAuth}
	x.clock.nowText = g.Now
	return x.readGuard(key, refs)
}

// EventEnvelope is the observation envelope of ev under d's authority
// registry.
func EventEnvelope(d Domain, ev *Event) *Envelope {
	return (&execution{dom: d}).envelope(ev)
}

// ClaimValues are the claim values a waking event carries (its id and every
// non-empty string payload value), as the read guard counts them.
func ClaimValues(ev *Event) map[string]bool {
	claims := map[string]bool{}
	if ev == nil {
		return claims
	}
	claims[ev.EventID] = true
	for _, v := range ev.Payload {
		if s, ok := v.(string); ok && s != "" {
			claims[s] = true
		}
	}
	return claims
}
