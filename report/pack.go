package report

import (
	"maps"
	"slices"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/refusal"
)

// ErrLedgerMismatch is returned by Build when the execution ledger given with
// an artefact is not the one the artefact binds: the artefact has no
// provider execution, or the ledger's digest or execution run id is not the
// one provider_execution states.
var ErrLedgerMismatch = refusal.Sentinel("report/ledger-mismatch")

// Pack is what the operation pack that produced an episode knows about it
// and its artefact does not carry. The report imports no pack: the caller
// (cmd/obaudit, through the domains registry) fills this in, and only when
// the pack's operation spec is the one the artefact names (same spec digest);
// otherwise the page says the pack was not consulted.
type Pack struct {
	// Name names the pack ("lettings/maintenance").
	Name string
	// Roles maps an actor id to its role in the operation's actor registry.
	Roles map[string]string
	// Authority is the authority class of an event an actor produces.
	Authority func(actorID, eventType string) string
	// RequiredReads lists, sorted, the reads an outcome key (an action type,
	// or "complete") must have had served, fresh, before it is proposed.
	RequiredReads func(outcomeKey string) []string
	// DispatchFailures are the message fixtures whose dispatch the scenario
	// authors to fail (an expectation, not an agent failure).
	DispatchFailures []string
	// ExpectedEventRejections maps an authored event id to the verdict code
	// the scenario declares for its refusal or post-terminal arrival.
	ExpectedEventRejections map[string]string
	// Judge, when set, holds an episode's verdict to what is authored for
	// its agent (the acceptance gate's rule): a negative control's declared
	// failure closure, a correct agent's reliability or a scenario's
	// authored fault expectation.
	Judge func(Observed) *Judgement
}

// Observed is the graded verdict of one episode, as its artefact states it.
type Observed struct {
	AgentID, AgentKind, ScenarioID, Status string
	Reliable                               bool
	Failed, Passed, Findings               []string
}

// Judgement is what is authored for an episode's agent and whether the
// episode meets it.
type Judgement struct {
	// Rule names the expectation: an authored expectation id, or the
	// oracle control the agent is held to.
	Rule string
	// Authored is set when the expectation is a scenario's authored fault
	// (its failures are the scenario's, not the agent's).
	Authored bool
	// ExpectReliable is set when the agent must be reliable.
	ExpectReliable bool
	// Failed, Findings and Passing are the expected failed dimensions
	// (exactly), finding codes (exactly when Authored, else at least) and
	// dimensions that must pass.
	Failed, Findings, Passing []string
	// Problems says how the episode misses the expectation (none: met).
	Problems []string
}

// PackOf reads a pack's knowledge off the engine domain it built for one
// scenario (name names the pack): actor roles from its published static
// vocabulary, authorities and required reads from the domain contract, the
// authored dispatch faults from its plan and the expected event refusals
// from its grading contract.
func PackOf(name string, d engine.Domain) *Pack {
	k := &Pack{
		Name:             name,
		Roles:            map[string]string{},
		Authority:        d.EventAuthority,
		RequiredReads:    d.RequiredReads,
		DispatchFailures: slices.Sorted(maps.Keys(d.Plan().DispatchFailures)),
	}
	for id, role := range d.Static().Actors {
		if s, ok := role.(string); ok {
			k.Roles[id] = s
		}
	}
	if g, ok := d.(engine.Graded); ok {
		k.ExpectedEventRejections = maps.Clone(g.GradingContract().Scenario.ExpectedEventRejections)
	}
	return k
}

func (p *Pack) authoredFailure(fixture string) bool {
	return p != nil && slices.Contains(p.DispatchFailures, fixture)
}

// PackQuery names what an artefact says about the operation it ran.
type PackQuery struct {
	OperationType, SpecDigest, ScenarioID, EngineVersion string
}

// PackLookup returns the knowledge of the pack that executes the query's
// operation type with exactly the spec whose digest it names, bound to its
// scenario (and, for an authored verdict, its engine version), or nil when
// no such pack is carried.
type PackLookup func(PackQuery) *Pack

// Options are what Build may be given beside the artefact.
type Options struct {
	// Pack looks up the producing pack's knowledge (nil: none is consulted).
	Pack PackLookup
	// Ledger is the verified execution ledger of a model-backed run, or nil.
	// It must be the ledger the artefact binds (its digest and run id).
	Ledger *execledger.Audit
	// Expiry is how the artefact's operation records a human checkpoint
	// that expires (from the pack registered for its operation type; the
	// zero value: none is shown as expired).
	Expiry Expiry
}

// Expiry says how an operation records a human checkpoint that expires: it
// has no resolution row; an accepted event of EventType whose payload names
// the checkpoint under CheckpointKey closed it, shown as Resolution.
type Expiry struct {
	EventType, CheckpointKey, Resolution string
}

// bindLedger checks that a is the ledger the artefact's provider execution
// binds.
func bindLedger(r *Report, a *execledger.Audit) error {
	p := r.a.ProviderExecution
	if p == nil {
		return refusal.New(ErrLedgerMismatch, "the artefact binds no execution ledger (provider_execution is null)")
	}
	if got := a.LedgerDigest(); got != p.ExecutionLedgerDigest {
		if got == "" {
			got = "none (the ledger has no terminal row)"
		}
		return refusal.New(ErrLedgerMismatch, "the artefact binds execution ledger %s, the ledger given has digest %s", p.ExecutionLedgerDigest, got)
	}
	if a.Header.ExecutionRunID != p.ExecutionRunID {
		return refusal.New(ErrLedgerMismatch, "the artefact binds execution run %s, the ledger given is run %s", p.ExecutionRunID, a.Header.ExecutionRunID)
	}
	return nil
}
