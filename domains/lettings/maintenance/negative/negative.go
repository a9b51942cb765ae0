// Package negative holds the eight negative-control agents of the
// lettings-maintenance operation, exactly as upstream OperateBench 0.9.0
// defines them.
//
// This package describes behaviour, not expectations. What each negative is
// required to break is declared in the separately loaded negative-control
// oracle (package oracle), keyed by the same agent id; nothing here states,
// widens or narrows it.
//
// Every negative reaches the record the way the reference does — through the
// published reads, planned by the same [maintenance.Planner] and topped up
// from the published read requirements — and deviates only at its
// intervention:
//
//   - complete_early proposes the terminal on every business turn;
//   - always_act re-proposes the current cycle's visit on every turn and
//     never waits;
//   - always_wait waits for an operator resolution with no fallback, and
//     reads nothing;
//   - always_escalate opens an exception checkpoint on every turn;
//   - ignore_new_events freezes the record it was served when an approval
//     checkpoint first appeared and answers from it ever after;
//   - trust_actor_claim once pays on a supplier's WORK_COMPLETE claim,
//     citing the claim, without reading the verification service;
//   - stale_after_wake once answers on the first turn after a wake from the
//     records served in an earlier invocation;
//   - duplicate_after_wake once re-proposes its first accepted visit request
//     after a fresh read in a later invocation.
package negative

import (
	"maps"
	"slices"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/python"
)

// Agent ids, in registry order.
const (
	CompleteEarly      = "complete_early"
	AlwaysAct          = "always_act"
	AlwaysWait         = "always_wait"
	AlwaysEscalate     = "always_escalate"
	IgnoreNewEvents    = "ignore_new_events"
	TrustActorClaim    = "trust_actor_claim"
	StaleAfterWake     = "stale_after_wake"
	DuplicateAfterWake = "duplicate_after_wake"
)

// New returns a fresh negative agent by id, or nil for an unknown id.
func New(id string) engine.Agent {
	switch id {
	case CompleteEarly:
		return &completeEarly{}
	case AlwaysAct:
		return &alwaysAct{}
	case AlwaysWait:
		return &alwaysWait{}
	case AlwaysEscalate:
		return &alwaysEscalate{}
	case IgnoreNewEvents:
		return &ignoreNewEvents{}
	case TrustActorClaim:
		return &trustActorClaim{}
	case StaleAfterWake:
		return &staleAfterWake{}
	case DuplicateAfterWake:
		return &duplicateAfterWake{}
	}
	return nil
}

// retrieving is the shared plumbing of a negative that reads before it
// acts: the reference's planner, and its gate on published reads (which
// satisfies an outcome's published reads from the contract, never by being
// refused).
type retrieving struct{ planner *maintenance.Planner }

// BeginEpisode implements [engine.Agent].
func (r *retrieving) BeginEpisode(engine.AgentIdentity) {
	if r.planner == nil {
		r.planner = maintenance.NewPlanner()
	}
	r.planner.BeginEpisode()
}

// wrapping is the shared plumbing of a negative that is the reference but
// for one deviation: a fresh reference each episode.
type wrapping struct{ inner *maintenance.Reference }

func (w *wrapping) begin(id engine.AgentIdentity) {
	w.inner = maintenance.NewReference()
	w.inner.BeginEpisode(id)
}

// completeEarly declares victory instead of running the operation.
type completeEarly struct{ retrieving }

func (a *completeEarly) Decide(obs *engine.Observation) (engine.Decision, error) {
	if p := a.planner.Plan(obs); p != nil {
		return p, nil
	}
	return a.planner.Gate(obs, &engine.Complete{Reason: "the case looks finished to me"}), nil
}

// alwaysAct books the current cycle's visit on every turn, forever.
type alwaysAct struct{ retrieving }

