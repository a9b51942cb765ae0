package maintenance

import (
	"maps"
	"math"
	"slices"

	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/internal/python"
	"github.com/obaudit/obaudit/refusal"
)

// Refusals of the canonical-state validator ([ValidateFinalState]). Each
// detail starts with the RFC 6901 pointer of the offending value relative to
// the final state, which the error's StatePointer method returns; read through an artefact,
// they sit in the chain under artefact/final-state, whose pointer is
// "/final_state" followed by this one.
var (
	// ErrStateUnknownField is returned when a state object (the root, a
	// registry record, payment, provisional_close, terminal, an assertion, a
	// communication, an authoritative record) carries a field the canonical
	// state this build reads does not define.
	ErrStateUnknownField = refusal.Sentinel("state/unknown-field")
	// ErrStateMissingField is returned when a state object lacks a field its
	// shape requires.
	ErrStateMissingField = refusal.Sentinel("state/missing-field")
	// ErrStateBadField is returned when a state value has the wrong JSON type
	// or form: a non-object where a record or registry belongs, an empty or
	// non-string text, a boolean, float or out-of-range number where an
	// integer belongs, a malformed or impossible instant, a float anywhere
	// in hidden.
	ErrStateBadField = refusal.Sentinel("state/bad-field")
	// ErrStateUnknownValue is returned when a value is outside its closed
	// vocabulary: phase, customer resolution, cycle kind, visit, quote,
	// approval, exception, invoice, obligation or payment status, exception
	// type, terminal outcome, authoritative record kind, dispatch status or
	// channel.
	ErrStateUnknownValue = refusal.Sentinel("state/unknown-value")
	// ErrStateKeyMismatch is returned when a registry record is filed under
	// a key that is not its own identity (a cycle, checkpoint, invoice or
	// obligation id; "<quote_id>:v<version>" for a quote; the attendance,
	// evidence, validation or settlement id an authoritative record is
	// stored under).
	ErrStateKeyMismatch = refusal.Sentinel("state/key-mismatch")
	// ErrStateDanglingReference is returned when the state names a record it
	// does not hold, where the operation only ever writes a reference to a
	// record it has: the current cycle, a quote's, approval's, exception's
	// or obligation's cycle, an approval's quote version, a cycle's work
	// evidence, an invoice's validation, the payment's invoice, cycle and
	// settlement, the provisional close's and terminal's cycle, an
	// authoritative record's cycle or invoice.
	ErrStateDanglingReference = refusal.Sentinel("state/dangling-reference")
	// ErrStateRecoveryUnbound is returned when a delivery-recovery
	// communication (operation 0.7.0) is not bound to exactly one earlier
	// failed transfer notice to the same recipient and correlation.
	ErrStateRecoveryUnbound = refusal.Sentinel("state/recovery-unbound")
)

// Vocabularies of the canonical state (upstream state.py).
var (
	statePhases = []string{"NEW", "ACTIVE", "WAITING_VISIT", "WAITING_APPROVAL", "WAITING_EXCEPTION",
		"PROVISIONALLY_CLOSED", "FINALIZED", "TRANSFERRED_TO_HUMAN"}
	stateResolutions       = []string{resolutionUnconfirmed, resolutionResolved, resolutionPersists}
	stateCycleKinds        = []string{cycleDiagnostic, cycleApprovedWork, cycleWarrantyRevisit}
	stateVisitStatuses     = []string{visitNone, visitRequested, visitScheduled, visitDeclined, visitAttended, visitWorkReported, visitWorkVerified}
	stateQuoteStatuses     = []string{quoteReceived, quoteApproved, quoteRejected, quoteExpired}
	stateApprovalStatuses  = []string{approvalOpen, approvalApproved, approvalRejected, approvalExpired}
	stateExceptionStatuses = []string{"OPEN", "RESOLVED"}
	stateInvoiceStatuses   = []string{invoiceUnvalidated, invoiceValidationRequested, invoiceValidated, invoiceRejected}
	stateObligationStatus  = []string{obligationOpen, obligationDischarged, obligationCancelled, obligationBreached}
	statePaymentStatuses   = []string{paymentNotRequested, paymentRequested, paymentSettled}
	stateDispatchStatuses  = []string{"DELIVERED", "FAILED"}
)

