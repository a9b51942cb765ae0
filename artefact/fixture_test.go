package artefact_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// Upstream fixture names (read from ../shared/upstream, never committed).
const (
	fixtureDet   = "artifact8-deterministic-reference-v1.json"
	fixtureModel = "artifact8-fake-openai-reference-v1.json"
	fixtureV1    = "artifact1-reference-V1.json"
)

// errStateShape is what the test domain's state validator returns.
var errStateShape = errors.New("final state does not have the canonical field set")

// stateFields is the maintenance canonical state field set of engines
// before 0.11 (no issue_reporting_actor_id): a test double standing in for
// the domain pack's validator, which this package may not import.
var stateFields = []string{
	"approvals", "assertions", "authoritative_records", "classification", "communications",
	"current_cycle_id", "customer_resolution", "cycles", "exceptions", "hidden", "invoices",
	"issue_id", "obligations", "ownership_transferred_to", "payment", "phase",
	"provisional_close", "quotes", "reopen_count", "replay_final", "terminal", "transfer_notice_sent",
}

func testDomain() artefact.Domain {
	agents := map[string]string{"reference": "reference"}
	for _, id := range []string{"complete_early", "always_act", "always_wait", "always_escalate",
		"ignore_new_events", "trust_actor_claim", "stale_after_wake", "duplicate_after_wake"} {
		agents[id] = "negative"
	}
	return artefact.Domain{
		OperationType:   "lettings.maintenance.synthetic",
		TerminalClasses: []string{"completed_successfully", "transferred_to_human_ownership"},
		Agents:          agents,
		ValidateState: func(state map[string]any, engineVersion string, contract int, recovery bool) error {
			keys := make([]string, 0, len(state))
			for k := range state {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, stateFields) {
				return fmt.Errorf("%w: %v", errStateShape, keys)
			}
			return nil
		},
	}
}

func testOptions() artefact.Options {
	return artefact.Options{Domains: []artefact.Domain{testDomain()}}
}

// tree parses an upstream fixture into a fresh JSON tree.
func tree(t testing.TB, name string) map[string]any {
	t.Helper()
	v, err := canon.Parse(upstreamtest.Read(t, name))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return v.(map[string]any)
}

// Tree navigation helpers for mutations.
func m(x any) map[string]any { return x.(map[string]any) }
func l(x any) []any          { return x.([]any) }

func execution(d map[string]any) map[string]any { return m(d["agent_execution"]) }
func binding(d map[string]any) map[string]any   { return m(d["provider_execution"]) }
func attempts(d map[string]any) []any           { return l(execution(d)["attempts"]) }
func attempt(d map[string]any, i int) map[string]any {
	return m(attempts(d)[i])
}
func decisions(d map[string]any) []any                { return l(d["decisions"]) }
func decision(d map[string]any, i int) map[string]any { return m(decisions(d)[i]) }
func row(d map[string]any, i int) map[string]any {
	return m(l(d["trajectory"])[i])
}

// readIfPresent reads an upstream fixture without skipping or failing (for
// fuzz seeds).
func readIfPresent(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(upstreamtest.Dir(), name))
}
