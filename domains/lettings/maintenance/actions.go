package maintenance

import (
	"fmt"
	"slices"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/python"
)

// ApplyAction implements [engine.State]: the action pipeline, first failure
// wins.
func (r *runState) ApplyAction(ctx *engine.Context, actionType string, payload map[string]any, refs []string) engine.Verdict {
	act, known := actions[actionType]
	r.touch(act.touches, known)
	s := r.s
	if s.replayFinal {
		return engine.Refuse("OPERATION_IS_REPLAY_FINAL", "a replay-final operation accepts no further action")
	}
	if a := r.op.spec.Actors["agent"]; a == nil || !a.Holds(actionType) {
		return engine.Refuse("ACTION_OUTSIDE_AGENT_AUTHORITY", fmt.Sprintf("the agent does not hold %s", python.Loose.Quote(actionType)))
	}
	if !known {
		return engine.Refuse("UNKNOWN_ACTION_TYPE", fmt.Sprintf("%s is not an action of this operation", python.Loose.Quote(actionType)))
	}
	if p, _ := payloadProblemAt(actionPayloadSchemas()[actionType], payload, "action ", actionType, actionType); p != "" {
		return engine.Refuse("MALFORMED_ACTION_PAYLOAD", p)
	}
	if v, bad := r.unresolvedEvidence(refs); bad {
		return v
	}
	return act.apply(r, ctx, payload, refs)
}

// actionKind is one action type of the operation: the tools whose records
// its handler may change (as eventKind.touches) and its handler.
type actionKind struct {
	touches uint8
	apply   func(*runState, *engine.Context, map[string]any, []string) engine.Verdict
}

// actions are every action type of the operation, each with its handler.
var actions = map[string]actionKind{
	"request_supplier_visit":       {tCase | tObligations, (*runState).actRequestVisit},
	"request_approval":             {tCase | tCheckpoints | tObligations, (*runState).actRequestApproval},
	"send_message":                 {tCase | tComms | tObligations, (*runState).actSendMessage},
	"authorise_supplier_work":      {tCase | tObligations, (*runState).actAuthoriseWork},
	"request_invoice_validation":   {tBilling, (*runState).actRequestInvoiceValidation},
	"request_payment":              {tBilling, (*runState).actRequestPayment},
	"request_exception_resolution": {tCase | tCheckpoints, (*runState).actRequestException},
}

func (r *runState) unresolvedEvidence(refs []string) (engine.Verdict, bool) {
	s := r.s
	var claimed []string
	for _, a := range s.assertions {
		if id, _ := a["assertion_id"].(string); slices.Contains(refs, id) {
			claimed = append(claimed, id)
		}
	}
	if len(claimed) > 0 {
		return engine.Refuse("NON_AUTHORITATIVE_EVIDENCE", fmt.Sprintf("%s is an actor claim, not an authoritative record; a claim cannot establish attendance, completed work or payment", python.Loose.Quote(slices.Min(claimed)))), true
	}
	for _, ref := range refs {
		if _, ok := s.authoritative[ref]; ok {
			continue
		}
		if s.approvals.has(ref) || s.exceptions.has(ref) || s.invoices.has(ref) || s.quotes.has(ref) || s.cycles.has(ref) {
			continue
		}
		return engine.Refuse("UNRESOLVED_EVIDENCE", fmt.Sprintf("%s does not resolve to any record this operation holds", python.Loose.Quote(ref))), true
	}
	return engine.Verdict{}, false
}

