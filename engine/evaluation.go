package engine

// This file (owned by the evaluator work) declares, as plain data, what the
// evaluator needs to know about an operation pack in order to grade one of
// its episodes. A pack fills a [GradingContract]; the evaluator, which
// imports no domain, reads it. Nothing here has behaviour.

// GradingContract is one pack's grading facts for one scenario: the
// scenario's authored expectations, the pack's producible business terminals,
// its published retrieval catalogue with the JSON shape of every observable
// root, and its action evidence contract (required reads and citation
// selectors per outcome key).
type GradingContract struct {
	// OperationType is the pack's operation type (the evaluator names it in
	// what it reports; it holds no list of types).
	OperationType string
	// Types names the pack's action and event types each of the rubric's
	// rules is about; an evaluator refuses a contract that leaves one out.
	Types RubricTypes
	// Scenario holds the authored expectations of the scenario graded.
	Scenario GradingScenario
	// TerminalOutcomes lists the business terminal classes the pack can
	// produce (a status outside it is an execution status, not a terminal).
	TerminalOutcomes []string
	// Tools is the published retrieval catalogue, keyed by tool name.
	Tools map[string]GradingTool
	// RootShapes gives the JSON shape every observable root is published in.
	RootShapes map[string]RootShape
	// RecordVersionLength is how many hex characters of the SHA-256 of a
	// served records body a record_version states.
	RecordVersionLength int
	// Outcomes is the action evidence contract keyed by outcome key (action
	// types, plus "complete" for the terminal proposal).
	Outcomes map[string]GradingOutcome
}

// RubricTypes names which of a pack's action and event types plays each
// part in the evaluator's rules (upstream's eleven-dimension rubric).
type RubricTypes struct {
	// Actions: the visit request counted by human_checkpoints; the
	// irreversible work authorisation and payment request; the invoice
	// validation request; the notification sent and the exception
	// checkpoint requested (the transfer notice rule).
	VisitRequest, WorkAuthorisation, PaymentRequest, InvoiceValidationRequest, Notification, ExceptionRequest string
	// Events: the issue report naming the reporter; the invoice received,
	// work verified and invoice validated facts an invoice validation or a
	// payment must follow; the approval reminder.
	IssueReported, InvoiceReceived, WorkVerified, InvoiceValidated, ApprovalReminderDue string
}

// Missing names the first part left empty ("" when none is).
func (t *RubricTypes) Missing() string {
	for _, f := range []struct{ name, v string }{
		{"VisitRequest", t.VisitRequest}, {"WorkAuthorisation", t.WorkAuthorisation}, {"PaymentRequest", t.PaymentRequest},
		{"InvoiceValidationRequest", t.InvoiceValidationRequest}, {"Notification", t.Notification}, {"ExceptionRequest", t.ExceptionRequest},
		{"IssueReported", t.IssueReported}, {"InvoiceReceived", t.InvoiceReceived}, {"WorkVerified", t.WorkVerified},
		{"InvoiceValidated", t.InvoiceValidated}, {"ApprovalReminderDue", t.ApprovalReminderDue},
	} {
		if f.v == "" {
			return f.name
		}
	}
	return ""
}

// GradingScenario is a scenario's authored expectations.
type GradingScenario struct {
	ScenarioID       string
	ExpectedTerminal string
	// HumanCheckpointBudget is the authored human-checkpoint budget.
	HumanCheckpointBudget int64
	// RequiredCheckpointTypes keeps the authored order.
	RequiredCheckpointTypes []string
	// ExpectedEventRejections maps an authored event id to the verdict code
	// the scenario declares for its refusal or post-terminal arrival.
	ExpectedEventRejections map[string]string
}

// GradingTool is one published read.
type GradingTool struct {
	Source    string
	Authority string
	SchemaID  string
	// RecordID is the record identity every result of this tool carries.
	RecordID string
	// Roots are the observable roots the tool projects, exactly.
	Roots []string
}

// RootShape is the JSON shape an observable root is published in.
type RootShape string

// Root shapes.
const (
	ShapeText           RootShape = "text"
	ShapeOptionalText   RootShape = "optional_text"
	ShapeObject         RootShape = "object"
	ShapeOptionalObject RootShape = "optional_object"
	ShapeList           RootShape = "list"
	ShapeFlag           RootShape = "flag"
	ShapeCounter        RootShape = "counter"
)

// GradingOutcome is what one outcome key must have read and must cite.
type GradingOutcome struct {
	// RequiredReads are the tools whose reads gate the outcome.
	RequiredReads []string
	// Selectors are the citation obligations, in declared order.
	Selectors []EvidenceSelector
}

// SelectorKind names one of the three closed evidence-selector kinds.
type SelectorKind string

// Selector kinds (upstream's read-contract algebra). Each starts from the
// record the payload selects (payload[PayloadField] keys Root); which
// fields each needs is the pack's to name.
const (
	// SelectPayloadRegistryKey cites the selected record's key.
	SelectPayloadRegistryKey SelectorKind = "payload_registry_key"
	// SelectLinkedAuthority cites an authoritative record reached through a
	// link: selected[LinkField] keys LinkRoot, that record's EvidenceField
	// keys AuthorityRoot, and the authoritative record found must be of
	// kind AuthorityKind and carry the same LinkField value.
	SelectLinkedAuthority SelectorKind = "linked_authority"
	// SelectVersionedTarget cites "<selected[IDField]>:v<selected[VersionField]>",
	// which must key TargetRoot.
	SelectVersionedTarget SelectorKind = "versioned_target"
)

// EvidenceSelector is one citation obligation. Which fields are meaningful
// depends on Kind.
type EvidenceSelector struct {
	Kind         SelectorKind
	Tool         string
	Root         string
	PayloadField string
	// SelectLinkedAuthority: the link (LinkField of the selected record,
	// keying LinkTool/LinkRoot), the field of the linked record naming the
	// evidence (EvidenceField), where the evidence is served
	// (AuthorityTool/AuthorityRoot) and the kind it must have.
	LinkField, LinkTool, LinkRoot string
	EvidenceField                 string
	AuthorityTool, AuthorityRoot  string
	AuthorityKind                 string
	// SelectVersionedTarget: the identity and version fields of the
	// selected record and where the target is served (TargetTool/TargetRoot).
	IDField, VersionField  string
	TargetTool, TargetRoot string
}
