package preflight

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/anthropic"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
)

// TestReferenceCell is R1, R3, R4, R6, R20 and F12, and the issue's
// acceptance: a v3 ledger and an artefact that validation, replay (zero
// provider calls) and the bundle audit all accept.
func TestReferenceCell(t *testing.T) {
	dir := outDir(t)
	cfg := config(t, dir)
	r := mustRun(t, cfg)
	if !r.OK() || !r.AsExpected() || r.Status != "scored" {
		t.Fatalf("reference cell: %s %s", r.Status, r.ExclusionCode)
	}
	ledgerName, artefactName := OutputNames(testInstance, FaultNone)
	if got := ledgertest.Entries(t, dir); !slices.Equal(got, []string{testInstance + ".episode_artifact.json", testInstance + ".execution_ledger.ndjson"}) || got[0] != artefactName || got[1] != ledgerName {
		t.Errorf("directory holds %v", got)
	}

	// R1: the ledger.
	a, err := execledger.ReadFile(r.LedgerPath, execledger.Options{RequireComplete: true})
	if err != nil {
		t.Fatal(err)
	}
	tt := a.Totals
	if a.Version != 3 || tt.ProviderCalls != 46 || tt.Attempts != 46 || tt.InputTokens != 46*4211 || tt.OutputTokens != 46*118 ||
		tt.MeasuredCostUSD != "0.2964125" || tt.ForfeitedReservationUSD != "0" || len(tt.FaultCounts) != 0 {
		t.Errorf("totals %+v", tt)
	}
	for i, idx := range a.DecisionCallIndex {
		if idx != int64(i) {
			t.Fatalf("decision call index %v", a.DecisionCallIndex)
		}
	}
	// R4, R20, F12: the header.
	h := a.Header
	if d, _ := canon.UpstreamDigest(h.Provider.Settings); d != h.Provider.SettingsDigest || h.Provider.RequestMapping != openai.RequestMapping || h.Provider.Implementation != openai.Implementation ||
		h.IntendedArtefactVersion != 8 || h.OperationInstanceID != testInstance || !strings.HasPrefix(h.ExecutionRunID, "exec_") {
		t.Errorf("header %+v", h)
	}
	if c := h.Controls; c.MaxOutputTokens != 4096 || c.TokenHardCap != 1_650_300 || c.MaxProviderCalls != 60 || c.MaxAttemptsPerCall != 1 || c.ExpectedProviderCalls != 46 {
		t.Errorf("controls %+v", c)
	}
	if h.Provider.BaseURL != "https://127.0.0.1/v1" || h.Controls.Pricing["rate_source"] != "operator_supplied_pinned_rates" {
		t.Errorf("base url %q, pricing %v", h.Provider.BaseURL, h.Controls.Pricing)
	}

	// R6: the artefact.
	b, err := os.ReadFile(r.ArtefactPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := artefact.Read(b, cfg.ArtefactOptions)
	if err != nil {
		t.Fatalf("the artefact does not validate: %v", err)
	}
	art := doc.Artefact
	pe := art.ProviderExecution
	if art.ArtifactVersion != 8 || pe == nil || pe.ExecutionRunID != h.ExecutionRunID || pe.ExecutionLedgerDigest != a.LedgerDigest() ||
		pe.ProviderCalls != 46 || pe.ExecutionLedgerVersion != 3 || pe.MeasuredCostUSD != "0.2964125" {
		t.Errorf("binding %+v", pe)
	}
	// R3: per call, the artefact's request digest is the ledger's, and it
	// is not the wire digest.
	for i, at := range art.Execution.Attempts {
		c := a.Calls[i]
		if at.RequestDigest != c.RequestDigest || at.InvocationIndex != c.InvocationIndex || at.TurnIndex != c.TurnIndex || c.RequestDigest == *c.WireRequestDigest {
			t.Fatalf("call %d: artefact attempt %+v against row %+v", i, at, c)
		}
	}
	for _, bad := range []string{ledgerName, "Bearer", "preflight-loopback", "uthoriz", "sk-", "127.0.0.1"} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("the artefact carries %q", bad)
		}
	}
	if art.AgentKind != "model" || art.AgentID != "openai-gpt-5-6-luna" || !art.Evaluation.Reliable {
		t.Errorf("agent %s (%s), reliable %v", art.AgentID, art.AgentKind, art.Evaluation.Reliable)
	}

	// The bundle audit, independently of the run's own.
	res, err := bundle.AuditFiles(r.ArtefactPath, r.LedgerPath, bundle.Options{ValidateArtefact: func(tree map[string]any) error {
		_, err := artefact.Validate(tree, cfg.ArtefactOptions)
		return err
	}})
	if err != nil || res.ProviderCalls != 46 {
		t.Fatalf("bundle audit: %v", err)
	}
}