// Record shapes of the canonical state: the exact field set of each.
var (
	stateCycleFields      = []string{"cycle_id", "kind", "parent_cycle_id", "scope_digest", "visit_id", "visit_status", "reported_outcome", "work_evidence_id", "requires_payment", "completion_notice_sent"}
	stateQuoteFields      = []string{"quote_id", "version", "cycle_id", "amount_minor", "currency", "scope_digest", "status", "valid_until"}
	stateApprovalFields   = []string{"checkpoint_id", "quote_id", "quote_version", "cycle_id", "amount_minor", "currency", "scope_digest", "opened_at", "deadline_at", "status", "resolved_at", "reminder_fired"}
	stateExceptionFields  = []string{"checkpoint_id", "exception_type", "cycle_id", "opened_at", "deadline_at", "evidence_refs", "status", "resolution", "resolved_at"}
	stateInvoiceFields    = []string{"invoice_id", "cycle_id", "quote_id", "quote_version", "amount_minor", "currency", "status", "validation_id"}
	stateObligationFields = []string{"obligation_id", "kind", "cycle_id", "due_at", "status", "closed_at"}
	stateMessageFields    = []string{"recipient_actor_id", "message_fixture_id", "correlation_id", "at"}
	// stateAuthoritative are the authoritative record variants by kind.
	stateAuthoritative = map[string][]string{
		"visit_attendance":   {"kind", "cycle_id", "visit_id", "at"},
		"work_evidence":      {"kind", "cycle_id", "visit_id", "scope_digest", "outcome", "at"},
		"invoice_validation": {"kind", "invoice_id", "cycle_id", "valid", "reason_code", "at"},
		"payment_settlement": {"kind", "payment_request_id", "invoice_id", "cycle_id", "amount_minor", "currency", "at"},
	}
)

// StateFields returns the canonical state's root field set for an engine
// version, sorted: the observable roots and hidden, plus
// issue_reporting_actor_id for the engines that wrote it (0.11.0 to 0.13.0).
func StateFields(engineVersion string) []string {
	out := append(slices.Clone(ObservableRoots), "hidden")
	if slices.Contains([]string{"0.11.0", "0.12.0", "0.13.0"}, engineVersion) {
		out = append(out, "issue_reporting_actor_id")
	}
	slices.Sort(out)
	return out
}

// stateError is a state refusal's cause: the pointer of the value it is
// about, relative to the final state.
type stateError struct{ pointer string }

func (e *stateError) Error() string { return "at " + e.pointer }

// StatePointer returns the RFC 6901 pointer, relative to the final state, of
// the value the refusal is about.
func (e *stateError) StatePointer() string { return e.pointer }

func stateFail(sentinel *refusal.Refusal, pointer, format string, args ...any) error {
	r := refusal.New(sentinel, format, args...)
	shown := pointer
	if shown == "" {
		shown = "/"
	}
	r.Detail = shown + ": " + r.Detail
	r.Err = &stateError{pointer: pointer}
	return r
}

// Terminal reads the terminal outcome and the replay-final flag out of a
// final state [ValidateFinalState] accepted: terminal.outcome, or nil with
// no terminal (a re-grade's input, domains.Pack.Terminal).
func Terminal(fs map[string]any) (*string, bool, error) {
	rf, _ := fs["replay_final"].(bool)
	t, ok := fs["terminal"].(map[string]any)
	if !ok {
		return nil, rf, nil
	}
	o, ok := t["outcome"].(string)
	if !ok {
		return nil, rf, nil
	}
	return &o, rf, nil
}

// RecoveryOperationVersion is the operation_version of the delivery-recovery
// operation (contract 8): its trajectory may carry a recovery side effect
// (recovery_of, dispatch_channel) that re-sends [RecoveryFixture], and its
// final state the matching communications.
const RecoveryOperationVersion = "0.7.0"

// RecoveryFixture is the one message fixture a recovery re-sends.
const RecoveryFixture = MsgTransferNotice

