//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
)

// TestModelLaneOnNoTime: the model-backed agent of the preflight's default
// lane runs unchanged against the No-Time runtime, over the loopback
// scripted provider primed with the reference agent's No-Time decision
// tape: one provider call per decision, the reference's decisions, and a
// record that replays from its tape at zero provider calls. (Campaign
// wiring of model profiles on this arm is not in this build: plan refuses
// them.)
func TestModelLaneOnNoTime(t *testing.T) {
	t.Parallel()
	dom, ref := artefacttest.Cell(t, "V1", "reference")
	const inst = "opinst_0123456789abcdef0123456789abcdef"
	want, err := pair.NoTimeRun(dom, pair.Agent{ID: ref.ID, Kind: ref.Kind, New: ref.New}, inst)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := profile.ForLane(preflight.DefaultLane)
	if err != nil {
		t.Fatal(err)
	}
	vendor, _ := preflight.VendorFor(preflight.DefaultLane)
	script := &preflight.Script{Vendor: vendor, Model: prof.Run.Model, Credential: preflight.Credential, Tape: want.Decisions,
		Fault: preflight.FaultNone, FaultAt: 1 << 20, MaxRequests: provider.MaxProviderCalls}
	lb := preflight.Serve(script)
	defer lb.Close()
	in, _ := execledger.ParseDecimal(preflight.DefaultInputUSDPerMTok)
	out, _ := execledger.ParseDecimal(preflight.DefaultOutputUSDPerMTok)
	capUSD, _ := execledger.ParseDecimal(preflight.DefaultCostCapUSD)
	rates := execledger.Rates{In: in, Out: out}
	guard, err := provider.NewGuard(capUSD, rates, prof.Run.MaxOutputTokens, provider.TokenHardCap)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := lane.ProviderIdentity(prof.Lane, prof.Run, lb.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	meta := dom.Plan().Meta
	agentID := profile.AgentID(prof.Run)
	ldir := filepath.Join(campaigntest.TempDir(t), "l")
	if err := os.Mkdir(ldir, 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := execledger.Create(filepath.Join(ldir, "ledger.ndjson"), execledger.Header{
		ExecutionRunID: "exec_0123456789abcdef0123456789abcdef", OperationInstanceID: inst,
		OperationID: meta.OperationID, ScenarioID: meta.ScenarioID, AgentID: agentID, AgentKind: artefact.KindModel,
		SpecDigest: meta.SpecDigest, EngineVersion: "0.9.0+obaudit.1",
		IntendedArtefactVersion: execledger.IntendedArtefactVersion, StartedAt: lane.Instant(start), Provider: pid,
		Controls: execledger.Controls{
			MaxProviderCalls: provider.MaxProviderCalls, MaxAttemptsPerCall: 1,
			ExpectedProviderCalls: provider.ExpectedProviderCalls, TokenHardCap: provider.TokenHardCap,
			MaxOutputTokens: prof.Run.MaxOutputTokens, CostCapUSD: capUSD.String(), CostCapPolicy: execledger.CostCapPolicy,
			TurnDeadlineSeconds: prof.Run.TurnDeadlineSeconds, WallClockDeadlineSeconds: prof.Run.WallClockDeadlineSeconds,
			Pricing: map[string]any{"policy_id": preflight.DefaultPricingPolicyID, "input_usd_per_mtok": in.String(),
				"output_usd_per_mtok": out.String(), "rate_source": execledger.RateSourceOperator},
		},
	}, execledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	agent, err := lane.New(lane.Config{Lane: prof.Lane, Client: lb.Client, BaseURL: lb.BaseURL, Profile: prof.Run,
		Credential: preflight.Credential, MaxCalls: provider.MaxProviderCalls, Guard: guard, Ledger: w, Now: time.Now, RunStart: start,
		TurnDeadline:        time.Duration(prof.Run.TurnDeadlineSeconds * float64(time.Second)),
		WallClockDeadline:   time.Duration(prof.Run.WallClockDeadlineSeconds * float64(time.Second)),
		OperationInstanceID: inst})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pair.NoTimeRun(dom, pair.Agent{ID: agentID, Kind: artefact.KindModel, New: func() engine.Agent { return agent }}, inst)
	if err != nil {
		t.Fatalf("the model lane on the No-Time runtime: %v (script refused %d)", err, script.Refused())
	}
	if script.Refused() != 0 || agent.Calls() != int64(len(got.Decisions)) || int64(script.Requests()) != agent.Calls() {
		t.Errorf("refused %d, calls %d, requests %d, decisions %d", script.Refused(), agent.Calls(), script.Requests(), len(got.Decisions))
	}
	if got.DecisionsDigest != want.DecisionsDigest || got.TrajectoryDigest != want.TrajectoryDigest {
		t.Errorf("the model lane's No-Time run differs from the reference's (decisions %s vs %s)", got.DecisionsDigest, want.DecisionsDigest)
	}
	b, err := notimerecord.Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := notimerecord.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	before := script.Requests()
	if ok, err := pair.Replay(dom, rec); err != nil || !ok || script.Requests() != before {
		t.Errorf("replay: %v %v, %d calls during replay", ok, err, script.Requests()-before)
	}
	o, err := pair.GradeNoTime(dom, rec)
	if err != nil || o.Status != "SUCCESS" {
		t.Errorf("CommonOutcomeV1 %+v %v", o, err)
	}
}

// TestNoTimeLedgerBinding: a model-backed No-Time trial's ledger is bound
// to its record; another trial's run id, a record with a decision fewer or
// another decision, or a ledger of another run, is refused.
func TestNoTimeLedgerBinding(t *testing.T) {
	t.Parallel()
	quietTessera()
	tmp := campaigntest.TempDir(t)
	dir, key := planCampaign(t, tmp, writeCampaignFile(t, tmp, testCampaign{origin: "obaudit.example/campaign/m", seed: "m",
		agents: []string{}, variants: []string{"V1"}, arms: []string{campaign.ArmNoTime}, trials: 2, stabilityK: 1, luna: true}))
	mustRun(t, "campaign", "run", dir, "--key", key)
	if code, class := verifyClass(t, dir, ""); code != 0 {
		t.Fatalf("verify = %d %s", code, class)
	}
	pf, _ := os.ReadFile(filepath.Join(dir, campaign.PlanFile))
	p, _ := campaign.DecodePlan(pf)
	read := func(tr campaign.Trial) (*notimewire.RunV1, []byte) {
		b, _ := os.ReadFile(filepath.Join(dir, campaign.TrialsDir, tr.ID, campaignNoTimeFile))
		rec, err := notimerecord.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := os.ReadFile(filepath.Join(dir, campaign.TrialsDir, tr.ID, preflight.FileName(tr.OperationInstanceID, preflight.LedgerSuffix)))
		return rec, l
	}
	t0, t1 := p.Trials[0], p.Trials[1]
	rec0, led0 := read(t0)
	_, led1 := read(t1)
	if err := auditNoTimeLedger(t0, rec0, led0); err != nil {
		t.Fatalf("the trial's own ledger: %v", err)
	}
	fewer := *rec0
	fewer.Decisions = rec0.Decisions[:len(rec0.Decisions)-1]
	other := *rec0
	other.Decisions = slices.Clone(rec0.Decisions)
	other.Decisions[0], other.Decisions[1] = other.Decisions[1], other.Decisions[0]
	for _, c := range []struct {
		name string
		tr   campaign.Trial
		rec  *notimewire.RunV1
		led  []byte
		want refusal.Class
	}{
		{"another trial's run id", t1, rec0, led0, campaign.ErrIdentityMismatch.Class},
		{"another run's ledger", t0, rec0, led1, campaign.ErrIdentityMismatch.Class},
		{"a decision fewer", t0, &fewer, led0, campaign.ErrOutcomeMismatch.Class},
		{"decisions reordered", t0, &other, led0, campaign.ErrOutcomeMismatch.Class},
	} {
		err := auditNoTimeLedger(c.tr, c.rec, c.led)
		if got, _ := refusal.ClassOf(err); got != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}
