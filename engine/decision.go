package engine

import (
	"fmt"
	"slices"

	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/refusal"
)

// Decision is what an agent returns for one call: one of the five business
// outcomes ([*Act], [*Wait], [*Ask], [*Escalate], [*Complete]), a read step
// ([*Retrieve]) or an unreadable answer ([*Malformed]). The engine holds each
// to the outcome contract before anything dispatches on it; a decision that
// fails it is a recorded, non-mutating refusal (MALFORMED_AGENT_OUTCOME).
type Decision interface {
	// Kind is the decision's kind as the tape spells it: ACT, WAIT, ASK,
	// ESCALATE, COMPLETE, RETRIEVE or MALFORMED.
	Kind() string
	// Record is the decision's durable projection: exactly the object that
	// appears in an agent_outcome row (business outcomes) and in the decision
	// tape.
	Record() map[string]any
}

// MalformedOutcomeCode is the code of an outcome_rejected row.
const MalformedOutcomeCode = "MALFORMED_AGENT_OUTCOME"

// Act proposes an authorised business action. A proposal, never a commit.
type Act struct {
	ActionType   string
	Payload      map[string]any // nil is the empty payload
	EvidenceRefs []string
	Rationale    string
}

// Wait declares what would end it: event types it expects (WakeOn), a
// fallback deadline in simulated minutes, or both. A wait with neither, or a
// fallback that is not positive, is refused.
type Wait struct {
	Reason               string
	WakeOn               []string
	FallbackAfterMinutes *int64 // nil: no fallback
}

// Ask sends a message fixture to an actor and then waits.
type Ask struct {
	RecipientActorID string
	MessageFixtureID string
	CorrelationID    *string // nil: no correlation
	Wait             *Wait
}

// Escalate opens a typed exception checkpoint about an existing checkpoint
// and waits for its resolution.
type Escalate struct {
	CheckpointID         string
	ExceptionType        string
	EvidenceRefs         []string
	DeadlineAfterMinutes int64 // upstream default 1440; must be positive
	Rationale            string
}

// Complete proposes the guarded terminal transition.
type Complete struct {
	Reason       string
	EvidenceRefs []string
}

// Retrieve asks the environment to serve 1–8 published reads. It is not a
// business outcome and is never graded as one.
type Retrieve struct {
	Requests []Request
}

// Request is one read in a [Retrieve] batch.
type Request struct {
	Tool      string
	Arguments map[string]any // nil is no arguments
}

// Malformed stands for an answer that is not a decision (a model reply that
// could not be classified, say). Code is its stable classification.
type Malformed struct {
	Code string
}

// Minutes returns a pointer to n, for [Wait.FallbackAfterMinutes].
func Minutes(n int64) *int64 { return &n }

func (*Act) Kind() string       { return decision.KindAct }
func (*Wait) Kind() string      { return decision.KindWait }
func (*Ask) Kind() string       { return decision.KindAsk }
func (*Escalate) Kind() string  { return decision.KindEscalate }
func (*Complete) Kind() string  { return decision.KindComplete }
func (*Retrieve) Kind() string  { return decision.KindRetrieve }
func (*Malformed) Kind() string { return decision.KindMalformed }

func optStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// The decisions' members, each kind's declared once in key order: Record
// and the canonical bytes (appendDecision) both derive from these
// (Members).

func (a *Act) members(o *Members) {
	o.Str("action_type", a.ActionType)
	o.Strs("evidence_refs", a.EvidenceRefs)
	o.Str("kind", decision.KindAct)
	o.Map("payload", a.Payload)
	o.Str("rationale", a.Rationale)
}

func (w *Wait) members(o *Members) {
	o.OptInt("fallback_after_minutes", w.FallbackAfterMinutes)
	o.Str("kind", decision.KindWait)
	o.Str("reason", w.Reason)
	o.Strs("wake_on", w.WakeOn)
}

func (a *Ask) members(o *Members) {
	o.OptStr("correlation_id", a.CorrelationID)
	o.Str("kind", decision.KindAsk)
	o.Str("message_fixture_id", a.MessageFixtureID)
	o.Str("recipient_actor_id", a.RecipientActorID)
	if a.Wait == nil {
		o.Object("wait", nil)
	} else {
		o.Object("wait", a.Wait.members)
	}
}

func (e *Escalate) members(o *Members) {
	o.Str("checkpoint_id", e.CheckpointID)
	o.Int("deadline_after_minutes", e.DeadlineAfterMinutes)
	o.Strs("evidence_refs", e.EvidenceRefs)
	o.Str("exception_type", e.ExceptionType)
	o.Str("kind", decision.KindEscalate)
	o.Str("rationale", e.Rationale)
}

func (c *Complete) members(o *Members) {
	o.Strs("evidence_refs", c.EvidenceRefs)
	o.Str("kind", decision.KindComplete)
	o.Str("reason", c.Reason)
}