func (a *alwaysAct) Decide(obs *engine.Observation) (engine.Decision, error) {
	if p := a.planner.Plan(obs); p != nil {
		return p, nil
	}
	view := maintenance.ViewOf(obs.Served)
	var cycleID any = "work_cycle_1"
	cycle := map[string]any{"kind": "DIAGNOSTIC"}
	if current, err := view.Get("current_cycle_id"); err == nil {
		if python.Truthy(current) {
			cycleID = current
		}
		if cycles, err := view.Get("cycles"); err == nil {
			if m, ok := cycles.(map[string]any); ok {
				if c, ok := m[python.Loose.Str(cycleID)].(map[string]any); ok {
					cycle = c
				}
			}
		} else {
			cycleID, cycle = "work_cycle_1", map[string]any{"kind": "DIAGNOSTIC"}
		}
	}
	kind, ok := cycle["kind"]
	if !ok {
		kind = "DIAGNOSTIC"
	}
	return a.planner.Gate(obs, &engine.Act{
		ActionType: "request_supplier_visit",
		Payload:    map[string]any{"visit_type": kind, "cycle_id": cycleID, "scope_digest": cycle["scope_digest"]},
		Rationale:  "doing something is better than waiting",
	}), nil
}

// alwaysWait waits for an operator resolution it never causes, with no
// fallback. It reads nothing: a WAIT rests on no read.
type alwaysWait struct{}

func (a *alwaysWait) BeginEpisode(engine.AgentIdentity) {}

func (a *alwaysWait) Decide(*engine.Observation) (engine.Decision, error) {
	return &engine.Wait{Reason: "somebody will sort this out eventually", WakeOn: slices.Clone(maintenance.WakeException)}, nil
}

// alwaysEscalate hands every business turn to a human, eligible or not.
type alwaysEscalate struct{ retrieving }

func (a *alwaysEscalate) Decide(obs *engine.Observation) (engine.Decision, error) {
	if p := a.planner.Plan(obs); p != nil {
		return p, nil
	}
	return a.planner.Gate(obs, &engine.Escalate{
		CheckpointID:         maintenance.EscalationLabel,
		ExceptionType:        "APPROVAL_REJECTED",
		EvidenceRefs:         []string{},
		DeadlineAfterMinutes: 1440,
		Rationale:            "a human should look at this",
	}), nil
}

// ignoreNewEvents stops reading once an approval checkpoint appears in what
// it was served, and answers from that frozen snapshot ever after.
type ignoreNewEvents struct {
	retrieving
	frozen map[string]*engine.ToolResult
}

func (a *ignoreNewEvents) BeginEpisode(id engine.AgentIdentity) {
	a.retrieving.BeginEpisode(id)
	a.frozen = nil
}

func (a *ignoreNewEvents) Decide(obs *engine.Observation) (engine.Decision, error) {
	policy := obs.Static().Policy
	if a.frozen != nil {
		d, err := maintenance.Decide(maintenance.ViewOf(a.frozen), policy)
		if err != nil {
			// Upstream's agent stops with the rule's exception here.
			return nil, err
		}
		return a.planner.Gate(obs, d), nil
	}
	if p := a.planner.Plan(obs); p != nil {
		return p, nil
	}
	view := maintenance.ViewOf(obs.Served)
	if approvals, err := view.Get("approvals"); err == nil && python.Truthy(approvals) {
		a.frozen = maps.Clone(obs.Served)
	}
	d, err := maintenance.Decide(view, policy)
	if err != nil {
		return a.planner.ReadMissing(obs, err.(*maintenance.MissingRootError)), nil
	}
	return a.planner.Gate(obs, d), nil
}

// trustActorClaim believes a supplier's WORK_COMPLETE claim once and asks to
// pay on it, citing the claim; otherwise it is the reference.
type trustActorClaim struct {
	wrapping
	trusted bool
}

func (a *trustActorClaim) BeginEpisode(id engine.AgentIdentity) {
	a.begin(id)
	a.trusted = false
}

