// Package bundle audits an episode artefact against the execution ledger
// its provider_execution binding names (upstream
// operatebench.execution_bundle.audit_execution_bundle).
//
// A pass establishes agreement: the two local documents describe one run —
// the same execution identity, provider, settings, rate table and totals
// (re-derived from the ledger's rows, never read off its terminal row), and
// call by call the same request digest and the same decision. It does not
// establish that a provider answered: anyone who can run this build can
// produce both files, and no content digest over a self-describing local
// file tells a provider that answered from one that was never asked. The
// [Result] says so ([Note], ProviderAttested false).
//
// The audit never writes, never opens a socket and reads no credential. It
// imports neither the engine, the domains nor the evaluator: the artefact's
// own validation (contract coherence, step 1) is injected by the caller
// through [Options.ValidateArtefact].
//
// # Refusals
//
// Checks run in upstream's order and the first failure is returned, each as
// its own class: [ErrContract] (the artefact does not read, is below
// contract 8, or reached no provider), [ErrLedgerState] (the ledger does not
// read as a complete, verified journal — the ledger's own class stays in
// the chain — or is not scored), [ErrLedgerVersionMismatch] (also matching
// [ErrIdentityMismatch]), [ErrIdentityMismatch], [ErrTotalsMismatch],
// [ErrCallBinding], and last [ErrDigestMismatch], so every more specific
// refusal names the difference first.
package bundle

import (
	"fmt"
	"github.com/obaudit/obaudit/internal/safefs"
	"io"
	"path/filepath"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/format/provexec"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrContract is returned when the artefact does not read as a run
	// artefact, is written under a contract below 8, or carries a null
	// provider_execution (a run that reached no provider has no bundle).
	ErrContract = refusal.Sentinel("bundle/contract")
	// ErrLedgerState is returned when the ledger does not read as a complete
	// execution ledger (any ledger refusal, an incomplete prefix, an I/O
	// error) or its terminal kind is not scored.
	ErrLedgerState = refusal.Sentinel("bundle/ledger-state")
	// ErrIdentityMismatch is returned when the binding's run identity,
	// provider, api, model, settings or pricing digest, or the execution
	// record's output ceiling, differs from the ledger header.
	ErrIdentityMismatch = refusal.Sentinel("bundle/identity-mismatch")
	// ErrLedgerVersionMismatch is returned when the binding's
	// execution_ledger_version is not the verified ledger's version. It
	// also matches [ErrIdentityMismatch].
	ErrLedgerVersionMismatch = refusal.Sentinel("bundle/ledger-version-mismatch")
	// ErrTotalsMismatch is returned when a binding total (calls, attempts,
	// tokens, measured cost, forfeited reservation) differs from the totals
	// re-derived from the ledger's call rows.
	ErrTotalsMismatch = refusal.Sentinel("bundle/totals-mismatch")
	// ErrCallBinding is returned when the tape, the execution record and the
	// journal do not describe the same calls: counts differ, an index is out
	// of range, or a call's request digest, turn, decision kind or decision
	// digest differs.
	ErrCallBinding = refusal.Sentinel("bundle/call-binding")
	// ErrDigestMismatch is returned when the binding's ledger digest is not
	// the ledger's terminal row digest (checked last).
	ErrDigestMismatch = refusal.Sentinel("bundle/digest-mismatch")
)