// requiredEvidence mirrors upstream's _required_evidence_verdict: the
// contract's selectors resolved against the record, every resolved id cited.
func (r *runState) requiredEvidence(actionType string, payload map[string]any, refs []string, code string) (engine.Verdict, bool) {
	records := map[string]any{}
	for _, sel := range evidenceContract[actionType].evidence {
		records[sel.Root] = r.rootTree(sel.Root)
		switch sel.Kind {
		case engine.SelectLinkedAuthority:
			records[sel.LinkRoot] = r.rootTree(sel.LinkRoot)
			records[sel.AuthorityRoot] = r.rootTree(sel.AuthorityRoot)
		case engine.SelectVersionedTarget:
			records[sel.TargetRoot] = r.rootTree(sel.TargetRoot)
		}
	}
	required, problem := resolveRequiredEvidence(actionType, payload, records)
	missing := slices.DeleteFunc(required, func(id string) bool { return slices.Contains(refs, id) })
	slices.Sort(missing)
	missing = slices.Compact(missing)
	if problem == "" && len(missing) == 0 {
		return engine.Verdict{}, false
	}
	detail := problem
	if detail == "" {
		detail = "missing " + python.Loose.StrList(missing)
	}
	return engine.Refuse(code, "required evidence did not resolve completely: "+detail), true
}

// resolveRequiredEvidence resolves the ids an outcome must cite from records
// (a {root: value} map), without choosing citations; problem is "" when
// every selector resolved. (The evaluator reconstructs citations on its own,
// from the contract's selectors, as upstream's evaluator does.)
func resolveRequiredEvidence(outcomeKey string, payload, records map[string]any) (required []string, problem string) {
	for _, sel := range evidenceContract[outcomeKey].evidence {
		registry, ok1 := records[sel.Root].(map[string]any)
		selected, ok2 := payload[sel.PayloadField].(string)
		if !ok1 || !ok2 {
			return nil, "the payload selector cannot be resolved"
		}
		rec, ok := registry[selected].(map[string]any)
		if !ok {
			return nil, fmt.Sprintf("no %s record %s", sel.Root, python.Loose.Quote(selected))
		}
		switch sel.Kind {
		case engine.SelectPayloadRegistryKey:
			required = append(required, selected)
		case engine.SelectLinkedAuthority:
			cid, ok := rec[sel.LinkField].(string)
			cycles, _ := records[sel.LinkRoot].(map[string]any)
			cyc, okc := cycles[cid].(map[string]any)
			if !ok || !okc {
				return nil, "the invoice cycle is missing"
			}
			eid, oke := cyc[sel.EvidenceField].(string)
			auths, _ := records[sel.AuthorityRoot].(map[string]any)
			auth, oka := auths[eid].(map[string]any)
			if !oke || !oka {
				return nil, "the authoritative work evidence is missing"
			}
			if auth["kind"] != sel.AuthorityKind {
				return nil, "the authoritative evidence kind does not match"
			}
			if auth[sel.LinkField] != cid {
				return nil, "the authoritative evidence cycle does not match"
			}
			required = append(required, eid)
		default:
			qid, ok1 := rec[sel.IDField].(string)
			qv, ok2 := rec[sel.VersionField].(int64)
			if !ok1 || !ok2 {
				return nil, "the quote evidence key cannot be encoded"
			}
			key := quoteKey(qid, qv)
			targets, ok := records[sel.TargetRoot].(map[string]any)
			if _, has := targets[key]; !ok || !has {
				return nil, "the selected approval quote is missing"
			}
			required = append(required, key)
		}
	}
	return required, ""
}

// allocate is prefix_<i> for the first i from len(used)+1 that used does
// not hold.
func allocate(prefix string, used map[string]bool) string {
	i := len(used) + 1
	for used[fmt.Sprintf("%s_%d", prefix, i)] {
		i++
	}
	return fmt.Sprintf("%s_%d", prefix, i)
}

func (r *runState) allocateVisit() string {
	used := map[string]bool{}
	r.s.cycles.each(func(_ string, c *cycle) {
		if c.visitID != nil {
			used[*c.visitID] = true
		}
	})
	return allocate("visit", used)
}

func (r *runState) allocateCheckpoint() string {
	used := map[string]bool{}
	for _, k := range r.s.approvals.keys {
		used[k] = true
	}
	for _, k := range r.s.exceptions.keys {
		used[k] = true
	}
	return allocate("checkpoint", used)
}

