// Package grading derives the evaluator's grading contract
// ([engine.GradingContract]) for one scenario of a loaded maintenance spec,
// from what the maintenance pack publishes: the scenario's authored
// expectations, the producible terminals, the retrieval catalogue and root
// shapes, and the action evidence contract.
//
// It imports the pack and the engine only (never the evaluator), so a
// caller that grades an artefact — the gate, replay — asks it for the
// contract of the artefact's scenario and hands that to the evaluator.
package grading

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
)

// OperationType is the rubric this contract is for.
const OperationType = "lettings.maintenance.synthetic"

// Contract returns the grading contract for scenarioID of spec. An unknown
// scenario is the pack's own refusal (maintenance.ErrUnknownScenario).
func Contract(spec *maintenance.Spec, scenarioID string) (*engine.GradingContract, error) {
	sc, err := spec.Scenario(scenarioID)
	if err != nil {
		return nil, err
	}
	rejections := map[string]string{}
	for _, r := range sc.ExpectedEventRejections {
		rejections[r.EventID] = r.Code
	}
	c := &engine.GradingContract{
		OperationType: OperationType,
		Scenario: engine.GradingScenario{
			ScenarioID:              sc.ID,
			ExpectedTerminal:        sc.ExpectedTerminal,
			HumanCheckpointBudget:   sc.HumanCheckpointBudget,
			RequiredCheckpointTypes: slices.Clone(sc.RequiredCheckpointTypes),
			ExpectedEventRejections: rejections,
		},
		TerminalOutcomes:    slices.Clone(maintenance.ProducibleTerminals),
		Tools:               map[string]engine.GradingTool{},
		RootShapes:          map[string]engine.RootShape{},
		RecordVersionLength: maintenance.RecordVersionLength,
		Outcomes:            map[string]engine.GradingOutcome{},
	}
	for _, t := range maintenance.Tools {
		c.Tools[t.Name] = engine.GradingTool{Source: t.Source, Authority: t.Authority, SchemaID: t.SchemaID(),
			RecordID: t.RecordID(), Roots: slices.Clone(t.Roots)}
	}
	for root, shape := range maintenance.RootShapes {
		c.RootShapes[root] = engine.RootShape(shape)
	}
	for key, raw := range maintenance.EvidenceContract() {
		o, err := outcome(raw)
		if err != nil {
			return nil, fmt.Errorf("grading: outcome %q: %w", key, err)
		}
		c.Outcomes[key] = o
	}
	return c, nil
}

// selectorPatterns are the published projections of the three selector
// kinds (upstream's read-contract algebra), compiled on first use; each is
// parsed back into its selector.
var selectorPatterns = sync.OnceValue(func() (p struct{ registry, work, quote *regexp.Regexp }) {
	p.registry = regexp.MustCompile(`^key == payload\.(\w+)$`)
	p.work = regexp.MustCompile(`^key == cycle\.work_evidence_id; kind == work_evidence; cycle_id == cycle\.cycle_id where invoice=(\w+)\.(\w+)\[payload\.(\w+)\], cycle=(\w+)\.(\w+)\[invoice\.cycle_id\]$`)
	p.quote = regexp.MustCompile(`^key == approval\.quote_id \+ ':v' \+ approval\.quote_version where approval=(\w+)\.(\w+)\[payload\.(\w+)\]$`)
	return p
})

func outcome(raw any) (engine.GradingOutcome, error) {
	var o engine.GradingOutcome
	m, _ := raw.(map[string]any)
	reads, _ := m["reads"].(map[string]any)
	for tool, strength := range reads {
		if strength == "required" {
			o.RequiredReads = append(o.RequiredReads, tool)
		}
	}
	slices.Sort(o.RequiredReads)
	ev, _ := m["evidence_refs"].(map[string]any)
	req, _ := ev["required"].(map[string]any)
	for name, p := range req {
		s, err := selector(name, p)
		if err != nil {
			return o, err
		}
		o.Selectors = append(o.Selectors, s)
	}
	// Upstream declares the payload-registry citation before the derived
	// ones; the rank below restores that order.
	rank := map[engine.SelectorKind]int{engine.SelectPayloadRegistryKey: 0, engine.SelectWorkEvidenceForInvoice: 1, engine.SelectQuoteForSelectedApproval: 2}
	slices.SortStableFunc(o.Selectors, func(a, b engine.EvidenceSelector) int {
		if d := rank[a.Kind] - rank[b.Kind]; d != 0 {
			return d
		}
		return strings.Compare(a.PayloadField, b.PayloadField)
	})
	return o, nil
}

func selector(name string, p any) (engine.EvidenceSelector, error) {
	var s engine.EvidenceSelector
	m, _ := p.(map[string]any)
	from, _ := m["from"].(string)
	sel, _ := m["select"].(string)
	tool, root, ok := strings.Cut(from, ".")
	if !ok {
		return s, fmt.Errorf("selector %q: from %q is not tool.root", name, from)
	}
	if g := selectorPatterns().registry.FindStringSubmatch(sel); g != nil && g[1] == name {
		return engine.EvidenceSelector{Kind: engine.SelectPayloadRegistryKey, Tool: tool, Root: root, PayloadField: g[1]}, nil
	}
	if g := selectorPatterns().work.FindStringSubmatch(sel); g != nil && name == "work_evidence_id" {
		return engine.EvidenceSelector{Kind: engine.SelectWorkEvidenceForInvoice, Tool: g[1], Root: g[2], PayloadField: g[3],
			CycleTool: g[4], CycleRoot: g[5], AuthorityTool: tool, AuthorityRoot: root}, nil
	}
	if g := selectorPatterns().quote.FindStringSubmatch(sel); g != nil && name == "quote_record_key" {
		return engine.EvidenceSelector{Kind: engine.SelectQuoteForSelectedApproval, Tool: g[1], Root: g[2], PayloadField: g[3],
			TargetTool: tool, TargetRoot: root}, nil
	}
	return s, fmt.Errorf("selector %q: %q is not a published selector projection", name, sel)
}
