package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
)

// The stateful_time_removed arm in campaigns: eligibility (sealed in the
// plan, re-derived by verify), the No-Time trial executor, the
// CommonOutcomeV1 grade of both arms, and the matching proof of a pair.

const campaignNoTimeFile = "notime_record.json"

// campaignEligible is the No-Time protocol's verdict on a variant of the
// default pack: "" eligible, else the compiler refusal's class.
func campaignEligible(pack *domains.Pack) func(variant, arm string) string {
	return func(variant, arm string) string {
		if arm != campaign.ArmNoTime {
			return ""
		}
		dom, err := pack.Operation(nil, "", variant)
		if err != nil {
			return ""
		}
		if err := pair.Eligible(dom); err != nil && pair.IneligibleAsExpected(err) {
			if c, ok := refusal.ClassOf(err); ok {
				return string(c)
			}
		}
		return ""
	}
}

// commonOfArtefact is CommonOutcomeV1 of a Full artefact's episode, as
// `obaudit arms verify` grades it (nil: the scenario has no outcome card).
func commonOfArtefact(dom engine.Domain, a *artefact.Artefact) (*campaign.CommonOutcome, error) {
	o, err := pair.GradeFull(dom, fullEpisodeOf(a))
	if errors.Is(err, pair.ErrNoCard) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// samePair refuses a Full artefact and a No-Time record of different
// episodes (scenario, operation instance or agent): pair/not-a-pair.
func samePair(a *artefact.Artefact, nt *notimewire.RunV1) error {
	if a.ScenarioID != nt.ScenarioID || a.OperationInstanceID != nt.OperationInstanceID || a.AgentID != nt.AgentID {
		return refusal.New(pair.ErrNotAPair, "Full %s/%s/%s, No-Time %s/%s/%s (scenario/instance/agent)",
			a.ScenarioID, a.OperationInstanceID, a.AgentID, nt.ScenarioID, nt.OperationInstanceID, nt.AgentID)
	}
	return nil
}

// fullEpisodeOf is the engine episode a Full artefact records, as the
// pair's grade and matching proof read it.
func fullEpisodeOf(a *artefact.Artefact) *engine.Episode {
	var terminal any
	if a.TerminalOutcome != nil {
		terminal = *a.TerminalOutcome
	}
	return &engine.Episode{Trajectory: a.Trajectory, TerminalOutcome: terminal, ReplayFinal: a.ReplayFinal}
}

// executeNoTime runs a deterministic agent's stateful_time_removed trial:
// the No-Time record (validated as arms validate reads it), its
// determinism self-check (a second run with a fresh agent gives the same
// bytes) and its replay from the decision tape at zero provider calls, and
// its CommonOutcomeV1 grade.
func (e *campaignExecutor) executeNoTime(dom engine.Domain, t campaign.Trial) (*campaign.Execution, error) {
	a, ok := e.pack.Agent(t.Subject)
	if !ok || t.SubjectKind != campaign.KindAgent {
		return &campaign.Execution{Stage: "dispatched"}, nil
	}
	ag := pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}
	nt, err := pair.NoTimeRun(dom, ag, t.OperationInstanceID)
	if err != nil {
		return endsAt(&campaign.Execution{Stage: "provider_completed"}, err)
	}
	return finishNoTime(&campaign.Execution{}, dom, nt, func(_ *notimewire.RunV1, b []byte) bool {
		same, err := noTimeRerunSame(dom, ag, t.OperationInstanceID, b)
		return err == nil && same
	})
}

// noTimeRerunSame is the No-Time arm's determinism self-check: a second
// execution of the instance with a fresh agent gives the record bytes b.
func noTimeRerunSame(dom engine.Domain, a pair.Agent, instanceID string, b []byte) (bool, error) {
	again, err := pair.NoTimeRun(dom, a, instanceID)
	if err != nil {
		return false, err
	}
	b2, err := notimerecord.Encode(again)
	if err != nil {
		return false, err
	}
	return string(b2) == string(b), nil
}

