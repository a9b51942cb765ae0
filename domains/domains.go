// Package domains is the registry of the operation packs obaudit carries,
// and the only way the core reaches one. Packs never register themselves:
// [Packs] names each one, and a [Pack] hands over, as values and functions,
// everything the core needs of it: the operation (an engine.Domain), its
// agents, its terminal classes, its canonical-state validator and recovery
// rule (for the artefact reader, [Pack.ArtefactDomain]), the acceptance
// gate's subject ([Pack.Gate]) and its vocabulary.
//
// Who names a pack (non-test code, `go list -deps`): this package; the
// pack's own subpackages; and cmd/obaudit, which imports this registry and,
// directly, the maintenance oracle and gate binding (the campaign
// catalogue) and its agent registry (run.go). Nothing else outside
// domains/ and cmd/ depends on a pack or on this registry: engine,
// evaluator, gate, artefact, bundle, episode, report, export and the arms
// are handed what they need. repo_test.go's TestPackBoundary enforces it,
// and that no non-test Go file outside a pack spells a word of the pack's
// vocabulary ([Pack.Vocabulary]) as a string literal (the stateful_time_removed
// arm, arm/notime, is named there as bound to the maintenance operation by
// design). The tests of several packages import a pack or this registry
// for fixtures.
package domains

import (
	"slices"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/acceptance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/gate"
)

// Agent is one registered agent of a pack: its id, its kind ("reference"
// or "negative"), the scenarios it is registered for (the runner accepts
// any scenario; gates restrict) and its factory.
type Agent = agents.Entry

// Pack is one operation pack as the CLI sees it.
type Pack struct {
	// Name is the pack's path under domains/ ("lettings/maintenance").
	Name string
	// OperationType is the spec's operation_type this pack executes.
	OperationType string
	// Operation loads spec bytes (nil: the embedded default) and binds one
	// scenario, returning the engine domain and the spec's identity payload.
	Operation func(spec []byte, source, scenarioID string) (engine.Domain, error)
	// Agents lists the registered agents in registry order.
	Agents []Agent

	// Domain knowledge the core packages are handed through the registry
	// (engine, evaluator, artefact and gate name no pack). The pack fills
	// these at registration.

	// TerminalClasses are the business terminal classes the pack produces.
	TerminalClasses []string
	// ValidateState holds an untrusted final_state to the pack's canonical
	// state (the artefact reader's [artefact.Domain] ValidateState).
	ValidateState func(state map[string]any, engineVersion string, contract int, recovery bool) error
	// Terminal reads the terminal outcome and replay-final flag out of a
	// final state ValidateState accepted (a re-grade's input).
	Terminal func(finalState map[string]any) (outcome *string, replayFinal bool, err error)
	// RecoveryVersion is the operation_version of the pack's
	// delivery-recovery operation ("" when it has none), and
	// RecoveryFixture the one message fixture a recovery may re-send.
	RecoveryVersion, RecoveryFixture string
	// Gate builds the acceptance gate's subject from a spec (nil: the
	// embedded default) and an oracle (nil: the embedded default).
	Gate func(spec, oracle []byte, specSource, oracleSource string) (*gate.Subject, error)
	// Vocabulary lists the pack's own words (operation type, record types,
	// roles) that no non-test Go file outside the pack spells out
	// (repo_test.go, TestPackBoundary).
	Vocabulary func() []string

	// --- What the episode report and the Agent Run export read (artmodel).
	// Neither imports a pack; cmd/obaudit hands them these values.

	// Presentation is the operation knowledge an artefact does not carry
	// and its readers present (presentation.go).
	Presentation Presentation
}

// ArtefactDomain is the pack as the artefact reader needs it: operation
// type, registered agents and kinds, terminal classes, canonical-state
// validator and recovery rule.
func (p *Pack) ArtefactDomain() artefact.Domain {
	agents := make(map[string]string, len(p.Agents))
	for _, a := range p.Agents {
		agents[a.ID] = a.Kind
	}
	return artefact.Domain{OperationType: p.OperationType, Agents: agents, TerminalClasses: slices.Clone(p.TerminalClasses),
		ValidateState: p.ValidateState, RecoveryVersion: p.RecoveryVersion, RecoveryFixture: p.RecoveryFixture}
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
	return &Pack{
		Name:          "lettings/maintenance",
		OperationType: maintenance.OperationType,
		Operation: func(b []byte, source, scenarioID string) (engine.Domain, error) {
			op, err := maintenance.OpenOperation(b, source, scenarioID)
			if err != nil {
				return nil, err
			}
			return op, nil
		},
		TerminalClasses: maintenance.ProducibleTerminals,
		ValidateState:   maintenance.ValidateFinalState,
		Terminal:        maintenance.Terminal,
		RecoveryVersion: maintenance.RecoveryOperationVersion,
		RecoveryFixture: maintenance.RecoveryFixture,
		Gate:            acceptance.Load,
		Vocabulary:      maintenance.Vocabulary,
		Agents:          agents.Entries(),
		Presentation:    maintenancePresentation(),
	}
}