func (r *runState) actRequestVisit(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s := r.s
	cid := str(p, "cycle_id")
	c := s.cycles.get(cid)
	if c == nil {
		return engine.Refuse("UNKNOWN_WORK_CYCLE", fmt.Sprintf("no cycle %s", python.Loose.Quote(cid)))
	}
	if s.currentCycleID == nil || cid != *s.currentCycleID {
		return engine.Refuse("STALE_WORK_CYCLE", fmt.Sprintf("cycle %s is not the operation's current cycle (%s)", python.Loose.Quote(cid), python.Loose.Repr(optString(s.currentCycleID))))
	}
	if c.visitStatus != visitNone {
		return engine.Refuse("DUPLICATE_VISIT_REQUEST", fmt.Sprintf("cycle %s already has visit %s at %s", python.Loose.Quote(cid), python.Loose.Repr(optString(c.visitID)), c.visitStatus))
	}
	if c.kind == cycleApprovedWork {
		return engine.Refuse("WORK_REQUIRES_AUTHORISATION", "an approved-work visit is created by authorise_supplier_work, never by an unapproved visit request")
	}
	if vt := str(p, "visit_type"); vt != c.kind {
		return engine.Refuse("VISIT_TYPE_MISMATCH", fmt.Sprintf("cycle %s is a %s cycle, not %s", python.Loose.Quote(cid), c.kind, vt))
	}
	c.visitID = sp(r.allocateVisit())
	c.visitStatus = visitRequested
	s.phase = "WAITING_VISIT"
	r.armVisitFollowup(ctx, cid)
	return engine.Accept("", cid, visitBindings(c))
}

func (r *runState) actRequestApproval(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s, pol := r.s, r.op.spec.Policy
	q := s.quotes.get(quoteKey(str(p, "quote_id"), i64(p, "quote_version")))
	if q == nil {
		return engine.Refuse("UNKNOWN_QUOTE", fmt.Sprintf("no quote %s version %s", python.Loose.Repr(p["quote_id"]), python.Loose.Repr(p["quote_version"])))
	}
	if q.status != quoteReceived {
		return engine.Refuse("QUOTE_NOT_OPEN", fmt.Sprintf("quote %s is %s", quoteKey(q.quoteID, q.version), q.status))
	}
	if q.amount != i64(p, "amount_minor") || q.currency != str(p, "currency") || q.scope != str(p, "scope_digest") || q.cycleID != str(p, "cycle_id") {
		return engine.Refuse("QUOTE_BINDING_MISMATCH", "an approval must be requested for the exact quote version, amount, currency, scope and cycle that is on the table")
	}
	if q.amount <= pol.ApprovalThresholdMinor {
		return engine.Refuse("APPROVAL_NOT_REQUIRED", fmt.Sprintf("%d is within the authored threshold of %d; asking a human here is unnecessary human load", q.amount, pol.ApprovalThresholdMinor))
	}
	deadline := i64(p, "deadline_after_minutes")
	if deadline != pol.ApprovalDeadlineAfterMinutes {
		return engine.Refuse("DEADLINE_OUTSIDE_POLICY", fmt.Sprintf("the authored approval deadline is %d minutes, not %d", pol.ApprovalDeadlineAfterMinutes, deadline))
	}
	deadlineAt := ctx.Shift(deadline)
	cp := r.allocateCheckpoint()
	s.approvals.put(cp, &approval{
		checkpointID: cp, quoteID: q.quoteID, quoteVersion: q.version, cycleID: q.cycleID, amount: q.amount,
		currency: q.currency, scope: q.scope, openedAt: ctx.Now(), deadlineAt: deadlineAt, status: approvalOpen,
	})
	s.phase = "WAITING_APPROVAL"
	ctx.Record("checkpoint_opened", map[string]any{
		"checkpoint_id": cp, "checkpoint_type": CheckpointApproval, "assignee_actor_id": "approver_1",
		"required": true, "deadline_at": deadlineAt,
	})
	ctx.ScheduleTimer(reminderTimerID(cp), "approval_reminder_due", "scheduler", pol.ApprovalReminderAfterMinutes,
		map[string]any{"checkpoint_id": cp, "cycle_id": q.cycleID}, true)
	ctx.ScheduleTimer(deadlineTimerID(cp), "approval_deadline_due", "scheduler", deadline,
		map[string]any{"checkpoint_id": cp, "cycle_id": q.cycleID}, true)
	r.openObligation(ctx, reminderObligationID(cp), "approval_reminder", q.cycleID, pol.ApprovalReminderAfterMinutes)
	r.openObligation(ctx, decisionObligationID(cp), "approval_decision", q.cycleID, deadline)
	return engine.Accept("", q.cycleID, bindings("checkpoint_id", cp))
}