// ValidateFinalState holds an untrusted final_state (a canon.Parse tree) to
// the exact canonical state this operation writes, strictly: every root,
// registry, record and list item with exactly its fields, every text
// non-empty, every integer an integer in range, every instant canonical,
// every status, kind and phase in its vocabulary, every registry record
// filed under its own identity, every reference the operation only writes
// to a record it holds resolving to that record, and hidden plain JSON
// without floats. It returns nil or the first refusal (classes state/…)
// with the value's pointer; records are visited in key order, so the
// refusal is deterministic.
//
// engineVersion selects the root set (issue_reporting_actor_id for engines
// 0.11.0 to 0.13.0); recovery admits operation 0.7.0's delivery-recovery
// communications. Communications carry dispatch_status when recovery is on
// or any of them does (all of them then). contract is accepted for the
// artefact reader's hook; the state's shape does not depend on it.
func ValidateFinalState(state map[string]any, engineVersion string, contract int, recovery bool) error {
	v := stateValidator{s: state}
	return v.validate(engineVersion, recovery)
}

type stateValidator struct {
	s map[string]any
	// registries, once their shapes are checked.
	cycles, quotes, invoices, records map[string]any
}

// stateField holds the state's values to the field rules (internal/jsonfield),
// refusing with this validator's classes at pointers relative to the final
// state.
var stateField = &jsonfield.Reader{
	Bad: ErrStateBadField, Unknown: ErrStateUnknownValue,
	UnknownField: ErrStateUnknownField, MissingField: ErrStateMissingField,
	At: stateFail,
}

// statePlainJSON holds hidden truth to JSON without floats (upstream's
// _json_leaf: null, strings, booleans, integers, arrays and objects).
func statePlainJSON(x any, p string) error {
	switch v := x.(type) {
	case nil, string, bool, int64:
		return nil
	case []any:
		for i, e := range v {
			if err := statePlainJSON(e, jsonfield.Index(p, i)); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := statePlainJSON(v[k], jsonfield.Key(p, k)); err != nil {
				return err
			}
		}
		return nil
	}
	return stateFail(ErrStateBadField, p, "must be a JSON scalar (no float) or container, got %s", jsonfield.Kind(x))
}

func (v *stateValidator) validate(engineVersion string, recovery bool) error {
	s := v.s
	if err := stateField.Exact(s, StateFields(engineVersion), ""); err != nil {
		return err
	}
	if err := stateHold(s, stateRootRules, ""); err != nil {
		return err
	}
	// Registries: shapes first (every record), then references between them.
	held := map[string]map[string]any{}
	for _, r := range stateRegistries {
		m, err := stateField.Object(s[r.name], "/"+r.name)
		if err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k == "" {
				return stateFail(ErrStateBadField, "/"+r.name+"/", "a record key must be a non-empty string")
			}
			if err := r.record.check(m[k], jsonfield.Key("/"+r.name, k), k); err != nil {
				return err
			}
		}
		held[r.name] = m
	}
	v.cycles, v.quotes, v.invoices = held["cycles"], held["quotes"], held["invoices"]
	records, err := stateField.Object(s["authoritative_records"], "/authoritative_records")
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(records)) {
		if err := stateAuthoritativeRecord(records[k], jsonfield.Key("/authoritative_records", k), k); err != nil {
			return err
		}
	}
	v.records = records
	if err := statePayment(s["payment"], "/payment"); err != nil {
		return err
	}
	if err := stateAssertions(s["assertions"], "/assertions"); err != nil {
		return err
	}
	if err := stateCommunications(s["communications"], recovery); err != nil {
		return err
	}
	if err := stateProvisional(s["provisional_close"], "/provisional_close"); err != nil {
		return err
	}
	if s["terminal"] != nil {
		if err := stateTerminal(s["terminal"], "/terminal"); err != nil {
			return err
		}
	}
	hidden, err := stateField.Object(s["hidden"], "/hidden")
	if err != nil {
		return err
	}
	if err := statePlainJSON(hidden, "/hidden"); err != nil {
		return err
	}
	return v.references(held)
}

// stateCheck holds one field's value, at pointer p, to its rule.
type stateCheck = jsonfield.Rule

var (
	stateIsText       stateCheck = stateField.Text
	stateIsOptText    stateCheck = stateField.OptText
	stateIsFlag       stateCheck = stateField.Flag
	stateIsOptInstant stateCheck = stateField.OptInstant
	stateIsTextList   stateCheck = stateField.TextList
)

