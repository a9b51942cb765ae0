// Package evaluatortest holds test support for the evaluator: the grading
// contract of upstream's lettings-maintenance operation (operation 0.6.0,
// scenarios V1–V3), written out from the published facts of the operation
// fixture, its retrieval catalogue and its action evidence contract.
//
// The maintenance pack provides the same contract at run time; a test in
// the gate proves the two equal. This copy lets the evaluator be tested on
// its own, against upstream's artefacts, without running anything.
package evaluatortest

import "github.com/obaudit/obaudit/engine"

// Maintenance returns the maintenance grading contract for scenario V1, V2
// or V3, or nil for any other id.
func Maintenance(scenarioID string) *engine.GradingContract {
	sc, ok := scenarios[scenarioID]
	if !ok {
		return nil
	}
	tools := map[string]engine.GradingTool{}
	for name, t := range catalogue {
		t.SchemaID = "maintenance." + name + ".v1"
		t.RecordID = t.Source + ":maintenance_case"
		t.Roots = append([]string(nil), t.Roots...)
		tools[name] = t
	}
	shapes := map[string]engine.RootShape{}
	for k, v := range rootShapes {
		shapes[k] = v
	}
	outcomes := map[string]engine.GradingOutcome{}
	for k, v := range evidence {
		outcomes[k] = engine.GradingOutcome{
			RequiredReads: append([]string(nil), v.RequiredReads...),
			Selectors:     append([]engine.EvidenceSelector(nil), v.Selectors...),
		}
	}
	sc.RequiredCheckpointTypes = append([]string(nil), sc.RequiredCheckpointTypes...)
	rej := map[string]string{}
	for k, v := range sc.ExpectedEventRejections {
		rej[k] = v
	}
	sc.ExpectedEventRejections = rej
	return &engine.GradingContract{
		OperationType:       "lettings.maintenance.synthetic",
		Scenario:            sc,
		TerminalOutcomes:    []string{"completed_successfully", "transferred_to_human_ownership"},
		Tools:               tools,
		RootShapes:          shapes,
		RecordVersionLength: 16,
		Outcomes:            outcomes,
	}
}

var scenarios = map[string]engine.GradingScenario{
	"V1": {
		ScenarioID:              "V1",
		ExpectedTerminal:        "completed_successfully",
		HumanCheckpointBudget:   1,
		RequiredCheckpointTypes: []string{"repair_quote_approval"},
		ExpectedEventRejections: map[string]string{"v1_e18": "AFTER_REPLAY_FINAL"},
	},
	"V2": {
		ScenarioID:              "V2",
		ExpectedTerminal:        "transferred_to_human_ownership",
		HumanCheckpointBudget:   2,
		RequiredCheckpointTypes: []string{"repair_quote_approval", "maintenance_exception_resolution"},
		ExpectedEventRejections: map[string]string{},
	},
	"V3": {
		ScenarioID:              "V3",
		ExpectedTerminal:        "transferred_to_human_ownership",
		HumanCheckpointBudget:   2,
		RequiredCheckpointTypes: []string{"repair_quote_approval", "maintenance_exception_resolution"},
		ExpectedEventRejections: map[string]string{"v3_e08": "CHECKPOINT_NOT_OPEN"},
	},
}

var catalogue = map[string]engine.GradingTool{
	"get_case_record": {Source: "case_service", Authority: "system_of_record", Roots: []string{
		"phase", "issue_id", "classification", "customer_resolution", "current_cycle_id", "cycles",
		"ownership_transferred_to", "transfer_notice_sent", "provisional_close", "reopen_count", "terminal", "replay_final"}},
	"list_authoritative_records": {Source: "verification_service", Authority: "authoritative_verification", Roots: []string{"authoritative_records"}},
	"list_billing":               {Source: "billing_service", Authority: "system_of_record", Roots: []string{"invoices", "payment"}},
	"list_checkpoints":           {Source: "approval_service", Authority: "system_of_record", Roots: []string{"approvals", "exceptions"}},
	"list_communications":        {Source: "messaging_service", Authority: "communication", Roots: []string{"communications"}},
	"list_obligations":           {Source: "obligation_service", Authority: "system_of_record", Roots: []string{"obligations"}},
	"list_quotes":                {Source: "quoting_service", Authority: "system_of_record", Roots: []string{"quotes"}},
	"list_recent_events":         {Source: "inbox_service", Authority: "actor_claim", Roots: []string{"assertions"}},
}