func (r *runState) actAuthoriseWork(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s := r.s
	cp := str(p, "approval_checkpoint_id")
	a := s.approvals.get(cp)
	if a == nil {
		return engine.Refuse("UNKNOWN_CHECKPOINT", fmt.Sprintf("no approval checkpoint %s", python.Loose.Quote(cp)))
	}
	if a.status != approvalApproved {
		return engine.Refuse("WORK_NOT_APPROVED", fmt.Sprintf("checkpoint %s is %s; above-threshold work cannot be authorised without a current approval", python.Loose.Quote(cp), a.status))
	}
	if v, bad := r.requiredEvidence("authorise_supplier_work", p, refs, "MISSING_AUTHORITY_EVIDENCE"); bad {
		return v
	}
	qid, qv := str(p, "quote_id"), i64(p, "quote_version")
	if a.quoteID != qid || a.quoteVersion != qv {
		return engine.Refuse("STALE_APPROVAL", fmt.Sprintf("checkpoint %s approved %s, which is not %s", python.Loose.Quote(cp), quoteKey(a.quoteID, a.quoteVersion), quoteKey(qid, qv)))
	}
	q := s.quotes.get(quoteKey(qid, qv))
	if q == nil || q.status != quoteApproved {
		return engine.Refuse("QUOTE_NOT_APPROVED", fmt.Sprintf("quote %s is not an approved quote", quoteKey(qid, qv)))
	}
	if q.validUntil != nil && past(ctx, *q.validUntil) {
		return engine.Refuse("QUOTE_EXPIRED", fmt.Sprintf("quote %s expired at %s", quoteKey(qid, qv), *q.validUntil))
	}
	c := s.cycles.get(q.cycleID)
	if c.visitStatus != visitNone {
		return engine.Refuse("DUPLICATE_WORK_AUTHORISATION", fmt.Sprintf("cycle %s already has visit %s", python.Loose.Quote(c.id), python.Loose.Repr(optString(c.visitID))))
	}
	c.visitID = sp(r.allocateVisit())
	c.visitStatus = visitScheduled
	s.currentCycleID = sp(c.id)
	s.phase = "WAITING_VISIT"
	r.armVisitFollowup(ctx, c.id)
	return engine.Accept("", c.id, visitBindings(c))
}

func (r *runState) actRequestInvoiceValidation(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s := r.s
	inv := s.invoices.get(str(p, "invoice_id"))
	if inv == nil {
		return engine.Refuse("UNKNOWN_INVOICE", fmt.Sprintf("no invoice %s", python.Loose.Repr(p["invoice_id"])))
	}
	if inv.status != invoiceUnvalidated {
		return engine.Refuse("INVOICE_NOT_PENDING", fmt.Sprintf("invoice %s is %s", python.Loose.Quote(inv.invoiceID), inv.status))
	}
	if c := s.cycles.get(inv.cycleID); c == nil || c.visitStatus != visitWorkVerified {
		return engine.Refuse("WORK_NOT_VERIFIED", "an invoice can only be validated once the work it bills for has authoritative verification")
	}
	q := s.quotes.get(quoteKey(inv.quoteID, inv.quoteVersion))
	if q == nil || q.status != quoteApproved {
		return engine.Refuse("INVOICE_QUOTE_NOT_APPROVED", "the invoice does not bind to an approved quote version")
	}
	if q.amount != inv.amount || q.currency != inv.currency || q.cycleID != inv.cycleID {
		return engine.Refuse("INVOICE_QUOTE_MISMATCH", "the invoice does not match the approved quote amount, currency or cycle")
	}
	if v, bad := r.requiredEvidence("request_invoice_validation", p, refs, "MISSING_AUTHORITY_EVIDENCE"); bad {
		return v
	}
	inv.status = invoiceValidationRequested
	return engine.Accept("", inv.cycleID, bindings("invoice_id", inv.invoiceID))
}