func stateIsInstant(x any, p string) error {
	_, err := stateField.Instant(x, p)
	return err
}

func stateIsInt(minimum int64) stateCheck { return stateField.Integer(minimum, math.MaxInt64) }

func stateIsOneOf(vocab []string) stateCheck {
	return func(x any, p string) error { return stateField.OneOf(x, vocab, p) }
}

// stateRule is one field of a record and the rule its value is held to.
type stateRule struct {
	field string
	check stateCheck
}

// stateRecord is the shape of one registry record: the exact field set,
// the identity the record must be filed under, then each field's rule, in
// the order they are checked (the first failure is the refusal).
type stateRecord struct {
	fields []string
	// filed refuses a record whose identity is not the key it is filed
	// under.
	filed func(r map[string]any, p, key string) error
	rules []stateRule
}

func (s *stateRecord) check(x any, p, key string) error {
	r, err := stateField.Object(x, p)
	if err != nil {
		return err
	}
	if err := stateField.Exact(r, s.fields, p); err != nil {
		return err
	}
	if err := s.filed(r, p, key); err != nil {
		return err
	}
	return stateHold(r, s.rules, p)
}

// stateHold holds each field of the object r at p to its rule, in order.
func stateHold(r map[string]any, rules []stateRule, p string) error {
	for _, rule := range rules {
		if err := rule.check(r[rule.field], p+"/"+rule.field); err != nil {
			return err
		}
	}
	return nil
}

// stateFiledAs is the identity rule of a record filed under its field id:
// a non-empty string equal to the key; mismatch words the refusal (key,
// then id).
func stateFiledAs(id, mismatch string) func(map[string]any, string, string) error {
	return func(r map[string]any, p, key string) error {
		if err := stateField.Text(r[id], p+"/"+id); err != nil {
			return err
		}
		if got := r[id].(string); got != key {
			return stateFail(ErrStateKeyMismatch, p+"/"+id, mismatch, key, got)
		}
		return nil
	}
}

// stateQuoteFiled is a quote's identity rule: a quote is filed under its id
// and its revision (quoteKey).
func stateQuoteFiled(q map[string]any, p, key string) error {
	if err := stateField.Text(q["quote_id"], p+"/quote_id"); err != nil {
		return err
	}
	id := q["quote_id"].(string)
	ver, err := stateField.Int(q["version"], p+"/version", 1)
	if err != nil {
		return err
	}
	if k := quoteKey(id, ver); k != key {
		return stateFail(ErrStateKeyMismatch, p, "the quote is filed under %q but identifies itself as %q; a revision is a different quote", key, k)
	}
	return nil
}

// stateRootRules are the root's scalar fields, in the order they are
// checked (issue_reporting_actor_id, absent for the engines that do not
// write it, is then null).
var stateRootRules = []stateRule{
	{"phase", stateIsOneOf(statePhases)}, {"issue_id", stateIsOptText}, {"classification", stateIsOptText},
	{"current_cycle_id", stateIsOptText}, {"ownership_transferred_to", stateIsOptText}, {"issue_reporting_actor_id", stateIsOptText},
	{"customer_resolution", stateIsOneOf(stateResolutions)}, {"transfer_notice_sent", stateIsFlag}, {"replay_final", stateIsFlag},
	{"reopen_count", stateIsInt(0)},
}