// finishNoTime takes a No-Time run whose runtime completed through the rest
// of the funnel: its record encoded and decoded strictly (artifact_valid),
// held by the executor's own self-check (holds, given the decoded record
// and its bytes), replayed from its decision tape (replay_valid), and given
// its CommonOutcomeV1 grade. A step that does not hold ends the trial at the
// stage it reached.
func finishNoTime(ex *campaign.Execution, dom engine.Domain, nt *notimewire.RunV1, holds func(rec *notimewire.RunV1, b []byte) bool) (*campaign.Execution, error) {
	ex.Stage = "runtime_completed"
	b, err := notimerecord.Encode(nt)
	if err != nil {
		return ex, nil
	}
	rec, err := notimerecord.Decode(b)
	if err != nil {
		return ex, nil
	}
	ex.Stage, ex.Artefact, ex.ArtefactBytes = "artifact_valid", campaignNoTimeFile, b
	if !holds(rec, b) {
		return ex, nil
	}
	if ok, err := pair.Replay(dom, rec); err != nil || !ok {
		return ex, nil
	}
	ex.Stage = "replay_valid"
	o, err := pair.GradeNoTime(dom, rec)
	if err != nil {
		return ex, nil
	}
	ex.Common = &o
	return ex, nil
}

// checkNoTime re-derives a scored stateful_time_removed trial for verify:
// the record decoded strictly (schema, canonical bytes, every digest), its
// identity the plan's and the spec the build's, replayed from its decision
// tape, a model profile's execution ledger bound to it (auditNoTimeLedger),
// and re-graded.
func checkNoTime(p *campaign.Plan, t campaign.Trial, b, ledger []byte) (*campaign.CommonOutcome, error) {
	rec, err := notimerecord.Decode(b)
	if err != nil {
		return nil, err
	}
	dom, err := domains.Default().Operation(nil, "", t.Variant)
	if err != nil {
		return nil, err
	}
	if rec.SpecDigest != dom.Plan().Meta.SpecDigest {
		return nil, refusal.New(pair.ErrSpecMismatch, "%s: the record names spec %s", t.ID, rec.SpecDigest)
	}
	agent, err := trialAgentID(t)
	if err != nil {
		return nil, err
	}
	if rec.ScenarioID != t.Variant || rec.OperationInstanceID != t.OperationInstanceID || rec.AgentID != agent {
		return nil, refusal.New(campaign.ErrIdentityMismatch, "%s: the record is of another identity (instance %s, scenario %s, agent %s)", t.ID, rec.OperationInstanceID, rec.ScenarioID, rec.AgentID)
	}
	ok, err := pair.Replay(dom, rec)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, refusal.New(campaign.ErrOutcomeMismatch, "%s: the record does not replay from its decision tape", t.ID)
	}
	if (t.SubjectKind == campaign.KindProfile) != (ledger != nil) {
		return nil, refusal.New(campaign.ErrOutcomeMismatch, "%s: a model-backed trial has a ledger, a deterministic one none", t.ID)
	}
	if ledger != nil {
		if err := auditNoTimeLedger(t, rec, ledger); err != nil {
			return nil, err
		}
	}
	o, err := pair.GradeNoTime(dom, rec)
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// campaignPair is the independent matching proof of a pair (as `obaudit
// arms verify FULL NOTIME`): both files already re-derived by the trial
// checker.
func campaignPair(ctx context.Context, full, notime campaign.Trial, fullArt, rec []byte) error {
	doc, err := artefact.Read(fullArt, artefactOptions())
	if err != nil {
		return err
	}
	nt, err := notimerecord.Decode(rec)
	if err != nil {
		return err
	}
	a := doc.Artefact
	if err := samePair(a, nt); err != nil {
		return err
	}
	dom, err := domains.Default().Operation(nil, "", full.Variant)
	if err != nil {
		return err
	}
	rep, err := pair.Verify(dom, fullEpisodeOf(a), nt)
	if err != nil {
		return err
	}
	if !rep.Matched {
		return refusal.New(notimeverify.ErrMismatch, "the pair does not match: %v", rep.Findings)
	}
	return nil
}

// ineligibleTree is the plan's ineligible cells for --json.
func ineligibleTree(xs []campaign.Ineligible) []any {
	out := []any{}
	for _, x := range xs {
		out = append(out, map[string]any{"variant": x.Variant, "arm": x.Arm, "class": x.Class})
	}
	return out
}

