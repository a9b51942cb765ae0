package maintenance

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/python"
)

// Message fixtures with a state meaning.
const (
	MsgCompletionNotice = "msg_completion_notice"
	MsgTransferNotice   = "msg_transfer_notice"
	MsgApprovalReminder = "msg_approval_reminder"
	MsgRevisitComplete  = "msg_revisit_complete"
	MsgCannotProceed    = "msg_cannot_proceed"
)

// Checkpoint types.
const (
	CheckpointApproval  = "repair_quote_approval"
	CheckpointException = "maintenance_exception_resolution"
)

var exceptionResolutions = []string{"TAKE_OWNERSHIP", "AUTHORISE_ALTERNATIVE", "CANCEL_OPERATION"}

// Operation is one scenario of the lettings maintenance operation, ready to
// run: it implements [engine.Domain].
type Operation struct {
	spec     *Spec
	scenario *Scenario
	plan     *engine.Plan
	static   *engine.Static
	versions versionMemo
}

var (
	_ engine.Domain       = (*Operation)(nil)
	_ engine.StateEncoder = (*runState)(nil)
)

// NewOperation binds a loaded spec to one of its scenarios. The spec's
// identity is verified first ([ErrIdentityMismatch]).
func NewOperation(spec *Spec, scenarioID string) (*Operation, error) {
	if err := spec.Verify(); err != nil {
		return nil, err
	}
	return bind(spec, scenarioID)
}

// bindAll binds a spec whose identity is established to each of
// scenarioIDs, keyed by id.
func bindAll(spec *Spec, scenarioIDs []string) (map[string]*Operation, error) {
	ops := make(map[string]*Operation, len(scenarioIDs))
	for _, id := range scenarioIDs {
		op, err := bind(spec, id)
		if err != nil {
			return nil, err
		}
		ops[id] = op
	}
	return ops, nil
}

// bind is NewOperation after the spec's identity is verified.
func bind(spec *Spec, scenarioID string) (*Operation, error) {
	sc, err := spec.Scenario(scenarioID)
	if err != nil {
		return nil, err
	}
	op := &Operation{spec: spec, scenario: sc}
	op.plan = op.buildPlan()
	op.static = op.buildStatic()
	return op, nil
}

// Spec is the operation's spec.
func (op *Operation) Spec() *Spec { return op.spec }

// Scenario is the scenario this operation runs.
func (op *Operation) Scenario() *Scenario { return op.scenario }

func (op *Operation) buildPlan() *engine.Plan {
	p := &engine.Plan{
		StartsAt:                         op.scenario.StartsAt,
		HorizonMinutes:                   op.spec.Policy.HorizonMinutes,
		MaxTurnsPerInvocation:            int(op.spec.Policy.MaxTurnsPerInvocation),
		MaxRetrievalBatchesPerInvocation: int(op.spec.Policy.MaxRetrievalBatchesPerInvocation),
		MaxInvocations:                   200,
		DispatchFailures:                 map[string]bool{},
		Meta: engine.ScenarioMeta{
			OperationID: op.spec.OperationID, ScenarioID: op.scenario.ID,
			SemanticScenarioID: op.spec.SemanticScenarioID, ScenarioLabel: op.scenario.Label,
			ExpectedTerminal: op.scenario.ExpectedTerminal, SpecDigest: op.spec.Digest,
			Operation: op.spec.IdentityPayload(),
		},
	}
	for _, f := range op.scenario.DispatchFailures {
		p.DispatchFailures[f] = true
	}
	for _, e := range op.scenario.Events {
		p.Events = append(p.Events, engine.PlannedEvent{
			EventID: e.EventID, EventType: e.Type, ActorID: e.Actor, Sequence: e.Sequence,
			Payload: deepCopyMap(e.Payload), TriggersAgent: e.TriggersAgent, At: e.At,
			Trigger: e.Trigger, DelayMinutes: e.DelayMinutes,
		})
	}
	return p
}

