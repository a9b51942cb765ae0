package maintenance

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/internal/python"
)

// eventKind is one event type of the operation: the authority an actor
// must hold to emit it, the tools whose records its reducer may change
// (touches: a test re-derives every served record from scratch and holds
// the cache to it), and its reducer.
type eventKind struct {
	authority string
	touches   uint8
	reduce    func(*runState, *engine.Context, *engine.Event) engine.Verdict
}

// events maps every event type of the operation to its authority, touches
// and reducer. It is the provenance contract, and a completeness claim:
// every type here has a reducer.
var events = map[string]eventKind{
	"customer_issue_reported":      {"report_issue", tCase, (*runState).reduceIssueReported},
	"customer_resolution_reported": {"confirm_resolution", tCase, (*runState).reduceCustomerResolution},
	"supplier_visit_response":      {"respond_to_visit", tCase, (*runState).reduceVisitResponse},
	"supplier_work_reported":       {"report_work", tCase, (*runState).reduceWorkReported},
	"supplier_quote_received":      {"submit_quote", tCase | tQuotes, (*runState).reduceQuoteReceived},
	"supplier_invoice_received":    {"submit_invoice", tBilling, (*runState).reduceInvoiceReceived},
	"supplier_assertion_received":  {"assert_status", tEvents, (*runState).reduceAssertion},
	"approver_decision_received":   {"approve_repair_quote", tCase | tCheckpoints | tQuotes | tObligations, (*runState).reduceApproverDecision},
	"operator_exception_resolved":  {"resolve_exception", tCase | tCheckpoints, (*runState).reduceOperatorResolution},
	"visit_attendance_verified":    {"verify_attendance", tCase | tAuth | tObligations, (*runState).reduceAttendanceVerified},
	"work_evidence_verified":       {"verify_work", tCase | tAuth | tObligations, (*runState).reduceWorkEvidence},
	"invoice_validation_completed": {"validate_invoice", tBilling | tAuth, (*runState).reduceInvoiceValidation},
	"payment_settlement_confirmed": {"confirm_settlement", tBilling | tAuth | tObligations, (*runState).reduceSettlement},
	"approval_reminder_due":        {"emit_timer", tCheckpoints, (*runState).reduceReminderDue},
	"approval_deadline_due":        {"emit_timer", tCheckpoints | tQuotes | tObligations, (*runState).reduceDeadlineDue},
	"visit_followup_due":           {"emit_timer", tObligations, (*runState).reduceVisitFollowupDue},
	"provisional_close_expired":    {"emit_timer", tCase, (*runState).reduceProvisionalExpired},
}

// ActionTypes are the actions the agent may propose, plus the terminal
// pseudo-action "complete" a trigger may hang off.
var ActionTypes = append(slices.Clone(actionOrder), engine.CompleteOutcomeKey)

// WakeEventTypes is the published wake vocabulary (every event type, sorted).
var WakeEventTypes = slices.Sorted(maps.Keys(events))

// RoleAuthority is the authority class an actor's word carries, by role.
var RoleAuthority = map[string]string{
	"agent":                         engine.AuthorityActorClaim,
	"approver":                      engine.AuthorityActorClaim,
	"authoritative_external_system": engine.AuthorityAuthoritativeVerification,
	"customer":                      engine.AuthorityActorClaim,
	"operator_human":                engine.AuthorityActorClaim,
	"supplier":                      engine.AuthorityActorClaim,
	"system_scheduler":              engine.AuthoritySystemEvent,
}