// executeNoTimeModel runs a model profile's stateful_time_removed trial:
// the preflight's default lane agent, unchanged, against the No-Time
// runtime over the loopback scripted provider primed with the reference
// agent's No-Time decision tape for the same instance; its execution
// ledger written beside the record. The determinism self-check is the
// replay from the decision tape at zero provider calls (as a model run's
// playback self-check on the Full arm).
func (e *campaignExecutor) executeNoTimeModel(dom engine.Domain, t campaign.Trial, dir string) (*campaign.Execution, error) {
	m := e.profiles[t.Subject]
	ref, _ := e.pack.Agent("reference")
	want, err := pair.NoTimeRun(dom, pair.Agent{ID: ref.ID, Kind: ref.Kind, New: ref.New}, t.OperationInstanceID)
	if err != nil {
		return nil, err
	}
	prof, err := profile.ForLane(preflight.DefaultLane)
	if err != nil {
		return nil, err
	}
	vendor, _ := preflight.VendorFor(preflight.DefaultLane)
	pt, f := e.plan.File.Bounds.PerTrial, e.plan.File
	script := &preflight.Script{Vendor: vendor, Model: prof.Run.Model, Credential: preflight.Credential, Tape: want.Decisions,
		Fault: preflight.FaultNone, FaultAt: 1 << 30, MaxRequests: pt.Calls, Latency: time.Duration(m.LatencyMS) * time.Millisecond}
	lb := preflight.Serve(script)
	defer lb.Close()
	in, ok1 := execledger.ParseDecimal(f.Rates.InputUSDPerMTok)
	out, ok2 := execledger.ParseDecimal(f.Rates.OutputUSDPerMTok)
	capUSD, ok3 := execledger.ParseDecimal(pt.CostUSD)
	if !ok1 || !ok2 || !ok3 {
		return nil, refusal.New(campaign.ErrPlanInvalid, "rates or cost bound are not exact decimals")
	}
	rates := execledger.Rates{In: in, Out: out}
	if err := provider.CheckWorstCase(pt.Calls, rates, capUSD); err != nil {
		return &campaign.Execution{Stage: "authorized"}, nil
	}
	guard, err := provider.NewGuard(capUSD, rates, prof.Run.MaxOutputTokens, min(pt.Tokens, provider.TokenHardCap))
	if err != nil {
		return nil, err
	}
	pid, err := lane.ProviderIdentity(prof.Lane, prof.Run, lb.BaseURL)
	if err != nil {
		return nil, err
	}
	meta := dom.Plan().Meta
	agentID := profile.AgentID(prof.Run)
	start := time.Now()
	ledgerName := preflight.FileName(t.OperationInstanceID, preflight.LedgerSuffix)
	w, err := execledger.Create(filepath.Join(dir, ledgerName), execledger.Header{
		ExecutionRunID: t.ExecutionRunID, OperationInstanceID: t.OperationInstanceID,
		OperationID: meta.OperationID, ScenarioID: meta.ScenarioID, AgentID: agentID, AgentKind: artefact.KindModel,
		SpecDigest: meta.SpecDigest, EngineVersion: f.EngineVersion,
		IntendedArtefactVersion: execledger.IntendedArtefactVersion, StartedAt: lane.Instant(start), Provider: pid,
		Controls: execledger.Controls{
			MaxProviderCalls: pt.Calls, MaxAttemptsPerCall: 1,
			ExpectedProviderCalls: min(provider.ExpectedProviderCalls, pt.Calls), TokenHardCap: min(pt.Tokens, provider.TokenHardCap),
			MaxOutputTokens: prof.Run.MaxOutputTokens, CostCapUSD: capUSD.String(), CostCapPolicy: execledger.CostCapPolicy,
			TurnDeadlineSeconds: prof.Run.TurnDeadlineSeconds, WallClockDeadlineSeconds: prof.Run.WallClockDeadlineSeconds,
			Pricing: map[string]any{"policy_id": f.Rates.PricingPolicyID, "input_usd_per_mtok": in.String(),
				"output_usd_per_mtok": out.String(), "rate_source": execledger.RateSourceOperator},
		},
	}, execledger.WriterOptions{})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	ex := &campaign.Execution{Stage: "dispatched", Ledger: ledgerName}
	agent, err := lane.New(lane.Config{Lane: prof.Lane, Client: lb.Client, BaseURL: lb.BaseURL, Profile: prof.Run,
		Credential: preflight.Credential, MaxCalls: pt.Calls, Guard: guard, Ledger: w, Now: time.Now, RunStart: start,
		TurnDeadline:        time.Duration(prof.Run.TurnDeadlineSeconds * float64(time.Second)),
		WallClockDeadline:   time.Duration(prof.Run.WallClockDeadlineSeconds * float64(time.Second)),
		OperationInstanceID: t.OperationInstanceID})
	if err != nil {
		return nil, err
	}
	nt, runErr := pair.NoTimeRun(dom, pair.Agent{ID: agentID, Kind: artefact.KindModel, New: func() engine.Agent { return agent }}, t.OperationInstanceID)
	var fail *lane.Failure
	switch {
	case w.Poisoned():
		return ex, nil
	case runErr != nil && errors.As(runErr, &fail):
		if err := w.Finalize(execledger.TerminalExcluded, lane.Instant(time.Now()), &fail.Code); err != nil {
			return nil, err
		}
		ex.Exclusion = fail.Code
		if !slices.Contains(campaign.Exclusions(), ex.Exclusion) {
			ex.Exclusion = campaign.ExclusionInfrastructure
		}
		return ex, w.Close()
	case runErr != nil || agent.Calls() != int64(len(nt.Decisions)):
		code := execledger.AbortedCode
		if err := w.Finalize(execledger.TerminalAborted, lane.Instant(time.Now()), &code); err != nil {
			return nil, err
		}
		return ex, w.Close()
	}
	if err := w.Finalize(execledger.TerminalScored, lane.Instant(time.Now()), nil); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return finishNoTime(ex, dom, nt, func(rec *notimewire.RunV1, _ []byte) bool {
		b, _ := os.ReadFile(filepath.Join(dir, ledgerName)) // unreadable: nil, which the audit refuses
		return auditNoTimeLedger(t, rec, b) == nil
	})
}