func (op *Operation) buildStatic() *engine.Static {
	pol := op.spec.Policy
	actors := map[string]any{}
	for id, a := range op.spec.Actors {
		actors[id] = a.Role
	}
	schemas := map[string]map[string]any{}
	agent := op.spec.Actors["agent"]
	for _, at := range ActionTypes { // the actions the agent holds, and complete (no payload)
		if at != engine.CompleteOutcomeKey && (agent == nil || !agent.Holds(at)) {
			continue
		}
		s := actionPayloadSchemas()[at]
		schemas[at] = map[string]any{
			"required": stringsTree(s.required), "optional": stringsTree(s.optional),
			"reads": readsPart(at), "evidence_refs": evidencePart(at),
		}
	}
	cat := map[string]engine.CatalogueEntry{}
	for _, t := range Tools {
		cat[t.Name] = engine.CatalogueEntry{Source: t.Source, Authority: t.Authority, SchemaID: t.SchemaID(), Arguments: map[string]any{}}
	}
	return &engine.Static{
		OperationID: op.spec.OperationID,
		Policy: map[string]any{
			"currency": pol.Currency, "issue_classification": pol.IssueClassification,
			"approval_threshold_minor": pol.ApprovalThresholdMinor, "approval_reminder_after_minutes": pol.ApprovalReminderAfterMinutes,
			"approval_deadline_after_minutes": pol.ApprovalDeadlineAfterMinutes, "approval_validity_minutes": pol.ApprovalValidityMinutes,
			"provisional_close_minutes": pol.ProvisionalCloseMinutes, "visit_followup_after_minutes": pol.VisitFollowupAfterMinutes,
			"completion_notice_within_minutes": pol.CompletionNoticeWithinMinutes,
		},
		Actors:            actors,
		MessageFixtureIDs: slices.Sorted(maps.Keys(op.spec.MessageFixtures)),
		ActionSchemas:     schemas,
		WakeEventTypes:    WakeEventTypes,
		Catalogue:         cat,
		RecordContract:    []any{RecordIdentitySuffix, RecordVersionContext, RecordVersionAlgorithm, int64(RecordVersionLength)},
		Hosted:            engine.HostedTypes{Ask: "send_message", Escalate: "request_exception_resolution", EscalationResolved: "operator_exception_resolved"},
	}
}

// Plan implements [engine.Domain].
func (op *Operation) Plan() *engine.Plan { return op.plan }

// Static implements [engine.Domain].
func (op *Operation) Static() *engine.Static { return op.static }

// RequiredReads implements [engine.Domain].
func (op *Operation) RequiredReads(key string) []string { return RequiredReads(key) }

// EventAuthority implements [engine.Domain]: derived from the actor's role.
func (op *Operation) EventAuthority(actorID, eventType string) string {
	if a := op.spec.Actors[actorID]; a != nil {
		if auth, ok := RoleAuthority[a.Role]; ok {
			return auth
		}
	}
	return engine.AuthorityActorClaim
}

// versionMemo remembers served records bytes and their record version
// across the episodes of one operation: the version is a function of the
// bytes alone, and every execution of a scenario serves many of the same
// records (the determinism self-check's rerun serves exactly the first
// execution's), so a version is hashed, and its bytes copied, once per
// distinct bytes rather than once per serve. It is safe for concurrent
// episodes, and bounded: past maxMemoVersions distinct records it stops
// remembering and only copies and hashes.
type versionMemo struct {
	mu sync.Mutex
	m  map[string]memoEntry
}

// memoEntry is one remembered record: its bytes (read-only, shared by every
// episode that serves them) and its version.
type memoEntry struct {
	json    []byte
	version string
}

// maxMemoVersions bounds the memo: the gate's eleven episodes serve about a
// hundred distinct records over all three scenarios, and at the bound an
// operation holds a few megabytes of them (each kept as key and bytes).
const maxMemoVersions = 1024

// of returns a read-only copy of recordsJSON, which the caller may then
// overwrite, and engine.VersionOf(recordsJSON, RecordVersionLength).
func (vm *versionMemo) of(recordsJSON []byte) ([]byte, string) {
	vm.mu.Lock()
	e, ok := vm.m[string(recordsJSON)]
	vm.mu.Unlock()
	if ok {
		return e.json, e.version
	}
	e = memoEntry{slices.Clone(recordsJSON), engine.VersionOf(recordsJSON, RecordVersionLength)}
	vm.mu.Lock()
	if vm.m == nil {
		vm.m = make(map[string]memoEntry, 256)
	}
	if len(vm.m) < maxMemoVersions {
		vm.m[string(e.json)] = e
	}
	vm.mu.Unlock()
	return e.json, e.version
}

// NewState implements [engine.Domain].
func (op *Operation) NewState() engine.State {
	return &runState{op: op, s: newState(op.spec.HiddenState), dirty: tAll, roots: make([]rootCache, len(ObservableRoots))}
}

