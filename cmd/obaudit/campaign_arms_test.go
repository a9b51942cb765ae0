//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/refusal"
)

// newTwoArmCampaign plans a deterministic campaign on both arms.
func newTwoArmCampaign(t *testing.T, agents, variants []string, trials int) (dir, key, held string) {
	quietTessera()
	tmp := campaigntest.TempDir(t)
	dir, key = planCampaign(t, tmp, writeCampaignFile(t, tmp, testCampaign{origin: "obaudit.example/campaign/arms",
		agents: agents, variants: variants, arms: []string{campaign.ArmFullLifecycle, campaign.ArmNoTime}, trials: trials}))
	held = filepath.Join(tmp, "held.checkpoint")
	pre, _ := os.ReadFile(filepath.Join(dir, campaign.PreDispatchFile))
	os.WriteFile(held, pre, 0o644)
	return dir, key, held
}

// TestCampaignArms: a campaign on full_lifecycle and stateful_time_removed
// runs the No-Time runtime, verifies (records validated and replayed, every
// pair proven as arms verify proves it) and reports δ with its paired
// matrix; V3, ineligible under the protocol, is named, never dropped.
func TestCampaignArms(t *testing.T) {
	t.Parallel()
	dir, key, held := newTwoArmCampaign(t, []string{"reference", "always_wait"}, []string{"V1", "V2", "V3"}, 2)
	mustRun(t, "campaign", "run", dir, "--key", key, "--parallel", "2")
	var v map[string]any
	json.Unmarshal([]byte(mustRun(t, "--json", "campaign", "verify", dir, "--checkpoint", held)), &v)
	// 2 agents × (V1, V2) × 2 repeats on the treatment arm, each proven.
	if v["complete"] != true || v["pairs_matched"] != float64(8) || v["assigned"] != float64(2*3*2+2*2*2) {
		t.Errorf("verify: %v", v)
	}
	var r campaign.Report
	if err := json.Unmarshal([]byte(mustRun(t, "--json", "campaign", "report", dir)), &r); err != nil {
		t.Fatal(err)
	}
	want := []campaign.Ineligible{{Variant: "V3", Arm: campaign.ArmNoTime, Class: "notime/causal-order-mismatch"}}
	if !slices.Equal(r.Ineligible, want) || len(r.Deltas) != 2 {
		t.Fatalf("ineligible %v, deltas %d", r.Ineligible, len(r.Deltas))
	}
	// The reference agent: CommonOutcomeV1 SUCCESS on V1, FAILURE on V2
	// (the authored dispatch failure), on both arms: δ = 2/4 − 2/4 = 0.
	d := r.Deltas[0]
	if d.Subject != "reference" || d.Pairs != 4 || d.FullSuccess != 2 || d.NoTimeSuccess != 2 || d.Value == nil || *d.Value != 0 ||
		!slices.Equal(d.Matrix, []campaign.DeltaRow{{Variant: "V1", Full: "SS", NoTime: "SS"}, {Variant: "V2", Full: "FF", NoTime: "FF"}}) || !slices.Equal(d.Ineligible, want) {
		t.Errorf("δ(reference) = %+v", d)
	}
	if d := r.Deltas[1]; d.Subject != "always_wait" || d.Pairs != 4 || d.FullSuccess != 0 || d.NoTimeSuccess != 0 {
		t.Errorf("δ(always_wait) = %+v", d)
	}
	pf, _ := os.ReadFile(filepath.Join(dir, campaign.PlanFile))
	p, _ := campaign.DecodePlan(pf)
	entries := logEntries(t, dir)
	var nt int
	for i, e := range entries[1:] {
		if o, _ := campaign.ParseOutcome(e); o.Arm == campaign.ArmNoTime && o.Status == campaign.StatusSuccess {
			nt = i + 1
			break
		}
	}
	ntOutcome, _ := campaign.ParseOutcome(entries[nt])
	// The matching proof campaign verify runs: the twin matches; a Full
	// artefact of another repeat (another operation instance) is no pair.
	ntTrial := p.Trials[ntOutcome.Trial]
	rec, _ := os.ReadFile(filepath.Join(dir, campaign.TrialsDir, ntTrial.ID, campaignNoTimeFile))
	proofs := 0
	for _, ft := range p.Trials {
		if ft.Arm != campaign.ArmFullLifecycle || ft.Variant != ntTrial.Variant || ft.Subject != ntTrial.Subject {
			continue
		}
		proofs++
		art, _ := os.ReadFile(filepath.Join(dir, campaign.TrialsDir, ft.ID, preflight.FileName(ft.OperationInstanceID, preflight.ArtefactSuffix)))
		err := campaignPair(t.Context(), ft, ntTrial, art, rec)
		if ft.Repeat == ntTrial.Repeat && err != nil {
			t.Errorf("twin %s: %v", ft.ID, err)
		}
		if c, _ := refusal.ClassOf(err); ft.Repeat != ntTrial.Repeat && c != pair.ErrNotAPair.Class {
			t.Errorf("%s (another repeat): %v, want %s", ft.ID, err, pair.ErrNotAPair.Class)
		}
	}
	if proofs != 2 {
		t.Errorf("%d Full trials of the cell, want 2", proofs)
	}
	rewrite := func(f func(es [][]byte) [][]byte) func(d string) {
		return func(d string) {
			es := slices.Clone(entries)
			rebuildLog(t, d, key, f(es))
		}
	}
	for _, c := range []struct {
		name   string
		mutate func(d string)
		want   string
	}{
		{"a No-Time record rewritten", func(d string) {
			p := filepath.Join(d, campaign.TrialsDir, ntOutcome.TrialID, campaignNoTimeFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"invocations":`), []byte(`"invocations": `), 1), 0o644)
		}, "campaign/outcome-mismatch"},
		{"a No-Time CommonOutcomeV1 rewritten to FAILURE (key held)", rewrite(func(es [][]byte) [][]byte {
			o, _ := campaign.ParseOutcome(es[nt])
			o.Common.Status, o.Status = campaign.StatusFailure, campaign.StatusFailure
			es[nt], _ = o.Entry()
			return es
		}), "campaign/outcome-mismatch"},
		{"the ineligible cell dropped from the plan (key held)", func(d string) {
			q := *p
			q.Ineligible = nil
			b, _ := q.Encode()
			os.WriteFile(filepath.Join(d, campaign.PlanFile), b, 0o644)
			es := [][]byte{campaign.PlanLeaf(b)}
			for _, e := range entries[1:] {
				o, _ := campaign.ParseOutcome(e)
				o.PlanSHA256 = campaign.PlanDigest(b)
				oe, _ := o.Entry()
				es = append(es, oe)
			}
			rebuildLog(t, d, key, es)
			// The attacker's own checkpoint stands in for the held one.
			cp, _ := os.ReadFile(filepath.Join(d, campaign.LogDir, "checkpoint"))
			os.WriteFile(filepath.Join(d, campaign.PreDispatchFile), cp, 0o644)
		}, "campaign/plan-invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(campaigntest.TempDir(t), "c")
			copyDir(t, dir, d)
			c.mutate(d)
			// The rewritten-plan case holds the rewritten log's own first
			// checkpoint: only the protocol's re-derivation can catch it.
			code, class := verifyClass(t, d, "")
			if code != 1 || class != c.want {
				t.Errorf("verify = %d %q, want 1 %q", code, class, c.want)
			}
		})
	}
}
