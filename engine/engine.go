package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"slices"

	"github.com/obaudit/obaudit/internal/python"
	"github.com/obaudit/obaudit/refusal"
)

// Execution statuses (not business terminals).
const (
	StatusDeadlock = "operation_deadlock"
	StatusHorizon  = "operational_horizon_exhausted"
)

// Wait refusal codes and other engine-written codes.
const (
	WaitUnknownWakeType       = "UNKNOWN_WAKE_EVENT_TYPE"
	WaitAfterReplayFinal      = "WAIT_AFTER_REPLAY_FINAL"
	WaitUndeclaredWakeEvent   = "UNDECLARED_WAKE_EVENT"
	ActedOnClaimWithoutRecord = "ACTED_ON_CLAIM_WITHOUT_RECORD"
	ActionWithoutRetrieval    = "ACTION_WITHOUT_RETRIEVAL"
	StaleRetrievedRecord      = "STALE_RETRIEVED_RECORD"
	CompleteOutcomeKey        = "complete"
	// TimerSequenceBase is where engine timers sort at an instant: above every
	// authored sequence.
	TimerSequenceBase = 1_000_000
	// MaxRequestsPerBatch bounds distinct requests in one retrieval batch.
	MaxRequestsPerBatch = 8
)

// Dispositions of delivered events.
const (
	DispositionAccepted     = "accepted"
	DispositionRejected     = "rejected"
	DispositionAudit        = "audit"
	DispositionPostTerminal = "post_terminal"
	VerdictAfterReplayFinal = "AFTER_REPLAY_FINAL"
)

// Context is the environment handle a domain gets while it reduces
// something: the clock, the ledger, timers and dispatch faults. It cannot
// deliver events, invoke the agent or move time.
type Context struct {
	x *execution
	h ContextHost // set for a context hosted by another runtime (see NewHostedContext)
}

// Now is the current simulated instant.
func (c *Context) Now() string {
	if c.h != nil {
		return c.h.Now()
	}
	return c.x.clock.nowText
}

// Record appends a domain row (checkpoint_opened, obligation_*, side_effect…)
// to the trajectory at the current instant. payload is taken over.
func (c *Context) Record(recordType string, payload map[string]any) {
	if c.h != nil {
		c.h.Record(recordType, payload)
		return
	}
	c.x.ledger.append(c.x.clock.nowText, recordType, payload)
}

// ScheduleTimer arms a timer that fires delayMinutes from now, with a
// timer_scheduled row.
func (c *Context) ScheduleTimer(eventID, eventType, actorID string, delayMinutes int64, payload map[string]any, triggersAgent bool) {
	if c.h != nil {
		c.h.ScheduleTimer(eventID, eventType, actorID, delayMinutes, payload, triggersAgent)
		return
	}
	c.x.scheduleTimer(eventID, eventType, actorID, delayMinutes, payload, triggersAgent)
}

// CancelTimer drops a pending event; a timer_cancelled row is written only
// when something was pending. It reports whether something was.
func (c *Context) CancelTimer(eventID string) bool {
	if c.h != nil {
		return c.h.CancelTimer(eventID)
	}
	return c.x.cancelTimer(eventID)
}

// DispatchFails reports whether dispatch of the message fixture is authored
// to fail in this scenario.
func (c *Context) DispatchFails(messageFixtureID string) bool {
	if c.h != nil {
		return c.h.DispatchFails(messageFixtureID)
	}
	return c.x.plan.DispatchFailures[messageFixtureID]
}

// Shift is now plus m minutes; a negative m aborts the
// episode with [ErrClockRewind].
func (c *Context) Shift(m int64) string {
	if c.h != nil {
		return c.h.Shift(m)
	}
	s, _, err := c.x.clock.shift(m)
	if err != nil {
		c.x.fail(err)
		return c.x.clock.nowText
	}
	return s
}

// ledger is the append-only trajectory. Each row is encoded once, when it
// is appended, into a running SHA-256 of the whole row list (the trajectory
// digest): rows are never changed after they are appended.
type ledger struct {
	rows    []any
	n       int64
	hash    hash.Hash
	scratch []byte
	// noRows keeps no rows (the self-check rerun, whose rows are never
	// read).
	noRows bool
	// noHash takes no digest: the bytes only go to keep (a run whose
	// trajectory digest is never read).
	noHash      bool
	atText      string
	atBox       any // atText as an interface value, boxed once per instant
	boxes       map[string]any
	atQuoted    []byte // atQuotedFor as canonical JSON
	atQuotedFor string
	enc         Members // encodes decisions (appendDecision) and the tape's entries
	// keep, when set, receives every byte fed to the digest.
	keep *[]byte
	// comparing: instead of hashing, compare every byte with ref (the
	// first execution's trajectory), from refOff on; diverged records the
	// first difference.
	comparing bool
	ref       []byte
	refOff    int
	diverged  bool
}

