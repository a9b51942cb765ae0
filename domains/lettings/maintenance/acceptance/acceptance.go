// Package acceptance hands the lettings-maintenance pack to the causal
// acceptance gate (package gate, which names no pack): the spec's identity,
// the agent registry, one operation and grading contract per scenario, the
// negative-control oracle's controls, and the authored V2 notification-fault
// expectation the reference is held to under obaudit's engine.
package acceptance

import (
	"slices"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// V2FaultExpectationID names the authored outcome the reference must
// produce on V2 under obaudit's engine.
const V2FaultExpectationID = "maintenance.reference.V2.permanent-notification-fault.v1"

// Vocabulary is the evaluator's result vector and finding-code catalogue,
// for loading an oracle to check against.
func Vocabulary() oracle.Vocabulary {
	return oracle.Vocabulary{Dimensions: evaluator.Dimensions(), KnownCode: evaluator.KnownFindingCode}
}

// Load is the pack's gate binding from bytes (domains.Pack.Gate): spec nil
// means the embedded spec, oracle nil the embedded oracle.
func Load(spec, oracleBytes []byte, specSource, oracleSource string) (*gate.Subject, error) {
	// The oracle loads while the spec does (neither reads the other); a
	// refused spec is the answer before a refused oracle.
	var m *oracle.Manifest
	var oracleErr error
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		if oracleBytes != nil {
			m, oracleErr = oracle.Load(oracleBytes, oracleSource, Vocabulary())
		} else {
			m, oracleErr = oracle.Default(Vocabulary())
		}
	}()
	// The spec is the gate's own (maintenance.OpenOperations), so its
	// identity holds without being hashed again.
	s, ops, err := maintenance.OpenOperations(spec, specSource)
	<-loaded
	if err != nil {
		return nil, err
	}
	if oracleErr != nil {
		return nil, oracleErr
	}
	if err := oracleMatches(s, m); err != nil {
		return nil, err
	}
	return subject(s, ops, m), nil
}

// Subject binds a loaded spec and oracle for the gate (its tests). An
// oracle authored for another operation is refused (gate.ErrOracleMismatch),
// and so is a spec that no longer hashes to its digest
// (maintenance.ErrIdentityMismatch), now and as each scenario is bound.
func Subject(spec *maintenance.Spec, m *oracle.Manifest) (*gate.Subject, error) {
	if err := oracleMatches(spec, m); err != nil {
		return nil, err
	}
	if err := spec.Verify(); err != nil {
		return nil, err
	}
	return subject(spec, nil, m), nil
}

// oracleMatches refuses an oracle authored for another operation
// (gate.ErrOracleMismatch).
func oracleMatches(spec *maintenance.Spec, m *oracle.Manifest) error {
	if m.OperationID() != spec.OperationID {
		return refusal.New(gate.ErrOracleMismatch, "oracle %q was authored for operation %q; the spec is %q",
			m.Identity().OracleID, m.OperationID(), spec.OperationID)
	}
	return nil
}

// subject is the gate's binding of spec, bound as ops (every scenario of
// the spec, its identity established; nil: each scenario is bound by
// NewOperation as the gate asks for it), and m.
func subject(spec *maintenance.Spec, ops map[string]*maintenance.Operation, m *oracle.Manifest) *gate.Subject {
	id := m.Identity()
	return &gate.Subject{
		OperationID: spec.OperationID, SpecDigest: spec.Digest, // established by the caller
		Oracle:       gate.OracleIdentity{OracleID: id.OracleID, OracleVersion: id.OracleVersion, Digest: id.Digest},
		OracleSource: m.Source(),
		Agents:       agents.IDs(),
		Lookup:       Lookup,
		Scene: func(scenario string) (engine.Domain, *engine.GradingContract, error) {
			op, ok := ops[scenario]
			if !ok { // unbound, or not a scenario of the spec: NewOperation's refusal
				var err error
				if op, err = maintenance.NewOperation(spec, scenario); err != nil {
					return nil, nil, err
				}
			}
			return op, op.GradingContract(), nil
		},
		Control: func(agentID string) (gate.Control, bool) {
			c, ok := m.Control(agentID)
			return gate.Control{ScenarioID: c.ScenarioID, Closure: c.Closure, RequiredFindings: c.RequiredFindings, MustPass: c.MustPass}, ok
		},
		Expectation: func(scenario, version string) *gate.Expectation {
			if !faultApplies(spec, scenario, version) {
				return nil
			}
			return &gate.Expectation{ID: V2FaultExpectationID, Terminal: "transferred_to_human_ownership",
				Failed:   []string{evaluator.Recovery, evaluator.Obligations},
				Findings: []string{"OBLIGATION_MESSAGE_NOT_ESTABLISHED", "REQUIRED_NOTIFICATION_UNDELIVERED"}}
		},
		Cost: func(agentID, scenario string) int { return checkCost[agentID+" "+scenario] },
	}
}

// checkCost is each default check's CPU time in tens of microseconds, as
// measured alone (gate, 2026-12-02): the gate's pool starts the costliest
// first. A check not listed costs 0 and starts last; a stale figure costs
// time, never a different report.
var checkCost = map[string]int{
	"reference V1": 136, "duplicate_after_wake V1": 138, "stale_after_wake V1": 136, "trust_actor_claim V1": 135,
	"reference V2": 68, "reference V3": 66, "ignore_new_events V1": 37, "always_act V1": 19,
	"always_escalate V1": 13, "complete_early V1": 11, "always_wait V1": 3,
}

// Lookup is the agent registry as the gate runs it.
func Lookup(id string) (gate.Agent, error) {
	e, err := agents.Lookup(id)
	return gate.Agent{ID: e.ID, Kind: e.Kind, Scenarios: e.Scenarios, New: e.New}, err
}

// faultApplies reports whether the reference on this scenario is held to
// the V2 notification-fault expectation: obaudit's engine, the default
// operation, V2, whose one dispatch failure is the transfer notice.
func faultApplies(spec *maintenance.Spec, scenario, version string) bool {
	if version != schemas.EngineObaudit || spec.OperationID != "lettings_maintenance_synthetic_v1" || scenario != "V2" {
		return false
	}
	sc, err := spec.Scenario(scenario)
	return err == nil && slices.Equal(sc.DispatchFailures, []string{maintenance.MsgTransferNotice})
}
