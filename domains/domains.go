// Package domains is the list of operation packs obaudit carries. Packs
// never register themselves: [Packs] names each one, and this package is
// imported by cmd/obaudit and by tests only.
//
// The registry is not yet the only way in to a pack. Outside domains/,
// these name the lettings maintenance pack directly (`go list -deps`):
//
//   - cmd/obaudit imports the pack, its agents and its oracle;
//   - gate imports the pack, its agents, grading and oracle packages, and
//     judges the pack's own reference and negative agents.
//
// No other non-test package outside domains/ and cmd/ depends on a pack,
// directly or through another package: each is handed an engine.Domain or
// engine.Agent (and TestDependencyRules keeps engine, evaluator, execledger,
// artefact, bundle and episode from importing domains/). The tests of
// several packages (episode, report, preflight, provider/…, arm/…) import a
// pack or this registry for fixtures.
package domains

import (
	"slices"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/negative"
	"github.com/obaudit/obaudit/engine"
)

// Agent is one registered agent of a pack.
type Agent struct {
	ID   string
	Kind string // "reference" or "negative"
	// Scenarios are the scenarios the agent is registered for (the runner
	// accepts any scenario; gates restrict).
	Scenarios []string
	New       func() engine.Agent
}

// Pack is one operation pack as the CLI sees it.
type Pack struct {
	// Name is the pack's path under domains/ ("lettings/maintenance").
	Name string
	// OperationType is the spec's operation_type this pack executes.
	OperationType string
	// DefaultOperation is the embedded default spec file.
	DefaultOperation func() []byte
	// Operation loads spec bytes (nil: the embedded default) and binds one
	// scenario, returning the engine domain and the spec's identity payload.
	Operation func(spec []byte, source, scenarioID string) (engine.Domain, error)
	// Agents lists the registered agents in registry order.
	Agents []Agent

	// --- What the episode report and the Agent Run export read (artmodel).
	// Neither imports a pack; cmd/obaudit hands them these values.

	// Presentation is the operation knowledge an artefact does not carry
	// and its readers present (presentation.go).
	Presentation Presentation
}

// Agent returns a registered agent by id.
func (p *Pack) Agent(id string) (Agent, bool) {
	i := slices.IndexFunc(p.Agents, func(a Agent) bool { return a.ID == id })
	if i < 0 {
		return Agent{}, false
	}
	return p.Agents[i], true
}

// AgentIDs lists the registered agent ids in registry order.
func (p *Pack) AgentIDs() []string {
	out := make([]string, len(p.Agents))
	for i, a := range p.Agents {
		out[i] = a.ID
	}
	return out
}

// Packs returns every pack obaudit carries.
func Packs() []*Pack {
	return []*Pack{maintenancePack()}
}

// Default is the pack `obaudit run` uses when none is named.
func Default() *Pack { return Packs()[0] }

func maintenancePack() *Pack {
	p := &Pack{
		Name:             "lettings/maintenance",
		OperationType:    maintenance.OperationType,
		DefaultOperation: maintenance.DefaultOperation,
		Operation: func(b []byte, source, scenarioID string) (engine.Domain, error) {
			var spec *maintenance.Spec
			var err error
			if b == nil {
				spec, err = maintenance.DefaultSpec()
			} else {
				spec, err = maintenance.LoadSpec(b, source)
			}
			if err != nil {
				return nil, err
			}
			return maintenance.NewOperation(spec, scenarioID)
		},
		Agents: []Agent{{
			ID: "reference", Kind: "reference", Scenarios: []string{"V1", "V2", "V3"},
			New: func() engine.Agent { return maintenance.NewReference() },
		}},
		Presentation: maintenancePresentation(),
	}
	for _, id := range negative.IDs() {
		p.Agents = append(p.Agents, Agent{
			ID: id, Kind: "negative", Scenarios: []string{"V1"},
			New: func() engine.Agent { return negative.New(id) },
		})
	}
	return p
}