// failing is an HTTP transport that fails the test if anything uses it.
type failing struct{ t *testing.T }

func (f failing) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("replay reached an HTTP transport: %s %s", r.Method, r.URL)
	return nil, errors.New("forbidden")
}

// TestReplayMakesNoProviderCall: the written artefact replays with the
// ledger deleted, the replay's forbidden transport untouched and every
// default HTTP path failing the test.
func TestReplayMakesNoProviderCall(t *testing.T) {
	dir := outDir(t)
	cfg := config(t, dir)
	r := mustRun(t, cfg)
	b, err := os.ReadFile(r.ArtefactPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(r.LedgerPath); err != nil {
		t.Fatal(err)
	}
	saved := http.DefaultTransport
	http.DefaultTransport = failing{t}
	defer func() { http.DefaultTransport = saved }()
	doc, err := artefact.Read(b, cfg.ArtefactOptions)
	if err != nil {
		t.Fatal(err)
	}
	ft := &episode.ForbiddenTransport{}
	rep, err := episode.Replay(doc, episode.ReplayConfig{Domain: cfg.Domain, Agents: cfg.Agents, Transport: ft})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Reproduction != artefact.ReproductionPlayback || ft.Calls() != 0 || rep.ProviderCalls != 0 {
		t.Errorf("replay ok %v by %s, %d forbidden calls", rep.OK(), rep.Reproduction, ft.Calls())
	}
	if !slices.Contains(rep.CarriedForward, "provider_execution") {
		t.Errorf("carried forward %v", rep.CarriedForward)
	}
}

// TestFaultCells is R7-R12 and the transport and invalid-body cells: each
// fault on request 4 ends the run excluded with that fault, its ledger
// holds the four calls with a decision on all but the last, and no
// artefact is written.
func TestFaultCells(t *testing.T) {
	for _, id := range profile.LaneIDs() {
		v, _ := VendorFor(id)
		for _, f := range v.Cells() {
			t.Run(id+"/"+string(f), func(t *testing.T) { faultCell(t, id, f) })
		}
	}
}

func faultCell(t *testing.T, id string, f Fault) {
	{
		{
			dir := outDir(t)
			cfg := config(t, dir)
			cfg.Lane, cfg.Fault = id, f
			r := mustRun(t, cfg)
			want, _ := ExpectedFault(id, f)
			if r.OK() || !r.AsExpected() || r.Status != "excluded" || r.ExclusionCode != want || r.ArtefactPath != "" || want == "" {
				t.Fatalf("cell %s: %s %s artefact %q", f, r.Status, r.ExclusionCode, r.ArtefactPath)
			}
			if got := ledgertest.Entries(t, dir); !slices.Equal(got, []string{testInstance + "." + string(f) + ".execution_ledger.ndjson"}) {
				t.Errorf("directory holds %v", got)
			}
			calls := DefaultFaultAt
			if f == FaultTruncated {
				calls++ // the truncated answer is classified; the next request meets a 400
			}
			a := r.Ledger
			if len(a.Calls) != calls || r.ProviderRequests != calls {
				t.Fatalf("%d calls, %d requests", len(a.Calls), r.ProviderRequests)
			}
			if f == FaultTruncated {
				d := a.Calls[DefaultFaultAt-1].Decision
				if d == nil || d.Kind != decision.KindMalformed || *d.ClassificationCode != lane.CodeOutputTruncated || *a.Calls[DefaultFaultAt-1].Attempts[0].ResponseStopClassification != lane.StopMaxTokens {
					t.Errorf("the truncated answer was read as %+v", d)
				}
			}
			for i, c := range a.Calls {
				if (c.Decision == nil) != (i == len(a.Calls)-1) {
					t.Errorf("call %d decision %v", i, c.Decision)
				}
			}
			last := a.Calls[len(a.Calls)-1].Attempts[0]
			overloaded := int64(503)
			if id == anthropic.ID {
				overloaded = 529
			}
			wantStatus := map[Fault]int64{Fault429: 429, Fault500: 500, Fault400: 400, FaultSpendLimit: 400, FaultTruncated: 400, FaultOverloaded: overloaded,
				FaultInvalidBody: 200, FaultWrongModel: 200, FaultStreamCut: 200}[f]
			gotStatus := int64(0)
			if last.HTTPStatus != nil {
				gotStatus = *last.HTTPStatus
			}
			if *last.Fault != want || gotStatus != wantStatus || last.ResponseReceived != (f != FaultTransport) || last.UsageReported {
				t.Errorf("last attempt: fault %s status %d received %v usage %v", *last.Fault, gotStatus, last.ResponseReceived, last.UsageReported)
			}
			if fc := a.Totals.FaultCounts; len(fc) != 1 || fc[want] != 1 || *a.Terminal.ExclusionCode != r.Stop.Code {
				t.Errorf("fault counts %v, terminal %v, stop %s", fc, *a.Terminal.ExclusionCode, r.Stop.Code)
			}
			// R10: three amounts, never one.
			tt := a.Totals
			m, _ := execledger.ParseAmount(tt.MeasuredCostUSD)
			fo, _ := execledger.ParseAmount(tt.ForfeitedReservationUSD)
			re, _ := execledger.ParseAmount(tt.ReservedUSD)
			forfeits := 0
			for _, c := range a.Calls {
				if *c.Attempts[0].CostSettlement == "forfeited" {
					forfeits++
				}
			}
			if m.Sign() <= 0 || fo.Sign() <= 0 || m.Cmp(fo) == 0 || re.Cmp(m) <= 0 || re.Cmp(fo) <= 0 || forfeits != 1 {
				t.Errorf("measured %s forfeited %s reserved %s, %d forfeits", m, fo, re, forfeits)
			}
			// The ledger of a fault cell binds no artefact.
			if _, err := a.Binding(); refusal.Of(err) != execledger.ErrNoBinding.Class {
				t.Errorf("binding from an excluded ledger: %v", err)
			}
		}
	}
}

// TestRewrittenRowsAreRefused is R15 on a preflight ledger.
func TestRewrittenRowsAreRefused(t *testing.T) {
	dir := outDir(t)
	r := mustRun(t, config(t, dir))
	b, err := os.ReadFile(r.LedgerPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(map[string]any){
		"normalized digest": func(c map[string]any) {
			c["attempts"].([]any)[0].(map[string]any)["response_normalized_digest_sha256"] = strings.Repeat("f", 64)
		},
		"call index": func(c map[string]any) { c["call_index"] = int64(41) },
	} {
		rows := ledgertest.Rows(b)
		edit(rows[5]["call"].(map[string]any))
		_, err := execledger.Read(bytes.NewReader(ledgertest.Rewrite(rows)), execledger.Options{})
		if refusal.Of(err) != execledger.ErrRowDigest.Class {
			t.Errorf("%s rewritten: %v", name, err)
		}
	}
}

// TestCallBoundExcludes is R16: a lowered call bound stops the reference
// cell before dispatch; three calls were made and nothing is scored.
func TestCallBoundExcludes(t *testing.T) {
	dir := outDir(t)
	cfg := config(t, dir)
	cfg.MaxCalls = 3
	r := mustRun(t, cfg)
	if r.OK() || r.AsExpected() || r.Status != "excluded" || r.ExclusionCode != "provider_budget" || len(r.Ledger.Calls) != 3 || r.ProviderRequests != 3 || r.ArtefactPath != "" {
		t.Errorf("%s %s, %d calls, %d requests, artefact %q", r.Status, r.ExclusionCode, len(r.Ledger.Calls), r.ProviderRequests, r.ArtefactPath)
	}
	if refusal.Of(r.Stop) != provider.ErrCallBound.Class {
		t.Errorf("stop %v", r.Stop)
	}
	if r.Ledger.Header.Controls.MaxProviderCalls != 3 || r.Ledger.Header.Controls.ExpectedProviderCalls != 3 {
		t.Errorf("controls %+v", r.Ledger.Header.Controls)
	}
}

// TestTokenCeilingPerCall is F11: with the ceiling lowered below one
// request's exposure, the guard refuses the first request before dispatch;
// the provider answers nothing and the ledger is excluded with no calls.
func TestTokenCeilingPerCall(t *testing.T) {
	dir := outDir(t)
	cfg := config(t, dir)
	rates, capUSD, policy, err := pricing(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := cell{Config: cfg, rates: rates, cap: capUSD, policy: policy, tokenCap: 4097}
	r, err := c.run()
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "excluded" || r.ExclusionCode != "provider_budget" || len(r.Ledger.Calls) != 0 || r.ProviderRequests != 0 {
		t.Fatalf("%s %s, %d calls, %d requests", r.Status, r.ExclusionCode, len(r.Ledger.Calls), r.ProviderRequests)
	}
	if refusal.Of(r.Stop) != provider.ErrTokenCapExceeded.Class || !errors.Is(r.Stop, provider.ErrCostCapExceeded) || r.Stop.Dispatched {
		t.Errorf("stop %v", r.Stop)
	}
	if r.Ledger.Header.Controls.TokenHardCap != 4097 {
		t.Errorf("header token cap %d", r.Ledger.Header.Controls.TokenHardCap)
	}
	// The same with a cost cap below one reservation (R17 at the run).
	dir2 := outDir(t)
	cfg2 := config(t, dir2)
	tiny, _ := execledger.ParseDecimal("0.000001")
	c2 := cell{Config: cfg2, rates: rates, cap: tiny, policy: policy, tokenCap: provider.TokenHardCap}
	r2, err := c2.run()
	if err != nil {
		t.Fatal(err)
	}
	if r2.ExclusionCode != "provider_budget" || r2.ProviderRequests != 0 || refusal.Of(r2.Stop) == provider.ErrTokenCapExceeded.Class || refusal.Of(r2.Stop) != provider.ErrCostCapExceeded.Class {
		t.Errorf("cost cap: %s, %d requests, stop %v", r2.ExclusionCode, r2.ProviderRequests, r2.Stop)
	}
}

// TestUpFrontRefusals: the call bound, the token exposure, the live
// environment and the cost worst case are refused before anything is
// built, dialled or written.
func TestUpFrontRefusals(t *testing.T) {
	cases := map[string]struct {
		mod   func(*Config)
		class *refusal.Refusal
	}{
		"61 calls":   {func(c *Config) { c.MaxCalls = 61 }, provider.ErrCallBound},
		"100 calls":  {func(c *Config) { c.MaxCalls = 100 }, provider.ErrCallBound},
		"0 calls":    {func(c *Config) { c.MaxCalls = 0 }, provider.ErrCallBound},
		"-1 calls":   {func(c *Config) { c.MaxCalls = -1 }, provider.ErrCallBound},
		"a key set":  {func(c *Config) { c.Environment = env("OPENAI_API_KEY", "sk-whatever") }, provider.ErrLiveEnvironment},
		"a base url": {func(c *Config) { c.Environment = env("OPENAI_BASE_URL", "https://api.openai.com/v1") }, provider.ErrLiveEnvironment},
		"tiny cap":   {func(c *Config) { c.CostCapUSD = "0.000001" }, provider.ErrCostExposure},
		"bad rate":   {func(c *Config) { c.InputUSDPerMTok = "1,25" }, provider.ErrCostExposure},
	}
	for name, c := range cases {
		dir := outDir(t)
		cfg := config(t, dir)
		cfg.Reference = nil // nothing may reach the script
		c.mod(&cfg)
		_, err := Run(cfg)
		if refusal.Of(err) != c.class.Class {
			t.Errorf("%s: %v, want %s", name, err, c.class.Class)
		}
		if got := ledgertest.Entries(t, dir); len(got) != 0 {
			t.Errorf("%s: the refused run wrote %v", name, got)
		}
	}
	if err := CheckArguments(60); err != nil {
		t.Errorf("60 calls: %v", err)
	}
}

func env(name, value string) func(string) (string, bool) {
	return func(n string) (string, bool) {
		if n == name {
			return value, true
		}
		return "", false
	}
}

// TestNotLoopback: the preflight's client dials nothing but loopback IPs.
func TestNotLoopback(t *testing.T) {
	lb := Serve(http.NotFoundHandler())
	defer lb.Close()
	for _, u := range []string{"https://example.com/v1/responses", "https://203.0.113.7/v1/responses", "https://localhost.invalid/"} {
		_, err := lb.Client.Get(u)
		if refusal.Of(err) != ErrNotLoopback.Class {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, a := range []string{"127.0.0.1:443", "[::1]:443"} {
		if err := checkLoopback(a); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	resp, err := lb.Client.Get(lb.BaseURL + "/x")
	if err != nil {
		t.Fatalf("the loopback server itself: %v", err)
	}
	resp.Body.Close()
}

// TestSelfCheck: the cell's own check passes on what the run really
// exchanged and refuses a ledger whose wire digests are not the bodies the
// provider received, whose answers are not the answers it sent (R14), or
// whose decisions are not the reference decisions it answered with.
func TestSelfCheck(t *testing.T) {
	dir := outDir(t)
	cfg := config(t, dir)
	cfg.Fault = Fault500
	r := mustRun(t, cfg)
	ref, err := engine.Execute(cfg.Domain, cfg.Reference(), testInstance)
	if err != nil {
		t.Fatal(err)
	}
	c := cell{Config: cfg}
	exchanged := func() *Script {
		sc := &Script{Tape: slices.Clone(ref.Decisions)}
		for _, call := range r.Ledger.Calls {
			sc.bodies = append(sc.bodies, *call.WireRequestDigest)
			nd := ""
			if p := call.Attempts[0].ResponseNormalizedDigest; p != nil {
				nd = *p
			}
			sc.answers = append(sc.answers, nd)
		}
		return sc
	}
	check := func(sc *Script) error {
		return c.checkScript(&Result{Cell: Fault500, Ledger: r.Ledger}, sc)
	}
	if err := check(exchanged()); err != nil {
		t.Fatalf("the check refuses what was exchanged: %v", err)
	}
	otherBodies := exchanged()
	otherBodies.bodies[2] = canon.SHA256Hex([]byte("x"))
	fewer := exchanged()
	fewer.bodies, fewer.answers = fewer.bodies[:1], fewer.answers[:1]
	otherAnswer := exchanged()
	otherAnswer.answers[1] = canon.SHA256Hex([]byte("another answer"))
	otherDecision := exchanged()
	otherDecision.Tape[2] = otherDecision.Tape[5]
	for name, sc := range map[string]*Script{"other bodies": otherBodies, "fewer bodies": fewer, "other answer": otherAnswer, "other decision": otherDecision} {
		if err := check(sc); refusal.Of(err) != ErrSelfCheck.Class {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// rebuilding plays a tape back and rebuilds, from each observation the
// episode offers, the request the recorded identity would send.
type rebuilding struct {
	*engine.Playback
	profile lane.Profile
	digests []string
}

func (p *rebuilding) Decide(obs *engine.Observation) (engine.Decision, error) {
	req, err := lane.Identity(obs, p.profile)
	if err != nil {
		return nil, err
	}
	p.digests = append(p.digests, req.RequestDigest)
	return p.Playback.Decide(obs)
}

// TestRequestDigestsRebuild: the request digests an artefact records are
// what its recorded identity (model, protocol, ceiling) sends for the
// observations its replay offers; another model or ceiling rebuilds other
// digests (a label edited consistently in record and binding is caught by
// a rebuilding replay, spec X26). No provider is reached.
func TestRequestDigestsRebuild(t *testing.T) {
	dir := outDir(t)
	cfg := config(t, dir)
	r := mustRun(t, cfg)
	b, _ := os.ReadFile(r.ArtefactPath)
	doc, err := artefact.Read(b, cfg.ArtefactOptions)
	if err != nil {
		t.Fatal(err)
	}
	ex := doc.Artefact.Execution
	tape := doc.Tree["decisions"].([]any)
	rebuild := func(p lane.Profile) []string {
		pb := &rebuilding{Playback: engine.NewPlayback(tape), profile: p}
		if _, err := engine.Execute(cfg.Domain, pb, doc.Artefact.OperationInstanceID); err != nil {
			t.Fatal(err)
		}
		return pb.digests
	}
	recorded := make([]string, len(ex.Attempts))
	for i, a := range ex.Attempts {
		recorded[i] = a.RequestDigest
	}
	if got := rebuild(lane.Profile{Model: *ex.Model, MaxOutputTokens: *ex.MaxOutputTokens}); !slices.Equal(got, recorded) {
		t.Error("the recorded identity does not rebuild the recorded request digests")
	}
	if got := rebuild(lane.Profile{Model: "a-different-model", MaxOutputTokens: *ex.MaxOutputTokens}); slices.Equal(got, recorded) || got[0] == recorded[0] {
		t.Error("another model rebuilds the recorded request digests")
	}
	if got := rebuild(lane.Profile{Model: *ex.Model, MaxOutputTokens: 512}); got[0] == recorded[0] {
		t.Error("another ceiling rebuilds the recorded request digests")
	}
}

// TestEveryLaneReferenceCell: each lane's reference cell ends with an
// audited pair under its own adapter identity (provider, API,
// implementation, request mapping, settings digest), and the artefact
// replays with every request digest rebuilt.
func TestEveryLaneReferenceCell(t *testing.T) {
	seen := map[string]string{}
	for _, id := range profile.LaneIDs() {
		t.Run(id, func(t *testing.T) {
			cfg := config(t, outDir(t))
			cfg.Lane = id
			r := mustRun(t, cfg)
			if !r.OK() || r.Replay.RequestDigestsRebuilt != 46 || r.ProviderRequests != 46 {
				t.Fatalf("%s: %s, rebuilt %d", id, r.Status, r.Replay.RequestDigestsRebuilt)
			}
			p := r.Ledger.Header.Provider
			l, _ := profile.LaneByID(id)
			want, _ := SettingsDigest(id)
			if p.API != l.API() || p.Implementation != l.Implementation() || p.RequestMapping != l.RequestMapping() || p.SettingsDigest != want ||
				r.Binding.SettingsDigest != want || r.Binding.API != l.API() || r.Binding.Provider != r.Profile.Provider {
				t.Errorf("%s: header provider %+v", id, p)
			}
			if other, dup := seen[p.SettingsDigest]; dup {
				t.Errorf("%s shares its settings digest with %s", id, other)
			}
			seen[p.SettingsDigest] = id
		})
	}
}

// TestFileName: the one naming rule keeps the episode's id through
// preflight -> sign -> commit.
func TestFileName(t *testing.T) {
	for _, c := range []struct{ from, suffix, want string }{
		{"opinst_1", ArtefactSuffix, "opinst_1.episode_artifact.json"},
		{"opinst_1.429", LedgerSuffix, "opinst_1.429.execution_ledger.ndjson"},
		{"d/opinst_1.episode_artifact.json", BundleSuffix, "opinst_1.sigstore.json"},
		{"d/opinst_1.sigstore.json", ProofSuffix, "opinst_1.tlog-proof"},
		{"det.json", BundleSuffix, "det.sigstore.json"},
		{"b", ProofSuffix, "b.tlog-proof"},
		{".json", ProofSuffix, ".json.tlog-proof"},
	} {
		if got := FileName(c.from, c.suffix); got != c.want {
			t.Errorf("FileName(%q, %q) = %q, want %q", c.from, c.suffix, got, c.want)
		}
	}
}