// feed passes encoded trajectory bytes to the digest, the kept copy, or the
// comparison.
func (l *ledger) feed(b []byte) {
	if l.comparing {
		if !l.diverged {
			end := l.refOff + len(b)
			if end > len(l.ref) || string(l.ref[l.refOff:end]) != string(b) {
				l.diverged = true
				return
			}
			l.refOff = end
		}
		return
	}
	if !l.noHash {
		if l.hash == nil {
			l.hash = sha256.New()
		}
		l.hash.Write(b)
	}
	if l.keep != nil {
		*l.keep = append(*l.keep, b...)
	}
}

// finishCompare closes the compared trajectory and reports whether it was
// byte for byte the reference.
func (l *ledger) finishCompare() bool {
	l.close()
	return !l.diverged && l.refOff == len(l.ref)
}

// box returns s as an interface value, boxing each distinct string once per
// execution (the rows share immutable strings, nothing else).
func (l *ledger) box(s string) any {
	if v, ok := l.boxes[s]; ok {
		return v
	}
	if l.boxes == nil {
		l.boxes = make(map[string]any, 64)
	}
	var v any = s
	l.boxes[s] = v
	return v
}

// appendAt writes the quoted instant, encoding it once per instant.
func (l *ledger) appendAt(b []byte, at string) []byte { return append(b, l.quotedAt(at)...) }

// quotedAt is the quoted instant, encoded once per instant.
func (l *ledger) quotedAt(at string) []byte {
	if l.atQuotedFor != at || l.atQuoted == nil {
		l.atQuoted = appendString(l.atQuoted[:0], at)
		l.atQuotedFor = at
	}
	return l.atQuoted
}

// boxAt returns at as an interface value, reusing the box while the instant
// is the same (rows at one instant share the string, never a mutable value).
func (l *ledger) boxAt(at string) any {
	if l.atBox == nil || l.atText != at {
		l.atText, l.atBox = at, at
	}
	return l.atBox
}

func (l *ledger) append(at, recordType string, payload map[string]any) {
	payload["index"] = l.n
	payload["at"] = at
	payload["record_type"] = recordType
	b := l.begin()
	b = AppendCanonical(b, payload)
	l.commit(b)
	if !l.noRows {
		l.rows = append(l.rows, payload)
	}
}

// begin returns the scratch buffer holding the separator that precedes the
// next row.
func (l *ledger) begin() []byte {
	b := l.scratch[:0]
	if l.n == 0 {
		return append(b, '[')
	}
	return append(b, ',')
}

// commit feeds one encoded row (with its separator) to the running digest.
func (l *ledger) commit(b []byte) {
	l.feed(b)
	l.scratch = b
	l.n++
}

// appendServed appends the retrieval_served row of r ([ToolResult.members]
// declares it, with the row's own members).
func (l *ledger) appendServed(at string, invocation, turn, batch, pos int, r *ToolResult) {
	row := servedRow{l: l, at: at, index: l.n, invocation: invocation, turn: turn, batch: batch, pos: pos}
	l.enc.Begin(l.begin(), false)
	r.members(&l.enc, &row)
	l.commit(l.enc.End())
	if l.noRows {
		return
	}
	l.enc.BeginTree(false)
	r.members(&l.enc, &row)
	l.rows = append(l.rows, l.enc.EndTree())
}

// close ends the row list: "]", or "[]" when there are no rows.
func (l *ledger) close() {
	if l.n == 0 {
		l.feed([]byte("[]"))
	} else {
		l.feed([]byte("]"))
	}
}

// digest closes the row list and returns its trajectory digest.
func (l *ledger) digest() string {
	l.close()
	return hex.EncodeToString(l.hash.Sum(nil))
}

type rejection struct{ actionType, code, detail string }

// execution is one episode in flight.
type execution struct {
	dom    Domain
	static *Static
	plan   *Plan
	state  State
	agent  Agent
	ctx    *Context
	instID string

	clock  clock
	queue  []*Event
	seen   map[string]bool
	ledger ledger

	conditionals []*PlannedEvent
	delivered    []any
	timerCounter int64
	proposals    int
	invocations  int
	wait         *Wait
	fallbackAt   string
	fallbackSec  int64
	lastRej      *rejection
	halt         string
	served       map[string]*ToolResult
	batches      int
	readHistory  map[string]string
	claims       map[string]bool
	trigAuth     bool
	turn         int

	keep, compare *replayRef

	decisions  []any
	lastRecord map[string]any // the record of the decision just taped
	decHash    hash.Hash
	decScratch []byte
	mid        midstates
	obsDigests []string
	noDigests  bool
	err        error
}

func (x *execution) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}

