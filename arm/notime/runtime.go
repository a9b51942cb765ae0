package notime

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/refusal"
)

// mutations are test-only seams (house style S8): every field is false in
// the shipped binary; mutation_test.go flips one at a time to show that the
// hand-authored fixture matrix and the independent verifier kill it.
type mutations struct {
	moveAcrossCut, finalityAsAudit, invokeOnPostCut, loseReopen, consumeOnRejection, blockOnDeadCause,
	noBlockOnLiveCause, activateFromPostCutAudit, untriggeredAsDelivery, reuseActivationID, cancelWrongActivation,
	identityCycle, dedupSemantic, mutateAfterFinal, leakFuture, alterPayload bool
}

var mut mutations

// ErrConfig is returned for an unusable run configuration.
var ErrConfig = refusal.Sentinel("notime/config")

// Config is one No-Time run.
type Config struct {
	Domain              engine.Domain
	Profile             Profile
	Plan                *notimewire.PlanV1
	Agent               engine.Agent
	AgentID, AgentKind  string
	OperationInstanceID string
}

type queued struct {
	ev    *notimewire.EventV1
	event *engine.Event
}

type activation struct {
	id, specKey string
	spec        *notimewire.CutSpecV1
}

type run struct {
	cfg    Config
	st     engine.State
	static *engine.Static
	ctx    *engine.Context

	queue        []*queued
	conditionals []*notimewire.EventV1
	used         map[string]bool
	active       *activation
	halt, code   string
	transitions  int64
	invocations  int64
	proposals    int
	completes    map[string]int64

	served   map[string]*engine.ToolResult
	history  map[string]string
	claims   map[string]bool
	trigAuth bool
	batches  int
	lastRej  *engine.Rejection

	rows      []map[string]any
	delivered []string // mutation dedupSemantic only
	lastAct   string   // mutation identityCycle only
	common    []string // digests of common entries, in order
	decisions []any
	err       error
}

// Host methods: the domain's view of the environment in this arm.

func (r *run) Now() string { return notimewire.Anchor }
func (r *run) Shift(int64) string {
	return notimewire.Anchor
}
func (r *run) DispatchFails(id string) bool { return r.cfg.Domain.Plan().DispatchFailures[id] }
func (r *run) Record(recordType string, payload map[string]any) {
	r.row(recordType, payload)
}
func (r *run) ScheduleTimer(eventID, eventType, _ string, _ int64, _ map[string]any, _ bool) {
	if eventType == r.cfg.Profile.FinalizationEventType {
		return // replaced by the explicit finality_cut transition
	}
	r.row("timer_obligation_removed", map[string]any{"event_type": eventType, "category": removedCategory(eventType)})
}
func (r *run) CancelTimer(eventID string) bool {
	if strings.HasPrefix(eventID, "timer_provisional_close:") && r.active != nil && !mut.loseReopen {
		id := r.active.id
		if mut.cancelWrongActivation {
			id = r.active.specKey
		}
		r.row("finality_activation_cancelled", map[string]any{"activation_id": id})
		r.active = nil
		return true
	}
	return false
}

func removedCategory(t string) string {
	switch {
	case strings.Contains(t, "deadline"):
		return "deadline_removed"
	case strings.Contains(t, "reminder"):
		return "reminder_removed"
	}
	return "follow_up_removed"
}

// noTimeState serves reads with the No-Time record-version domain.
type noTimeState struct{ engine.State }

func (s noTimeState) Serve(tools []string, asOf string) []*engine.ToolResult {
	out := s.State.Serve(tools, notimewire.Anchor)
	res := make([]*engine.ToolResult, len(out))
	for i, t := range out {
		c := *t
		c.AsOf = notimewire.Anchor
		c.RecordVersion = canon.SHA256Hex([]byte(notimewire.DomainRecordVersion + "\x00" + t.RecordVersion))[:len(t.RecordVersion)]
		res[i] = &c
	}
	return res
}