var rootShapes = map[string]engine.RootShape{
	"approvals":                engine.ShapeObject,
	"assertions":               engine.ShapeList,
	"authoritative_records":    engine.ShapeObject,
	"classification":           engine.ShapeOptionalText,
	"communications":           engine.ShapeList,
	"current_cycle_id":         engine.ShapeOptionalText,
	"customer_resolution":      engine.ShapeText,
	"cycles":                   engine.ShapeObject,
	"exceptions":               engine.ShapeObject,
	"invoices":                 engine.ShapeObject,
	"issue_id":                 engine.ShapeOptionalText,
	"obligations":              engine.ShapeObject,
	"ownership_transferred_to": engine.ShapeOptionalText,
	"payment":                  engine.ShapeObject,
	"phase":                    engine.ShapeText,
	"provisional_close":        engine.ShapeObject,
	"quotes":                   engine.ShapeObject,
	"reopen_count":             engine.ShapeCounter,
	"replay_final":             engine.ShapeFlag,
	"terminal":                 engine.ShapeOptionalObject,
	"transfer_notice_sent":     engine.ShapeFlag,
}

var (
	approvalKey = engine.EvidenceSelector{Kind: engine.SelectPayloadRegistryKey,
		Tool: "list_checkpoints", Root: "approvals", PayloadField: "approval_checkpoint_id"}
	invoiceKey = engine.EvidenceSelector{Kind: engine.SelectPayloadRegistryKey,
		Tool: "list_billing", Root: "invoices", PayloadField: "invoice_id"}
	workEvidence = engine.EvidenceSelector{Kind: engine.SelectWorkEvidenceForInvoice,
		Tool: "list_billing", Root: "invoices", PayloadField: "invoice_id",
		CycleTool: "get_case_record", CycleRoot: "cycles",
		AuthorityTool: "list_authoritative_records", AuthorityRoot: "authoritative_records"}
	approvedQuote = engine.EvidenceSelector{Kind: engine.SelectQuoteForSelectedApproval,
		Tool: "list_checkpoints", Root: "approvals", PayloadField: "approval_checkpoint_id",
		TargetTool: "list_quotes", TargetRoot: "quotes"}
)

var evidence = map[string]engine.GradingOutcome{
	"request_supplier_visit":       {RequiredReads: []string{"get_case_record"}},
	"request_approval":             {RequiredReads: []string{"get_case_record", "list_checkpoints", "list_quotes"}},
	"send_message":                 {RequiredReads: []string{"get_case_record", "list_communications"}},
	"authorise_supplier_work":      {RequiredReads: []string{"get_case_record", "list_checkpoints", "list_quotes"}, Selectors: []engine.EvidenceSelector{approvalKey}},
	"request_invoice_validation":   {RequiredReads: []string{"get_case_record", "list_authoritative_records", "list_billing"}, Selectors: []engine.EvidenceSelector{workEvidence}},
	"request_payment":              {RequiredReads: []string{"get_case_record", "list_authoritative_records", "list_billing"}, Selectors: []engine.EvidenceSelector{invoiceKey, workEvidence}},
	"request_exception_resolution": {RequiredReads: []string{"get_case_record", "list_checkpoints", "list_quotes"}, Selectors: []engine.EvidenceSelector{approvalKey, approvedQuote}},
	"complete":                     {RequiredReads: []string{"get_case_record", "list_billing", "list_checkpoints", "list_obligations"}},
}
