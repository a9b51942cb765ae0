//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/preflight"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/storage/posix"
)

// campaignFile is a deterministic campaign file over agents × variants.
func campaignFile(t testing.TB, dir string, agents, variants []string, trials int, origin string) string {
	return writeCampaignFile(t, dir, testCampaign{origin: origin, agents: agents, variants: variants, trials: trials})
}

// testCampaign is what a test's campaign file says of its own; the rest is
// the same in every one.
type testCampaign struct {
	origin           string // its last element is the campaign's name
	seed             string // default "test-seed"
	agents, variants []string
	arms             []string // default full_lifecycle
	trials           int
	stabilityK       int // default min(trials, 2)
	comparisons      [][2]string
	// luna, when set, adds the one model profile "luna" (gpt-5.6-luna on
	// the loopback scripted provider, lunaLatencyMS injected a call) with a
	// model trial's bounds and the operator-pinned rates; otherwise the
	// campaign spends nothing.
	luna          bool
	lunaLatencyMS int
}

// writeCampaignFile writes c's campaign file to dir/campaign.json.
func writeCampaignFile(t testing.TB, dir string, c testCampaign) string {
	seed, arms, k, comparisons := c.seed, c.arms, c.stabilityK, c.comparisons
	if seed == "" {
		seed = "test-seed"
	}
	if arms == nil {
		arms = []string{campaign.ArmFullLifecycle}
	}
	if k == 0 {
		k = min(c.trials, 2)
	}
	if comparisons == nil {
		comparisons = [][2]string{}
	}
	profiles := []any{}
	calls, tokens, costUSD, wall := 0, 0, 0, 0
	rates := map[string]any{"input_usd_per_mtok": "0", "output_usd_per_mtok": "0", "pricing_policy_id": "none"}
	if c.luna {
		profiles = append(profiles, map[string]any{"id": "luna", "lane": laneLoopback, "model": "gpt-5.6-luna", "latency_ms": c.lunaLatencyMS})
		calls, tokens, costUSD, wall = 60, 1650300, 10, 1800
		rates = map[string]any{"input_usd_per_mtok": "1.25", "output_usd_per_mtok": "10.00", "pricing_policy_id": "offline_operator_pinned_v1"}
	}
	usd := func(n int) string {
		if n == 0 {
			return "0"
		}
		return strconv.Itoa(n) + ".00"
	}
	// The aggregate bounds are the model trials' own: trials × per trial.
	models := len(profiles) * c.trials
	f := map[string]any{
		"format": campaign.FileFormat, "name": path.Base(c.origin), "origin": c.origin, "seed": seed,
		"engine_version": "0.9.0+obaudit.1", "variants": c.variants, "agents": c.agents,
		"model_profiles": profiles, "arms": arms, "trials": c.trials, "stability_k": k,
		"comparisons": comparisons,
		"bounds": map[string]any{
			"per_trial": map[string]any{"calls": calls, "tokens": tokens, "cost_usd": usd(costUSD), "wall_seconds": wall},
			"aggregate": map[string]any{"calls": models * calls, "tokens": models * tokens, "cost_usd": usd(models * costUSD), "wall_seconds": 0},
		},
		"rates": rates,
	}
	b, _ := json.Marshal(f)
	p := filepath.Join(dir, "campaign.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// planCampaign writes a key pair to tmp and plans the campaign file under
// it to tmp/camp; it returns the directory and the private key's path.
func planCampaign(t testing.TB, tmp, file string) (dir, key string) {
	t.Helper()
	key = filepath.Join(tmp, "k")
	mustRun(t, "keygen", "--output", key)
	dir = filepath.Join(tmp, "camp")
	mustRun(t, "campaign", "plan", file, "--output", dir, "--key", key+".key")
	return dir, key + ".key"
}

// newCampaign plans and runs a small deterministic campaign; it returns
// the directory and the key path.
func newCampaign(t testing.TB, agents, variants []string, trials int) (dir, key string) {
	quietTessera()
	tmp := campaigntest.TempDir(t)
	return planCampaign(t, tmp, campaignFile(t, tmp, agents, variants, trials, "obaudit.example/campaign/test"))
}

func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}

// logEntries reads the log's entries as verify does (through the library).
func logEntries(t testing.TB, dir string) [][]byte {
	t.Helper()
	pf, _ := os.ReadFile(filepath.Join(dir, campaign.PlanFile))
	p, err := campaign.DecodePlan(pf)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := p.PublicKey()
	st, err := campaign.ReadLog(context.Background(), dir, pub, p.File.Origin)
	if err != nil {
		t.Fatal(err)
	}
	return st.Entries
}

// rebuildLog is the attacker who holds the log key: it replaces the log
// with a new one holding entries, signed by the same key.
func rebuildLog(t testing.TB, dir, keyPath string, entries [][]byte) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, campaign.LogDir)); err != nil {
		t.Fatal(err)
	}
	var g globals
	c := newRootCmd(&g, nil, io.Discard, io.Discard)
	key, err := readPrivateKey(c, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	pf, _ := os.ReadFile(filepath.Join(dir, campaign.PlanFile))
	p, _ := campaign.DecodePlan(pf)
	signer, _ := checkpoint.NewNoteSigner(p.File.Origin, key, rand.Reader)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := posix.New(ctx, posix.Config{Path: filepath.Join(dir, campaign.LogDir)})
	if err != nil {
		t.Fatal(err)
	}
	a, shutdown, _, err := tessera.NewAppender(ctx, d, tessera.NewAppendOptions().WithCheckpointSigner(signer).
		WithBatching(256, 10*time.Millisecond).WithCheckpointInterval(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := a.Add(ctx, tessera.NewEntry(e))(); err != nil {
			t.Fatal(err)
		}
	}
	if err := shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

func verifyClass(t testing.TB, dir, held string) (int, string) {
	t.Helper()
	args := []string{"campaign", "verify", dir}
	if held != "" {
		args = append(args, "--checkpoint", held)
	}
	code, _, errs := obaudit(args...)
	class := ""
	if code == 1 {
		class, _, _ = strings.Cut(strings.TrimPrefix(errs, "refused: "), ":")
	}
	return code, class
}

// verifyCounts is what the tests read of `obaudit --json campaign verify`:
// how far the campaign has got.
type verifyCounts struct {
	Assigned   int64 `json:"assigned"`
	Accounted  int64 `json:"accounted"`
	Started    int64 `json:"started_not_ended"`
	NotStarted int64 `json:"not_started"`
	Complete   bool  `json:"complete"`
}

// verifyCounted runs `obaudit --json campaign verify dir` and returns its
// exit code, its counts and its stderr.
func verifyCounted(dir string) (int, verifyCounts, string) {
	code, out, errs := obaudit("--json", "campaign", "verify", dir)
	var v verifyCounts
	json.Unmarshal([]byte(out), &v)
	return code, v, errs
}

// TestCampaignRoundTrip: plan, run, report, verify; a second run is
// refused, --continue of a finished campaign changes nothing.
func TestCampaignRoundTrip(t *testing.T) {
	t.Parallel()
	dir, key := newCampaign(t, []string{"reference", "complete_early"}, []string{"V1", "V2"}, 3)
	mustRun(t, "campaign", "run", dir, "--key", key, "--parallel", "2")
	if code, class := verifyClass(t, dir, filepath.Join(dir, campaign.PreDispatchFile)); code != 0 {
		t.Fatalf("verify = %d %s, want 0", code, class)
	}
	code, _, errs := obaudit("campaign", "run", dir, "--key", key)
	if code != 1 || !strings.HasPrefix(errs, "refused: "+string(campaign.ErrAlreadyStarted.Class)+":") {
		t.Errorf("second run = %d %q, want refused campaign/already-started", code, errs)
	}
	mustRun(t, "campaign", "run", dir, "--key", key, "--continue")
	out := mustRun(t, "--json", "campaign", "report", dir)
	rep, _ := os.ReadFile(filepath.Join(dir, campaign.ReportFile))
	if out != string(rep) {
		t.Errorf("campaign report --json differs from report.json")
	}
	var r campaign.Report
	if err := json.Unmarshal(rep, &r); err != nil {
		t.Fatal(err)
	}
	// reference: V1 reliable, V2 transferred (not reliable) by design;
	// complete_early never reliable.
	if got := r.Cells[0].Metrics[0]; got.Numerator != 3 || got.Denominator != 6 || got.Interval != campaign.NoInterval {
		t.Errorf("reference reliable_operation_rate = %+v, want 3/6, %q", got, campaign.NoInterval)
	}
	if got := r.Cells[1].Metrics[0]; got.Numerator != 0 || got.Denominator != 6 {
		t.Errorf("complete_early reliable_operation_rate = %+v, want 0/6", got)
	}
	if r.Arms[0].Funnel[7].Count != 12 {
		t.Errorf("scored = %d, want 12", r.Arms[0].Funnel[7].Count)
	}
}

// TestCampaignTamper: rewriting any one result is refused against the
// pre-dispatch checkpoint, with or without the log key.
func TestCampaignTamper(t *testing.T) {
	t.Parallel()
	dir, key := newCampaign(t, []string{"reference", "always_wait"}, []string{"V1", "V3"}, 2)
	held := filepath.Join(t.TempDir(), "held.checkpoint")
	pre, _ := os.ReadFile(filepath.Join(dir, campaign.PreDispatchFile))
	os.WriteFile(held, pre, 0o644)
	mustRun(t, "campaign", "run", dir, "--key", key, "--parallel", "2")
	final, _ := os.ReadFile(filepath.Join(dir, campaign.LogDir, "checkpoint"))
	heldFinal := filepath.Join(t.TempDir(), "final.checkpoint")
	os.WriteFile(heldFinal, final, 0o644)
	entries := logEntries(t, dir)

	mutateOutcome := func(e []byte, f func(o *campaign.Outcome)) []byte {
		o, err := campaign.ParseOutcome(e)
		if err != nil {
			t.Fatal(err)
		}
		f(o)
		b, _ := o.Entry()
		return b
	}
	withKey := func(f func(es [][]byte) [][]byte) func(d string) {
		return func(d string) {
			es := make([][]byte, len(entries))
			copy(es, entries)
			rebuildLog(t, d, key, f(es))
		}
	}
	var scoredEntry int
	for i, e := range entries[1:] {
		if o, _ := campaign.ParseOutcome(e); o.Status == campaign.StatusFailure {
			scoredEntry = i + 1
			break
		}
	}
	for _, c := range []struct {
		name   string
		held   string
		mutate func(d string)
		want   string
	}{
		{"flip a byte of the log's entries (no key)", held, func(d string) {
			// Every entry bundle file (full and partial) gets one bit flipped.
			filepath.WalkDir(filepath.Join(d, campaign.LogDir, "tile", "entries"), func(p string, e os.DirEntry, err error) error {
				if err == nil && e.Type().IsRegular() {
					b, _ := os.ReadFile(p)
					b[len(b)-3] ^= 1
					os.Chmod(p, 0o644)
					os.WriteFile(p, b, 0o644)
				}
				return nil
			})
		}, "campaign/log-invalid"},
		{"status FAILURE → SUCCESS (key held)", held, withKey(func(es [][]byte) [][]byte {
			es[scoredEntry] = mutateOutcome(es[scoredEntry], func(o *campaign.Outcome) { o.Status = campaign.StatusSuccess })
			return es
		}), "campaign/log-invalid"},
		{"status and vector rewritten to reliable (key held)", held, withKey(func(es [][]byte) [][]byte {
			es[scoredEntry] = mutateOutcome(es[scoredEntry], func(o *campaign.Outcome) {
				o.Status, o.Vector.Reliable = campaign.StatusSuccess, true
			})
			return es
		}), "campaign/outcome-mismatch"},
		{"artefact rewritten", held, func(d string) {
			o, _ := campaign.ParseOutcome(entries[scoredEntry])
			p := trialFile(t, filepath.Join(d, campaign.TrialsDir, o.TrialID), preflight.ArtefactSuffix)
			b, _ := os.ReadFile(p)
			b = bytes.Replace(b, []byte(`"reliable":false`), []byte(`"reliable":true`), 1)
			os.WriteFile(p, b, 0o644)
		}, "campaign/outcome-mismatch"},
		{"a trial dropped (key held)", held, withKey(func(es [][]byte) [][]byte {
			return append(es[:scoredEntry:scoredEntry], es[scoredEntry+1:]...)
		}), "campaign/report-mismatch"},
		{"a trial dropped, against the final checkpoint (key held)", heldFinal, withKey(func(es [][]byte) [][]byte {
			return append(es[:scoredEntry:scoredEntry], es[scoredEntry+1:]...)
		}), "campaign/checkpoint-mismatch"},
		{"a trial replaced, against the final checkpoint (key held)", heldFinal, withKey(func(es [][]byte) [][]byte {
			es[1], es[2] = es[2], es[1]
			return es
		}), "campaign/checkpoint-mismatch"},
		{"a trial added twice (key held)", held, withKey(func(es [][]byte) [][]byte {
			return append(es, es[scoredEntry])
		}), "campaign/identity-mismatch"},
		{"an identity the plan does not assign (key held)", held, withKey(func(es [][]byte) [][]byte {
			return append(es, mutateOutcome(es[scoredEntry], func(o *campaign.Outcome) { o.Trial, o.TrialID = 99, "t00099" }))
		}), "campaign/identity-mismatch"},
		{"report edited", held, func(d string) {
			p := filepath.Join(d, campaign.ReportFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"numerator":0`), []byte(`"numerator":1`), 1), 0o644)
		}, "campaign/report-mismatch"},
		{"another plan under the held checkpoint", held, func(d string) {
			p := filepath.Join(d, campaign.PlanFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"trials":2`), []byte(`"trials":1`), 1), 0o644)
		}, "campaign/plan-invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(campaigntest.TempDir(t), "c")
			copyDir(t, dir, d)
			c.mutate(d)
			code, class := verifyClass(t, d, c.held)
			if code != 1 || class != c.want {
				t.Errorf("verify = %d %q, want 1 %q", code, class, c.want)
			}
		})
	}
	// Untouched, against both held checkpoints.
	for _, h := range []string{held, heldFinal} {
		if code, class := verifyClass(t, dir, h); code != 0 {
			t.Errorf("verify(untouched, %s) = %d %s, want 0", filepath.Base(h), code, class)
		}
	}
}