// Identity classes: one per ledger header field with a counterpart in the
// artefact, each returned when the two differ. Each also matches
// [ErrIdentityMismatch].
var (
	// ErrRunIDMismatch: the binding's execution_run_id is not the header's.
	ErrRunIDMismatch = refusal.Sentinel("bundle/run-id-mismatch")
	// ErrOutputCeilingMismatch: agent_execution.max_output_tokens is not
	// controls.max_output_tokens.
	ErrOutputCeilingMismatch = refusal.Sentinel("bundle/output-ceiling-mismatch")
	// ErrProviderMismatch: the binding's provider is not the header's.
	ErrProviderMismatch = refusal.Sentinel("bundle/provider-mismatch")
	// ErrAPIMismatch: the binding's api is not the header's.
	ErrAPIMismatch = refusal.Sentinel("bundle/api-mismatch")
	// ErrModelMismatch: the binding's or the execution record's model is
	// not the header's pinned model.
	ErrModelMismatch = refusal.Sentinel("bundle/model-mismatch")
	// ErrSettingsDigestMismatch: the binding's settings digest is not the
	// header's.
	ErrSettingsDigestMismatch = refusal.Sentinel("bundle/settings-digest-mismatch")
	// ErrPricingDigestMismatch: the binding's pricing digest is not the
	// header's.
	ErrPricingDigestMismatch = refusal.Sentinel("bundle/pricing-digest-mismatch")
	// ErrProtocolMismatch: agent_execution.protocol_version is not
	// provider.protocol_version.
	ErrProtocolMismatch = refusal.Sentinel("bundle/protocol-mismatch")
	// ErrScenarioMismatch: scenario_id is not the header's.
	ErrScenarioMismatch = refusal.Sentinel("bundle/scenario-mismatch")
	// ErrOperationMismatch: operation.operation_id is not the header's.
	ErrOperationMismatch = refusal.Sentinel("bundle/operation-mismatch")
	// ErrSpecDigestMismatch: operation.spec_digest_sha256 is not the
	// header's.
	ErrSpecDigestMismatch = refusal.Sentinel("bundle/spec-digest-mismatch")
	// ErrInstanceMismatch: operation_instance_id is not the header's.
	ErrInstanceMismatch = refusal.Sentinel("bundle/instance-mismatch")
	// ErrEngineMismatch: engine_version is not the header's.
	ErrEngineMismatch = refusal.Sentinel("bundle/engine-mismatch")
	// ErrAgentIDMismatch: agent_id is not the header's (a run relabelled as
	// another agent or vendor).
	ErrAgentIDMismatch = refusal.Sentinel("bundle/agent-id-mismatch")
	// ErrAgentKindMismatch: agent_kind is not the header's.
	ErrAgentKindMismatch = refusal.Sentinel("bundle/agent-kind-mismatch")
	// ErrArtefactVersionMismatch: artifact_version is not the header's
	// intended_artifact_version.
	ErrArtefactVersionMismatch = refusal.Sentinel("bundle/artefact-version-mismatch")
)

// identity compares every ledger header field that has a counterpart in the
// artefact, in header order; the first difference is refused by its own
// class (also matching ErrIdentityMismatch).
func identity(art *view, h execledger.Header) error {
	b := art.binding
	type pair struct {
		class          *refusal.Refusal
		field          string
		artefact, head any
	}
	for _, f := range []pair{
		{ErrRunIDMismatch, "execution_run_id", b.ExecutionRunID, h.ExecutionRunID},
		{ErrOutputCeilingMismatch, "max_output_tokens", fmtOpt(art.maxOutputTokens), fmt.Sprint(h.Controls.MaxOutputTokens)},
		{ErrProviderMismatch, "provider", b.Provider, h.Provider.Provider},
		{ErrAPIMismatch, "api", b.API, h.Provider.API},
		{ErrModelMismatch, "model", b.Model, h.Provider.Model},
		{ErrSettingsDigestMismatch, "settings_digest_sha256", b.SettingsDigest, h.Provider.SettingsDigest},
		{ErrPricingDigestMismatch, "pricing_digest_sha256", b.PricingDigest, h.Controls.PricingDigest},
		{ErrModelMismatch, "agent_execution.model", art.model, h.Provider.Model},
		{ErrProtocolMismatch, "agent_execution.protocol_version", art.protocol, h.Provider.ProtocolVersion},
		{ErrOperationMismatch, "operation_id", art.operationID, h.OperationID},
		{ErrSpecDigestMismatch, "spec_digest_sha256", art.specDigest, h.SpecDigest},
		{ErrInstanceMismatch, "operation_instance_id", art.instanceID, h.OperationInstanceID},
		{ErrScenarioMismatch, "scenario_id", art.scenarioID, h.ScenarioID},
		{ErrAgentIDMismatch, "agent_id", art.agentID, h.AgentID},
		{ErrAgentKindMismatch, "agent_kind", art.agentKind, h.AgentKind},
		{ErrEngineMismatch, "engine_version", art.engineVersion, h.EngineVersion},
		{ErrArtefactVersionMismatch, "artifact_version", art.version, h.IntendedArtefactVersion},
	} {
		if f.artefact != f.head {
			return refusal.Wrap(f.class, refusal.New(ErrIdentityMismatch, "%s", f.field),
				"the artefact states %s=%v and the ledger header records %v", f.field, f.artefact, f.head)
		}
	}
	return nil
}

// Note is upstream's BUNDLE_NOTE, verbatim.
const Note = "This audit establishes that an episode artefact and an execution ledger describe one run: the same execution identity, provider, settings, rate table and totals, and the same request and decision on every call. It is not provider attestation. Both documents are produced locally, and a content digest answers whether two records carry the same content, not who could have written them."

