package maintenance

import (
	"slices"

	"github.com/obaudit/obaudit/engine"
)

// OperationType is the operation type this pack runs.
const OperationType = "lettings.maintenance.synthetic"

var _ engine.Graded = (*Operation)(nil)

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
	shapes := map[string]engine.RootShape{}
	for k, v := range RootShapes {
		shapes[k] = engine.RootShape(v)
	}
	outcomes := map[string]engine.GradingOutcome{}
	for k, c := range evidenceContract {
		outcomes[k] = engine.GradingOutcome{RequiredReads: slices.Clone(c.reads), Selectors: slices.Clone(c.evidence)}
	}
	return &engine.GradingContract{
		OperationType: op.spec.OperationType,
		Scenario: engine.GradingScenario{
			ScenarioID: sc.ID, ExpectedTerminal: sc.ExpectedTerminal, HumanCheckpointBudget: sc.HumanCheckpointBudget,
			RequiredCheckpointTypes: slices.Clone(sc.RequiredCheckpointTypes), ExpectedEventRejections: rej,
		},
		TerminalOutcomes:    slices.Clone(ProducibleTerminals),
		Tools:               tools,
		RootShapes:          shapes,
		RecordVersionLength: RecordVersionLength,
		Outcomes:            outcomes,
	}
}