func (r *runState) actRequestPayment(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s := r.s
	inv := s.invoices.get(str(p, "invoice_id"))
	if inv == nil {
		return engine.Refuse("UNKNOWN_INVOICE", fmt.Sprintf("no invoice %s", python.Loose.Repr(p["invoice_id"])))
	}
	if s.payment.status != paymentNotRequested {
		return engine.Refuse("DUPLICATE_PAYMENT_REQUEST", "payment is already "+s.payment.status)
	}
	c := s.cycles.get(inv.cycleID)
	if c == nil || !c.requiresPayment {
		return engine.Refuse("PAYMENT_NOT_REQUIRED", fmt.Sprintf("cycle %s carries no payable work; a warranty revisit is covered by the work cycle it follows", python.Loose.Quote(inv.cycleID)))
	}
	if c.visitStatus != visitWorkVerified {
		return engine.Refuse("WORK_NOT_VERIFIED", "payment cannot be requested before the work has authoritative verification")
	}
	if inv.status != invoiceValidated {
		return engine.Refuse("INVOICE_NOT_VALIDATED", fmt.Sprintf("invoice %s is %s", python.Loose.Quote(inv.invoiceID), inv.status))
	}
	if inv.amount != i64(p, "amount_minor") || inv.currency != str(p, "currency") {
		return engine.Refuse("PAYMENT_AMOUNT_MISMATCH", "a payment request must match the validated invoice exactly")
	}
	if v, bad := r.requiredEvidence("request_payment", p, refs, "MISSING_AUTHORITY_EVIDENCE"); bad {
		return v
	}
	// The operation's one payment request: payment is NOT_REQUESTED, so no
	// request id is taken yet.
	id := allocate("payment", nil)
	s.payment.requestID, s.payment.invoiceID, s.payment.cycleID = sp(id), sp(inv.invoiceID), sp(inv.cycleID)
	s.payment.status = paymentRequested
	return engine.Accept("", inv.cycleID, bindings("payment_request_id", id))
}

func (r *runState) actSendMessage(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s := r.s
	recipient, fixture := str(p, "recipient_actor_id"), str(p, "message_fixture_id")
	if _, ok := r.op.spec.Actors[recipient]; !ok {
		return engine.Refuse("UNKNOWN_RECIPIENT", fmt.Sprintf("no actor %s", python.Loose.Quote(recipient)))
	}
	if _, ok := r.op.spec.MessageFixtures[fixture]; !ok {
		return engine.Refuse("UNKNOWN_MESSAGE_FIXTURE", fmt.Sprintf("%s is not a declared message fixture", python.Loose.Quote(fixture)))
	}
	correlation := p["correlation_id"]
	if fixture == MsgTransferNotice && s.ownershipTransferredTo == nil {
		return engine.Refuse("NO_TRANSFER_TO_ANNOUNCE", "a transfer notice cannot be sent before an operator has accepted ownership")
	}
	s.communications = append(s.communications, map[string]any{
		"recipient_actor_id": recipient, "message_fixture_id": fixture, "correlation_id": correlation, "at": ctx.Now(),
	})
	cid, hasCycle := correlation.(string)
	if fixture == MsgCompletionNotice && hasCycle && s.cycles.has(cid) {
		s.cycles.get(cid).completionNoticeSent = true
		r.closeObligation(ctx, noticeObligationID(cid), obligationDischarged)
	}
	if fixture == MsgTransferNotice {
		s.transferNoticeSent = true
	}
	if fixture == MsgApprovalReminder {
		for _, a := range s.openApprovals() {
			if a.reminderFired {
				r.closeObligation(ctx, reminderObligationID(a.checkpointID), obligationDischarged)
			}
		}
	}
	if ctx.DispatchFails(fixture) {
		ctx.Record("side_effect_failed", map[string]any{
			"channel": "message_dispatch", "message_fixture_id": fixture, "recipient_actor_id": recipient,
			"committed_decision_preserved": true,
		})
	} else {
		ctx.Record("side_effect", map[string]any{
			"channel": "message_dispatch", "message_fixture_id": fixture, "recipient_actor_id": recipient, "status": "DELIVERED",
		})
	}
	verdictCycle := optString(s.currentCycleID)
	if cid != "" {
		verdictCycle = cid
	}
	return engine.Accept("", verdictCycle, nil)
}