func (x *execution) scheduleTimer(eventID, eventType, actorID string, delay int64, payload map[string]any, triggers bool) {
	x.timerCounter++
	at, _, err := x.clock.shift(delay)
	if err != nil {
		x.fail(err)
		return
	}
	x.push(&Event{
		EventID: eventID, EventType: eventType, ActorID: actorID, At: at,
		Sequence: TimerSequenceBase + x.timerCounter, Payload: copyMap(payload),
		TriggersAgent: triggers, CausedBy: "timer",
	})
	x.ledger.row(x.clock.nowText, "timer_scheduled", fStr("event_id", eventID), fStr("event_type", eventType), fStr("due_at", at))
}

func (x *execution) push(ev *Event) {
	if x.seen[ev.EventID] {
		x.fail(refusal.New(ErrDuplicateEventID, "event %q was already scheduled in this episode", ev.EventID))
		return
	}
	sec, err := ParseInstant(ev.At)
	if err != nil {
		x.fail(err)
		return
	}
	ev.sec = sec
	x.seen[ev.EventID] = true
	x.queue = append(x.queue, ev)
}

func (x *execution) cancelTimer(eventID string) bool {
	for i, ev := range x.queue {
		if ev.EventID == eventID {
			x.queue = slices.Delete(x.queue, i, i+1)
			x.ledger.row(x.clock.nowText, "timer_cancelled", fStr("event_id", eventID))
			return true
		}
	}
	return false
}

func eventLess(a, b *Event) bool {
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	if a.Sequence != b.Sequence {
		return a.Sequence < b.Sequence
	}
	return a.EventID < b.EventID
}

func (x *execution) peek() (int, *Event) {
	best := -1
	for i, ev := range x.queue {
		if best < 0 || eventLess(ev, x.queue[best]) {
			best = i
		}
	}
	if best < 0 {
		return -1, nil
	}
	return best, x.queue[best]
}

func toEvent(p *PlannedEvent, at string, causedBy any, bindings map[string]string) *Event {
	payload := copyMap(p.Payload)
	for k, v := range bindings {
		if _, ok := payload[k]; ok {
			payload[k] = v
		}
	}
	return &Event{
		EventID: p.EventID, EventType: p.EventType, ActorID: p.ActorID, At: at,
		Sequence: p.Sequence, Payload: payload, TriggersAgent: p.TriggersAgent, CausedBy: causedBy,
	}
}

func (x *execution) fireConditionals(kind, typ string, cycle any, bindings map[string]string) {
	fires := false
	for _, p := range x.conditionals {
		if p.Trigger.matches(kind, typ, cycle) {
			fires = true
			break
		}
	}
	if !fires {
		return
	}
	remaining := x.conditionals[:0:0]
	for _, p := range x.conditionals {
		if !p.Trigger.matches(kind, typ, cycle) {
			remaining = append(remaining, p)
			continue
		}
		at, _, err := x.clock.shift(p.DelayMinutes)
		if err != nil {
			x.fail(err)
			return
		}
		x.push(toEvent(p, at, kind+":"+typ, bindings))
	}
	x.conditionals = remaining
}

func (x *execution) horizonSec() int64 {
	return x.clock.start + x.plan.HorizonMinutes*60
}

func (x *execution) run() {
	x.agent.BeginEpisode(AgentIdentity{OperationID: x.static.OperationID, OperationInstanceID: x.instID})
	x.ledger.row(x.clock.nowText, "episode_ended", fStr("phase", "started"))
	for x.halt == "" && x.err == nil {
		if x.invocations > x.plan.MaxInvocations {
			x.halt = StatusDeadlock
			x.ledger.row(x.clock.nowText, "critical_violation", fStr("code", "INVOCATION_LIMIT_EXCEEDED"),
				fStr("detail", fmt.Sprintf("the agent was invoked more than %d times without reaching a terminal state", x.plan.MaxInvocations)))
			break
		}
		idx, next := x.peek()
		if x.fallbackAt != "" && (next == nil || x.fallbackSec < next.sec) {
			if x.fallbackSec > x.horizonSec() {
				x.halt = StatusHorizon
				break
			}
			if err := x.clock.advanceTo(x.fallbackSec); err != nil {
				x.fail(err)
				break
			}
			x.ledger.row(x.clock.nowText, "wait_declared", fBool("fallback_fired", true))
			x.clearWait()
			x.invoke(nil)
			continue
		}
		if next == nil {
			if x.wait != nil {
				x.exhaustHorizonUnderWait()
			}
			break
		}
		if next.sec > x.horizonSec() {
			x.halt = StatusHorizon
			break
		}
		x.queue = slices.Delete(x.queue, idx, idx+1)
		if err := x.clock.advanceTo(next.sec); err != nil {
			x.fail(err)
			break
		}
		x.deliver(next)
	}
}