// Vocabulary lists the words that belong to this operation and to nothing
// else: its operation type and the default spec's operation id, every event
// type, every action type and every actor role, less the two the engine
// defines itself (the terminal pseudo-action engine.CompleteOutcomeKey and
// the role "agent" of whoever runs the loop). The repository's dependency
// test (TestPackBoundary) holds every non-test Go file outside the pack free
// of them as string literals, so the list is the pack's own and cannot
// drift. Sorted.
func Vocabulary() []string {
	out := []string{OperationType}
	if spec, err := DefaultSpec(); err == nil {
		out = append(out, spec.OperationID)
	}
	out = append(out, WakeEventTypes...)
	out = append(out, actionOrder...)
	for r := range RoleAuthority {
		if r != "agent" {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Payload field kinds.
const (
	kString    = "string"
	kOptString = "optional_string"
	kInteger   = "integer"
	kBoolean   = "boolean"
)

// payloadSchema is (required, optional) field → kind.
type payloadSchema struct {
	required, optional map[string]string
	// kinds is every field's kind; requiredOrder the required field names,
	// sorted; checkOrder those and then the optional ones, sorted; allowed
	// every field name, sorted.
	kinds                              map[string]string
	requiredOrder, checkOrder, allowed []string
}

func ps(req, opt map[string]string) payloadSchema {
	if opt == nil {
		opt = map[string]string{}
	}
	all := maps.Clone(req)
	maps.Copy(all, opt)
	reqOrder := slices.Sorted(maps.Keys(req))
	return payloadSchema{req, opt, all, reqOrder, append(slices.Clone(reqOrder), slices.Sorted(maps.Keys(opt))...), slices.Sorted(maps.Keys(all))}
}

// eventPayloadSchemas is the exact payload contract of every event type,
// built on first use.
var eventPayloadSchemas = sync.OnceValue(func() map[string]payloadSchema {
	return map[string]payloadSchema{
		"customer_issue_reported":      ps(map[string]string{"issue_id": kString, "classification": kString, "cycle_id": kString}, map[string]string{"description_fixture_id": kString}),
		"customer_resolution_reported": ps(map[string]string{"issue_id": kString, "status": kString}, map[string]string{"related_visit_id": kString, "cycle_id": kString}),
		"supplier_visit_response":      ps(map[string]string{"visit_id": kString, "cycle_id": kString, "response": kString}, nil),
		"supplier_work_reported":       ps(map[string]string{"visit_id": kString, "cycle_id": kString, "outcome": kString, "scope_digest": kString}, nil),
		"supplier_quote_received": ps(map[string]string{"quote_id": kString, "quote_version": kInteger, "cycle_id": kString,
			"amount_minor": kInteger, "currency": kString, "scope_digest": kString}, map[string]string{"parent_cycle_id": kString}),
		"supplier_invoice_received": ps(map[string]string{"invoice_id": kString, "cycle_id": kString, "quote_id": kString,
			"quote_version": kInteger, "amount_minor": kInteger, "currency": kString}, nil),
		"supplier_assertion_received": ps(map[string]string{"assertion_id": kString, "assertion": kString}, map[string]string{"cycle_id": kString}),
		"approver_decision_received": ps(map[string]string{"checkpoint_id": kString, "quote_id": kString, "quote_version": kInteger,
			"amount_minor": kInteger, "currency": kString, "scope_digest": kString, "decision": kString}, map[string]string{"cycle_id": kString}),
		"operator_exception_resolved":  ps(map[string]string{"checkpoint_id": kString, "decision": kString}, map[string]string{"cycle_id": kString}),
		"visit_attendance_verified":    ps(map[string]string{"visit_id": kString, "cycle_id": kString, "attended": kBoolean}, nil),
		"work_evidence_verified":       ps(map[string]string{"evidence_id": kString, "visit_id": kString, "cycle_id": kString, "scope_digest": kString, "outcome": kString}, nil),
		"invoice_validation_completed": ps(map[string]string{"validation_id": kString, "invoice_id": kString, "valid": kBoolean}, map[string]string{"reason_code": kString, "cycle_id": kString}),
		"payment_settlement_confirmed": ps(map[string]string{"settlement_id": kString, "payment_request_id": kString, "invoice_id": kString,
			"cycle_id": kString, "amount_minor": kInteger, "currency": kString}, nil),
		"approval_reminder_due":     ps(map[string]string{"checkpoint_id": kString, "cycle_id": kString}, nil),
		"approval_deadline_due":     ps(map[string]string{"checkpoint_id": kString, "cycle_id": kString}, nil),
		"visit_followup_due":        ps(map[string]string{"cycle_id": kString}, nil),
		"provisional_close_expired": ps(map[string]string{"cycle_id": kString}, nil),
	}
})

// actionOrder is the order upstream publishes actions in.
var actionOrder = []string{
	"request_supplier_visit", "request_approval", "send_message", "authorise_supplier_work",
	"request_invoice_validation", "request_payment", "request_exception_resolution",
}

// actionPayloadSchemas is the exact payload contract of every action type,
// built on first use.
var actionPayloadSchemas = sync.OnceValue(func() map[string]payloadSchema {
	return map[string]payloadSchema{
		"request_supplier_visit": ps(map[string]string{"visit_type": kString, "cycle_id": kString}, map[string]string{"scope_digest": kOptString}),
		"request_approval": ps(map[string]string{"quote_id": kString, "quote_version": kInteger, "amount_minor": kInteger,
			"currency": kString, "scope_digest": kString, "cycle_id": kString, "deadline_after_minutes": kInteger}, nil),
		"send_message":               ps(map[string]string{"recipient_actor_id": kString, "message_fixture_id": kString}, map[string]string{"correlation_id": kOptString}),
		"authorise_supplier_work":    ps(map[string]string{"quote_id": kString, "quote_version": kInteger, "approval_checkpoint_id": kString, "cycle_id": kString}, nil),
		"request_invoice_validation": ps(map[string]string{"invoice_id": kString}, nil),
		"request_payment":            ps(map[string]string{"invoice_id": kString, "amount_minor": kInteger, "currency": kString}, nil),
		"request_exception_resolution": ps(map[string]string{"exception_type": kString, "approval_checkpoint_id": kString,
			"deadline_after_minutes": kInteger}, nil),
	}
})

func selectorProjection(s engine.EvidenceSelector) (string, map[string]any) {
	switch s.Kind {
	case engine.SelectPayloadRegistryKey:
		return s.PayloadField, map[string]any{"from": s.Tool + "." + s.Root, "select": "key == payload." + s.PayloadField}
	case engine.SelectLinkedAuthority:
		return s.EvidenceField, map[string]any{
			"from": s.AuthorityTool + "." + s.AuthorityRoot,
			"select": fmt.Sprintf("key == cycle.%s; kind == %s; %s == cycle.%s where ", s.EvidenceField, s.AuthorityKind, s.LinkField, s.LinkField) +
				fmt.Sprintf("invoice=%s.%s[payload.%s], cycle=%s.%s[invoice.%s]", s.Tool, s.Root, s.PayloadField, s.LinkTool, s.LinkRoot, s.LinkField),
		}
	}
	return "quote_record_key", map[string]any{
		"from":   s.TargetTool + "." + s.TargetRoot,
		"select": fmt.Sprintf("key == approval.%s + ':v' + approval.%s where approval=%s.%s[payload.%s]", s.IDField, s.VersionField, s.Tool, s.Root, s.PayloadField),
	}
}

// Evidence selectors, as upstream's read contract declares them.
var (
	selApprovalRegistry = engine.EvidenceSelector{Kind: engine.SelectPayloadRegistryKey, Tool: "list_checkpoints", Root: "approvals", PayloadField: "approval_checkpoint_id"}
	selInvoiceRegistry  = engine.EvidenceSelector{Kind: engine.SelectPayloadRegistryKey, Tool: "list_billing", Root: "invoices", PayloadField: "invoice_id"}
	selWorkEvidence     = engine.EvidenceSelector{Kind: engine.SelectLinkedAuthority, Tool: "list_billing", Root: "invoices", PayloadField: "invoice_id",
		LinkField: "cycle_id", LinkTool: "get_case_record", LinkRoot: "cycles", EvidenceField: "work_evidence_id",
		AuthorityTool: "list_authoritative_records", AuthorityRoot: "authoritative_records", AuthorityKind: "work_evidence"}
	selQuoteForApproval = engine.EvidenceSelector{Kind: engine.SelectVersionedTarget, Tool: "list_checkpoints", Root: "approvals", PayloadField: "approval_checkpoint_id",
		IDField: "quote_id", VersionField: "quote_version", TargetTool: "list_quotes", TargetRoot: "quotes"}
)

// obligationContract is one outcome's read and citation requirements.
type obligationContract struct {
	reads    []string // all required, sorted
	evidence []engine.EvidenceSelector
}

var evidenceContract = map[string]obligationContract{
	"request_supplier_visit":       {reads: []string{"get_case_record"}},
	"request_approval":             {reads: []string{"get_case_record", "list_checkpoints", "list_quotes"}},
	"send_message":                 {reads: []string{"get_case_record", "list_communications"}},
	"authorise_supplier_work":      {reads: []string{"get_case_record", "list_checkpoints", "list_quotes"}, evidence: []engine.EvidenceSelector{selApprovalRegistry}},
	"request_invoice_validation":   {reads: []string{"get_case_record", "list_authoritative_records", "list_billing"}, evidence: []engine.EvidenceSelector{selWorkEvidence}},
	"request_payment":              {reads: []string{"get_case_record", "list_authoritative_records", "list_billing"}, evidence: []engine.EvidenceSelector{selInvoiceRegistry, selWorkEvidence}},
	"request_exception_resolution": {reads: []string{"get_case_record", "list_checkpoints", "list_quotes"}, evidence: []engine.EvidenceSelector{selApprovalRegistry, selQuoteForApproval}},
	engine.CompleteOutcomeKey:      {reads: []string{"get_case_record", "list_billing", "list_checkpoints", "list_obligations"}},
}

// RequiredReads lists, sorted, the reads outcomeKey must have had served.
func RequiredReads(outcomeKey string) []string { return evidenceContract[outcomeKey].reads }

func readsPart(key string) map[string]any {
	m := map[string]any{}
	for _, t := range evidenceContract[key].reads {
		m[t] = "required"
	}
	return m
}

func evidencePart(key string) map[string]any {
	req := map[string]any{}
	for _, s := range evidenceContract[key].evidence {
		k, v := selectorProjection(s)
		req[k] = v
	}
	return map[string]any{"required": req}
}

// stringsTree is m as a canon tree.
func stringsTree(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// payloadProblem holds a payload to its schema; "" when it fits. The texts
// are upstream's (they reach the trajectory as refusal details).
func payloadProblem(s payloadSchema, payload map[string]any, where, what string) (problem string, unknownField bool) {
	return payloadProblemAt(s, payload, where, "", what)
}

// payloadProblemAt is payloadProblem with where = wherePrefix + whereID,
// joined only when there is a problem to describe: the check in upstream's
// order, with its messages, allocating nothing for a payload that fits.
func payloadProblemAt(s payloadSchema, payload map[string]any, wherePrefix, whereID, what string) (problem string, unknownField bool) {
	where := func() string { return wherePrefix + whereID }
	if unknown := jsonfield.Unknown(payload, s.allowed); unknown != nil {
		return fmt.Sprintf("%s: payload: unknown field(s) %s; this build refuses a spec it cannot fully honour. Known fields are %s",
			where(), python.Loose.StrList(unknown), python.Loose.StrList(s.allowed)), true
	}
	if missing := jsonfield.Missing(payload, s.requiredOrder); missing != nil {
		return fmt.Sprintf("%s: payload for %s is missing required field(s) %s; the handler indexes these, so a payload without them cannot be executed",
			where(), python.Loose.Quote(what), python.Loose.StrList(missing)), false
	}
	for _, name := range s.checkOrder {
		kind := s.kinds[name]
		v, ok := payload[name]
		if !ok {
			continue
		}
		if kind == kOptString && v == nil {
			continue
		}
		_, isBool := v.(bool)
		if kind == kInteger && isBool {
			return fmt.Sprintf("%s: payload field %s must be an integer, got a boolean; a yes/no answer is not a quantity", where(), python.Loose.Quote(name)), false
		}
		if (kind == kString || kind == kOptString) && isBool {
			return fmt.Sprintf("%s: payload field %s must be a string, got a boolean", where(), python.Loose.Quote(name)), false
		}
		okType := false
		switch kind {
		case kString, kOptString:
			_, okType = v.(string)
		case kInteger:
			_, okType = v.(int64)
		case kBoolean:
			okType = isBool
		}
		if !okType {
			return fmt.Sprintf("%s: payload field %s must be a %s, got %s", where(), python.Loose.Quote(name), kind, python.TypeName(v)), false
		}
		if s, ok := v.(string); ok && s == "" {
			return fmt.Sprintf("%s: payload field %s must be a non-empty string", where(), python.Loose.Quote(name)), false
		}
	}
	return "", false
}

func quoteKey(id string, version int64) string { return fmt.Sprintf("%s:v%d", id, version) }
