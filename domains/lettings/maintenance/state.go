package maintenance

import (
	"slices"

	"github.com/obaudit/obaudit/engine"
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

// filter is the entries keep holds, in insertion order.
func (o *ordered[T]) filter(keep func(*T) bool) []*T {
	var out []*T
	for _, k := range o.keys {
		if v := o.m[k]; keep(v) {
			out = append(out, v)
		}
	}
	return out
}

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

// The records' members, each declared once in key order: their canonical
// JSON and their trees both derive from these (engine.Members).

func (c *cycle) members(o *engine.Members) {
	o.Bool("completion_notice_sent", c.completionNoticeSent)
	o.Str("cycle_id", c.id)
	o.Str("kind", c.kind)
	o.OptStr("parent_cycle_id", c.parent)
	o.OptStr("reported_outcome", c.reportedOutcome)
	o.Bool("requires_payment", c.requiresPayment)
	o.OptStr("scope_digest", c.scope)
	o.OptStr("visit_id", c.visitID)
	o.Str("visit_status", c.visitStatus)
	o.OptStr("work_evidence_id", c.workEvidenceID)
}

func (q *quote) members(o *engine.Members) {
	o.Int("amount_minor", q.amount)
	o.Str("currency", q.currency)
	o.Str("cycle_id", q.cycleID)
	o.Str("quote_id", q.quoteID)
	o.Str("scope_digest", q.scope)
	o.Str("status", q.status)
	o.OptStr("valid_until", q.validUntil)
	o.Int("version", q.version)
}

func (a *approval) members(o *engine.Members) {
	o.Int("amount_minor", a.amount)
	o.Str("checkpoint_id", a.checkpointID)
	o.Str("currency", a.currency)
	o.Str("cycle_id", a.cycleID)
	o.Str("deadline_at", a.deadlineAt)
	o.Str("opened_at", a.openedAt)
	o.Str("quote_id", a.quoteID)
	o.Int("quote_version", a.quoteVersion)
	o.Bool("reminder_fired", a.reminderFired)
	o.OptStr("resolved_at", a.resolvedAt)
	o.Str("scope_digest", a.scope)
	o.Str("status", a.status)
}

func (e *exception) members(o *engine.Members) {
	o.Str("checkpoint_id", e.checkpointID)
	o.OptStr("cycle_id", e.cycleID)
	o.Str("deadline_at", e.deadlineAt)
	o.Strs("evidence_refs", e.evidenceRefs)
	o.Str("exception_type", e.exceptionType)
	o.Str("opened_at", e.openedAt)
	o.OptStr("resolution", e.resolution)
	o.OptStr("resolved_at", e.resolvedAt)
	o.Str("status", e.status)
}

func (i *invoice) members(o *engine.Members) {
	o.Int("amount_minor", i.amount)
	o.Str("currency", i.currency)
	o.Str("cycle_id", i.cycleID)
	o.Str("invoice_id", i.invoiceID)
	o.Str("quote_id", i.quoteID)
	o.Int("quote_version", i.quoteVersion)
	o.Str("status", i.status)
	o.OptStr("validation_id", i.validationID)
}

func (b *obligation) members(o *engine.Members) {
	o.OptStr("closed_at", b.closedAt)
	o.OptStr("cycle_id", b.cycleID)
	o.Str("due_at", b.dueAt)
	o.Str("kind", b.kind)
	o.Str("obligation_id", b.id)
	o.Str("status", b.status)
}

func (s *opState) paymentMembers(o *engine.Members) {
	o.OptStr("cycle_id", s.payment.cycleID)
	o.OptStr("invoice_id", s.payment.invoiceID)
	o.OptStr("request_id", s.payment.requestID)
	o.OptStr("settlement_id", s.payment.settlementID)
	o.Str("status", s.payment.status)
}

func (s *opState) provisionalMembers(o *engine.Members) {
	o.OptStr("accepted_at", s.provisional.acceptedAt)
	o.OptStr("cycle_id", s.provisional.cycleID)
	o.OptStr("reopen_until", s.provisional.reopenUntil)
	o.OptStr("timer_event_id", s.provisional.timerEventID)
}

// record is a registry entry type (a pointer to T) declaring its members.
type record[T any] interface {
	*T
	members(*engine.Members)
}

// entryTree is a registry entry's tree, declared through o.
func entryTree[T any, P record[T]](o *engine.Members, e *T) map[string]any {
	o.BeginTree(false)
	P(e).members(o)
	return o.EndTree().(map[string]any)
}

// registry is a registry root (the records of one type, by id) as the
// roots read it: declared (root, appendRoot) or kept in the served-record
// cache (refreshRootAt).
type registry interface {
	member(o *engine.Members, name string)
	refresh(r *runState, rc *rootCache)
}

// registryOf is root name's registry, or nil for a root that is not one.
func (s *opState) registryOf(name string) registry {
	switch name {
	case "cycles":
		return registryRoot[cycle, *cycle]{&s.cycles}
	case "quotes":
		return registryRoot[quote, *quote]{&s.quotes}
	case "approvals":
		return registryRoot[approval, *approval]{&s.approvals}
	case "exceptions":
		return registryRoot[exception, *exception]{&s.exceptions}
	case "invoices":
		return registryRoot[invoice, *invoice]{&s.invoices}
	case "obligations":
		return registryRoot[obligation, *obligation]{&s.obligations}
	}
	return nil
}

type registryRoot[T any, P record[T]] struct{ o *ordered[T] }

// member declares the root: its entries by id, in key order.
func (g registryRoot[T, P]) member(o *engine.Members, name string) {
	var stack [16]string
	keys := append(stack[:0], g.o.keys...)
	slices.Sort(keys)
	o.Object(name, func(m *engine.Members) {
		for _, k := range keys {
			m.Object(k, P(g.o.m[k]).members)
		}
	})
}

func (g registryRoot[T, P]) refresh(r *runState, rc *rootCache) { refreshRegistry[T, P](r, rc, g.o) }

// writeRoot declares observable root name: the one rule from which its
// tree (root) and its canonical JSON (appendRoot) both derive.
func (s *opState) writeRoot(o *engine.Members, name string) {
	if reg := s.registryOf(name); reg != nil {
		reg.member(o, name)
		return
	}
	switch name {
	case "phase":
		o.Str(name, s.phase)
	case "issue_id":
		o.OptStr(name, s.issueID)
	case "classification":
		o.OptStr(name, s.classification)
	case "customer_resolution":
		o.Str(name, s.customerResolution)
	case "current_cycle_id":
		o.OptStr(name, s.currentCycleID)
	case "payment":
		o.Object(name, s.paymentMembers)
	case "assertions":
		o.Maps(name, s.assertions)
	case "authoritative_records":
		var stack [16]string
		keys := stack[:0]
		for k := range s.authoritative {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		o.Object(name, func(m *engine.Members) {
			for _, k := range keys {
				m.Map(k, s.authoritative[k])
			}
		})
	case "communications":
		o.Maps(name, s.communications)
	case "ownership_transferred_to":
		o.OptStr(name, s.ownershipTransferredTo)
	case "transfer_notice_sent":
		o.Bool(name, s.transferNoticeSent)
	case "provisional_close":
		o.Object(name, s.provisionalMembers)
	case "reopen_count":
		o.Int(name, s.reopenCount)
	case "terminal":
		if s.terminal == nil {
			o.Value(name, nil)
		} else {
			o.Map(name, s.terminal)
		}
	case "replay_final":
		o.Bool(name, s.replayFinal)
	default:
		panic("maintenance: no observable root " + name)
	}
}

// root builds one observable root as a fresh canon tree, declaring it to
// o (held by the caller, so that nothing is allocated for it).
func (s *opState) root(o *engine.Members, name string) any {
	o.BeginTree(true)
	s.writeRoot(o, name)
	return o.EndTree()
}

// appendRoot writes the canonical JSON of root(name) through o.
func (s *opState) appendRoot(o *engine.Members, b []byte, name string) []byte {
	o.Begin(b, true)
	s.writeRoot(o, name)
	return o.End()
}

// ObservableRoots are the 21 roots the read tools project (hidden excluded).
var ObservableRoots = []string{
	"phase", "issue_id", "classification", "customer_resolution", "current_cycle_id", "cycles", "quotes",
	"approvals", "exceptions", "invoices", "obligations", "payment", "assertions", "authoritative_records",
	"communications", "ownership_transferred_to", "transfer_notice_sent", "provisional_close",
	"reopen_count", "terminal", "replay_final",
}

// canonicalRoots is ObservableRoots plus "hidden", sorted: the key order of
// the final state.
var canonicalRoots = func() []string {
	r := append(slices.Clone(ObservableRoots), "hidden")
	slices.Sort(r)
	return r
}()

// stateMembers declares the final state: every root and the hidden state.
func (s *opState) stateMembers(o *engine.Members) {
	for _, r := range canonicalRoots {
		switch {
		case r != "hidden":
			s.writeRoot(o, r)
		case o.IsTree():
			o.Value(r, deepCopyMap(s.hidden))
		default:
			o.Value(r, s.hidden)
		}
	}
}

// canonical is the final state's tree, declared through o.
func (s *opState) canonical(o *engine.Members) map[string]any {
	o.BeginTree(false)
	s.stateMembers(o)
	return o.EndTree().(map[string]any)
}

// appendCanonical writes the canonical JSON of canonical() (the final state).
func (s *opState) appendCanonical(b []byte) []byte {
	return engine.AppendMembers(b, s.stateMembers)
}

func (s *opState) currentCycle() *cycle {
	if s.currentCycleID == nil {
		return nil
	}
	return s.cycles.get(*s.currentCycleID)
}

func (s *opState) openApprovals() []*approval {
	return s.approvals.filter(func(a *approval) bool { return a.status == approvalOpen })
}

func (s *opState) openExceptions() []*exception {
	return s.exceptions.filter(func(e *exception) bool { return e.status == "OPEN" })
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
	for _, k := range s.cycles.keys {
		if c := s.cycles.m[k]; c.visitID != nil && *c.visitID == visitID {
			return c
		}
	}
	return nil
}