// members records the requests as upstream records them (recorded).
func (r *Retrieve) members(o *Members) {
	o.Str("kind", decision.KindRetrieve)
	var stack [MaxRequestsPerBatch]Request
	reqs := r.recorded(stack[:0])
	o.Objects("requests", len(reqs), func(i int, m *Members) {
		m.Map("arguments", reqs[i].Arguments)
		m.Str("tool", reqs[i].Tool)
	})
}

// recorded appends to dst the requests upstream records: sorted by tool
// with duplicates collapsed (first wins), unless one tool carries two
// argument sets, in which case the requests as given (the environment
// refuses that batch, and a replay must reproduce the same refusal).
func (r *Retrieve) recorded(dst []Request) []Request {
	var scratch requestScratch
	keys, order := scratch.sort(r.Requests)
	for n := 1; n < len(order); n++ {
		if p, i := order[n-1], order[n]; r.Requests[p].Tool == r.Requests[i].Tool && keys[p] != keys[i] {
			return append(dst, r.Requests...)
		}
	}
	// No conflict: a tool's requests are equal, and the first is its first.
	for n, i := range order {
		if n == 0 || r.Requests[order[n-1]].Tool != r.Requests[i].Tool {
			dst = append(dst, r.Requests[i])
		}
	}
	return dst
}

func (m *Malformed) members(o *Members) {
	o.Str("code", m.Code)
	o.Str("kind", decision.KindMalformed)
}

// Record implements [Decision].
func (a *Act) Record() map[string]any { return MembersTree(a.members) }

// Record implements [Decision]; a nil Wait records a nil map.
func (w *Wait) Record() map[string]any {
	if w == nil {
		return nil
	}
	return MembersTree(w.members)
}

// Record implements [Decision].
func (a *Ask) Record() map[string]any { return MembersTree(a.members) }

// Record implements [Decision].
func (e *Escalate) Record() map[string]any { return MembersTree(e.members) }

// Record implements [Decision].
func (c *Complete) Record() map[string]any { return MembersTree(c.members) }

// Record implements [Decision].
func (r *Retrieve) Record() map[string]any { return MembersTree(r.members) }

// Record implements [Decision].
func (m *Malformed) Record() map[string]any { return MembersTree(m.members) }

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// contractProblem says why d cannot be read as a business outcome, or "".
// The texts are upstream 0.9.0's (they reach the trajectory).
func contractProblem(d Decision) string {
	switch o := d.(type) {
	case *Act:
		if o.ActionType == "" {
			return "ACT action_type must be a non-empty string, got str"
		}
		for k := range o.Payload {
			if k == "" {
				return "ACT payload field name '' must be a non-empty string"
			}
		}
		if p := refsProblem(o.EvidenceRefs, "ACT evidence_refs"); p != "" {
			return p
		}
		return ""
	case *Wait:
		return waitProblem(o)
	case *Ask:
		if o.RecipientActorID == "" {
			return "ASK recipient_actor_id must be a non-empty string, got str"
		}
		if o.MessageFixtureID == "" {
			return "ASK message_fixture_id must be a non-empty string, got str"
		}
		if o.CorrelationID != nil && *o.CorrelationID == "" {
			return "ASK correlation_id must be a non-empty string or None"
		}
		if o.Wait == nil {
			return "the wait it carries is a NoneType, not a WAIT"
		}
		return waitProblem(o.Wait)
	case *Escalate:
		if o.CheckpointID == "" {
			return "ESCALATE checkpoint_id must be a non-empty string, got str"
		}
		if o.ExceptionType == "" {
			return "ESCALATE exception_type must be a non-empty string, got str"
		}
		if p := refsProblem(o.EvidenceRefs, "ESCALATE evidence_refs"); p != "" {
			return p
		}
		if o.DeadlineAfterMinutes <= 0 {
			return fmt.Sprintf("ESCALATE deadline_after_minutes must be a positive whole number of minutes, got %d", o.DeadlineAfterMinutes)
		}
		return ""
	case *Complete:
		return refsProblem(o.EvidenceRefs, "COMPLETE evidence_refs")
	case *Malformed:
		return "an agent must return one of ['ACT', 'WAIT', 'ASK', 'ESCALATE', 'COMPLETE'], got " + o.Code
	case nil:
		return "an agent must return one of ['ACT', 'WAIT', 'ASK', 'ESCALATE', 'COMPLETE'], got NoneType"
	}
	return fmt.Sprintf("an agent must return one of ['ACT', 'WAIT', 'ASK', 'ESCALATE', 'COMPLETE'], got %T", d)
}

func refsProblem(refs []string, what string) string {
	for i, r := range refs {
		if r == "" {
			return fmt.Sprintf("%s[%d] must be a non-empty reference string, got ''", what, i)
		}
	}
	return ""
}