// TestCampaignSIGKILL kills `obaudit campaign run` with SIGKILL at random
// moments, 50 times, on one campaign: after every kill verify accepts no
// more than has ended (exit 2 while identities lack outcomes, never 0,
// never a refusal), and --continue finishes it with every killed trial
// recorded ERROR (interrupted). A kill can land while no trial is in
// flight (before the first starts, between groups, after the last has
// ended), so what each kill interrupted is read off the directory: a trial
// directory without its commitment (the last file a trial writes) was in
// flight and must end ERROR; no trial whose directory did not exist at
// some kill may.
func TestCampaignSIGKILL(t *testing.T) {
	t.Parallel() // sleep-bound: the two kill loops overlap
	bin := selfAsObaudit(t)
	rng := mrand.New(mrand.NewPCG(1, 2))
	kills, campaigns := 0, 0
	for kills < 50 {
		campaigns++
		dir, key := newCampaign(t, []string{"reference", "always_act", "duplicate_after_wake"}, []string{"V1", "V2", "V3"}, 12)
		killed := 0
		inFlight, present := map[string]bool{}, map[string]bool{}
		for {
			finished := killAfter(t, time.Duration(30+rng.IntN(400))*time.Millisecond,
				bin, "campaign", "run", dir, "--key", key, "--continue", "--parallel", "2")
			if !finished {
				kills++
				killed++
				ents, _ := os.ReadDir(filepath.Join(dir, campaign.TrialsDir))
				for _, e := range ents {
					present[e.Name()] = true
					if _, err := os.Stat(filepath.Join(dir, campaign.TrialsDir, e.Name(), campaign.CommitmentFile)); err != nil {
						inFlight[e.Name()] = true
					}
				}
			}
			code, v, errs := verifyCounted(dir)
			switch {
			case code == 1:
				t.Fatalf("kill %d: verify refused the killed directory: %s", kills, errs)
			case code == 0 && (!v.Complete || v.Accounted != v.Assigned):
				t.Fatalf("kill %d: verify exit 0 for an incomplete campaign (%d of %d)", kills, v.Accounted, v.Assigned)
			case code == 2 && v.Complete:
				t.Fatalf("kill %d: verify exit 2 but complete", kills)
			}
			if code == 0 {
				break
			}
		}
		rep := continueCampaign(t, dir, key)
		a := rep.Arms[0]
		if errs := a.Status[campaign.StatusError]; a.Status["not_ended"] != 0 || errs != a.ExcludedByReason[campaign.ExclusionInterrupted] ||
			errs < len(inFlight) || errs > len(present) {
			t.Errorf("campaign %d after %d kills (%d trials in flight at a kill, %d begun): status %v, excluded %v: every ERROR must be an interrupted trial, and every trial in flight at a kill an ERROR",
				campaigns, killed, len(inFlight), len(present), a.Status, a.ExcludedByReason)
		}
		t.Logf("campaign %d: %d kills, %d interrupted trials recorded ERROR, %d of %d scored", campaigns, killed, a.ExcludedByReason[campaign.ExclusionInterrupted], a.Funnel[7].Count, rep.Assigned)
	}
}