// runState is one episode's record plus the operation it belongs to.
type runState struct {
	op    *Operation
	s     *opState
	dirty uint8 // tools whose records may have changed since last served (bit per Tools index)
	cache [8]*toolCache
	roots []rootCache // by rootIndex
	buf   []byte
	jsBuf []byte // Serve's records encoding scratch
	enc   engine.Members
}

type toolCache struct {
	records map[string]any
	json    []byte
	version string
	gens    []uint32           // the generation of each root (sorted) the records were built from
	last    *engine.ToolResult // the result last served, reused at the same instant
}

// Tool bits for dirty tracking, in [Tools] order.
const (
	tCase uint8 = 1 << iota
	tAuth
	tBilling
	tCheckpoints
	tComms
	tObligations
	tQuotes
	tEvents
	tAll uint8 = 0xff
)

// touch marks the tools whose records a reducer or handler may change as
// dirty: t, or every tool for an event or action type the operation does
// not know.
func (r *runState) touch(t uint8, known bool) {
	if !known {
		t = tAll
	}
	r.dirty |= t
}

func (r *runState) Phase() string     { return r.s.phase }
func (r *runState) ReplayFinal() bool { return r.s.replayFinal }
func (r *runState) TerminalOutcome() any {
	if r.s.terminal == nil {
		return nil
	}
	return r.s.terminal["outcome"]
}
func (r *runState) Canonical() map[string]any { return r.s.canonical(&r.enc) }

// AppendCanonical implements [engine.StateEncoder]: the canonical JSON of
// Canonical(), written directly from the state.
func (r *runState) AppendCanonical(dst []byte) []byte {
	b := r.s.appendCanonical(dst)
	if verifyCache != nil {
		verifyCache.final(r, b[len(dst):])
	}
	return b
}

