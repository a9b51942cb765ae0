package maintenance

import (
	"maps"
	"slices"

	"github.com/obaudit/obaudit/canon"
)

// State values.
const (
	cycleDiagnostic      = "DIAGNOSTIC"
	cycleApprovedWork    = "APPROVED_WORK"
	cycleWarrantyRevisit = "WARRANTY_REVISIT"

	visitNone         = "NONE"
	visitRequested    = "REQUESTED"
	visitScheduled    = "SCHEDULED"
	visitDeclined     = "DECLINED"
	visitAttended     = "ATTENDED"
	visitWorkReported = "WORK_REPORTED"
	visitWorkVerified = "WORK_VERIFIED"

	quoteReceived = "RECEIVED"
	quoteApproved = "APPROVED"
	quoteRejected = "REJECTED"
	quoteExpired  = "EXPIRED"

	approvalOpen     = "OPEN"
	approvalApproved = "RESOLVED_APPROVED"
	approvalRejected = "RESOLVED_REJECTED"
	approvalExpired  = "EXPIRED"

	invoiceUnvalidated         = "RECEIVED_UNVALIDATED"
	invoiceValidationRequested = "VALIDATION_REQUESTED"
	invoiceValidated           = "VALIDATED"
	invoiceRejected            = "REJECTED"

	paymentNotRequested = "NOT_REQUESTED"
	paymentRequested    = "REQUESTED"
	paymentSettled      = "SETTLED"

	obligationOpen       = "OPEN"
	obligationDischarged = "DISCHARGED"
	obligationCancelled  = "CANCELLED"
	obligationBreached   = "BREACHED"

	resolutionUnconfirmed = "UNCONFIRMED"
	resolutionResolved    = "RESOLVED"
	resolutionPersists    = "PERSISTS"
)

// ExceptionTypes are the typed exceptions an agent may claim.
var ExceptionTypes = []string{"APPROVAL_REJECTED", "APPROVAL_EXPIRED", "EVIDENCE_CONFLICT", "REPEATED_VISIT_FAILURE"}

type cycle struct {
	id, kind                              string
	parent, scope, visitID                *string
	visitStatus                           string
	reportedOutcome, workEvidenceID       *string
	requiresPayment, completionNoticeSent bool
}

type quote struct {
	quoteID                 string
	version                 int64
	cycleID                 string
	amount                  int64
	currency, scope, status string
	validUntil              *string
}

type approval struct {
	checkpointID, quoteID string
	quoteVersion          int64
	cycleID               string
	amount                int64
	currency, scope       string
	openedAt, deadlineAt  string
	status                string
	resolvedAt            *string
	reminderFired         bool
}

type exception struct {
	checkpointID, exceptionType string
	cycleID                     *string
	openedAt, deadlineAt        string
	evidenceRefs                []string
	status                      string
	resolution, resolvedAt      *string
}

type invoice struct {
	invoiceID, cycleID, quoteID string
	quoteVersion, amount        int64
	currency, status            string
	validationID                *string
}

type obligation struct {
	id, kind string
	cycleID  *string
	dueAt    string
	status   string
	closedAt *string
}

// ordered is an insertion-ordered registry (upstream iterates dicts in
// insertion order; serialisation sorts by key).
type ordered[T any] struct {
	keys []string
	m    map[string]*T
}

func newOrdered[T any]() ordered[T] { return ordered[T]{m: map[string]*T{}} }

func (o *ordered[T]) get(k string) *T { return o.m[k] }
func (o *ordered[T]) has(k string) bool {
	_, ok := o.m[k]
	return ok
}
func (o *ordered[T]) put(k string, v *T) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}
func (o *ordered[T]) each(f func(k string, v *T)) {
	for _, k := range o.keys {
		f(k, o.m[k])
	}
}
func (o *ordered[T]) len() int { return len(o.keys) }

