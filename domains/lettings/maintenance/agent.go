package maintenance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/engine"
)

// Actors and fixtures the reference agent addresses.
const (
	Customer = "customer_1"
	Approver = "approver_1"
	// EscalationLabel is what an ESCALATE carries when it has no approval
	// checkpoint to name (always_escalate uses it).
	EscalationLabel = "requested_exception_checkpoint"
)

// Wake sets the reference declares.
var (
	WakeVisitPending = []string{"supplier_visit_response", "visit_followup_due"}
	WakeVisitBooked  = []string{"supplier_work_reported", "work_evidence_verified", "supplier_quote_received", "visit_followup_due"}
	WakeWorkReported = []string{"supplier_quote_received", "work_evidence_verified"}
	WakeApproval     = []string{"approver_decision_received", "approval_reminder_due", "approval_deadline_due", "supplier_invoice_received", "supplier_assertion_received"}
	WakeInvoice      = []string{"supplier_invoice_received", "supplier_assertion_received"}
	WakeValidation   = []string{"invoice_validation_completed"}
	WakePayment      = []string{"payment_settlement_confirmed"}
	WakeException    = []string{"operator_exception_resolved"}
	WakeCustomer     = []string{"customer_resolution_reported"}
)

// MissingRootError says a decision rule reached for a root no served result
// carries. It is how a view tells the planner which read would answer.
type MissingRootError struct{ Root string }

func (e *MissingRootError) Error() string { return "no served record carries root " + e.Root }

// View is a record-shaped view over served records: the union of the
// records of every ok result. A miss is never a default: it is a
// [*MissingRootError].
type View struct {
	// layers are the Records of the ok results in tool order; where two
	// carry a root, the later one's value is the union's (as a merge in
	// tool order would keep it).
	layers []map[string]any
}

// ViewOf builds a view over served results (an observation's Served map, or
// a cached copy of one). It reads the results' records in place.
func ViewOf(served map[string]*engine.ToolResult) View {
	var stack [16]string
	tools := stack[:0]
	for t, r := range served {
		if r.OK {
			tools = append(tools, t)
		}
	}
	slices.Sort(tools)
	layers := make([]map[string]any, len(tools))
	for i, t := range tools {
		layers[i] = served[t].Records
	}
	return View{layers: layers}
}

func (v View) lookup(root string) (any, bool) {
	for i := len(v.layers) - 1; i >= 0; i-- {
		if x, ok := v.layers[i][root]; ok {
			return x, true
		}
	}
	return nil, false
}

// Get returns a root, or a *MissingRootError.
func (v View) Get(root string) (any, error) {
	x, ok := v.lookup(root)
	if !ok {
		return nil, &MissingRootError{root}
	}
	return x, nil
}

// must is the lazy access the rules use; a miss unwinds to Decide.
func (v View) must(root string) any {
	x, ok := v.lookup(root)
	if !ok {
		panic(&MissingRootError{root})
	}
	return x
}

func (v View) mapRoot(root string) map[string]any {
	m, _ := v.must(root).(map[string]any)
	return m
}

// Decide runs the reference decision cascade over a view and the policy
// view. A rule that needs a root the view lacks returns a
// *MissingRootError (the planner turns it into the read that answers it).
// The same rules back the reference and the negative agents that wrap it.
func Decide(v View, policy map[string]any) (d engine.Decision, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, ok := r.(*MissingRootError)
			if !ok {
				panic(r)
			}
			d, err = nil, m
		}
	}()
	return decide(v, policy), nil
}

func message(recipient, fixture string, correlation any) engine.Decision {
	return &engine.Act{
		ActionType: "send_message",
		Payload:    map[string]any{"recipient_actor_id": recipient, "message_fixture_id": fixture, "correlation_id": correlation},
		Rationale:  fmt.Sprintf("send %s to %s", fixture, recipient),
	}
}

func approvalsWith(v View, statuses ...string) []map[string]any {
	var out []map[string]any
	for _, a := range v.mapRoot("approvals") {
		am, _ := a.(map[string]any)
		if s, _ := am["status"].(string); slices.Contains(statuses, s) {
			out = append(out, am)
		}
	}
	slices.SortFunc(out, func(a, b map[string]any) int {
		return strings.Compare(sprint(a["checkpoint_id"]), sprint(b["checkpoint_id"]))
	})
	return out
}