// NoTimeStatic is st with every positive policy *_minutes value
// canonicalised to 1 (allowlist row 7).
func NoTimeStatic(st *engine.Static) *engine.Static {
	pol := make(map[string]any, len(st.Policy))
	for k, v := range st.Policy {
		if n, ok := v.(int64); ok && n > 0 && strings.HasSuffix(k, "_minutes") && k != "horizon_minutes" {
			v = int64(1)
		}
		pol[k] = v
	}
	return &engine.Static{
		OperationID: st.OperationID, Policy: pol, Actors: st.Actors, MessageFixtureIDs: st.MessageFixtureIDs,
		ActionSchemas: st.ActionSchemas, WakeEventTypes: st.WakeEventTypes, Catalogue: st.Catalogue, RecordContract: st.RecordContract,
	}
}

// Run executes one No-Time episode.
func Run(cfg Config) (*notimewire.RunV1, error) {
	if cfg.Domain == nil || cfg.Plan == nil || cfg.Agent == nil {
		return nil, refusal.New(ErrConfig, "a No-Time run needs a domain, a compiled plan and an agent")
	}
	if !engine.ValidInstanceID(cfg.OperationInstanceID) {
		return nil, refusal.New(ErrConfig, "%q is not a well-formed operation instance id", cfg.OperationInstanceID)
	}
	if cfg.Plan.Protocol != notimewire.Protocol || cfg.Plan.MaxTransitions <= 0 {
		return nil, refusal.New(ErrConfig, "the plan is not a %s plan with a positive max_transitions", notimewire.Protocol)
	}
	r := &run{cfg: cfg, st: noTimeState{cfg.Domain.NewState()}, static: NoTimeStatic(cfg.Domain.Static()),
		used: map[string]bool{}, completes: map[string]int64{}, history: map[string]string{}, halt: notimewire.HaltRunning}
	r.ctx = engine.NewHostedContext(r)
	for i := range cfg.Plan.Events {
		ev := &cfg.Plan.Events[i]
		if ev.SourceClass == "conditional" {
			r.conditionals = append(r.conditionals, ev)
			continue
		}
		r.push(ev, nil, nil)
	}
	cfg.Agent.BeginEpisode(engine.AgentIdentity{OperationID: r.static.OperationID, OperationInstanceID: cfg.OperationInstanceID})
	r.row("episode_ended", map[string]any{"phase": "started"})
	r.loop()
	if r.err != nil {
		return nil, r.err
	}
	if pb, ok := cfg.Agent.(*engine.Playback); ok {
		if err := pb.CheckExhausted(); err != nil {
			return nil, err
		}
	}
	return r.finish()
}

func (r *run) fail(code, detail string) {
	if r.halt == notimewire.HaltRunning || r.halt == "" {
		r.halt, r.code = notimewire.HaltError, code
		r.row("integrity_finding", map[string]any{"code": code, "detail": detail})
	}
}

func (r *run) push(ev *notimewire.EventV1, cause any, bindings map[string]string) {
	if r.used[ev.EventID] {
		r.fail(notimewire.CodeDuplicate, fmt.Sprintf("event %q was already materialised", ev.EventID))
		return
	}
	r.used[ev.EventID] = true
	if mut.dedupSemantic {
		if slices.Contains(r.delivered, semanticOf(ev)) {
			return
		}
		r.delivered = append(r.delivered, semanticOf(ev))
	}
	payload := make(map[string]any, len(ev.Payload))
	for k, v := range ev.Payload {
		if n, ok := v.(int64); ok && mut.alterPayload && k == "amount_minor" {
			v = n + 1
		}
		payload[k] = v
	}
	for k, v := range bindings {
		if _, ok := payload[k]; ok {
			payload[k] = v
		}
	}
	r.queue = append(r.queue, &queued{ev: ev, event: &engine.Event{
		EventID: ev.EventID, EventType: ev.EventType, ActorID: ev.ActorID, At: notimewire.Anchor,
		Sequence: ev.AuthoredSequence, Payload: payload, TriggersAgent: ev.TriggersAgent, CausedBy: cause,
	}})
}

// rank is the finality epoch rank of a queued event under the active
// activation: 0 pre-finality (also every event the activation does not
// classify), 2 post-finality.
func (r *run) rank(q *queued) int {
	if r.active != nil && q.ev.FinalityRelations[r.active.specKey] == notimewire.PostFinality && !mut.moveAcrossCut {
		return 2
	}
	return 0
}