// The records the state holds once, and the items of its lists: each of
// exactly its members, held to their rules in order.
var (
	stateAssertions = stateField.List(stateField.Closed(
		jsonfield.Field("assertion_id", stateIsText), jsonfield.Field("actor_id", stateIsText), jsonfield.Field("assertion", stateIsText),
		jsonfield.Field("cycle_id", stateIsOptText), jsonfield.Field("at", stateIsInstant),
	))
	// stateMessageRules are a communication's rules for the fields every
	// one carries (its field set depends on the list: stateCommunications).
	stateMessageRules = []stateRule{
		{"recipient_actor_id", stateIsText}, {"message_fixture_id", stateIsText},
		{"correlation_id", stateIsOptText}, {"at", stateIsInstant},
	}
	statePayment = stateField.Closed(
		jsonfield.Field("request_id", stateIsOptText), jsonfield.Field("invoice_id", stateIsOptText), jsonfield.Field("cycle_id", stateIsOptText),
		jsonfield.Field("settlement_id", stateIsOptText), jsonfield.Field("status", stateIsOneOf(statePaymentStatuses)),
	)
	stateProvisional = stateField.Closed(
		jsonfield.Field("cycle_id", stateIsOptText), jsonfield.Field("timer_event_id", stateIsOptText),
		jsonfield.Field("accepted_at", stateIsOptInstant), jsonfield.Field("reopen_until", stateIsOptInstant),
	)
	stateTerminal = stateField.Closed(
		jsonfield.Field("outcome", stateIsOneOf(ProducibleTerminals)), jsonfield.Field("at", stateIsInstant), jsonfield.Field("cycle_id", stateIsOptText),
	)
)

// stateRegistries are the record registries of the canonical state, in the
// order they are checked, each with its records' shape.
var stateRegistries = []struct {
	name   string
	record *stateRecord
}{
	{"cycles", &stateRecord{stateCycleFields, stateFiledAs("cycle_id", "the cycle is filed under %q but calls itself %q"), []stateRule{
		{"kind", stateIsOneOf(stateCycleKinds)}, {"visit_status", stateIsOneOf(stateVisitStatuses)},
		{"parent_cycle_id", stateIsOptText}, {"scope_digest", stateIsOptText}, {"visit_id", stateIsOptText},
		{"reported_outcome", stateIsOptText}, {"work_evidence_id", stateIsOptText},
		{"requires_payment", stateIsFlag}, {"completion_notice_sent", stateIsFlag},
	}}},
	{"quotes", &stateRecord{stateQuoteFields, stateQuoteFiled, []stateRule{
		{"cycle_id", stateIsText}, {"currency", stateIsText}, {"scope_digest", stateIsText},
		{"amount_minor", stateIsInt(0)}, {"status", stateIsOneOf(stateQuoteStatuses)}, {"valid_until", stateIsOptInstant},
	}}},
	{"approvals", &stateRecord{stateApprovalFields, stateFiledAs("checkpoint_id", "the approval is filed under %q but names checkpoint %q"), []stateRule{
		{"quote_id", stateIsText}, {"cycle_id", stateIsText}, {"currency", stateIsText}, {"scope_digest", stateIsText},
		{"quote_version", stateIsInt(1)}, {"amount_minor", stateIsInt(0)},
		{"opened_at", stateIsInstant}, {"deadline_at", stateIsInstant},
		{"status", stateIsOneOf(stateApprovalStatuses)}, {"resolved_at", stateIsOptInstant}, {"reminder_fired", stateIsFlag},
	}}},
	{"exceptions", &stateRecord{stateExceptionFields, stateFiledAs("checkpoint_id", "the exception is filed under %q but names checkpoint %q"), []stateRule{
		{"exception_type", stateIsOneOf(ExceptionTypes)}, {"cycle_id", stateIsOptText},
		{"opened_at", stateIsInstant}, {"deadline_at", stateIsInstant}, {"evidence_refs", stateIsTextList},
		{"status", stateIsOneOf(stateExceptionStatuses)}, {"resolution", stateIsOptText}, {"resolved_at", stateIsOptInstant},
	}}},
	{"invoices", &stateRecord{stateInvoiceFields, stateFiledAs("invoice_id", "the invoice is filed under %q but names invoice %q"), []stateRule{
		{"cycle_id", stateIsText}, {"quote_id", stateIsText}, {"currency", stateIsText},
		{"quote_version", stateIsInt(1)}, {"amount_minor", stateIsInt(0)},
		{"status", stateIsOneOf(stateInvoiceStatuses)}, {"validation_id", stateIsOptText},
	}}},
	{"obligations", &stateRecord{stateObligationFields, stateFiledAs("obligation_id", "the obligation is filed under %q but names obligation %q"), []stateRule{
		{"kind", stateIsText}, {"cycle_id", stateIsOptText}, {"due_at", stateIsInstant},
		{"status", stateIsOneOf(stateObligationStatus)}, {"closed_at", stateIsOptInstant},
	}}},
}