func sent(v View, fixture string, correlation any) bool {
	comms, _ := v.must("communications").([]any)
	return slices.ContainsFunc(comms, func(c any) bool {
		m, _ := c.(map[string]any)
		return m["message_fixture_id"] == fixture && m["correlation_id"] == correlation
	})
}

func obligationOpenIn(v View, id string) bool {
	o, ok := v.mapRoot("obligations")[id].(map[string]any)
	return ok && o["status"] == "OPEN"
}

func asInt(x any) int64 {
	n, _ := x.(int64)
	return n
}

func decide(v View, policy map[string]any) engine.Decision {
	var cycle map[string]any
	cycleID := v.must("current_cycle_id")
	if cid, ok := cycleID.(string); ok {
		cycle, _ = v.mapRoot("cycles")[cid].(map[string]any)
	}

	// 1. A human has taken the operation over: tell the customer, then close.
	if v.must("ownership_transferred_to") != nil {
		if sentFlag, _ := v.must("transfer_notice_sent").(bool); !sentFlag {
			return message(Customer, MsgTransferNotice, cycleID)
		}
		return &engine.Complete{Reason: "an authorised operator has accepted ownership"}
	}
	// 2. An exception checkpoint is with a human.
	for _, e := range v.mapRoot("exceptions") {
		if em, _ := e.(map[string]any); em["status"] == "OPEN" {
			return &engine.Wait{Reason: "an operator holds the exception checkpoint", WakeOn: WakeException, FallbackAfterMinutes: engine.Minutes(2880)}
		}
	}
	// 3. Approval refused or expired: a hand-off is due.
	if blocked := approvalsWith(v, approvalRejected, approvalExpired); len(blocked) > 0 && len(v.mapRoot("exceptions")) == 0 {
		a := blocked[0]
		if !sent(v, MsgCannotProceed, a["cycle_id"]) {
			return message(Customer, MsgCannotProceed, a["cycle_id"])
		}
		et := "APPROVAL_EXPIRED"
		if a["status"] == approvalRejected {
			et = "APPROVAL_REJECTED"
		}
		cp := sprint(a["checkpoint_id"])
		return &engine.Escalate{
			CheckpointID: cp, ExceptionType: et,
			EvidenceRefs:         []string{cp, fmt.Sprintf("%v:v%v", a["quote_id"], a["quote_version"])},
			DeadlineAfterMinutes: 1440, Rationale: "the authored path for a refused or expired approval",
		}
	}
	// 4. A decision is outstanding: chase it once when the reminder is due.
	if open := approvalsWith(v, approvalOpen); len(open) > 0 {
		a := open[0]
		cp := sprint(a["checkpoint_id"])
		if fired, _ := a["reminder_fired"].(bool); fired && obligationOpenIn(v, reminderObligationID(cp)) {
			return message(Approver, MsgApprovalReminder, a["cycle_id"])
		}
		return &engine.Wait{Reason: "the approver holds an open quote decision", WakeOn: WakeApproval}
	}
	// 5. An approved quote whose work has not been booked: authorise it.
	for _, a := range approvalsWith(v, approvalApproved) {
		target, ok := v.mapRoot("cycles")[sprint(a["cycle_id"])].(map[string]any)
		if ok && target["visit_status"] == visitNone {
			return &engine.Act{
				ActionType: "authorise_supplier_work",
				Payload: map[string]any{
					"quote_id": a["quote_id"], "quote_version": a["quote_version"],
					"approval_checkpoint_id": a["checkpoint_id"], "cycle_id": a["cycle_id"],
				},
				EvidenceRefs: []string{sprint(a["checkpoint_id"])},
				Rationale:    "the approver granted this exact quote version",
			}
		}
	}
	// 6. An above-threshold quote with no checkpoint: open the one that is due.
	quotes := v.mapRoot("quotes")
quotes:
	for _, key := range slices.Sorted(maps.Keys(quotes)) {
		q, _ := quotes[key].(map[string]any)
		if q["status"] != quoteReceived || asInt(q["amount_minor"]) <= asInt(policy["approval_threshold_minor"]) {
			continue
		}
		for _, a := range v.mapRoot("approvals") {
			if am, _ := a.(map[string]any); am["quote_id"] == q["quote_id"] && am["quote_version"] == q["version"] {
				continue quotes // a checkpoint covers it
			}
		}
		return &engine.Act{
			ActionType: "request_approval",
			Payload: map[string]any{
				"quote_id": q["quote_id"], "quote_version": q["version"], "amount_minor": q["amount_minor"],
				"currency": q["currency"], "scope_digest": q["scope_digest"], "cycle_id": q["cycle_id"],
				"deadline_after_minutes": policy["approval_deadline_after_minutes"],
			},
			Rationale: fmt.Sprintf("quote %s is above the authored approval threshold", key),
		}
	}
	if cycle == nil || cycleID == nil {
		return &engine.Wait{Reason: "nothing has been reported yet", WakeOn: []string{"customer_issue_reported"}, FallbackAfterMinutes: engine.Minutes(1440)}
	}
	cid := sprint(cycleID)
	// 7. The current cycle's work is verified: bill it, pay it, close it.
	if cycle["visit_status"] == visitWorkVerified {
		return afterVerifiedWork(v, cycle, cid)
	}
	// 8. No visit yet: book the one the cycle is entitled to.
	if cycle["visit_status"] == visitNone && cycle["kind"] != cycleApprovedWork {
		return &engine.Act{
			ActionType: "request_supplier_visit",
			Payload:    map[string]any{"visit_type": cycle["kind"], "cycle_id": cycleID, "scope_digest": cycle["scope_digest"]},
			Rationale:  fmt.Sprintf("cycle %s needs a %v visit", cid, cycle["kind"]),
		}
	}
	// 9. Otherwise the world owes us something. Wait for exactly that.
	status := sprint(cycle["visit_status"])
	return &engine.Wait{Reason: fmt.Sprintf("cycle %s is %s", cid, status), WakeOn: wakeForVisit(status)}
}