type opState struct {
	phase                   string
	issueID, classification *string
	customerResolution      string
	currentCycleID          *string
	cycles                  ordered[cycle]
	quotes                  ordered[quote]
	approvals               ordered[approval]
	exceptions              ordered[exception]
	invoices                ordered[invoice]
	obligations             ordered[obligation]
	payment                 struct {
		requestID, invoiceID, cycleID *string
		status                        string
		settlementID                  *string
	}
	assertions             []map[string]any
	authoritative          map[string]map[string]any
	communications         []map[string]any
	ownershipTransferredTo *string
	transferNoticeSent     bool
	provisional            struct{ cycleID, acceptedAt, reopenUntil, timerEventID *string }
	reopenCount            int64
	terminal               map[string]any
	replayFinal            bool
	hidden                 map[string]any
}

func newState(hidden map[string]any) *opState {
	s := &opState{
		phase: "NEW", customerResolution: resolutionUnconfirmed,
		cycles: newOrdered[cycle](), quotes: newOrdered[quote](), approvals: newOrdered[approval](),
		exceptions: newOrdered[exception](), invoices: newOrdered[invoice](), obligations: newOrdered[obligation](),
		authoritative: map[string]map[string]any{}, hidden: deepCopyMap(hidden),
	}
	s.payment.status = paymentNotRequested
	return s
}

func sp(s string) *string { return &s }

func (c *cycle) tree() map[string]any {
	return map[string]any{
		"cycle_id": c.id, "kind": c.kind, "parent_cycle_id": optString(c.parent), "scope_digest": optString(c.scope),
		"visit_id": optString(c.visitID), "visit_status": c.visitStatus, "reported_outcome": optString(c.reportedOutcome),
		"work_evidence_id": optString(c.workEvidenceID), "requires_payment": c.requiresPayment,
		"completion_notice_sent": c.completionNoticeSent,
	}
}

func (q *quote) tree() map[string]any {
	return map[string]any{
		"quote_id": q.quoteID, "version": q.version, "cycle_id": q.cycleID, "amount_minor": q.amount,
		"currency": q.currency, "scope_digest": q.scope, "status": q.status, "valid_until": optString(q.validUntil),
	}
}

func (a *approval) tree() map[string]any {
	return map[string]any{
		"checkpoint_id": a.checkpointID, "quote_id": a.quoteID, "quote_version": a.quoteVersion,
		"cycle_id": a.cycleID, "amount_minor": a.amount, "currency": a.currency, "scope_digest": a.scope,
		"opened_at": a.openedAt, "deadline_at": a.deadlineAt, "status": a.status,
		"resolved_at": optString(a.resolvedAt), "reminder_fired": a.reminderFired,
	}
}

func (e *exception) tree() map[string]any {
	return map[string]any{
		"checkpoint_id": e.checkpointID, "exception_type": e.exceptionType, "cycle_id": optString(e.cycleID),
		"opened_at": e.openedAt, "deadline_at": e.deadlineAt, "evidence_refs": canon.StringList(e.evidenceRefs),
		"status": e.status, "resolution": optString(e.resolution), "resolved_at": optString(e.resolvedAt),
	}
}

func (i *invoice) tree() map[string]any {
	return map[string]any{
		"invoice_id": i.invoiceID, "cycle_id": i.cycleID, "quote_id": i.quoteID, "quote_version": i.quoteVersion,
		"amount_minor": i.amount, "currency": i.currency, "status": i.status, "validation_id": optString(i.validationID),
	}
}

func (o *obligation) tree() map[string]any {
	return map[string]any{
		"obligation_id": o.id, "kind": o.kind, "cycle_id": optString(o.cycleID), "due_at": o.dueAt,
		"status": o.status, "closed_at": optString(o.closedAt),
	}
}

func registryTree[T any](o *ordered[T], f func(*T) map[string]any) map[string]any {
	out := make(map[string]any, o.len())
	for _, k := range o.keys {
		out[k] = f(o.m[k])
	}
	return out
}

func listTree(l []map[string]any) []any {
	out := make([]any, len(l))
	for i, m := range l {
		out[i] = maps.Clone(m)
	}
	return out
}