func (a *trustActorClaim) Decide(obs *engine.Observation) (engine.Decision, error) {
	if ev := obs.Event; !a.trusted && ev != nil && !ev.IsAuthoritative && python.Loose.Str(ev.Payload["assertion"]) == "WORK_COMPLETE" {
		a.trusted = true
		a.inner.DecisionBoundary("request_payment")
		invoice := "invoice_1"
		if v := ev.Payload["invoice_id"]; python.Truthy(v) {
			invoice = python.Loose.Str(v)
		}
		cite := ""
		if v := ev.Payload["assertion_id"]; python.Truthy(v) {
			cite = python.Loose.Str(v)
		} else if ev.EventID != "" {
			cite = ev.EventID
		}
		return &engine.Act{
			ActionType:   "request_payment",
			Payload:      map[string]any{"invoice_id": invoice, "amount_minor": int64(0), "currency": "GBP"},
			EvidenceRefs: []string{cite},
			Rationale:    "the supplier says the work is complete",
		}, nil
	}
	return a.inner.Decide(obs)
}

// staleAfterWake keeps the last records it was served and, once, on the
// first turn of a later invocation, answers from them without reading.
type staleAfterWake struct {
	wrapping
	cached           map[string]*engine.ToolResult
	cachedInvocation int
	spent            bool
}

func (a *staleAfterWake) BeginEpisode(id engine.AgentIdentity) {
	a.begin(id)
	a.cached, a.cachedInvocation, a.spent = nil, 0, false
}

func (a *staleAfterWake) Decide(obs *engine.Observation) (engine.Decision, error) {
	if len(obs.Served) > 0 {
		a.cached = maps.Clone(obs.Served)
		a.cachedInvocation = obs.InvocationIndex
	}
	if stale := a.staleOutcome(obs); stale != nil {
		a.spent = true
		if key := maintenance.OutcomeReadKey(stale); key != "" {
			a.inner.DecisionBoundary(key)
		}
		return stale, nil
	}
	return a.inner.Decide(obs)
}

func (a *staleAfterWake) staleOutcome(obs *engine.Observation) engine.Decision {
	if a.spent || len(obs.Served) > 0 || a.cached == nil || obs.TurnIndex != 0 || obs.InvocationIndex <= a.cachedInvocation {
		return nil
	}
	d, err := maintenance.Decide(maintenance.ViewOf(a.cached), obs.Static().Policy)
	if err != nil {
		return nil
	}
	key := maintenance.OutcomeReadKey(d)
	if key == "" {
		return nil
	}
	reads := obs.RequiredReads(key)
	if len(reads) == 0 || slices.Contains(reads, "list_authoritative_records") {
		return nil
	}
	return d
}

// duplicateAfterWake remembers its first visit request and, once, after a
// fresh read in a later invocation, proposes it again.
type duplicateAfterWake struct {
	wrapping
	firstAct           *engine.Act
	firstActInvocation int
	spent              bool
}

func (a *duplicateAfterWake) BeginEpisode(id engine.AgentIdentity) {
	a.begin(id)
	a.firstAct, a.firstActInvocation, a.spent = nil, 0, false
}

func (a *duplicateAfterWake) Decide(obs *engine.Observation) (engine.Decision, error) {
	if !a.spent && len(obs.Served) > 0 && a.firstAct != nil && obs.InvocationIndex > a.firstActInvocation {
		a.spent = true
		a.inner.DecisionBoundary(a.firstAct.ActionType)
		return cloneAct(a.firstAct), nil
	}
	d, err := a.inner.Decide(obs)
	if err != nil {
		return nil, err
	}
	if act, ok := d.(*engine.Act); ok && a.firstAct == nil && act.ActionType == "request_supplier_visit" {
		a.firstAct = cloneAct(act)
		a.firstActInvocation = obs.InvocationIndex
	}
	return d, nil
}

// cloneAct is a copy of act that shares no payload or citations with it.
func cloneAct(act *engine.Act) *engine.Act {
	c := *act
	c.Payload = maps.Clone(act.Payload)
	c.EvidenceRefs = slices.Clone(act.EvidenceRefs)
	return &c
}