func wakeForVisit(status string) []string {
	switch status {
	case visitRequested:
		return WakeVisitPending
	case visitWorkReported:
		return WakeWorkReported
	}
	return WakeVisitBooked
}

func afterVerifiedWork(v View, cycle map[string]any, cid string) engine.Decision {
	if pay, _ := cycle["requires_payment"].(bool); pay {
		// The cycle's invoice: the first by invoice id.
		var inv map[string]any
		for _, x := range v.mapRoot("invoices") {
			if m, _ := x.(map[string]any); m["cycle_id"] == cid && (inv == nil || sprint(m["invoice_id"]) < sprint(inv["invoice_id"])) {
				inv = m
			}
		}
		if inv == nil {
			return &engine.Wait{Reason: "verified work has not been invoiced yet", WakeOn: WakeInvoice, FallbackAfterMinutes: engine.Minutes(2880)}
		}
		switch inv["status"] {
		case invoiceUnvalidated:
			return &engine.Act{
				ActionType: "request_invoice_validation", Payload: map[string]any{"invoice_id": inv["invoice_id"]},
				EvidenceRefs: []string{sprint(cycle["work_evidence_id"])}, Rationale: "the work is verified, so the invoice can be matched",
			}
		case invoiceValidationRequested:
			return &engine.Wait{Reason: "invoice validation is with the payment system", WakeOn: WakeValidation, FallbackAfterMinutes: engine.Minutes(2880)}
		case invoiceValidated:
			payment, _ := v.must("payment").(map[string]any)
			switch payment["status"] {
			case paymentNotRequested:
				return &engine.Act{
					ActionType:   "request_payment",
					Payload:      map[string]any{"invoice_id": inv["invoice_id"], "amount_minor": inv["amount_minor"], "currency": inv["currency"]},
					EvidenceRefs: []string{sprint(inv["invoice_id"]), sprint(cycle["work_evidence_id"])},
					Rationale:    "verified work plus a validated matching invoice",
				}
			case paymentRequested:
				return &engine.Wait{Reason: "settlement is with the payment system", WakeOn: WakePayment, FallbackAfterMinutes: engine.Minutes(2880)}
			}
		}
		return closeOut(cycle, cid)
	}
	if v.must("customer_resolution") == resolutionPersists {
		if !sent(v, MsgRevisitComplete, cid) {
			return message(Customer, MsgRevisitComplete, cid)
		}
		return &engine.Wait{Reason: "waiting for the customer to confirm the revisit worked", WakeOn: WakeCustomer, FallbackAfterMinutes: engine.Minutes(2880)}
	}
	return closeOut(cycle, cid)
}