// root builds one observable root as a fresh canon tree.
func (s *opState) root(name string) any {
	switch name {
	case "phase":
		return s.phase
	case "issue_id":
		return optString(s.issueID)
	case "classification":
		return optString(s.classification)
	case "customer_resolution":
		return s.customerResolution
	case "current_cycle_id":
		return optString(s.currentCycleID)
	case "cycles":
		return registryTree(&s.cycles, (*cycle).tree)
	case "quotes":
		return registryTree(&s.quotes, (*quote).tree)
	case "approvals":
		return registryTree(&s.approvals, (*approval).tree)
	case "exceptions":
		return registryTree(&s.exceptions, (*exception).tree)
	case "invoices":
		return registryTree(&s.invoices, (*invoice).tree)
	case "obligations":
		return registryTree(&s.obligations, (*obligation).tree)
	case "payment":
		return map[string]any{
			"request_id": optString(s.payment.requestID), "invoice_id": optString(s.payment.invoiceID),
			"cycle_id": optString(s.payment.cycleID), "status": s.payment.status, "settlement_id": optString(s.payment.settlementID),
		}
	case "assertions":
		return listTree(s.assertions)
	case "authoritative_records":
		out := make(map[string]any, len(s.authoritative))
		for k, v := range s.authoritative {
			out[k] = maps.Clone(v)
		}
		return out
	case "communications":
		return listTree(s.communications)
	case "ownership_transferred_to":
		return optString(s.ownershipTransferredTo)
	case "transfer_notice_sent":
		return s.transferNoticeSent
	case "provisional_close":
		return map[string]any{
			"cycle_id": optString(s.provisional.cycleID), "accepted_at": optString(s.provisional.acceptedAt),
			"reopen_until": optString(s.provisional.reopenUntil), "timer_event_id": optString(s.provisional.timerEventID),
		}
	case "reopen_count":
		return s.reopenCount
	case "terminal":
		if s.terminal == nil {
			return nil
		}
		return maps.Clone(s.terminal)
	case "replay_final":
		return s.replayFinal
	}
	panic("maintenance: no observable root " + name)
}

// ObservableRoots are the 21 roots the read tools project (hidden excluded).
var ObservableRoots = []string{
	"phase", "issue_id", "classification", "customer_resolution", "current_cycle_id", "cycles", "quotes",
	"approvals", "exceptions", "invoices", "obligations", "payment", "assertions", "authoritative_records",
	"communications", "ownership_transferred_to", "transfer_notice_sent", "provisional_close",
	"reopen_count", "terminal", "replay_final",
}

func (s *opState) canonical() map[string]any {
	out := make(map[string]any, len(ObservableRoots)+1)
	for _, r := range ObservableRoots {
		out[r] = s.root(r)
	}
	out["hidden"] = deepCopyMap(s.hidden)
	return out
}

func (s *opState) currentCycle() *cycle {
	if s.currentCycleID == nil {
		return nil
	}
	return s.cycles.get(*s.currentCycleID)
}

func (s *opState) openApprovals() []*approval {
	var out []*approval
	s.approvals.each(func(_ string, a *approval) {
		if a.status == approvalOpen {
			out = append(out, a)
		}
	})
	return out
}

func (s *opState) openExceptions() []*exception {
	var out []*exception
	s.exceptions.each(func(_ string, e *exception) {
		if e.status == "OPEN" {
			out = append(out, e)
		}
	})
	return out
}

func (s *opState) openObligationIDs() []string {
	var out []string
	s.obligations.each(func(k string, o *obligation) {
		if o.status == obligationOpen {
			out = append(out, o.id)
		}
	})
	slices.Sort(out)
	return out
}

func (s *opState) blockingCheckpoints() []string {
	var out []string
	for _, a := range s.openApprovals() {
		out = append(out, a.checkpointID)
	}
	for _, e := range s.openExceptions() {
		out = append(out, e.checkpointID)
	}
	slices.Sort(out)
	return out
}

func (s *opState) cycleForVisit(visitID string) *cycle {
	var found *cycle
	for _, k := range s.cycles.keys {
		c := s.cycles.m[k]
		if c.visitID != nil && *c.visitID == visitID {
			found = c
			break
		}
	}
	return found
}