func waitProblem(w *Wait) string {
	// The construction-time contract of upstream's WAIT, checked here because
	// a Go value cannot refuse its own construction.
	if len(w.WakeOn) == 0 && w.FallbackAfterMinutes == nil {
		return "WAIT must declare a wake condition (event types) or a fallback deadline in minutes; a wait with neither can never end and is refused rather than executed"
	}
	if w.FallbackAfterMinutes != nil && *w.FallbackAfterMinutes <= 0 {
		return fmt.Sprintf("WAIT fallback deadline must be a positive number of simulated minutes, got %d", *w.FallbackAfterMinutes)
	}
	return refsProblem(w.WakeOn, "WAIT wake_on")
}

// DecisionFromRecord rebuilds a decision from its durable projection (a
// decision-tape "outcome" object). A record not shaped like one the engine
// writes is refused as [ErrMalformedDecision].
func DecisionFromRecord(rec map[string]any) (Decision, error) {
	bad := func(what string) error {
		return refusal.New(ErrMalformedDecision, "a recorded %v decision is not shaped like one this build writes (%s)", rec["kind"], what)
	}
	kind, _ := rec["kind"].(string)
	switch kind {
	case decision.KindRetrieve:
		reqs, ok := rec["requests"].([]any)
		if !ok {
			return nil, bad("requests")
		}
		r := &Retrieve{}
		for _, x := range reqs {
			m, ok := x.(map[string]any)
			if !ok {
				return nil, bad("request")
			}
			tool, ok := m["tool"].(string)
			if !ok {
				return nil, bad("tool")
			}
			args, _ := m["arguments"].(map[string]any)
			r.Requests = append(r.Requests, Request{Tool: tool, Arguments: copyMap(args)})
		}
		return r, nil
	case decision.KindMalformed:
		code, ok := rec["code"].(string)
		if !ok {
			return nil, bad("code")
		}
		return &Malformed{Code: code}, nil
	case decision.KindAct:
		at, ok1 := rec["action_type"].(string)
		pl, ok2 := rec["payload"].(map[string]any)
		refs, ok3 := stringList(rec["evidence_refs"])
		ra, ok4 := rec["rationale"].(string)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, bad("ACT fields")
		}
		return &Act{ActionType: at, Payload: copyMap(pl), EvidenceRefs: refs, Rationale: ra}, nil
	case decision.KindWait:
		w, err := waitFromRecord(rec)
		if err != nil {
			return nil, bad("WAIT fields")
		}
		return w, nil
	case decision.KindAsk:
		rcp, ok1 := rec["recipient_actor_id"].(string)
		fx, ok2 := rec["message_fixture_id"].(string)
		wm, ok3 := rec["wait"].(map[string]any)
		if !ok1 || !ok2 || !ok3 {
			return nil, bad("ASK fields")
		}
		w, err := waitFromRecord(wm)
		if err != nil {
			return nil, bad("ASK wait")
		}
		a := &Ask{RecipientActorID: rcp, MessageFixtureID: fx, Wait: w}
		switch c := rec["correlation_id"].(type) {
		case nil:
		case string:
			a.CorrelationID = &c
		default:
			return nil, bad("correlation_id")
		}
		return a, nil
	case decision.KindEscalate:
		cp, ok1 := rec["checkpoint_id"].(string)
		et, ok2 := rec["exception_type"].(string)
		refs, ok3 := stringList(rec["evidence_refs"])
		dl, ok4 := rec["deadline_after_minutes"].(int64)
		ra, ok5 := rec["rationale"].(string)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			return nil, bad("ESCALATE fields")
		}
		return &Escalate{CheckpointID: cp, ExceptionType: et, EvidenceRefs: refs, DeadlineAfterMinutes: dl, Rationale: ra}, nil
	case decision.KindComplete:
		re, ok1 := rec["reason"].(string)
		refs, ok2 := stringList(rec["evidence_refs"])
		if !ok1 || !ok2 {
			return nil, bad("COMPLETE fields")
		}
		return &Complete{Reason: re, EvidenceRefs: refs}, nil
	}
	return nil, refusal.New(ErrMalformedDecision, "%q is not a decision kind this build records", kind)
}

func waitFromRecord(rec map[string]any) (*Wait, error) {
	re, ok1 := rec["reason"].(string)
	wake, ok2 := stringList(rec["wake_on"])
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("wait fields")
	}
	w := &Wait{Reason: re, WakeOn: wake}
	switch f := rec["fallback_after_minutes"].(type) {
	case nil:
	case int64:
		w.FallbackAfterMinutes = &f
	default:
		return nil, fmt.Errorf("fallback")
	}
	return w, nil
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return slices.Clone(x), true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}