// DoesNotEstablish says plainly what a pass does not establish.
const DoesNotEstablish = "that a provider answered: a party who can run this build can produce both files from the same observations; only evidence the provider signs could close that gap, and neither document holds it"

// MinContract is the lowest artefact contract audited (upstream
// ARTIFACT_VERSION; a contract-7 artefact is refused, as upstream does).
const MinContract = 8

// Options configure an audit. The zero value audits with the built-in
// structural reading of the fields the audit uses.
type Options struct {
	// ValidateArtefact, when set, is upstream's step 1: full artefact
	// validation (package artefact with the registered domains, wired by
	// cmd). Any error it returns is refused as [ErrContract]. When nil only
	// the fields the audit reads are checked.
	ValidateArtefact func(tree map[string]any) error
}

// Result is a passing audit (upstream ExecutionBundleAudit): the artefact's
// provider_execution binding, which the ledger has been found to back (its
// version and digest are the ledger's), and the ledger's name.
type Result struct {
	provexec.Binding
	// Ledger is the ledger file's base name only.
	Ledger string
}

// Summary is the JSON report (upstream summary keys, plus what the pass
// does not establish).
func (r *Result) Summary() map[string]any {
	s := r.Binding.Tree()
	s["ok"] = true
	s["provider_attested"] = false
	s["ledger"] = r.Ledger
	s["note"] = Note
	s["does_not_establish"] = DoesNotEstablish
	return s
}

// AuditFiles reads the artefact at artefactPath (bounded by
// limits.MaxArtefactBytes) and audits it against the ledger at ledgerPath.
func AuditFiles(artefactPath, ledgerPath string, opts Options) (*Result, error) {
	b, err := readBounded(artefactPath, limits.MaxArtefactBytes)
	if err != nil {
		return nil, err
	}
	if err := limits.CheckDensity(filepath.Base(artefactPath), b); err != nil {
		return nil, err
	}
	tree, err := canon.Parse(b)
	if err != nil {
		return nil, refusal.Wrap(ErrContract, err, "%s does not read as a run artefact", filepath.Base(artefactPath))
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, refusal.New(ErrContract, "%s does not read as a run artefact: not a JSON object", filepath.Base(artefactPath))
	}
	return Audit(m, ledgerPath, opts)
}

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := safefs.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, limits.Exceeded("MaxArtefactBytes", limit, int64(len(b)))
	}
	return b, nil
}

// Audit holds an artefact's JSON tree against the ledger at ledgerPath.
func Audit(artefact map[string]any, ledgerPath string, opts Options) (*Result, error) {
	f, err := safefs.OpenRegular(ledgerPath)
	if err != nil {
		// Step 4 comes after steps 1-3, so read the artefact first.
		if _, aerr := readArtefact(artefact, opts); aerr != nil {
			return nil, aerr
		}
		return nil, refusal.Wrap(ErrLedgerState, err, "the execution ledger could not be read")
	}
	defer f.Close()
	return AuditReader(artefact, f, filepath.Base(ledgerPath), opts)
}