func (r *runState) actRequestException(ctx *engine.Context, p map[string]any, refs []string) engine.Verdict {
	s := r.s
	et := str(p, "exception_type")
	if len(s.openExceptions()) > 0 {
		return engine.Refuse("EXCEPTION_ALREADY_OPEN", "one exception checkpoint at a time; a second is unnecessary human load")
	}
	if !slices.Contains(ExceptionTypes, et) {
		return engine.Refuse("UNKNOWN_EXCEPTION_TYPE", fmt.Sprintf("%s is not a typed exception of this operation", python.Loose.Quote(et)))
	}
	var eligible *approval
	want := map[string]string{"APPROVAL_REJECTED": approvalRejected, "APPROVAL_EXPIRED": approvalExpired}[et]
	if a := s.approvals.get(str(p, "approval_checkpoint_id")); want != "" && a != nil && a.status == want {
		eligible = a
	}
	if eligible == nil {
		return engine.Refuse("EXCEPTION_NOT_ELIGIBLE", fmt.Sprintf("nothing in this operation's state justifies a %s checkpoint; escalating without an eligible condition is unnecessary human load", et))
	}
	if v, bad := r.requiredEvidence("request_exception_resolution", p, refs, "INCOMPLETE_CHECKPOINT_CONTEXT"); bad {
		return v
	}
	deadlineAt := ctx.Shift(i64(p, "deadline_after_minutes"))
	cp := r.allocateCheckpoint()
	s.exceptions.put(cp, &exception{
		checkpointID: cp, exceptionType: et, cycleID: sp(eligible.cycleID), openedAt: ctx.Now(),
		deadlineAt: deadlineAt, evidenceRefs: slices.Clone(refs), status: "OPEN",
	})
	s.phase = "WAITING_EXCEPTION"
	ctx.Record("checkpoint_opened", map[string]any{
		"checkpoint_id": cp, "checkpoint_type": CheckpointException, "assignee_actor_id": "operator_1",
		"required": true, "exception_type": et, "evidence_refs": canon.StringList(refs), "deadline_at": deadlineAt,
	})
	return engine.Accept("", eligible.cycleID, bindings("checkpoint_id", cp))
}

func (r *runState) armVisitFollowup(ctx *engine.Context, cid string) {
	pol := r.op.spec.Policy
	ctx.ScheduleTimer(visitTimerID(cid), "visit_followup_due", "scheduler", pol.VisitFollowupAfterMinutes, map[string]any{"cycle_id": cid}, true)
	r.openObligation(ctx, visitObligationID(cid), "visit_progress", cid, pol.VisitFollowupAfterMinutes)
}

