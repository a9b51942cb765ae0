package maintenance

import (
	"maps"
	"slices"

	"github.com/obaudit/obaudit/engine"
)

// OperationType is the operation type this pack runs.
const OperationType = "lettings.maintenance.synthetic"

var _ engine.Graded = (*Operation)(nil)

// rubricTypes are the operation's types as the evaluator's rules name them.
var rubricTypes = engine.RubricTypes{
	VisitRequest: "request_supplier_visit", WorkAuthorisation: "authorise_supplier_work", PaymentRequest: "request_payment",
	InvoiceValidationRequest: "request_invoice_validation", Notification: "send_message", ExceptionRequest: "request_exception_resolution",
	IssueReported: "customer_issue_reported", InvoiceReceived: "supplier_invoice_received", WorkVerified: "work_evidence_verified",
	InvoiceValidated: "invoice_validation_completed", ApprovalReminderDue: "approval_reminder_due",
}

// GradingContract implements [engine.Graded]: the scenario's authored
// expectations, the catalogue, root shapes and the read contract, as data.
func (op *Operation) GradingContract() *engine.GradingContract {
	sc := op.scenario
	rej := map[string]string{}
	for _, r := range sc.ExpectedEventRejections {
		rej[r.EventID] = r.Code
	}
	tools := map[string]engine.GradingTool{}
	for _, t := range Tools {
		tools[t.Name] = engine.GradingTool{Source: t.Source, Authority: t.Authority, SchemaID: t.SchemaID(), RecordID: t.RecordID(), Roots: slices.Clone(t.Roots)}
	}
	outcomes := map[string]engine.GradingOutcome{}
	for k, c := range evidenceContract {
		outcomes[k] = engine.GradingOutcome{RequiredReads: slices.Clone(c.reads), Selectors: slices.Clone(c.evidence)}
	}
	return &engine.GradingContract{
		OperationType: op.spec.OperationType,
		Types:         rubricTypes,
		Scenario: engine.GradingScenario{
			ScenarioID: sc.ID, ExpectedTerminal: sc.ExpectedTerminal, HumanCheckpointBudget: sc.HumanCheckpointBudget,
			RequiredCheckpointTypes: slices.Clone(sc.RequiredCheckpointTypes), ExpectedEventRejections: rej,
		},
		TerminalOutcomes:    slices.Clone(ProducibleTerminals),
		Tools:               tools,
		RootShapes:          maps.Clone(RootShapes),
		RecordVersionLength: RecordVersionLength,
		Outcomes:            outcomes,
	}
}