func (x *execution) exhaustHorizonUnderWait() {
	w := x.wait
	hz := x.horizonSec()
	if hz > x.clock.now {
		_ = x.clock.advanceTo(hz)
	}
	x.ledger.row(x.clock.nowText, "wait_unresolved_at_horizon", fStr("reason", w.Reason), fStrs("wake_on", w.WakeOn), fStr("horizon_at", FormatInstant(hz)))
	x.halt = StatusHorizon
}

func (x *execution) note(ev *Event, disposition, code string) {
	if x.ledger.noRows {
		return // the rerun keeps no event list
	}
	row := ev.tree(2)
	row["disposition"] = disposition
	row["verdict_code"] = code
	x.delivered = append(x.delivered, row)
}

func (x *execution) deliver(ev *Event) {
	if x.state.ReplayFinal() {
		x.ledger.row(x.clock.nowText, "event_after_terminal", fStr("event_id", ev.EventID), fStr("event_type", ev.EventType),
			fStr("actor_id", ev.ActorID), fBool("mutating", false))
		x.note(ev, DispositionPostTerminal, VerdictAfterReplayFinal)
		return
	}
	v := x.state.ReduceEvent(x.ctx, ev)
	if !v.Accepted {
		x.ledger.row(x.clock.nowText, "event_rejected", fStr("event_id", ev.EventID), fStr("event_type", ev.EventType),
			fStr("actor_id", ev.ActorID), fStr("code", v.Code), fStr("detail", v.Detail))
		x.note(ev, DispositionRejected, v.Code)
		return
	}
	rt, disp := "event_observed", DispositionAccepted
	if !ev.TriggersAgent {
		rt, disp = "event_audit_only", DispositionAudit
	}
	x.ledger.row(x.clock.nowText, rt, fStr("event_id", ev.EventID), fStr("event_type", ev.EventType),
		fStr("actor_id", ev.ActorID), fStr("code", v.Code), fBool("observational", v.Observational))
	x.note(ev, disp, v.Code)
	cycle := v.CycleID
	if s, ok := cycle.(string); !ok || s == "" {
		cycle = nil
		if c, ok := ev.Payload["cycle_id"].(string); ok {
			cycle = c
		}
	}
	x.fireConditionals(TriggerOnEvent, ev.EventType, cycle, v.Bindings)
	if !ev.TriggersAgent || x.state.ReplayFinal() {
		return
	}
	if w := x.wait; w != nil && len(w.WakeOn) > 0 && !slices.Contains(w.WakeOn, ev.EventType) {
		x.ledger.row(x.clock.nowText, "wait_rejected", fStr("code", WaitUndeclaredWakeEvent),
			fStr("detail", fmt.Sprintf("woken by %s, which the standing wait did not declare (declared: %s)", python.Loose.Quote(ev.EventType), python.Loose.StrList(w.WakeOn))),
			fStr("event_id", ev.EventID))
	}
	x.invoke(ev)
}

func (x *execution) clearWait() {
	x.wait = nil
	x.fallbackAt = ""
	x.fallbackSec = 0
}

func (x *execution) envelope(ev *Event) *Envelope {
	if ev == nil {
		return nil
	}
	auth := x.dom.EventAuthority(ev.ActorID, ev.EventType)
	return &Envelope{
		EventID: ev.EventID, EventType: ev.EventType, ActorID: ev.ActorID,
		Payload: ev.Payload, Authority: auth, IsAuthoritative: auth == AuthorityAuthoritativeVerification,
	}
}