func (r *run) less(a, b *queued) bool {
	if ra, rb := r.rank(a), r.rank(b); ra != rb {
		return ra < rb
	}
	if a.ev.AuthoredSequence != b.ev.AuthoredSequence {
		return a.ev.AuthoredSequence < b.ev.AuthoredSequence
	}
	return a.ev.EventID < b.ev.EventID
}

func (r *run) first() int {
	best := -1
	for i, q := range r.queue {
		if best < 0 || r.less(q, r.queue[best]) {
			best = i
		}
	}
	return best
}

func (r *run) pop(i int) *queued {
	q := r.queue[i]
	r.queue = slices.Delete(r.queue, i, i+1)
	return q
}

func (r *run) loop() {
	for r.halt == notimewire.HaltRunning && r.err == nil {
		// Row 2.
		if r.transitions >= r.cfg.Plan.MaxTransitions && !r.st.ReplayFinal() {
			r.halt = notimewire.HaltHorizon
			r.row("integrity_finding", map[string]any{"code": notimewire.HaltHorizon, "detail": fmt.Sprintf("max_transitions %d reached", r.cfg.Plan.MaxTransitions)})
			return
		}
		// Rows 3 and 4.
		if r.st.ReplayFinal() {
			if len(r.queue) == 0 {
				r.halt = notimewire.HaltTerminal
				return
			}
			q := r.pop(r.first())
			r.transitions++
			if mut.mutateAfterFinal {
				r.st.ReduceEvent(r.ctx, q.event)
			}
			r.row("event_after_terminal", map[string]any{"event_id": q.ev.EventID, "event_type": q.ev.EventType, "actor_id": q.ev.ActorID, "mutating": false, "disposition": engine.DispositionPostTerminal})
			if mut.activateFromPostCutAudit {
				r.fire(engine.TriggerOnEvent, q.ev.EventType, q.event.Payload["cycle_id"], nil)
			}
			if mut.invokeOnPostCut && q.ev.TriggersAgent {
				r.invoke(q.event)
			}
			continue
		}
		if r.invocations > int64(r.cfg.Plan.MaxInvocations) {
			r.halt = notimewire.HaltDeadlock
			r.row("critical_violation", map[string]any{"code": "INVOCATION_LIMIT_EXCEEDED", "detail": fmt.Sprintf("the agent was invoked more than %d times", r.cfg.Plan.MaxInvocations)})
			return
		}
		i := r.first()
		if r.active != nil {
			if i >= 0 && (r.rank(r.queue[i]) == 0 || mut.finalityAsAudit) && !mut.noBlockOnLiveCause {
				r.deliver(r.pop(i)) // row 12
				continue
			}
			r.finalityCut() // rows 13, 14
			continue
		}
		if i >= 0 {
			r.deliver(r.pop(i)) // row 15
			continue
		}
		// Rows 16 and 17.
		r.halt = notimewire.HaltDeadlock
		r.row("deadlock", map[string]any{"unresolved_trigger_keys": canon.StringList(r.unresolved())})
	}
}