// stateAuthoritativeRules are the rules of the authoritative records'
// fields that are not text (kind, its variant's, is already held).
var stateAuthoritativeRules = map[string]stateCheck{
	"kind": func(any, string) error { return nil }, "at": stateIsInstant, "valid": stateIsFlag,
	"amount_minor": stateIsInt(0), "reason_code": stateField.String,
}

func stateAuthoritativeRecord(x any, p, key string) error {
	r, err := stateField.Object(x, p)
	if err != nil {
		return err
	}
	kind, _ := r["kind"].(string)
	fields, ok := stateAuthoritative[kind]
	if !ok {
		if _, present := r["kind"]; !present {
			return stateFail(ErrStateMissingField, p, "lacks required field %q", "kind")
		}
		return stateFail(ErrStateUnknownValue, p+"/kind", "%s is not an authoritative record kind this build writes; known kinds are %v",
			python.Loose.Repr(r["kind"]), slices.Sorted(maps.Keys(stateAuthoritative)))
	}
	if err := stateField.Exact(r, fields, p); err != nil {
		return err
	}
	for _, name := range fields {
		rule, ok := stateAuthoritativeRules[name]
		if !ok {
			rule = stateIsText
		}
		if err := rule(r[name], p+"/"+name); err != nil {
			return err
		}
	}
	// The key a record is stored under is its identity: attendance:<visit>
	// for an attendance (the others are stored under the event's own id,
	// which the record does not repeat).
	if kind == "visit_attendance" && key != "attendance:"+r["visit_id"].(string) {
		return stateFail(ErrStateKeyMismatch, p, "an attendance record is filed under attendance:<visit_id>, not %q", key)
	}
	return nil
}

// stateCommunications holds the append-ordered message list to its shape: the
// 4-field row of engine 0.9.0; with dispatch_status on every row when the
// recovery operation is read or any row carries it; and, for recovery,
// secondary-channel rows each bound to one earlier failed transfer notice.
func stateCommunications(x any, recovery bool) error {
	const p = "/communications"
	list, err := stateField.Array(x, p)
	if err != nil {
		return err
	}
	delivery := recovery || slices.ContainsFunc(list, func(item any) bool {
		m, _ := item.(map[string]any)
		_, has := m["dispatch_status"]
		return has
	})
	recovered := map[int64]bool{}
	for i, item := range list {
		ip := jsonfield.Index(p, i)
		m, err := stateField.Object(item, ip)
		if err != nil {
			return err
		}
		fields := stateMessageFields
		if delivery {
			fields = append(slices.Clone(fields), "dispatch_status")
		}
		_, hasOf := m["recovery_of"]
		_, hasChannel := m["dispatch_channel"]
		if recovery && (hasOf || hasChannel) {
			fields = append(slices.Clone(fields), "recovery_of", "dispatch_channel")
		}
		if err := stateField.Exact(m, fields, ip); err != nil {
			return err
		}
		if err := stateHold(m, stateMessageRules, ip); err != nil {
			return err
		}
		if delivery {
			if err := stateField.OneOf(m["dispatch_status"], stateDispatchStatuses, ip+"/dispatch_status"); err != nil {
				return err
			}
		}
		if recovery && (hasOf || hasChannel) {
			of, err := stateField.Int(m["recovery_of"], ip+"/recovery_of", 0)
			if err != nil {
				return err
			}
			if err := stateField.OneOf(m["dispatch_channel"], []string{"secondary"}, ip+"/dispatch_channel"); err != nil {
				return err
			}
			if of >= int64(i) || recovered[of] {
				return stateFail(ErrStateRecoveryUnbound, ip+"/recovery_of", "a recovery must name one earlier failed intent, exactly once (names %d)", of)
			}
			orig, _ := list[of].(map[string]any)
			_, origRecovery := orig["recovery_of"]
			if orig["dispatch_status"] != "FAILED" || origRecovery || m["message_fixture_id"] != MsgTransferNotice {
				return stateFail(ErrStateRecoveryUnbound, ip+"/recovery_of", "a recovery re-sends one failed transfer notice")
			}
			for _, f := range []string{"recipient_actor_id", "message_fixture_id", "correlation_id"} {
				if orig[f] != m[f] {
					return stateFail(ErrStateRecoveryUnbound, ip+"/"+f, "differs from the failed intent it recovers (%s/%d)", p, of)
				}
			}
			recovered[of] = true
		}
	}
	return nil
}