func (x *execution) invoke(trigger *Event) {
	x.invocations++
	x.clearWait()
	x.lastRej = nil
	env := x.envelope(trigger)
	x.trigAuth = env != nil && env.IsAuthoritative
	x.claims = ClaimValues(trigger)
	null := func(k string) field { return field{key: k, kind: kindNull} }
	tid, ttype, tauth := null("trigger_event_id"), null("trigger_event_type"), null("trigger_event_authority")
	if trigger != nil {
		tid, ttype, tauth = fStr("trigger_event_id", trigger.EventID), fStr("trigger_event_type", trigger.EventType), fStr("trigger_event_authority", env.Authority)
	}
	claims := make([]string, 0, len(x.claims))
	for c := range x.claims {
		claims = append(claims, c)
	}
	slices.Sort(claims)
	x.ledger.row(x.clock.nowText, "agent_invoked", fInt("invocation_index", int64(x.invocations)), tid, ttype, tauth,
		fBool("trigger_is_authoritative", x.trigAuth), fStrs("trigger_claim_values", claims))
	x.invalidate("wake", 0, nil)

	maxTurns := x.plan.MaxTurnsPerInvocation
	callLimit := maxTurns + x.plan.MaxRetrievalBatchesPerInvocation + 1
	business, turn := 0, 0
	for business < maxTurns {
		if turn >= callLimit {
			x.refuseInvocation("INVOCATION_CALL_LIMIT_EXCEEDED", fmt.Sprintf(
				"the agent was called %d time(s) in one invocation \u2014 every business turn (%d) plus every retrieval batch (%d) plus one \u2014 without waiting, escalating or completing",
				turn, maxTurns, x.plan.MaxRetrievalBatchesPerInvocation))
			return
		}
		x.turn = turn
		obs := x.observation(env, turn)
		d, err := x.agent.Decide(obs)
		if err != nil {
			x.fail(err)
			return
		}
		if !x.noDigests {
			x.recordDecision(obs, d)
		}
		turn++
		if r, ok := d.(*Retrieve); ok {
			x.serveBatch(r, turn-1)
			continue
		}
		business++
		if p := contractProblem(d); p != "" {
			x.ledger.row(x.clock.nowText, "outcome_rejected", fInt("invocation_index", int64(x.invocations)), fInt("turn_index", int64(turn-1)),
				fStr("code", MalformedOutcomeCode), fStr("detail", p))
			x.lastRej = &rejection{"<malformed outcome>", MalformedOutcomeCode, p}
			continue
		}
		x.ledger.row(x.clock.nowText, "agent_outcome", fInt("invocation_index", int64(x.invocations)), fInt("turn_index", int64(turn-1)),
			fDecision("outcome", d, x.lastRecord))
		if x.handle(d) || x.err != nil {
			return
		}
	}
	x.refuseInvocation("INVOCATION_TURN_LIMIT_EXCEEDED", fmt.Sprintf(
		"the agent produced %d outcomes in one invocation without waiting, escalating or completing", maxTurns))
}

// tapeEntry is one entry of the decision tape: the decision made on an
// observation, whose digest it names.
type tapeEntry struct {
	obs    *Observation
	digest string
	d      Decision
}

// members declares the entry: both its tree (x.decisions) and its bytes
// (fed to the decisions digest) derive from these.
func (e *tapeEntry) members(o *Members) {
	o.Int("invocation_index", int64(e.obs.InvocationIndex))
	o.Str("observation_digest_sha256", e.digest)
	o.decision("outcome", e.d)
	o.Int("turn_index", int64(e.obs.TurnIndex))
}

// recordDecision appends one entry to the decision tape and feeds its
// canonical bytes to the running decisions digest. The entry's outcome
// record is kept in x.lastRecord for the agent_outcome row that follows
// (the row and the tape share that read-only map).
func (x *execution) recordDecision(obs *Observation, d Decision) {
	if d == nil {
		d = &Malformed{Code: "MODEL_OUTPUT_UNCLASSIFIED"}
	}
	e := tapeEntry{obs: obs, digest: obs.Digest(), d: d}
	x.obsDigests = append(x.obsDigests, e.digest)
	o := &x.ledger.enc
	o.BeginTree(false)
	e.members(o)
	entry := o.EndTree().(map[string]any)
	x.lastRecord = entry["outcome"].(map[string]any)
	x.decisions = append(x.decisions, entry)
	if x.decHash == nil {
		x.decHash = sha256.New()
	}
	sep := byte(',')
	if len(x.decisions) == 1 {
		sep = '['
	}
	o.Begin(append(x.decScratch[:0], sep), false)
	e.members(o)
	x.decScratch = o.End()
	x.decHash.Write(x.decScratch)
}

// decisionsDigest is decisions_digest_sha256 of the tape recorded so far.
func (x *execution) decisionsDigest() string {
	if x.decHash == nil {
		return hexSum([]byte("[]"))
	}
	x.decHash.Write([]byte("]"))
	return hex.EncodeToString(x.decHash.Sum(nil))
}

func (x *execution) refuseInvocation(code, detail string) {
	x.ledger.row(x.clock.nowText, "critical_violation", fStr("code", code), fStr("detail", detail))
	x.halt = StatusDeadlock
}

func (x *execution) invalidate(cause string, turn int, actionType any) {
	cleared := make([]string, 0, len(x.served))
	for t := range x.served {
		cleared = append(cleared, t)
	}
	slices.Sort(cleared)
	x.served = nil // an empty window (observations read a nil map as empty)
	if cause == "wake" {
		x.batches = 0
	}
	x.ledger.row(x.clock.nowText, "derived_context_invalidated", fInt("invocation_index", int64(x.invocations)), fInt("turn_index", int64(turn)),
		fStr("cause", cause), fAny("action_type", actionType), fStrs("cleared_tools", cleared))
}