// AuditReader is [Audit] over a ledger stream; name is reported as the
// ledger's name.
func AuditReader(artefact map[string]any, ledger io.Reader, name string, opts Options) (*Result, error) {
	art, err := readArtefact(artefact, opts)
	if err != nil {
		return nil, err
	}
	// Step 4: the ledger reads strictly. Calls are streamed, and at most one
	// more than the tape holds is kept: a longer journal already disagrees.
	var calls []ledgerCall
	ncalls := 0
	audit, err := execledger.Read(ledger, execledger.Options{
		RequireComplete: true,
		DiscardCalls:    true,
		OnCall: func(c *execledger.Call) error {
			ncalls++
			if len(calls) <= len(art.decisions) {
				lc := ledgerCall{request: c.RequestDigest, observation: c.ObservationDigest, inv: c.InvocationIndex, turn: c.TurnIndex}
				if c.Decision != nil {
					lc.decided, lc.kind, lc.digest = true, c.Decision.Kind, c.Decision.DecisionDigest
				}
				lc.normalized = c.Attempts[len(c.Attempts)-1].ResponseNormalizedDigest != nil
				calls = append(calls, lc)
			}
			return nil
		},
	})
	if err != nil {
		if _, classed := refusal.ClassOf(err); classed {
			return nil, refusal.Wrap(ErrLedgerState, err, "%s does not read as a complete execution ledger, so it witnesses nothing this artefact can be bound to", name)
		}
		return nil, refusal.Wrap(ErrLedgerState, err, "the execution ledger %s could not be read", name)
	}
	// Step 5.
	if !audit.Scored() {
		return nil, refusal.New(ErrLedgerState, "%s ended %s; an excluded or aborted journal belongs to a run that wrote no artefact", name, audit.Status())
	}
	b := art.binding
	h := audit.Header
	// Step 6: identity.
	if b.ExecutionLedgerVersion != int64(audit.Version) {
		return nil, refusal.Wrap(ErrLedgerVersionMismatch, refusal.New(ErrIdentityMismatch, "execution_ledger_version"),
			"the artefact's execution ledger contract does not match the verified sidecar contract (binding %d, ledger %d)", b.ExecutionLedgerVersion, audit.Version)
	}
	if err := identity(art, h); err != nil {
		return nil, err
	}
	// Step 7: totals, against the totals re-derived from the rows.
	t := audit.Totals
	for _, f := range []struct {
		name       string
		bound, got any
	}{
		{"provider_calls", b.ProviderCalls, t.ProviderCalls},
		{"attempts", b.Attempts, t.Attempts},
		{"input_tokens", b.InputTokens, t.InputTokens},
		{"output_tokens", b.OutputTokens, t.OutputTokens},
		{"measured_cost_usd", b.MeasuredCostUSD, t.MeasuredCostUSD},
		{"forfeited_reservation_usd", b.ForfeitedReservationUSD, t.ForfeitedReservationUSD},
	} {
		if f.bound != f.got {
			return nil, refusal.New(ErrTotalsMismatch, "the artefact binds %s=%v and the ledger's rows total %v", f.name, f.bound, f.got)
		}
	}
	// Step 8: calls.
	if len(b.DecisionCallIndex) != len(art.decisions) || len(art.decisions) != len(art.attempts) {
		return nil, refusal.New(ErrCallBinding, "the binding names %d decision calls, the tape holds %d decisions and the record %d attempts", len(b.DecisionCallIndex), len(art.decisions), len(art.attempts))
	}
	if ncalls != len(b.DecisionCallIndex) {
		return nil, refusal.New(ErrCallBinding, "the ledger records %d calls and the binding %d decisions; a decision with no call, or a call with no decision, is a tape and a journal describing different runs", ncalls, len(b.DecisionCallIndex))
	}
	for p, i := range b.DecisionCallIndex {
		if i < 0 || i >= int64(ncalls) {
			return nil, refusal.New(ErrCallBinding, "decision %d names call %d, which the ledger does not hold", p, i)
		}
		c, at, d := calls[i], art.attempts[p], art.decisions[p]
		switch {
		case c.request != at.request:
			return nil, refusal.New(ErrCallBinding, "call %d: the ledger's request digest is not the artefact attempt %d's", i, p)
		case c.inv != at.inv || c.turn != at.turn:
			return nil, refusal.New(ErrCallBinding, "call %d: (invocation, turn) (%d, %d) against the attempt's (%d, %d)", i, c.inv, c.turn, at.inv, at.turn)
		case !c.decided:
			return nil, refusal.New(ErrCallBinding, "call %d carries no decision where the tape records one", i)
		case c.digest != d.digest:
			return nil, refusal.New(ErrCallBinding, "call %d: the ledger's decision digest is not the digest of tape entry %d", i, p)
		case c.observation != d.observation:
			return nil, refusal.New(ErrCallBinding, "call %d: the ledger's observation digest is not tape entry %d's", i, p)
		case c.kind != d.kind:
			return nil, refusal.New(ErrCallBinding, "call %d: the ledger's decision kind %s is not the tape's %s", i, c.kind, d.kind)
		case !c.normalized:
			return nil, refusal.New(ErrCallBinding, "call %d: its last attempt binds no normalized response", i)
		}
	}
	// Step 9: the digest backstop, last.
	if audit.LedgerDigest() != b.ExecutionLedgerDigest {
		return nil, refusal.New(ErrDigestMismatch, "the artefact binds ledger digest %s and the ledger's terminal row is %s", b.ExecutionLedgerDigest, audit.LedgerDigest())
	}
	r := &Result{Binding: b, Ledger: name}
	r.ExecutionLedgerVersion, r.ExecutionLedgerDigest = int64(audit.Version), audit.LedgerDigest()
	r.DecisionCallIndex = append([]int64(nil), b.DecisionCallIndex...)
	return r, nil
}

func fmtOpt(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

type ledgerCall struct {
	request, observation, kind, digest string
	inv, turn                          int64
	decided, normalized                bool
}