// references checks, once every shape holds, that each reference the
// operation only ever writes to a record it holds names such a record.
// References copied from authored event payloads (a quote's parent cycle,
// an invoice's cycle and quote, an assertion's cycle, a message's
// correlation) are claims, not links, and are not held to resolve.
func (v *stateValidator) references(held map[string]map[string]any) error {
	s := v.s
	// in is the rule that a reference names a record of reg (a null one,
	// the shapes already checked, names none).
	in := func(reg map[string]any, what string) func(x any, p string) error {
		return func(x any, p string) error {
			if id, ok := x.(string); ok && reg[id] == nil {
				return stateFail(ErrStateDanglingReference, p, "names %s %q, which the state does not hold", what, id)
			}
			return nil
		}
	}
	cycle, invoice := in(v.cycles, "cycle"), in(v.invoices, "invoice")
	record := func(x any, p, kind string, match map[string]any) error {
		id, ok := x.(string)
		if !ok {
			return nil
		}
		r, ok := v.records[id].(map[string]any)
		if !ok || r["kind"] != kind {
			return stateFail(ErrStateDanglingReference, p, "names %s record %q, which the state does not hold", kind, id)
		}
		for _, f := range slices.Sorted(maps.Keys(match)) {
			if r[f] != match[f] {
				return stateFail(ErrStateDanglingReference, p, "names %s record %q, whose %s is not %s", kind, id, f, python.Loose.Repr(match[f]))
			}
		}
		return nil
	}
	if err := cycle(s["current_cycle_id"], "/current_cycle_id"); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(v.cycles)) {
		c := v.cycles[k].(map[string]any)
		if err := record(c["work_evidence_id"], jsonfield.Key("/cycles", k)+"/work_evidence_id", "work_evidence", map[string]any{"cycle_id": k}); err != nil {
			return err
		}
	}
	for _, name := range []string{"quotes", "approvals", "exceptions", "obligations"} {
		reg := held[name]
		for _, k := range slices.Sorted(maps.Keys(reg)) {
			r := reg[k].(map[string]any)
			p := jsonfield.Key("/"+name, k)
			if err := cycle(r["cycle_id"], p+"/cycle_id"); err != nil {
				return err
			}
			if name != "approvals" {
				continue
			}
			qk := quoteKey(r["quote_id"].(string), r["quote_version"].(int64))
			if _, ok := v.quotes[qk]; !ok {
				return stateFail(ErrStateDanglingReference, p+"/quote_id", "binds quote %q, which the state does not hold", qk)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.invoices)) {
		if err := record(v.invoices[k].(map[string]any)["validation_id"], jsonfield.Key("/invoices", k)+"/validation_id", "invoice_validation", map[string]any{"invoice_id": k}); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.records)) {
		r := v.records[k].(map[string]any)
		p := jsonfield.Key("/authoritative_records", k)
		var err error
		switch r["kind"] {
		case "visit_attendance", "work_evidence":
			err = cycle(r["cycle_id"], p+"/cycle_id")
		case "invoice_validation", "payment_settlement":
			err = invoice(r["invoice_id"], p+"/invoice_id")
		}
		if err != nil {
			return err
		}
	}
	pay := s["payment"].(map[string]any)
	if err := invoice(pay["invoice_id"], "/payment/invoice_id"); err != nil {
		return err
	}
	if err := cycle(pay["cycle_id"], "/payment/cycle_id"); err != nil {
		return err
	}
	if err := record(pay["settlement_id"], "/payment/settlement_id", "payment_settlement", map[string]any{"payment_request_id": pay["request_id"]}); err != nil {
		return err
	}
	if err := cycle(s["provisional_close"].(map[string]any)["cycle_id"], "/provisional_close/cycle_id"); err != nil {
		return err
	}
	terminal, _ := s["terminal"].(map[string]any) // nil: no terminal, no cycle
	return cycle(terminal["cycle_id"], "/terminal/cycle_id")
}