func (x *execution) serveBatch(b *Retrieve, turn int) {
	remaining := x.plan.MaxRetrievalBatchesPerInvocation - x.batches
	if code, detail := x.batchProblem(b, remaining); code != "" {
		known := map[string]bool{}
		for _, q := range b.Requests {
			if _, ok := x.static.Catalogue[q.Tool]; ok {
				known[q.Tool] = true
			}
		}
		tools := make([]string, 0, len(known))
		for t := range known {
			tools = append(tools, t)
		}
		slices.Sort(tools)
		x.ledger.row(x.clock.nowText, "retrieval_refused", fInt("invocation_index", int64(x.invocations)), fInt("turn_index", int64(turn)),
			fInt("request_count", int64(len(b.Requests))), fStrs("requested_tools", tools), fStr("code", code), fStr("detail", detail))
		x.lastRej = &rejection{"retrieve", code, detail}
		return
	}
	tools := canonicalTools(b)
	batch := x.batches
	x.batches++
	asOf := x.clock.nowText
	results := x.state.Serve(tools, asOf)
	served := make(map[string]*ToolResult, len(x.served)+len(results))
	for t, r := range x.served {
		served[t] = r
	}
	x.served = served
	for pos, r := range results {
		if r.OK {
			x.served[r.Tool] = r
			x.readHistory[r.Tool] = r.RecordVersion
		}
		x.ledger.appendServed(x.clock.nowText, x.invocations, turn, batch, pos, r)
	}
}

func canonicalTools(b *Retrieve) []string {
	tools := make([]string, 0, len(b.Requests))
	for _, q := range b.Requests {
		if !slices.Contains(tools, q.Tool) {
			tools = append(tools, q.Tool)
		}
	}
	slices.Sort(tools)
	return tools
}

const budgetExhausted = "the retrieval batch budget for this invocation is spent; the bound is published on every observation and this is a refusal rather than a silently truncated read"

// batchProblem mirrors upstream's retrieval_batch_problem, in its order.
// Its sets are read off the requests in requestOrder (O(n log n) however
// many a model sends; nothing allocated for a batch of up to
// 2×MaxRequestsPerBatch requests without arguments).
func (x *execution) batchProblem(b *Retrieve, remaining int) (string, string) {
	for i, q := range b.Requests {
		if q.Tool == "" {
			return "MALFORMED_RETRIEVAL_REQUEST", fmt.Sprintf("request %d: a retrieval request must name a non-empty tool", i)
		}
		for k := range q.Arguments {
			if k == "" {
				return "MALFORMED_RETRIEVAL_REQUEST", fmt.Sprintf("request %d: a retrieval argument name must be a non-empty string", i)
			}
		}
	}
	if len(b.Requests) < 1 {
		return "EMPTY_RETRIEVAL_BATCH", "a retrieval batch carries at least one request; an empty one asks the environment for nothing and would be a turn spent on silence"
	}
	var scratch requestScratch
	reqs := b.Requests
	keys, order := scratch.sort(reqs)
	// In order, equal requests are adjacent, and so are a tool's requests.
	distinct := 0
	var conflict, unknown []string
	for n, i := range order {
		if n > 0 {
			p := order[n-1]
			if reqs[p].Tool == reqs[i].Tool {
				if keys[p] != keys[i] {
					distinct++
					if _, ok := x.static.Catalogue[reqs[i].Tool]; ok && !slices.Contains(conflict, reqs[i].Tool) {
						conflict = append(conflict, reqs[i].Tool)
					}
				}
				continue
			}
		}
		distinct++
		if _, ok := x.static.Catalogue[reqs[i].Tool]; !ok {
			unknown = append(unknown, reqs[i].Tool)
		}
	}
	if distinct > MaxRequestsPerBatch {
		return "RETRIEVAL_BATCH_TOO_LARGE", fmt.Sprintf("a retrieval batch carries at most %d distinct requests and this one carries %d", MaxRequestsPerBatch, distinct)
	}
	if len(conflict) > 0 { // in tool order
		return "CONFLICTING_RETRIEVAL_ARGUMENTS", fmt.Sprintf("the batch names %s more than once with different arguments; a duplicate collapses, but two argument sets under one tool name are two questions and the environment does not choose between them", python.Loose.StrList(conflict))
	}
	if len(unknown) > 0 {
		names := make([]string, 0, len(x.static.Catalogue))
		for t := range x.static.Catalogue {
			names = append(names, t)
		}
		slices.Sort(names)
		return "UNKNOWN_RETRIEVAL_TOOL", fmt.Sprintf("the batch names %d tool(s) outside the published catalogue; it publishes %s", len(unknown), python.Loose.StrList(names))
	}
	for _, q := range b.Requests {
		if len(q.Arguments) == 0 {
			continue
		}
		declared := x.static.Catalogue[q.Tool].Arguments
		var invented []string
		for k := range q.Arguments {
			if _, ok := declared[k]; !ok {
				invented = append(invented, k)
			}
		}
		if len(invented) > 0 {
			slices.Sort(invented)
			decl := make([]string, 0, len(declared))
			for k := range declared {
				decl = append(decl, k)
			}
			slices.Sort(decl)
			return "MALFORMED_RETRIEVAL_REQUEST", fmt.Sprintf("the %s request carries argument name(s) %s the catalogue does not publish; it publishes %s", python.Loose.Quote(q.Tool), python.Loose.StrList(invented), python.Loose.StrList(decl))
		}
	}
	if remaining <= 0 {
		return "RETRIEVAL_BUDGET_EXHAUSTED", budgetExhausted
	}
	return "", ""
}