func closeOut(cycle map[string]any, cid string) engine.Decision {
	if done, _ := cycle["completion_notice_sent"].(bool); !done {
		return message(Customer, MsgCompletionNotice, cid)
	}
	return &engine.Complete{
		Reason:       fmt.Sprintf("cycle %s is verified, settled where payable, and notified", cid),
		EvidenceRefs: []string{sprint(cycle["work_evidence_id"])},
	}
}

// Read planning.

var (
	coreReads       = []string{"get_case_record", "list_checkpoints", "list_communications", "list_obligations", "list_quotes"}
	settlementReads = append(slices.Clone(coreReads), "list_authoritative_records", "list_billing")
)

// PhaseReads is what a decision taken at each phase will touch.
var PhaseReads = map[string][]string{
	"NEW":                  coreReads,
	"ACTIVE":               settlementReads,
	"WAITING_VISIT":        settlementReads,
	"WAITING_APPROVAL":     coreReads,
	"WAITING_EXCEPTION":    coreReads,
	"PROVISIONALLY_CLOSED": settlementReads,
	"FINALIZED":            {"get_case_record"},
	"TRANSFERRED_TO_HUMAN": {"get_case_record", "list_billing", "list_checkpoints", "list_communications", "list_obligations"},
}

// EventTermReads maps a term of the waking event type to the read that
// settles what the event claims.
var EventTermReads = [][2]string{
	{"approval", "list_checkpoints"}, {"assertion", "list_recent_events"}, {"customer", "list_communications"},
	{"evidence", "list_authoritative_records"}, {"exception", "list_checkpoints"}, {"invoice", "list_billing"},
	{"message", "list_communications"}, {"payment", "list_billing"}, {"quote", "list_quotes"},
	{"verified", "list_authoritative_records"}, {"visit", "get_case_record"}, {"work", "get_case_record"},
}

// Planner plans reads from the coarse phase, the waking event type and the
// published read requirements; it requests each tool at most once per
// derived-context window. Create one per episode (or call BeginEpisode).
type Planner struct {
	instance        string
	invocation      int
	attempted       map[string]bool
	sawServed       bool
	boundaryPending string
}

// NewPlanner returns a fresh planner.
func NewPlanner() *Planner { return &Planner{attempted: map[string]bool{}, invocation: -1} }

// BeginEpisode clears all invocation-local bookkeeping.
func (p *Planner) BeginEpisode() {
	p.instance, p.invocation, p.sawServed, p.boundaryPending = "", -1, false, ""
	clear(p.attempted)
}

// DecisionBoundary marks that a state-changing business proposal with this
// outcome key was emitted: unless the next observation shows it refused, the
// attempted reads are cleared.
func (p *Planner) DecisionBoundary(key string) { p.boundaryPending = key }

func (p *Planner) sync(obs *engine.Observation) {
	served := len(obs.Served) > 0
	switch {
	case obs.OperationInstanceID != p.instance || obs.InvocationIndex != p.invocation:
		p.instance, p.invocation = obs.OperationInstanceID, obs.InvocationIndex
		clear(p.attempted)
		p.sawServed = false
		p.boundaryPending = ""
	case p.boundaryPending != "":
		if obs.LastRejection == nil || obs.LastRejection.ActionType != p.boundaryPending {
			clear(p.attempted)
		}
		p.boundaryPending = ""
	case p.sawServed && !served:
		clear(p.attempted)
	}
	p.sawServed = served
}

// Plan returns the batch this observation calls for, or nil when reads have
// already been served in the current window.
func (p *Planner) Plan(obs *engine.Observation) *engine.Retrieve {
	p.sync(obs)
	if len(obs.Served) > 0 {
		return nil
	}
	reads, ok := PhaseReads[obs.Phase]
	if !ok {
		reads = settlementReads
	}
	var stack [16]string
	list := append(stack[:0], reads...)
	if obs.Event != nil {
		for _, tr := range EventTermReads {
			if strings.Contains(obs.Event.EventType, tr[0]) {
				list = append(list, tr[1])
			}
		}
	}
	slices.Sort(list)
	list = slices.Compact(list)
	if len(list) > engine.MaxRequestsPerBatch {
		list = list[:engine.MaxRequestsPerBatch]
	}
	return p.PlanTools(obs, list)
}