// TestCampaignModelBacked: model-profile trials against the loopback
// scripted provider: each writes a ledger, an artefact bound to it and a
// commitment over both; verify bundle-audits the pair, and a ledger byte
// changed is refused.
func TestCampaignModelBacked(t *testing.T) {
	t.Parallel()
	quietTessera()
	tmp := campaigntest.TempDir(t)
	dir, key := planCampaign(t, tmp, writeCampaignFile(t, tmp, testCampaign{origin: "obaudit.example/campaign/model", seed: "m",
		agents: []string{"reference"}, variants: []string{"V1"}, trials: 2, comparisons: [][2]string{{"luna", "reference"}}, luna: true}))
	mustRun(t, "campaign", "run", dir, "--key", key, "--parallel", "2")
	if code, class := verifyClass(t, dir, ""); code != 0 {
		t.Fatalf("verify = %d %s, want 0", code, class)
	}
	var rep campaign.Report
	b, _ := os.ReadFile(filepath.Join(dir, campaign.ReportFile))
	json.Unmarshal(b, &rep)
	if rep.Arms[0].Status[campaign.StatusSuccess] != 4 || rep.Paired[0].Both != 2 {
		t.Errorf("status %v, paired %+v: want 4 SUCCESS, both subjects reliable on both pairs", rep.Arms[0].Status, rep.Paired[0])
	}
	// The model trials' ledgers: flip one byte of one.
	ledgers, _ := filepath.Glob(filepath.Join(dir, campaign.TrialsDir, "*", "*"+preflight.LedgerSuffix))
	if len(ledgers) != 2 {
		t.Fatalf("%d ledgers, want 2", len(ledgers))
	}
	d := filepath.Join(campaigntest.TempDir(t), "c")
	copyDir(t, dir, d)
	p := filepath.Join(d, campaign.TrialsDir, filepath.Base(filepath.Dir(ledgers[0])), filepath.Base(ledgers[0]))
	lb, _ := os.ReadFile(p)
	lb[len(lb)/2] ^= 1
	os.Chmod(p, 0o644)
	os.WriteFile(p, lb, 0o644)
	if code, class := verifyClass(t, d, ""); code != 1 || class != "campaign/outcome-mismatch" {
		t.Errorf("verify(ledger changed) = %d %q, want 1 campaign/outcome-mismatch", code, class)
	}
}