// auditNoTimeLedger binds a model-backed No-Time record to its execution
// ledger: the ledger reads complete and scored under the trial's
// identities (execution run, operation instance, scenario, agent, spec),
// it records one decision call per decision on the record's tape, in
// order, each with that decision's kind and RFC 8785 outcome digest, and
// no other call. Not re-derived here (the No-Time record carries no
// provider binding): the canonical provider request digests.
func auditNoTimeLedger(t campaign.Trial, rec *notimewire.RunV1, ledger []byte) error {
	var kinds, digests []string
	calls := 0
	audit, err := execledger.Read(bytes.NewReader(ledger), execledger.Options{RequireComplete: true, DiscardCalls: true,
		OnCall: func(c *execledger.Call) error {
			calls++
			if c.Decision != nil {
				kinds, digests = append(kinds, c.Decision.Kind), append(digests, c.Decision.DecisionDigest)
			}
			return nil
		}})
	if err != nil {
		return err
	}
	h := audit.Header
	if !audit.Scored() || h.ExecutionRunID != t.ExecutionRunID || h.OperationInstanceID != rec.OperationInstanceID ||
		h.ScenarioID != rec.ScenarioID || h.AgentID != rec.AgentID || h.SpecDigest != rec.SpecDigest {
		return refusal.New(campaign.ErrIdentityMismatch, "%s: the ledger (%s, run %s) is not this trial's", t.ID, audit.Status(), h.ExecutionRunID)
	}
	if calls != len(rec.Decisions) || len(digests) != len(rec.Decisions) {
		return refusal.New(campaign.ErrOutcomeMismatch, "%s: %d calls, %d decision calls, %d decisions on the record", t.ID, calls, len(digests), len(rec.Decisions))
	}
	for i, d := range rec.Decisions {
		dm, _ := d.(map[string]any)
		oc, _ := dm["outcome"].(map[string]any)
		kind, _ := oc["kind"].(string)
		dg, err := canon.UpstreamDigest(oc)
		if err != nil || oc == nil || kind != kinds[i] || dg != digests[i] {
			return refusal.New(campaign.ErrOutcomeMismatch, "%s: decision %d is not the ledger's", t.ID, i)
		}
	}
	return nil
}