// ApplyTerminal implements [engine.State]: two doors, both narrow.
func (r *runState) ApplyTerminal(ctx *engine.Context, refs []string) engine.Verdict {
	r.touch(tCase, true) // completion changes only the case record
	s := r.s
	if s.replayFinal {
		return engine.Refuse("OPERATION_IS_REPLAY_FINAL", "this operation has already ended")
	}
	if s.phase == "PROVISIONALLY_CLOSED" {
		return engine.Refuse("ALREADY_PROVISIONALLY_CLOSED", "the operation is already in its confirmation window; only the finalization timer closes it")
	}
	if b := s.blockingCheckpoints(); len(b) > 0 {
		return engine.Refuse("OPEN_CHECKPOINT", "cannot complete with open checkpoint(s) "+python.Loose.StrList(b))
	}
	if o := s.openObligationIDs(); len(o) > 0 {
		return engine.Refuse("OPEN_OBLIGATION", "cannot complete with open obligation(s) "+python.Loose.StrList(o))
	}
	if s.ownershipTransferredTo != nil {
		if !s.transferNoticeSent {
			return engine.Refuse("TRANSFER_NOTICE_NOT_SENT", "the customer must be told the operation moved to a human")
		}
		if s.payment.status != paymentNotRequested {
			return engine.Refuse("PAYMENT_MUTATED_BEFORE_TRANSFER", "a transfer after refused or expired approval cannot leave a payment behind it")
		}
		s.phase = "TRANSFERRED_TO_HUMAN"
		s.replayFinal = true
		s.terminal = map[string]any{"outcome": "transferred_to_human_ownership", "at": ctx.Now(), "cycle_id": optString(s.currentCycleID)}
		ctx.Record("terminal_accepted", map[string]any{"outcome": "transferred_to_human_ownership", "replay_final": true, "operator_actor_id": *s.ownershipTransferredTo})
		return engine.Accept("TRANSFERRED", optString(s.currentCycleID), nil)
	}
	c := s.currentCycle()
	if c == nil {
		return engine.Refuse("NO_CURRENT_CYCLE", "there is no work cycle to complete")
	}
	if c.visitStatus != visitWorkVerified {
		return engine.Refuse("WORK_NOT_VERIFIED", fmt.Sprintf("cycle %s is %s; completion needs authoritative work evidence", python.Loose.Quote(c.id), c.visitStatus))
	}
	if c.requiresPayment {
		var ids, unvalidated []string
		s.invoices.each(func(k string, inv *invoice) {
			if inv.cycleID == c.id {
				ids = append(ids, inv.invoiceID)
				if inv.status != invoiceValidated {
					unvalidated = append(unvalidated, inv.invoiceID)
				}
			}
		})
		if len(ids) == 0 {
			return engine.Refuse("INVOICE_MISSING", "payable work has no invoice to settle")
		}
		if len(unvalidated) > 0 {
			slices.Sort(unvalidated)
			return engine.Refuse("INVOICE_NOT_VALIDATED", "still unvalidated: "+python.Loose.StrList(unvalidated))
		}
		if s.payment.status != paymentSettled {
			return engine.Refuse("PAYMENT_NOT_SETTLED", fmt.Sprintf("payment is %s; only the payment system's own confirmation settles it", s.payment.status))
		}
	}
	if s.customerResolution == resolutionPersists {
		return engine.Refuse("CUSTOMER_REPORTS_PERSISTENCE", "the customer says the issue persists; the operation cannot close until that is resolved")
	}
	if !c.completionNoticeSent {
		return engine.Refuse("COMPLETION_NOTICE_NOT_SENT", fmt.Sprintf("the customer has not been told cycle %s is done", python.Loose.Quote(c.id)))
	}
	pol := r.op.spec.Policy
	until := ctx.Shift(pol.ProvisionalCloseMinutes)
	timer := "timer_provisional_close:" + c.id
	s.phase = "PROVISIONALLY_CLOSED"
	s.provisional.cycleID, s.provisional.acceptedAt, s.provisional.reopenUntil, s.provisional.timerEventID = sp(c.id), sp(ctx.Now()), sp(until), sp(timer)
	ctx.Record("provisional_close_entered", map[string]any{"cycle_id": c.id, "reopen_until": until, "replay_final": false})
	ctx.ScheduleTimer(timer, "provisional_close_expired", "scheduler", pol.ProvisionalCloseMinutes, map[string]any{"cycle_id": c.id}, true)
	return engine.Accept("PROVISIONALLY_CLOSED", c.id, visitBindings(c))
}