// selfAsObaudit is this test binary linked under the name obaudit, which
// TestMain (script_test.go) runs as the CLI: for tests that need the CLI as
// a real process.
func selfAsObaudit(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "obaudit")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// killAfter runs bin with args, output discarded, and sends it SIGKILL
// after d; it reports whether the process had finished (exit 0) first.
func killAfter(t *testing.T, d time.Duration, bin string, args ...string) (finished bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	cmd.Process.Signal(syscall.SIGKILL)
	return cmd.Wait() == nil
}

// continueCampaign finishes the campaign in dir with run --continue,
// requires verify to accept it against its pre-dispatch checkpoint, and
// returns its report.
func continueCampaign(t *testing.T, dir, key string) campaign.Report {
	t.Helper()
	mustRun(t, "campaign", "run", dir, "--key", key, "--continue")
	if code, class := verifyClass(t, dir, filepath.Join(dir, campaign.PreDispatchFile)); code != 0 {
		t.Fatalf("verify after --continue = %d %s", code, class)
	}
	var rep campaign.Report
	b, _ := os.ReadFile(filepath.Join(dir, campaign.ReportFile))
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// trialFile is the one file of the trial directory td whose name ends with
// suffix (its stem is the trial's operation instance id).
func trialFile(t *testing.T, td, suffix string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(td, "*"+suffix))
	if len(m) != 1 {
		t.Fatalf("%s holds %d files named *%s, want 1", td, len(m), suffix)
	}
	return m[0]
}