func bindings(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func visitBindings(c *cycle) map[string]string {
	if c.visitID == nil {
		return map[string]string{}
	}
	return bindings("visit_id", *c.visitID, "related_visit_id", *c.visitID)
}

// ReduceEvent implements [engine.State].
func (r *runState) ReduceEvent(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	kind, known := events[ev.EventType]
	r.touch(kind.touches, known)
	actor := r.op.spec.Actors[ev.ActorID]
	if actor == nil {
		return engine.Refuse("UNKNOWN_ACTOR", fmt.Sprintf("actor %s is not in the registry", python.Loose.Quote(ev.ActorID)))
	}
	if !known {
		return engine.Refuse("UNKNOWN_EVENT_TYPE", fmt.Sprintf("%s has no reducer in this operation", python.Loose.Quote(ev.EventType)))
	}
	if !actor.Holds(kind.authority) {
		return engine.Refuse("EVENT_ACTOR_LACKS_AUTHORITY", fmt.Sprintf(
			"actor %s does not hold %s, so it cannot bring about %s; provenance is derived from the actor registry and is re-checked where the mutation would happen",
			python.Loose.Quote(ev.ActorID), python.Loose.Quote(kind.authority), python.Loose.Quote(ev.EventType)))
	}
	if p, _ := payloadProblemAt(eventPayloadSchemas()[ev.EventType], ev.Payload, "event ", ev.EventID, ev.EventType); p != "" {
		return engine.Refuse("MALFORMED_EVENT_PAYLOAD", p)
	}
	return kind.reduce(r, ctx, ev)
}

func str(p map[string]any, k string) string {
	s, _ := p[k].(string)
	return s
}

func i64(p map[string]any, k string) int64 {
	n, _ := p[k].(int64)
	return n
}

// past reports whether the episode's clock is past instant (the zero
// instant when it does not parse).
func past(ctx *engine.Context, instant string) bool {
	now, _ := engine.ParseInstant(ctx.Now())
	t, _ := engine.ParseInstant(instant)
	return now > t
}

func (r *runState) reduceIssueReported(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s := r.s
	if s.issueID != nil {
		return engine.Refuse("DUPLICATE_ISSUE", "this operation already has a reported issue")
	}
	classification := str(ev.Payload, "classification")
	if classification != r.op.spec.Policy.IssueClassification {
		return engine.Refuse("UNSUPPORTED_CLASSIFICATION", fmt.Sprintf("%s is not the classification this operation handles", python.Loose.Quote(classification)))
	}
	cid := str(ev.Payload, "cycle_id")
	s.issueID = sp(str(ev.Payload, "issue_id"))
	s.classification = sp(classification)
	s.cycles.put(cid, &cycle{id: cid, kind: cycleDiagnostic, visitStatus: visitNone})
	s.currentCycleID = sp(cid)
	s.phase = "ACTIVE"
	return engine.Accept("", cid, nil)
}

func (r *runState) reduceVisitResponse(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	c := r.s.cycleForVisit(str(ev.Payload, "visit_id"))
	if c == nil {
		return engine.Refuse("UNKNOWN_VISIT", fmt.Sprintf("no visit %s was ever requested", python.Loose.Quote(str(ev.Payload, "visit_id"))))
	}
	if c.visitStatus != visitRequested {
		return engine.Refuse("VISIT_NOT_AWAITING_RESPONSE", fmt.Sprintf("visit %s is %s, not REQUESTED", python.Loose.Repr(optString(c.visitID)), c.visitStatus))
	}
	switch resp := str(ev.Payload, "response"); resp {
	case "ACCEPTED":
		c.visitStatus = visitScheduled
	case "DECLINED":
		c.visitStatus = visitDeclined
	default:
		return engine.Refuse("UNKNOWN_VISIT_RESPONSE", fmt.Sprintf("%s is not a visit response", python.Loose.Quote(resp)))
	}
	return engine.Accept("", c.id, visitBindings(c))
}

func (r *runState) reduceAttendanceVerified(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s := r.s
	c := s.cycleForVisit(str(ev.Payload, "visit_id"))
	if c == nil || c.visitStatus != visitScheduled {
		return engine.Refuse("VISIT_NOT_SCHEDULED", "attendance can only be verified for a scheduled visit")
	}
	if b, _ := ev.Payload["attended"].(bool); !b {
		return engine.Refuse("ATTENDANCE_NOT_CONFIRMED", "the authoritative system reports no visit")
	}
	c.visitStatus = visitAttended
	s.authoritative["attendance:"+*c.visitID] = map[string]any{
		"kind": "visit_attendance", "cycle_id": c.id, "visit_id": *c.visitID, "at": ctx.Now(),
	}
	ctx.CancelTimer(visitTimerID(c.id))
	r.closeObligation(ctx, visitObligationID(c.id), obligationDischarged)
	return engine.Accept("", c.id, visitBindings(c))
}

func (r *runState) reduceWorkReported(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	c := r.s.cycleForVisit(str(ev.Payload, "visit_id"))
	if c == nil || c.visitStatus != visitAttended {
		return engine.Refuse("VISIT_NOT_ATTENDED", "a supplier can only report work for a visit authoritative verification says happened")
	}
	c.visitStatus = visitWorkReported
	c.reportedOutcome = sp(str(ev.Payload, "outcome"))
	if c.scope == nil || *c.scope == "" {
		c.scope = sp(str(ev.Payload, "scope_digest")) // a required string of the payload
	}
	return engine.Accept("", c.id, visitBindings(c))
}

func (r *runState) reduceQuoteReceived(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s, pol, p := r.s, r.op.spec.Policy, ev.Payload
	key := quoteKey(str(p, "quote_id"), i64(p, "quote_version"))
	if s.quotes.has(key) {
		return engine.Refuse("DUPLICATE_QUOTE", fmt.Sprintf("quote %s has already been received", key))
	}
	amount := i64(p, "amount_minor")
	if amount <= 0 {
		return engine.Refuse("INVALID_QUOTE_AMOUNT", "a quote must be positive")
	}
	currency := str(p, "currency")
	if currency != pol.Currency {
		return engine.Refuse("QUOTE_CURRENCY_MISMATCH", fmt.Sprintf("this operation is denominated in %s; a quote in %s cannot be measured against its authored threshold", python.Loose.Quote(pol.Currency), python.Loose.Quote(currency)))
	}
	cid := str(p, "cycle_id")
	scope := str(p, "scope_digest")
	if !s.cycles.has(cid) {
		c := &cycle{id: cid, kind: cycleApprovedWork, visitStatus: visitNone, scope: sp(scope), requiresPayment: true}
		if parent, ok := p["parent_cycle_id"].(string); ok {
			c.parent = sp(parent)
		}
		s.cycles.put(cid, c)
	}
	s.quotes.put(key, &quote{
		quoteID: str(p, "quote_id"), version: i64(p, "quote_version"), cycleID: cid, amount: amount,
		currency: currency, scope: scope, status: quoteReceived, validUntil: sp(ctx.Shift(pol.ApprovalValidityMinutes)),
	})
	s.currentCycleID = sp(cid)
	return engine.Accept("", cid, nil)
}

func (r *runState) reduceInvoiceReceived(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	p := ev.Payload
	id := str(p, "invoice_id")
	if r.s.invoices.has(id) {
		return engine.Refuse("DUPLICATE_INVOICE", fmt.Sprintf("invoice %s has already been received", python.Loose.Quote(id)))
	}
	r.s.invoices.put(id, &invoice{
		invoiceID: id, cycleID: str(p, "cycle_id"), quoteID: str(p, "quote_id"), quoteVersion: i64(p, "quote_version"),
		amount: i64(p, "amount_minor"), currency: str(p, "currency"), status: invoiceUnvalidated,
	})
	return engine.Accept("", str(p, "cycle_id"), nil)
}

func (r *runState) reduceAssertion(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	p := ev.Payload
	cyc, _ := p["cycle_id"].(string)
	r.s.assertions = append(r.s.assertions, map[string]any{
		"assertion_id": str(p, "assertion_id"), "actor_id": ev.ActorID, "assertion": str(p, "assertion"),
		"cycle_id": p["cycle_id"], "at": ctx.Now(),
	})
	v := engine.Verdict{Accepted: true, Code: "OBSERVATIONAL_ONLY", Detail: "an actor claim is recorded, never made true", Observational: true}
	if cyc != "" {
		v.CycleID = cyc
	}
	return v
}

func (r *runState) reduceApproverDecision(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s, p := r.s, ev.Payload
	cp := str(p, "checkpoint_id")
	a := s.approvals.get(cp)
	if a == nil {
		return engine.Refuse("UNKNOWN_CHECKPOINT", fmt.Sprintf("no approval checkpoint %s was ever opened", python.Loose.Quote(cp)))
	}
	if a.status != approvalOpen {
		return engine.Refuse("CHECKPOINT_NOT_OPEN", fmt.Sprintf("checkpoint %s is %s; a decision that arrives after it closed cannot mutate the operation", python.Loose.Quote(cp), a.status))
	}
	for _, f := range []struct {
		name string
		want any
	}{{"quote_id", a.quoteID}, {"quote_version", a.quoteVersion}, {"amount_minor", a.amount}, {"currency", a.currency}, {"scope_digest", a.scope}} {
		if got := p[f.name]; got != f.want {
			return engine.Refuse("QUOTE_BINDING_MISMATCH", fmt.Sprintf("the decision names %s=%s but the checkpoint bound %s; an approval authorises one exact quote version", f.name, python.Loose.Repr(got), python.Loose.Repr(f.want)))
		}
	}
	if past(ctx, a.deadlineAt) {
		return engine.Refuse("CHECKPOINT_DEADLINE_PASSED", "the decision arrived after "+a.deadlineAt)
	}
	q := s.quotes.get(quoteKey(a.quoteID, a.quoteVersion))
	switch decision := str(p, "decision"); decision {
	case "APPROVED":
		a.status = approvalApproved
		if q != nil {
			q.status = quoteApproved
		}
	case "REJECTED":
		a.status = approvalRejected
		if q != nil {
			q.status = quoteRejected
		}
	default:
		return engine.Refuse("UNKNOWN_DECISION", fmt.Sprintf("%s is not an approval decision", python.Loose.Repr(p["decision"])))
	}
	a.resolvedAt = sp(ctx.Now())
	s.phase = "ACTIVE"
	ctx.CancelTimer(reminderTimerID(cp))
	ctx.CancelTimer(deadlineTimerID(cp))
	r.closeObligation(ctx, reminderObligationID(cp), obligationCancelled)
	r.closeObligation(ctx, decisionObligationID(cp), obligationDischarged)
	ctx.Record("checkpoint_resolved", map[string]any{"checkpoint_id": cp, "checkpoint_type": CheckpointApproval, "resolution": a.status})
	return engine.Accept("", a.cycleID, bindings("checkpoint_id", cp))
}

func (r *runState) reduceOperatorResolution(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s := r.s
	cp := str(ev.Payload, "checkpoint_id")
	e := s.exceptions.get(cp)
	if e == nil || e.status != "OPEN" {
		return engine.Refuse("UNKNOWN_EXCEPTION_CHECKPOINT", fmt.Sprintf("no open exception checkpoint %s", python.Loose.Quote(cp)))
	}
	decision := str(ev.Payload, "decision")
	if !slices.Contains(exceptionResolutions, decision) {
		return engine.Refuse("UNKNOWN_EXCEPTION_DECISION", fmt.Sprintf("%s is not a resolution", python.Loose.Quote(decision)))
	}
	e.status = "RESOLVED"
	e.resolution = sp(decision)
	e.resolvedAt = sp(ctx.Now())
	if decision == "TAKE_OWNERSHIP" {
		s.ownershipTransferredTo = sp(ev.ActorID)
	}
	s.phase = "ACTIVE"
	ctx.Record("checkpoint_resolved", map[string]any{"checkpoint_id": cp, "checkpoint_type": CheckpointException, "resolution": decision})
	return engine.Accept("", optString(e.cycleID), bindings("checkpoint_id", cp))
}

func (r *runState) reduceWorkEvidence(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s, p := r.s, ev.Payload
	c := s.cycles.get(str(p, "cycle_id"))
	if c == nil || c.visitID == nil || *c.visitID != str(p, "visit_id") {
		return engine.Refuse("UNKNOWN_WORK_CYCLE", "work evidence must name a cycle and the visit it was done on")
	}
	if c.visitStatus != visitAttended && c.visitStatus != visitWorkReported {
		return engine.Refuse("VISIT_NOT_ATTENDED", fmt.Sprintf("visit %s is %s; work cannot be verified for a visit that has not happened", python.Loose.Repr(optString(c.visitID)), c.visitStatus))
	}
	scope := str(p, "scope_digest")
	if c.kind == cycleWarrantyRevisit {
		var parent *cycle
		if c.parent != nil {
			parent = s.cycles.get(*c.parent)
		}
		if parent == nil || parent.scope == nil || *parent.scope != scope {
			return engine.Refuse("WARRANTY_SCOPE_MISMATCH", "a warranty revisit must repeat the scope of the work it follows; different scope is new work and needs its own quote")
		}
	}
	c.visitStatus = visitWorkVerified
	eid := str(p, "evidence_id")
	c.workEvidenceID = sp(eid)
	s.authoritative[eid] = map[string]any{
		"kind": "work_evidence", "cycle_id": c.id, "visit_id": *c.visitID, "scope_digest": scope,
		"outcome": str(p, "outcome"), "at": ctx.Now(),
	}
	if !c.requiresPayment {
		r.openObligation(ctx, noticeObligationID(c.id), "customer_completion_notice", c.id, r.op.spec.Policy.CompletionNoticeWithinMinutes)
	}
	return engine.Accept("", c.id, visitBindings(c))
}

func (r *runState) reduceInvoiceValidation(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s, p := r.s, ev.Payload
	inv := s.invoices.get(str(p, "invoice_id"))
	if inv == nil || inv.status != invoiceValidationRequested {
		return engine.Refuse("INVOICE_NOT_AWAITING_VALIDATION", "only an invoice whose validation was requested can be validated")
	}
	vid := str(p, "validation_id")
	valid, _ := p["valid"].(bool)
	if valid {
		inv.status = invoiceValidated
	} else {
		inv.status = invoiceRejected
	}
	inv.validationID = sp(vid)
	s.authoritative[vid] = map[string]any{
		"kind": "invoice_validation", "invoice_id": inv.invoiceID, "cycle_id": inv.cycleID, "valid": valid,
		"reason_code": str(p, "reason_code"), "at": ctx.Now(),
	}
	return engine.Accept("", inv.cycleID, nil)
}

func (r *runState) reduceSettlement(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s, p := r.s, ev.Payload
	if s.payment.status != paymentRequested {
		return engine.Refuse("NO_PAYMENT_REQUESTED", "settlement can only confirm a payment this operation requested")
	}
	if got, ok := p["payment_request_id"].(string); !ok || s.payment.requestID == nil || got != *s.payment.requestID {
		return engine.Refuse("PAYMENT_REQUEST_MISMATCH", "the settlement names a payment request this operation did not make")
	}
	if m := r.settlementMismatch(p); m != "" {
		return engine.Refuse("SETTLEMENT_BINDING_MISMATCH", m)
	}
	s.payment.status = paymentSettled
	sid := str(p, "settlement_id")
	s.payment.settlementID = sp(sid)
	s.authoritative[sid] = map[string]any{
		"kind": "payment_settlement", "payment_request_id": str(p, "payment_request_id"), "invoice_id": str(p, "invoice_id"),
		"cycle_id": str(p, "cycle_id"), "amount_minor": i64(p, "amount_minor"), "currency": str(p, "currency"), "at": ctx.Now(),
	}
	cid := "None"
	if s.payment.cycleID != nil {
		cid = *s.payment.cycleID
	}
	r.openObligation(ctx, noticeObligationID(cid), "customer_completion_notice", cid, r.op.spec.Policy.CompletionNoticeWithinMinutes)
	return engine.Accept("", cid, bindings("payment_request_id", str(p, "payment_request_id")))
}

func (r *runState) settlementMismatch(p map[string]any) string {
	s := r.s
	var inv *invoice
	if s.payment.invoiceID != nil {
		inv = s.invoices.get(*s.payment.invoiceID)
	}
	if inv == nil {
		return fmt.Sprintf("the requested payment names invoice %s, which this operation no longer holds", python.Loose.Repr(optString(s.payment.invoiceID)))
	}
	for _, f := range []struct {
		name string
		want any
	}{{"payment_request_id", optString(s.payment.requestID)}, {"invoice_id", inv.invoiceID}, {"cycle_id", optString(s.payment.cycleID)}, {"amount_minor", inv.amount}, {"currency", inv.currency}} {
		if got := p[f.name]; got != f.want {
			return fmt.Sprintf("the settlement names %s=%s but the current payment request bound %s; a settlement confirms one exact payment, not any payment of this operation", f.name, python.Loose.Repr(got), python.Loose.Repr(f.want))
		}
	}
	if s.payment.cycleID == nil || inv.cycleID != *s.payment.cycleID {
		return fmt.Sprintf("invoice %s belongs to cycle %s, not to the cycle %s the payment was requested for", python.Loose.Quote(inv.invoiceID), python.Loose.Quote(inv.cycleID), python.Loose.Repr(optString(s.payment.cycleID)))
	}
	if inv.status != invoiceValidated {
		return fmt.Sprintf("invoice %s is %s; a settlement cannot confirm payment of an invoice this operation has not validated", python.Loose.Quote(inv.invoiceID), inv.status)
	}
	return ""
}

func (r *runState) reduceCustomerResolution(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s := r.s
	status := str(ev.Payload, "status")
	if status != resolutionResolved && status != resolutionPersists {
		return engine.Refuse("UNKNOWN_RESOLUTION_STATUS", fmt.Sprintf("%s is not a resolution report", python.Loose.Quote(status)))
	}
	if status == resolutionPersists && s.phase == "PROVISIONALLY_CLOSED" {
		until := ""
		if s.provisional.reopenUntil != nil {
			until = *s.provisional.reopenUntil
		}
		if past(ctx, until) {
			return engine.Refuse("REOPEN_WINDOW_CLOSED", "the provisional window closed at "+until)
		}
		return r.reopen(ctx)
	}
	if s.phase == "PROVISIONALLY_CLOSED" && status == resolutionResolved {
		s.customerResolution = resolutionResolved
		return engine.Accept("", optString(s.currentCycleID), nil)
	}
	if s.phase == "FINALIZED" || s.phase == "TRANSFERRED_TO_HUMAN" || s.phase == "NEW" {
		return engine.Refuse("RESOLUTION_NOT_ACCEPTED_IN_PHASE", "a resolution report is not accepted while the operation is "+s.phase)
	}
	s.customerResolution = status
	return engine.Accept("", optString(s.currentCycleID), nil)
}

func (r *runState) reopen(ctx *engine.Context) engine.Verdict {
	s := r.s
	if s.provisional.timerEventID != nil {
		ctx.CancelTimer(*s.provisional.timerEventID)
	}
	closedID := *s.provisional.cycleID
	closed := s.cycles.get(closedID)
	s.reopenCount++
	newID := fmt.Sprintf("work_cycle_%d", s.cycles.len()+1)
	s.cycles.put(newID, &cycle{id: newID, kind: cycleWarrantyRevisit, parent: sp(closedID), scope: closed.scope, visitStatus: visitNone})
	s.currentCycleID = sp(newID)
	s.customerResolution = resolutionPersists
	s.phase = "ACTIVE"
	s.provisional.cycleID, s.provisional.acceptedAt, s.provisional.reopenUntil, s.provisional.timerEventID = nil, nil, nil, nil
	ctx.Record("operation_reopened", map[string]any{
		"reopened_cycle_id": closedID, "warranty_cycle_id": newID,
		"reason": "customer reported the issue persists inside the window",
	})
	return engine.Accept("REOPENED", newID, nil)
}

func (r *runState) reduceReminderDue(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	a := r.s.approvals.get(str(ev.Payload, "checkpoint_id"))
	if a == nil || a.status != approvalOpen {
		return engine.Refuse("CHECKPOINT_NOT_OPEN", "a reminder is only due while a decision is open")
	}
	if a.reminderFired {
		return engine.Refuse("REMINDER_ALREADY_FIRED", "the authored reminder fires exactly once")
	}
	a.reminderFired = true
	return engine.Accept("", a.cycleID, nil)
}

func (r *runState) reduceDeadlineDue(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s := r.s
	cp := str(ev.Payload, "checkpoint_id")
	a := s.approvals.get(cp)
	if a == nil || a.status != approvalOpen {
		return engine.Refuse("CHECKPOINT_NOT_OPEN", "only an open checkpoint can expire")
	}
	a.status = approvalExpired
	a.resolvedAt = sp(ctx.Now())
	if q := s.quotes.get(quoteKey(a.quoteID, a.quoteVersion)); q != nil {
		q.status = quoteExpired
	}
	ctx.CancelTimer(reminderTimerID(cp))
	r.closeObligation(ctx, reminderObligationID(cp), obligationCancelled)
	r.closeObligation(ctx, decisionObligationID(cp), obligationCancelled)
	ctx.Record("checkpoint_resolved", map[string]any{"checkpoint_id": cp, "checkpoint_type": CheckpointApproval, "resolution": approvalExpired})
	return engine.Accept("", a.cycleID, bindings("checkpoint_id", cp))
}

func (r *runState) reduceVisitFollowupDue(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	cid := str(ev.Payload, "cycle_id")
	if !r.s.cycles.has(cid) {
		return engine.Refuse("UNKNOWN_WORK_CYCLE", fmt.Sprintf("no cycle %s", python.Loose.Quote(cid)))
	}
	r.closeObligation(ctx, visitObligationID(cid), obligationBreached)
	return engine.Accept("", cid, nil)
}

func (r *runState) reduceProvisionalExpired(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	s := r.s
	if s.phase != "PROVISIONALLY_CLOSED" {
		return engine.Refuse("NOT_PROVISIONALLY_CLOSED", "finalization only applies to a provisionally closed operation")
	}
	if s.customerResolution == resolutionPersists {
		return engine.Refuse("UNRESOLVED_CUSTOMER_REPORT", "the customer reports the issue persists, so the window cannot finalize")
	}
	if b := s.blockingCheckpoints(); len(b) > 0 {
		return engine.Refuse("OPEN_CHECKPOINT_AT_FINALIZATION", "still open: "+python.Loose.StrList(b))
	}
	s.phase = "FINALIZED"
	s.replayFinal = true
	s.terminal = map[string]any{"outcome": "completed_successfully", "at": ctx.Now(), "cycle_id": optString(s.currentCycleID)}
	ctx.Record("terminal_accepted", map[string]any{"outcome": "completed_successfully", "replay_final": true, "cycle_id": optString(s.currentCycleID)})
	return engine.Accept("FINALIZED", optString(s.currentCycleID), nil)
}

func (r *runState) openObligation(ctx *engine.Context, id, kind, cycleID string, dueAfter int64) {
	if r.s.obligations.has(id) {
		return
	}
	due := ctx.Shift(dueAfter)
	r.s.obligations.put(id, &obligation{id: id, kind: kind, cycleID: sp(cycleID), dueAt: due, status: obligationOpen})
	ctx.Record("obligation_created", map[string]any{"obligation_id": id, "kind": kind, "due_at": due})
}

func (r *runState) closeObligation(ctx *engine.Context, id, status string) {
	o := r.s.obligations.get(id)
	if o == nil || o.status != obligationOpen {
		return
	}
	o.status = status
	o.closedAt = sp(ctx.Now())
	rt := map[string]string{obligationDischarged: "obligation_discharged", obligationCancelled: "obligation_cancelled", obligationBreached: "obligation_breached"}[status]
	ctx.Record(rt, map[string]any{"obligation_id": id, "kind": o.kind})
}

func visitTimerID(c string) string          { return "timer_visit_followup:" + c }
func visitObligationID(c string) string     { return "visit_progress:" + c }
func reminderTimerID(cp string) string      { return "timer_approval_reminder:" + cp }
func deadlineTimerID(cp string) string      { return "timer_approval_deadline:" + cp }
func reminderObligationID(cp string) string { return "approval_reminder:" + cp }
func decisionObligationID(cp string) string { return "approval_decision:" + cp }
func noticeObligationID(c string) string    { return "completion_notice:" + c }