// handle applies one outcome and reports whether the invocation is over.
func (x *execution) handle(d Decision) bool {
	switch o := d.(type) {
	case *Wait:
		return x.declareWait(o)
	case *Complete:
		return x.proposeTerminal(o)
	case *Ask:
		payload := map[string]any{
			"recipient_actor_id": o.RecipientActorID, "message_fixture_id": o.MessageFixtureID,
			"correlation_id": optStr(o.CorrelationID),
		}
		if !x.proposeAction(x.static.Hosted.Ask, payload, nil) {
			return false
		}
		return x.declareWait(o.Wait)
	case *Escalate:
		payload := map[string]any{
			"exception_type": o.ExceptionType, "approval_checkpoint_id": o.CheckpointID,
			"deadline_after_minutes": o.DeadlineAfterMinutes,
		}
		if !x.proposeAction(x.static.Hosted.Escalate, payload, o.EvidenceRefs) {
			return false
		}
		return x.declareWait(&Wait{
			Reason: "awaiting the exception checkpoint it just opened", WakeOn: []string{x.static.Hosted.EscalationResolved},
			FallbackAfterMinutes: Minutes(o.DeadlineAfterMinutes),
		})
	case *Act:
		x.proposeAction(o.ActionType, copyMap(o.Payload), o.EvidenceRefs)
		return false
	}
	return false
}