// PlanTools requests each named tool at most once in the current window; nil
// when every one was already attempted.
func (p *Planner) PlanTools(obs *engine.Observation, tools []string) *engine.Retrieve {
	p.sync(obs)
	var r *engine.Retrieve
	for _, t := range tools {
		if p.attempted[t] {
			continue
		}
		if r == nil {
			r = &engine.Retrieve{}
		}
		p.attempted[t] = true
		r.Requests = append(r.Requests, engine.Request{Tool: t})
	}
	return r
}

// Gate satisfies an outcome's published required reads before returning it:
// a top-up batch when some are unserved (or a fallback WAIT when they cannot
// be obtained), else the outcome itself, marking the decision boundary.
func (p *Planner) Gate(obs *engine.Observation, d engine.Decision) engine.Decision {
	key, outstanding := OutstandingReads(obs, d)
	if len(outstanding) > 0 {
		if topup := p.PlanTools(obs, outstanding); topup != nil {
			return topup
		}
		return &engine.Wait{Reason: "a required action read failed in this invocation", FallbackAfterMinutes: engine.Minutes(1440)}
	}
	if key != "" {
		p.DecisionBoundary(key)
	}
	return d
}

// ReadMissing answers a decision rule that reached for a root no served
// result carries: a top-up read of the tool that serves it, or a fallback
// WAIT when that tool is unknown, already served or already attempted.
func (p *Planner) ReadMissing(obs *engine.Observation, miss *MissingRootError) engine.Decision {
	tool, ok := RootTool[miss.Root]
	if _, served := obs.Served[tool]; !ok || served {
		return &engine.Wait{Reason: "the record does not carry what this decision needs", FallbackAfterMinutes: engine.Minutes(1440)}
	}
	if topup := p.PlanTools(obs, []string{tool}); topup != nil {
		return topup
	}
	return &engine.Wait{Reason: "a required record read failed in this invocation", FallbackAfterMinutes: engine.Minutes(1440)}
}

// OutcomeReadKey is the published schema an outcome's reads come from:
// the action type (ACT), send_message (ASK), request_exception_resolution
// (ESCALATE), complete (COMPLETE), or "" (WAIT rests on nothing).
func OutcomeReadKey(d engine.Decision) string {
	switch o := d.(type) {
	case *engine.Act:
		return o.ActionType
	case *engine.Ask:
		return "send_message"
	case *engine.Escalate:
		return "request_exception_resolution"
	case *engine.Complete:
		return engine.CompleteOutcomeKey
	}
	return ""
}

// OutstandingReads is the outcome's read key and its published required
// reads this window has not served.
func OutstandingReads(obs *engine.Observation, d engine.Decision) (string, []string) {
	key := OutcomeReadKey(d)
	if key == "" {
		return "", nil
	}
	return key, slices.DeleteFunc(slices.Clone(obs.RequiredReads(key)), func(t string) bool {
		_, served := obs.Served[t]
		return served
	})
}

// Reference is the retrieving reference agent: the decision cascade run over
// records it asked for through the published reads. It keeps no memory
// between invocations.
type Reference struct{ planner *Planner }

var _ engine.Agent = (*Reference)(nil)

// NewReference returns a fresh reference agent.
func NewReference() *Reference { return &Reference{planner: NewPlanner()} }

// BeginEpisode implements [engine.Agent].
func (a *Reference) BeginEpisode(engine.AgentIdentity) { a.planner.BeginEpisode() }

// DecisionBoundary forwards a business-outcome boundary to the planner
// (wrappers that emit their own proposal call it).
func (a *Reference) DecisionBoundary(key string) { a.planner.DecisionBoundary(key) }

// Decide implements [engine.Agent].
func (a *Reference) Decide(obs *engine.Observation) (engine.Decision, error) {
	if planned := a.planner.Plan(obs); planned != nil {
		return planned, nil
	}
	d, err := Decide(ViewOf(obs.Served), obs.Static().Policy)
	if err != nil {
		return a.planner.ReadMissing(obs, err.(*MissingRootError)), nil
	}
	return a.planner.Gate(obs, d), nil
}

// sprint is fmt.Sprint(x) without formatting when x is already a string
// (fmt.Sprint of one string operand is that string).
func sprint(x any) string {
	if s, ok := x.(string); ok {
		return s
	}
	return fmt.Sprint(x)
}

// CheckpointExpiryEvent is the event that closes a human checkpoint left
// unanswered at its deadline (the checkpoint has no resolution row; the
// event's payload names it under checkpoint_id).
const CheckpointExpiryEvent = "approval_deadline_due"
