// Package agents is the registry of the lettings-maintenance agents: the
// reference and the eight negative controls, each with a factory that
// returns a fresh instance (episodes never share an agent).
//
// The registry says what an agent is and where it runs. What a negative is
// expected to break is not here: it is declared in the separately loaded
// negative-control oracle, which imports nothing of this package.
package agents

import (
	"slices"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/negative"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// ErrUnknownAgent is returned by [Lookup] for an id the registry does not
// hold.
var ErrUnknownAgent = refusal.Sentinel("agent/unknown")

// Agent kinds.
const (
	KindReference = "reference"
	KindNegative  = "negative"
)

// Reference is the reference agent's id.
const Reference = "reference"

// Entry is one registered agent.
type Entry struct {
	ID          string
	Kind        string
	Description string
	// Scenarios are the variants the agent is registered for. The runner
	// accepts any agent on any variant; the gate runs an oracle-declared
	// negative on its control's variant instead.
	Scenarios []string
	// New returns a fresh agent.
	New func() engine.Agent
}

var entries = []Entry{
	{Reference, KindReference, "runs the authored path on every required scenario", []string{"V1", "V2", "V3"},
		func() engine.Agent { return maintenance.NewReference() }},
	neg(negative.CompleteEarly, "proposes a terminal transition before any work is verified"),
	neg(negative.AlwaysAct, "never waits; repeats an action the state has already accepted"),
	neg(negative.AlwaysWait, "waits for an operator resolution it never causes, with no fallback deadline, until the operational horizon runs out"),
	neg(negative.AlwaysEscalate, "asks for a human on every invocation, eligible or not"),
	neg(negative.IgnoreNewEvents, "answers from stale state once a decision is outstanding"),
	neg(negative.TrustActorClaim, "cites what the event envelope asserted as the evidence for a payment, without ever reading the authoritative record"),
	neg(negative.StaleAfterWake, "holds one served fact across a wake and proposes a business outcome from it without reading again"),
	neg(negative.DuplicateAfterWake, "reads freshly after a wake and then re-proposes the action its own last accepted effect already performed"),
}

func neg(id, description string) Entry {
	return Entry{id, KindNegative, description, []string{"V1"}, func() engine.Agent { return negative.New(id) }}
}

// Entries returns every agent: the reference, then the negatives in
// registry order.
func Entries() []Entry {
	out := slices.Clone(entries)
	for i := range out {
		out[i].Scenarios = slices.Clone(out[i].Scenarios)
	}
	return out
}

// IDs returns every agent id in registry order.
func IDs() []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

// Lookup returns the entry for id.
func Lookup(id string) (Entry, error) {
	for _, e := range entries {
		if e.ID == id {
			e.Scenarios = slices.Clone(e.Scenarios)
			return e, nil
		}
	}
	return Entry{}, refusal.New(ErrUnknownAgent, "no agent %q in this build; available agents are %v", id, IDs())
}