func (x *execution) declareWait(w *Wait) bool {
	var unknown []string
	for _, t := range w.WakeOn {
		if !slices.Contains(x.static.WakeEventTypes, t) && !slices.Contains(unknown, t) {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		x.refuseWait(WaitUnknownWakeType, fmt.Sprintf(
			"WAIT named wake event type(s) %s, which are not in this operation's published wake vocabulary %s; a wait is declared against the vocabulary the observation discloses, never against what this episode happens to have queued",
			python.Loose.StrList(unknown), python.Loose.StrList(x.static.WakeEventTypes)))
		return false
	}
	if x.state.ReplayFinal() {
		x.refuseWait(WaitAfterReplayFinal, "WAIT was declared after the operation became replay-final; a finished operation has nothing left to wake for")
		return true
	}
	x.wait = w
	fb := field{key: "fallback_at", kind: kindNull}
	if w.FallbackAfterMinutes != nil {
		at, sec, err := x.clock.shift(*w.FallbackAfterMinutes)
		if err != nil {
			x.fail(err)
			return true
		}
		x.fallbackAt = at
		x.fallbackSec = sec
		fb = fStr("fallback_at", at)
	}
	x.ledger.row(x.clock.nowText, "wait_declared", fStr("reason", w.Reason), fStrs("wake_on", w.WakeOn), fb)
	return true
}

func (x *execution) refuseWait(code, detail string) {
	x.ledger.row(x.clock.nowText, "wait_rejected", fStr("code", code), fStr("detail", detail))
	x.lastRej = &rejection{"wait", code, detail}
}

// readGuard mirrors upstream's _read_guard_problem.
func (x *execution) readGuard(key string, refs []string) (string, string) {
	required := x.dom.RequiredReads(key)
	if len(required) == 0 {
		return "", ""
	}
	var absent []string
	for _, t := range required {
		if _, ok := x.served[t]; !ok {
			absent = append(absent, t)
		}
	}
	if len(absent) > 0 {
		citedSet := map[string]bool{}
		for _, r := range refs {
			if x.claims[r] {
				citedSet[r] = true
			}
		}
		cited := slices.Sorted(maps.Keys(citedSet))
		var unverified []string
		for _, t := range absent {
			if x.static.Catalogue[t].Authority == AuthorityAuthoritativeVerification {
				unverified = append(unverified, t)
			}
		}
		if len(cited) > 0 && len(unverified) > 0 && !x.trigAuth {
			return ActedOnClaimWithoutRecord, fmt.Sprintf("%s cites %s, which is what the current non-authoritative event asserted, and the authoritative read(s) %s that would settle it were not served in this invocation; an event says someone asserted this and only a retrieved authoritative record says the record holds it", key, python.Loose.StrList(cited), python.Loose.StrList(unverified))
		}
		var prior []string
		for _, t := range absent {
			if _, ok := x.readHistory[t]; ok {
				prior = append(prior, t)
			}
		}
		if len(prior) > 0 {
			return StaleRetrievedRecord, fmt.Sprintf("%s rests on read(s) %s that were served earlier and have since been invalidated by a wake or by this agent's own accepted effect; the record has moved and was not read again", key, python.Loose.StrList(prior))
		}
		return ActionWithoutRetrieval, fmt.Sprintf("%s rests on read(s) %s, which this invocation never asked for; the action schema publishes %s and an agent is told its read set rather than discovering it by refusal", key, python.Loose.StrList(absent), python.Loose.StrList(required))
	}
	var moved []string
	for _, r := range x.state.Serve(required, x.clock.nowText) {
		if !r.OK || x.served[r.Tool].RecordVersion != r.RecordVersion {
			moved = append(moved, r.Tool)
		}
	}
	if len(moved) > 0 {
		slices.Sort(moved)
		return StaleRetrievedRecord, fmt.Sprintf("%s rests on read(s) %s whose record version moved between the read and the proposal; the exact version the agent was served is what it is held to, not the tool name alone", key, python.Loose.StrList(moved))
	}
	return "", ""
}

func (x *execution) proposeAction(actionType string, payload map[string]any, refs []string) bool {
	x.proposals++
	pid := fmt.Sprintf("proposal_%d", x.proposals)
	x.ledger.row(x.clock.nowText, "action_proposed", fStr("proposal_id", pid), fStr("action_type", actionType),
		fMapCopy("payload", payload), fStrs("evidence_refs", refs))
	var v Verdict
	if code, detail := x.readGuard(actionType, refs); code != "" {
		v = Refuse(code, detail)
	} else {
		v = x.state.ApplyAction(x.ctx, actionType, payload, slices.Clone(refs))
	}
	if !v.Accepted {
		x.ledger.row(x.clock.nowText, "action_rejected", fStr("proposal_id", pid), fStr("action_type", actionType),
			fStr("code", v.Code), fStr("detail", v.Detail))
		x.lastRej = &rejection{actionType, v.Code, v.Detail}
		return false
	}
	x.lastRej = nil
	x.ledger.row(x.clock.nowText, "effect_accepted", fStr("proposal_id", pid), fStr("action_type", actionType),
		fStr("code", v.Code), fAny("cycle_id", v.CycleID), fAny("bindings", v.bindingsTree()))
	x.invalidate("effect_accepted", x.turn, actionType)
	x.fireConditionals(TriggerOnAction, actionType, v.CycleID, v.Bindings)
	return true
}

func (x *execution) proposeTerminal(c *Complete) bool {
	x.ledger.row(x.clock.nowText, "terminal_proposed", fStr("reason", c.Reason), fStrs("evidence_refs", c.EvidenceRefs))
	var v Verdict
	if code, detail := x.readGuard(CompleteOutcomeKey, c.EvidenceRefs); code != "" {
		v = Refuse(code, detail)
	} else {
		v = x.state.ApplyTerminal(x.ctx, slices.Clone(c.EvidenceRefs))
	}
	if !v.Accepted {
		x.ledger.row(x.clock.nowText, "terminal_rejected", fStr("code", v.Code), fStr("detail", v.Detail))
		x.lastRej = &rejection{"complete", v.Code, v.Detail}
		return false
	}
	x.lastRej = nil
	x.fireConditionals(TriggerOnAction, CompleteOutcomeKey, v.CycleID, v.Bindings)
	return true
}

// RecordTypes is the closed trajectory vocabulary, in upstream's order.
var RecordTypes = []string{
	"event_observed", "event_audit_only", "event_rejected", "event_after_terminal", "agent_invoked",
	"agent_outcome", "outcome_rejected", "wait_declared", "wait_rejected", "wait_unresolved_at_horizon",
	"action_proposed", "action_rejected", "effect_accepted", "side_effect", "side_effect_failed",
	"checkpoint_opened", "checkpoint_resolved", "checkpoint_rejected", "obligation_created",
	"obligation_discharged", "obligation_cancelled", "obligation_breached", "timer_scheduled",
	"timer_cancelled", "terminal_proposed", "terminal_rejected", "provisional_close_entered",
	"operation_reopened", "terminal_accepted", "episode_ended", "critical_violation",
	"retrieval_served", "retrieval_refused", "derived_context_invalidated",
}

// NewTestContext returns a context over a fresh, unstarted episode of d
// whose state is st, for pack tests that call reducers directly. Rows it
// records and timers it arms go nowhere.
func NewTestContext(d Domain, st State) *Context {
	plan := d.Plan()
	x := &execution{dom: d, static: d.Static(), plan: plan, state: st, seen: map[string]bool{}}
	start, _ := ParseInstant(plan.StartsAt)
	x.clock = clock{start: start, now: start, nowText: plan.StartsAt}
	x.ledger.noRows = true
	x.ctx = &Context{x: x}
	return x.ctx
}