// unresolved is the sorted, distinct cause keys of the conditionals still
// registered (never nil).
func (r *run) unresolved() []string {
	keys := make([]string, 0, len(r.conditionals))
	for _, c := range r.conditionals {
		keys = append(keys, causeKey(c.Cause.Kind, c.Cause.Type, c.Cause.CycleID))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func (r *run) finalityCut() {
	a := r.active
	r.transitions++
	// Every conditional still registered is in the activation's partition
	// (§5.3: registered conditional events are members); none can block
	// here, because no pre-finality event is queued and no invocation is
	// active, so nothing can still produce its cause before the cut.
	keys := semanticKeys(r.cfg.Domain, r.cfg.Domain.Plan())
	remaining := r.conditionals[:0:0]
	for _, c := range r.conditionals {
		if mut.blockOnDeadCause {
			r.fail(notimewire.CodeReachMism, "a retained conditional is held blocking with no live pre-cut producer")
			return
		}
		if mut.untriggeredAsDelivery {
			r.push(c, "finality_cut", nil)
			r.deliver(r.pop(len(r.queue) - 1))
			continue
		}
		if mut.activateFromPostCutAudit && c.FinalityRelations[a.specKey] == notimewire.PostFinality {
			remaining = append(remaining, c) // kept open for its post-cut cause
			continue
		}
		r.row("conditional_closed", map[string]any{"event_id": c.EventID, "conditional_semantic_key": keys[c.EventID],
			"activation_id": a.id, "reason": notimewire.UntriggeredTag})
	}
	r.conditionals = remaining
	cycle := optS(a.spec.CompleteCycleID)
	if cycle == nil {
		if c, ok := r.st.Canonical()["current_cycle_id"].(string); ok {
			cycle = c
		}
	}
	ev := &engine.Event{EventID: "finality_cut:" + a.id, EventType: r.cfg.Profile.FinalizationEventType, ActorID: "scheduler",
		At: notimewire.Anchor, Payload: map[string]any{"cycle_id": cycle}, TriggersAgent: false, CausedBy: "finality_cut"}
	v := r.st.ReduceEvent(r.ctx, ev)
	r.row("finality_cut", map[string]any{"activation_id": a.id, "finalized": v.Accepted, "code": v.Code})
	r.active = nil
}

func (r *run) deliver(q *queued) {
	r.transitions++
	ev := q.event
	v := r.st.ReduceEvent(r.ctx, ev)
	if !v.Accepted {
		r.row("event_rejected", map[string]any{"event_id": ev.EventID, "event_type": ev.EventType, "actor_id": ev.ActorID,
			"code": v.Code, "detail": v.Detail, "disposition": engine.DispositionRejected})
		if mut.consumeOnRejection {
			r.fire(engine.TriggerOnEvent, ev.EventType, ev.Payload["cycle_id"], nil)
		}
		return
	}
	rt, disp := "event_observed", engine.DispositionAccepted
	if !ev.TriggersAgent {
		rt, disp = "event_audit_only", engine.DispositionAudit
	}
	r.row(rt, map[string]any{"event_id": ev.EventID, "event_type": ev.EventType, "actor_id": ev.ActorID,
		"code": v.Code, "observational": v.Observational, "disposition": disp})
	cycle := v.CycleID
	if s, ok := cycle.(string); !ok || s == "" {
		cycle = nil
		if c, ok := ev.Payload["cycle_id"].(string); ok {
			cycle = c
		}
	}
	r.fire(engine.TriggerOnEvent, ev.EventType, cycle, v.Bindings)
	if ev.TriggersAgent && !r.st.ReplayFinal() {
		r.invoke(ev)
	}
}

func (r *run) fire(kind, typ string, cycle any, bindings map[string]string) {
	remaining := r.conditionals[:0:0]
	var batch []*notimewire.EventV1
	for _, c := range r.conditionals {
		t := engine.Trigger{Kind: c.Cause.Kind, Type: c.Cause.Type, CycleID: c.Cause.CycleID}
		if t.Matches(kind, typ, cycle) {
			batch = append(batch, c)
			continue
		}
		remaining = append(remaining, c)
	}
	r.conditionals = remaining
	for _, c := range batch {
		r.push(c, kind+":"+typ, bindings)
	}
}

func (r *run) invoke(trigger *engine.Event) {
	r.invocations++
	r.lastRej = nil
	env := engine.EventEnvelope(r.cfg.Domain, trigger)
	r.trigAuth = env != nil && env.IsAuthoritative
	r.claims = engine.ClaimValues(trigger)
	r.row("agent_invoked", map[string]any{"invocation_index": r.invocations, "trigger_event_id": trigger.EventID,
		"trigger_event_type": trigger.EventType, "trigger_event_authority": env.Authority,
		"trigger_is_authoritative": r.trigAuth, "trigger_claim_values": canon.StringList(slices.Sorted(maps.Keys(r.claims)))})
	r.invalidate("wake", 0, nil)
	r.batches = 0
	p := r.cfg.Plan
	maxTurns := int(p.MaxTurnsPerInvocation)
	callLimit := maxTurns + int(p.MaxRetrievalBatchesPerInvocation) + 1
	business, turn := 0, 0
	for business < maxTurns {
		if turn >= callLimit {
			r.critical("INVOCATION_CALL_LIMIT_EXCEEDED", fmt.Sprintf("the agent was called %d time(s) in one invocation", turn))
			return
		}
		if r.transitions >= p.MaxTransitions {
			return // row 2 halts at the next step
		}
		r.transitions++
		phase := r.st.Phase()
		if mut.leakFuture {
			phase = fmt.Sprintf("%s|queued=%d", phase, len(r.queue))
		}
		obs := engine.NewObservation(r.static, engine.ObservationFields{
			OperationInstanceID: r.cfg.OperationInstanceID, OperationID: r.static.OperationID, Now: notimewire.Anchor,
			Phase: phase, InvocationIndex: int(r.invocations), TurnIndex: turn, Event: env, LastRejection: r.lastRej,
			Served: r.served, BatchBudgetRemaining: int(p.MaxRetrievalBatchesPerInvocation) - r.batches,
		})
		d, err := r.cfg.Agent.Decide(obs)
		if err != nil {
			r.err = err
			return
		}
		rec := map[string]any{"kind": decision.KindMalformed}
		if d != nil {
			rec = d.Record()
		}
		r.decisions = append(r.decisions, map[string]any{"invocation_index": r.invocations, "turn_index": int64(turn),
			"observation_digest_sha256": obs.Digest(), "outcome": rec})
		turn++
		if b, ok := d.(*engine.Retrieve); ok {
			r.serve(b, turn-1)
			continue
		}
		business++
		if prob := engine.ContractProblem(d); prob != "" {
			r.row("outcome_rejected", map[string]any{"invocation_index": r.invocations, "turn_index": int64(turn - 1),
				"code": engine.MalformedOutcomeCode, "detail": prob})
			r.lastRej = &engine.Rejection{ActionType: "<malformed outcome>", Code: engine.MalformedOutcomeCode, Detail: prob}
			continue
		}
		r.row("agent_outcome", map[string]any{"invocation_index": r.invocations, "turn_index": int64(turn - 1), "outcome": rec})
		if r.handle(d, turn-1) || r.halt != notimewire.HaltRunning {
			return
		}
	}
	r.critical("INVOCATION_TURN_LIMIT_EXCEEDED", fmt.Sprintf("the agent produced %d outcomes in one invocation without waiting, escalating or completing", maxTurns))
}

func (r *run) critical(code, detail string) {
	r.row("critical_violation", map[string]any{"code": code, "detail": detail})
	r.halt = notimewire.HaltDeadlock
}

func (r *run) invalidate(cause string, turn int, actionType any) {
	cleared := canon.StringList(slices.Sorted(maps.Keys(r.served)))
	r.served = nil
	r.row("derived_context_invalidated", map[string]any{"invocation_index": r.invocations, "turn_index": int64(turn),
		"cause": cause, "action_type": actionType, "cleared_tools": cleared})
}

func (r *run) serve(b *engine.Retrieve, turn int) {
	remaining := int(r.cfg.Plan.MaxRetrievalBatchesPerInvocation) - r.batches
	if code, detail := engine.BatchProblem(r.static, b, remaining); code != "" {
		r.row("retrieval_refused", map[string]any{"invocation_index": r.invocations, "turn_index": int64(turn),
			"request_count": int64(len(b.Requests)), "code": code, "detail": detail})
		r.lastRej = &engine.Rejection{ActionType: "retrieve", Code: code, Detail: detail}
		return
	}
	batch := r.batches
	r.batches++
	results := r.st.Serve(engine.CanonicalTools(b), notimewire.Anchor)
	served := make(map[string]*engine.ToolResult, len(r.served)+len(results))
	maps.Copy(served, r.served)
	r.served = served
	for pos, x := range results {
		if x.OK {
			r.served[x.Tool] = x
			r.history[x.Tool] = x.RecordVersion
		}
		r.row("retrieval_served", map[string]any{"invocation_index": r.invocations, "turn_index": int64(turn),
			"batch_index": int64(batch), "request_index": int64(pos), "initiated_by": "agent", "tool": x.Tool, "source": x.Source, "authority": x.Authority,
			"record_id": x.RecordID, "record_version": x.RecordVersion, "as_of": x.AsOf, "schema_id": x.SchemaID,
			"records": x.Records, "ok": x.OK})
	}
}

func (r *run) guard(key string, refs []string) (string, string) {
	return engine.ReadGuard(engine.GuardInput{Domain: r.cfg.Domain, Static: r.static, State: r.st, Now: notimewire.Anchor,
		Served: r.served, History: r.history, Claims: r.claims, TrigAuth: r.trigAuth}, key, refs)
}

// handle applies one business outcome; it reports whether the invocation
// is over.
func (r *run) handle(d engine.Decision, turn int) bool {
	switch o := d.(type) {
	case *engine.Wait:
		return r.yield(o)
	case *engine.Ask:
		payload := map[string]any{"recipient_actor_id": o.RecipientActorID, "message_fixture_id": o.MessageFixtureID, "correlation_id": optS(o.CorrelationID)}
		if !r.propose("send_message", payload, nil, turn) {
			return false
		}
		return r.yield(o.Wait)
	case *engine.Escalate:
		r.row("deadline_removed", map[string]any{"field": "deadline_after_minutes", "canonical": int64(1)})
		payload := map[string]any{"exception_type": o.ExceptionType, "approval_checkpoint_id": o.CheckpointID, "deadline_after_minutes": int64(1)}
		if !r.propose("request_exception_resolution", payload, o.EvidenceRefs, turn) {
			return false
		}
		r.row("wait_removed", map[string]any{"wake_on": canon.StringList([]string{"operator_exception_resolved"}), "fallback_after_minutes": int64(1)})
		return true
	case *engine.Act:
		payload := make(map[string]any, len(o.Payload))
		maps.Copy(payload, o.Payload)
		if n, ok := payload["deadline_after_minutes"].(int64); ok && n > 0 {
			payload["deadline_after_minutes"] = int64(1)
		}
		r.propose(o.ActionType, payload, o.EvidenceRefs, turn)
		return false
	case *engine.Complete:
		return r.complete(o)
	}
	return false
}

// yield is WAIT in this arm: validated against the published wake
// vocabulary, recorded as wait_removed, and the invocation ends.
func (r *run) yield(w *engine.Wait) bool {
	var unknown []string
	for _, t := range w.WakeOn {
		if !slices.Contains(r.static.WakeEventTypes, t) && !slices.Contains(unknown, t) {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		detail := fmt.Sprintf("WAIT named wake event type(s) %v outside the published wake vocabulary", unknown)
		r.row("wait_rejected", map[string]any{"code": engine.WaitUnknownWakeType, "detail": detail})
		r.lastRej = &engine.Rejection{ActionType: "wait", Code: engine.WaitUnknownWakeType, Detail: detail}
		return false
	}
	if r.st.ReplayFinal() {
		r.row("wait_rejected", map[string]any{"code": engine.WaitAfterReplayFinal, "detail": "WAIT after replay-final"})
		return true
	}
	var fb any
	if w.FallbackAfterMinutes != nil {
		fb = int64(1)
	}
	r.row("wait_removed", map[string]any{"wake_on": canon.StringList(w.WakeOn), "fallback_after_minutes": fb})
	return true
}

func (r *run) propose(actionType string, payload map[string]any, refs []string, turn int) bool {
	r.proposals++
	pid := fmt.Sprintf("proposal_%d", r.proposals)
	r.row("action_proposed", map[string]any{"proposal_id": pid, "action_type": actionType, "payload": payload, "evidence_refs": canon.StringList(refs)})
	var v engine.Verdict
	if code, detail := r.guard(actionType, refs); code != "" {
		v = engine.Refuse(code, detail)
	} else {
		v = r.st.ApplyAction(r.ctx, actionType, r.domainPayload(actionType, payload), slices.Clone(refs))
	}
	if !v.Accepted {
		r.row("action_rejected", map[string]any{"proposal_id": pid, "action_type": actionType, "code": v.Code, "detail": v.Detail})
		r.lastRej = &engine.Rejection{ActionType: actionType, Code: v.Code, Detail: v.Detail}
		return false
	}
	r.lastRej = nil
	r.row("effect_accepted", map[string]any{"proposal_id": pid, "action_type": actionType, "code": v.Code, "cycle_id": v.CycleID, "bindings": bindingsTree(v.Bindings)})
	r.invalidate("effect_accepted", turn, actionType)
	r.fire(engine.TriggerOnAction, actionType, v.CycleID, v.Bindings)
	return true
}

func bindingsTree(b map[string]string) map[string]any {
	out := make(map[string]any, len(b))
	for k, s := range b {
		out[k] = s
	}
	return out
}

func (r *run) complete(c *engine.Complete) bool {
	r.row("terminal_proposed", map[string]any{"reason": c.Reason, "evidence_refs": canon.StringList(c.EvidenceRefs)})
	var v engine.Verdict
	if code, detail := r.guard(engine.CompleteOutcomeKey, c.EvidenceRefs); code != "" {
		v = engine.Refuse(code, detail)
	} else {
		preState := r.commonDigest()
		predecessor := r.lastCommon()
		v = r.st.ApplyTerminal(r.ctx, slices.Clone(c.EvidenceRefs))
		if v.Accepted && !r.st.ReplayFinal() {
			r.activate(c, v, preState, predecessor)
		}
	}
	if !v.Accepted {
		r.row("terminal_rejected", map[string]any{"code": v.Code, "detail": v.Detail})
		r.lastRej = &engine.Rejection{ActionType: "complete", Code: v.Code, Detail: v.Detail}
		return false
	}
	r.lastRej = nil
	r.fire(engine.TriggerOnAction, engine.CompleteOutcomeKey, v.CycleID, v.Bindings)
	return true
}

// activate instantiates the cut specification matching an accepted
// provisional COMPLETE, deriving proposal, effect, occurrence and
// activation identities in the protocol's one-way order.
func (r *run) activate(c *engine.Complete, v engine.Verdict, preState, predecessor string) {
	cyc, _ := v.CycleID.(string)
	var spec *notimewire.CutSpecV1
	for i := range r.cfg.Plan.FinalityCutSpecs {
		s := &r.cfg.Plan.FinalityCutSpecs[i]
		if s.CompleteCycleID != nil && *s.CompleteCycleID == cyc {
			spec = s
		}
		if s.CompleteCycleID == nil && spec == nil {
			spec = s
		}
	}
	if spec == nil {
		r.fail(notimewire.CodeIntegrity, "no finality cut specification matches the accepted COMPLETE")
		return
	}
	point := spec.CompleteCommonPointKey
	proposal := digestOf(notimewire.DomainProposalKey, map[string]any{"common_point_key": point, "outcome_kind": decision.KindComplete,
		"normalized_action_or_terminal_payload": map[string]any{}, "evidence_refs": canon.StringList(c.EvidenceRefs)})
	effectFields := map[string]any{"proposal_key": proposal, "normalized_bindings": map[string]any{"cycle_id": v.CycleID},
		"pre_effect_common_state_digest": preState}
	if mut.identityCycle && r.lastAct != "" {
		effectFields["activation_id"] = r.lastAct
	}
	effect := digestOf(notimewire.DomainEffectKey, effectFields)
	r.completes[point]++
	occ := digestOf(notimewire.DomainCompleteOccurrence, map[string]any{"common_point_key": point, "proposal_key": proposal,
		"accepted_effect_key": effect, "predecessor_common_transition_key": predecessor,
		"accepted_complete_ordinal_at_common_point": r.completes[point]})
	id := digestOf(notimewire.DomainActivation, map[string]any{"complete_occurrence_key": occ, "accepted_effect_key": effect,
		"provisional_close_common_cause_key": spec.ProvisionalCloseCommonCauseKey})
	if mut.reuseActivationID {
		id = digestOf(notimewire.DomainActivation, map[string]any{"provisional_close_common_cause_key": spec.ProvisionalCloseCommonCauseKey})
	}
	r.lastAct = id
	r.active = &activation{id: id, specKey: spec.ProvisionalCloseCommonCauseKey, spec: spec}
	r.row("finality_activation", map[string]any{"activation_id": id, "complete_occurrence_key": occ, "accepted_effect_key": effect,
		"proposal_key": proposal, "provisional_close_common_cause_key": spec.ProvisionalCloseCommonCauseKey})
}

func (r *run) row(recordType string, payload map[string]any) {
	payload["index"] = int64(len(r.rows))
	payload["record_type"] = recordType
	payload["transition"] = r.transitions
	r.rows = append(r.rows, payload)
	if e := commonEntry(payload); e != nil {
		d, err := canon.Digest(map[string]any{"domain": notimewire.DomainEntry, "kind": e.Kind, "fields": e.Fields})
		if err != nil {
			r.fail(notimewire.CodeIntegrity, "a common entry is not canonical: "+err.Error())
			return
		}
		r.common = append(r.common, d)
	}
}

func (r *run) lastCommon() string {
	if len(r.common) == 0 {
		return strings.Repeat("0", 64)
	}
	return r.common[len(r.common)-1]
}

func (r *run) commonDigest() string {
	d, _ := canon.Digest(map[string]any{"domain": notimewire.DomainEntry, "entries": canon.StringList(r.common)})
	return d
}

func (r *run) finish() (*notimewire.RunV1, error) {
	r.row("episode_ended", map[string]any{"phase": "ended", "halt": r.halt, "invocations": r.invocations})
	final := r.st.Canonical()
	out := &notimewire.RunV1{
		Contract: notimewire.RunContract, Protocol: notimewire.Protocol, Arm: notimewire.ArmNoTime,
		OperationID: r.static.OperationID, ScenarioID: r.cfg.Domain.Plan().Meta.ScenarioID, SpecDigest: r.cfg.Domain.Plan().Meta.SpecDigest,
		OperationInstanceID: r.cfg.OperationInstanceID, AgentID: r.cfg.AgentID, AgentKind: r.cfg.AgentKind,
		Plan: *r.cfg.Plan, Halt: r.halt, HaltCode: r.code, TerminalOutcome: r.st.TerminalOutcome(), ReplayFinal: r.st.ReplayFinal(),
		TransitionCount: r.transitions, Invocations: r.invocations, Trajectory: r.rows, Decisions: r.decisions, FinalState: final,
		UnresolvedTriggers: r.unresolved(),
	}
	if out.Decisions == nil {
		out.Decisions = []any{}
	}
	var err error
	if out.PlanDigest, err = notimerecord.PlanDigest(r.cfg.Plan); err != nil {
		return nil, err
	}
	rows := make([]any, len(r.rows))
	for i, x := range r.rows {
		rows[i] = x
	}
	if out.TrajectoryDigest, err = canon.Digest(rows); err != nil {
		return nil, refusal.Wrap(ErrConfig, err, "trajectory")
	}
	if out.FinalStateDigest, err = canon.Digest(final); err != nil {
		return nil, refusal.Wrap(ErrConfig, err, "final state")
	}
	if out.DecisionsDigest, err = canon.Digest(out.Decisions); err != nil {
		return nil, refusal.Wrap(ErrConfig, err, "decisions")
	}
	return out, nil
}

// domainPayload is the payload the unchanged domain reducer is handed: a
// canonicalised duration field (1) restored to the Full policy value the
// guard holds it to (the duration has no semantics in this arm).
func (r *run) domainPayload(actionType string, payload map[string]any) map[string]any {
	out := make(map[string]any, len(payload))
	for k, v := range payload {
		if full, ok := r.cfg.Profile.DurationFields[actionType+"."+k]; ok {
			if n, isInt := v.(int64); isInt && n > 0 {
				v = full
			}
		}
		out[k] = v
	}
	return out
}

func semanticOf(ev *notimewire.EventV1) string {
	b, _ := canon.JCS(map[string]any{"type": ev.EventType, "payload": ev.Payload})
	return string(b)
}
