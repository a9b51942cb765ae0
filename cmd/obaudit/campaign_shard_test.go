//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/refusal"
)

// TestResolveShard is the documented environment contract of --shard auto.
// It SIMULATES the variables Slurm, a Kubernetes Indexed Job and a GitHub
// Actions matrix set (no cluster runs here; .ci/steps/60-slurm.sh runs a
// real Slurm job array).
func TestResolveShard(t *testing.T) {
	for _, c := range []struct {
		name   string
		spec   string
		shards int
		env    map[string]string
		want   string // "K/N", or "" for a usage error
	}{
		{"explicit", "2/5", 0, nil, "2/5"},
		{"explicit with agreeing --shards", "2/5", 5, nil, "2/5"},
		{"explicit with disagreeing --shards", "2/5", 4, nil, ""},
		{"explicit out of range", "5/5", 0, nil, ""},
		{"slurm array", "auto", 0, map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8"}, "3/8"},
		{"slurm array, --shards agrees", "auto", 8, map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_COUNT": "8"}, "7/8"},
		{"slurm array, --shards disagrees", "auto", 4, map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8"}, ""},
		{"slurm array not 0-(N-1)", "auto", 0, map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, ""},
		{"kubernetes indexed job", "auto", 4, map[string]string{"JOB_COMPLETION_INDEX": "2"}, "2/4"},
		{"kubernetes without --shards", "auto", 0, map[string]string{"JOB_COMPLETION_INDEX": "2"}, ""},
		{"kubernetes index not a number", "auto", 4, map[string]string{"JOB_COMPLETION_INDEX": "two"}, ""},
		{"github actions matrix", "auto", 0, map[string]string{"OBAUDIT_SHARD_INDEX": "0", "OBAUDIT_SHARD_COUNT": "3"}, "0/3"},
		{"two schedulers", "auto", 4, map[string]string{"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "1"}, ""},
		{"an empty variable is unset", "auto", 4, map[string]string{"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": ""}, "1/4"},
		{"no scheduler", "auto", 4, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := resolveShard(c.spec, c.shards, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if c.want == "" {
				var u *usageErr
				if !errors.As(err, &u) {
					t.Fatalf("resolveShard = %v, %v; want a usage error", s, err)
				}
				return
			}
			if err != nil || s.String() != c.want {
				t.Fatalf("resolveShard = %v, %v; want %s", s, err, c.want)
			}
		})
	}
}

// shardedCampaign plans a campaign, keeps a one-machine twin of it (run at
// --parallel 1) and runs shards of n; it returns the campaign directory,
// the twin's and the key.
func shardedCampaign(t *testing.T, n int, run []int) (dir, one, key string) {
	dir, key = newCampaign(t, []string{"reference", "complete_early", "always_act"}, []string{"V1", "V2"}, 2)
	one = filepath.Join(filepath.Dir(dir), "one")
	copyDir(t, dir, one)
	mustRun(t, "campaign", "run", one, "--key", key, "--parallel", "1")
	for _, k := range run {
		mustRun(t, "campaign", "run", dir, "--key", key, "--shard", fmt.Sprintf("%d/%d", k, n), "--parallel", "2")
	}
	return dir, one, key
}

type mergeJSON struct {
	Appended      int64 `json:"appended"`
	AlreadyMerged int64 `json:"already_merged"`
	Interrupted   int64 `json:"interrupted"`
	NotStarted    int64 `json:"not_started"`
	Complete      bool  `json:"complete"`
}

func merge(t *testing.T, args ...string) (int, mergeJSON, string) {
	t.Helper()
	code, out, errs := obaudit(append([]string{"--json", "campaign", "merge"}, args...)...)
	var m mergeJSON
	if code != 1 {
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("merge %v = %d: %s %s", args, code, out, errs)
		}
	}
	class := ""
	if code == 1 {
		class, _, _ = strings.Cut(strings.TrimPrefix(errs, "refused: "), ":")
	}
	return code, m, class
}

// TestCampaignShardMerge: 4 shards merged give the one-machine campaign's
// log entries and report byte for byte; a second merge appends nothing.
func TestCampaignShardMerge(t *testing.T) {
	t.Parallel()
	dir, one, key := shardedCampaign(t, 4, []int{0, 1, 2, 3})
	// The shards wrote only beneath their own directories: the campaign
	// is as planned, and no two shards hold the same trial.
	if n := len(logEntries(t, dir)); n != 1 {
		t.Fatalf("the shards wrote %d entries into the campaign log", n)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, campaign.TrialsDir)); len(ents) != 0 {
		t.Fatalf("the shards wrote %d trial directories into the campaign", len(ents))
	}
	owner := map[string]int{}
	for k := range 4 {
		ents, _ := os.ReadDir(filepath.Join(campaign.ShardID{K: k, N: 4}.Dir(dir), campaign.TrialsDir))
		for _, e := range ents {
			if prev, dup := owner[e.Name()]; dup {
				t.Fatalf("%s written by shards %d and %d", e.Name(), prev, k)
			}
			owner[e.Name()] = k
		}
	}
	if len(owner) != 12 {
		t.Fatalf("the shards hold %d trials, want 12", len(owner))
	}
	code, m, class := merge(t, dir, "--key", key)
	if code != 0 || m.Appended != 12 || !m.Complete {
		t.Fatalf("merge = %d %s %+v, want 0 with 12 appended", code, class, m)
	}
	if code, class := verifyClass(t, dir, filepath.Join(dir, campaign.PreDispatchFile)); code != 0 {
		t.Fatalf("verify = %d %s", code, class)
	}
	a, _ := os.ReadFile(filepath.Join(dir, campaign.ReportFile))
	b, _ := os.ReadFile(filepath.Join(one, campaign.ReportFile))
	if !bytes.Equal(a, b) {
		t.Error("the merged report is not the one-machine report")
	}
	ea, eb := logEntries(t, dir), logEntries(t, one)
	if len(ea) != len(eb) {
		t.Fatalf("merged log %d entries, one-machine %d", len(ea), len(eb))
	}
	for i := range ea {
		if !bytes.Equal(ea[i], eb[i]) {
			t.Fatalf("log entry %d differs from the one-machine run's", i)
		}
	}
	code, m, _ = merge(t, dir, "--key", key)
	if code != 0 || m.Appended != 0 || m.AlreadyMerged != 12 {
		t.Fatalf("second merge = %d %+v, want 0 appended, 12 already merged", code, m)
	}
	if len(logEntries(t, dir)) != len(ea) {
		t.Error("a second merge grew the log")
	}
}

// TestCampaignShardMergeRefusals: a missing shard, a shard given twice, a
// shard of another plan, a shard whose files disagree with its outcomes,
// an identity in a shard the partition does not give it, an edited
// manifest — each refused by class, and nothing written to the campaign.
func TestCampaignShardMergeRefusals(t *testing.T) {
	t.Parallel()
	base, _, key := shardedCampaign(t, 3, []int{0, 1, 2})
	other, okey := newCampaign(t, []string{"reference", "complete_early", "always_act"}, []string{"V1", "V3"}, 2)
	mustRun(t, "campaign", "run", other, "--key", okey, "--shard", "1/3")
	sh := func(dir string, k int) string { return campaign.ShardID{K: k, N: 3}.Dir(dir) }
	for _, c := range []struct {
		name   string
		mutate func(dir string) []string // shard dirs to pass (nil: the default)
		want   refusal.Class
	}{
		{"missing shard", func(dir string) []string { return []string{sh(dir, 0), sh(dir, 2)} }, campaign.ErrShardMissing.Class},
		{"missing shard by default", func(dir string) []string {
			os.RemoveAll(sh(dir, 1))
			return nil
		}, campaign.ErrShardMissing.Class},
		{"shard given twice", func(dir string) []string { return []string{sh(dir, 0), sh(dir, 1), sh(dir, 1), sh(dir, 2)} }, campaign.ErrShardDuplicate.Class},
		{"shard of another plan", func(dir string) []string { return []string{sh(dir, 0), sh(other, 1), sh(dir, 2)} }, campaign.ErrShardForeign.Class},
		{"artefact disagrees with its outcome", func(dir string) []string {
			p := trialFile(t, filepath.Join(sh(dir, 2), campaign.TrialsDir, firstTrial(t, sh(dir, 2))), preflight.ArtefactSuffix)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte(`"reliable": true`), []byte(`"reliable": false`), 1), 0o644)
			b2, _ := os.ReadFile(p)
			if bytes.Equal(b, b2) {
				b2[len(b2)/2] ^= 1
				os.WriteFile(p, b2, 0o644)
			}
			return nil
		}, campaign.ErrOutcomeMismatch.Class},
		{"outcome disagrees with its artefact", func(dir string) []string {
			// The shard's log rewritten (by the key holder) with one outcome's
			// verdict flipped, status and vector together (coherent).
			sd := sh(dir, 2)
			entries := logEntries(t, sd)
			o, err := campaign.ParseOutcome(entries[1])
			if err != nil || o.Vector == nil {
				t.Fatalf("outcome 1 of shard 2: %v", err)
			}
			o.Vector.Reliable = !o.Vector.Reliable
			o.Status = campaign.StatusOf(o.Stage, o.Vector)
			entries[1], _ = o.Entry()
			rebuildLog(t, sd, key, entries)
			return nil
		}, campaign.ErrOutcomeMismatch.Class},
		{"identity of another shard", func(dir string) []string {
			id := firstTrial(t, sh(dir, 1))
			copyDir(t, filepath.Join(sh(dir, 1), campaign.TrialsDir, id), filepath.Join(sh(dir, 0), campaign.TrialsDir, id))
			return nil
		}, campaign.ErrShardDuplicate.Class},
		{"a symlink in a shard's trial", func(dir string) []string {
			td := filepath.Join(sh(dir, 0), campaign.TrialsDir, firstTrial(t, sh(dir, 0)))
			p := trialFile(t, td, preflight.ArtefactSuffix)
			os.Rename(p, filepath.Join(dir, "elsewhere.json"))
			os.Symlink(filepath.Join(dir, "elsewhere.json"), p)
			return nil
		}, campaign.ErrShardInvalid.Class},
		{"manifest lists other trials", func(dir string) []string {
			p := filepath.Join(sh(dir, 0), campaign.ShardManifestFile)
			b, _ := os.ReadFile(p)
			m, _ := campaign.DecodeManifest(b)
			m.Trials = m.Trials[1:]
			nb, _ := json.Marshal(m)
			os.WriteFile(p, append(nb, '\n'), 0o644)
			return nil
		}, campaign.ErrShardInvalid.Class},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(campaigntest.TempDir(t), "camp")
			copyDir(t, base, dir)
			args := append([]string{dir}, c.mutate(dir)...)
			code, _, class := merge(t, append(args, "--key", key)...)
			if code != 1 || class != string(c.want) {
				t.Fatalf("merge = %d %q, want refused %s", code, class, c.want)
			}
			// All or nothing: the campaign is as planned.
			if n := len(logEntries(t, dir)); n != 1 {
				t.Errorf("a refused merge left %d log entries", n)
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, campaign.TrialsDir)); len(ents) != 0 {
				t.Errorf("a refused merge left %d trial directories", len(ents))
			}
		})
	}
}

func firstTrial(t *testing.T, shardDir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shardDir, campaign.ShardManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := campaign.DecodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("t%05d", m.Trials[0])
}

// TestCampaignShardKilled: a shard killed mid-run — some identities ended,
// some started and never ended, some never started — is merged with every
// identity kept: the ended ones as logged, the started ones ERROR
// (interrupted) with their partial files, the never-started ones without an
// outcome (verify exit 2 counts them), never dropped; run --continue on the
// campaign then finishes it. The kill is reproduced by truncating the
// shard's log to its first outcome (what a SIGKILL before the next batch's
// append leaves; TestCampaignSIGKILL kills real runs) and removing the
// directories of the identities it never reached.
func TestCampaignShardKilled(t *testing.T) {
	t.Parallel()
	dir, _, key := shardedCampaign(t, 2, []int{0, 1})
	sd := campaign.ShardID{K: 1, N: 2}.Dir(dir)
	entries := logEntries(t, sd)
	b, _ := os.ReadFile(filepath.Join(sd, campaign.ShardManifestFile))
	m, _ := campaign.DecodeManifest(b)
	if len(entries) != 1+len(m.Trials) || len(m.Trials) < 4 {
		t.Fatalf("shard 1/2: %d entries for %d trials", len(entries), len(m.Trials))
	}
	rebuildLog(t, sd, key, entries[:2]) // the plan and one outcome
	notStarted := m.Trials[len(m.Trials)-2:]
	for _, i := range notStarted {
		os.RemoveAll(filepath.Join(sd, campaign.TrialsDir, fmt.Sprintf("t%05d", i)))
	}
	interrupted := len(m.Trials) - 1 - len(notStarted)
	code, res, class := merge(t, dir, "--key", key)
	if code != 2 || res.Interrupted != int64(interrupted) || res.NotStarted != int64(len(notStarted)) || res.Complete {
		t.Fatalf("merge = %d %s %+v, want exit 2, %d interrupted, %d not started", code, class, res, interrupted, len(notStarted))
	}
	code, v, errs := verifyCounted(dir)
	if code != 2 || v.NotStarted != int64(len(notStarted)) || v.Accounted+v.NotStarted != v.Assigned {
		t.Fatalf("verify = %d %+v %s: want exit 2 with every identity accounted for or counted not started", code, v, errs)
	}
	rep := continueCampaign(t, dir, key)
	if got := rep.Arms[0].ExcludedByReason[campaign.ExclusionInterrupted]; got != interrupted {
		t.Errorf("report: %d interrupted, want %d", got, interrupted)
	}
	if rep.Assigned != int(v.Assigned) {
		t.Errorf("report assigned %d, plan %d", rep.Assigned, v.Assigned)
	}
	// The merge, run again, is refused nothing and appends nothing.
	if code, res, class := merge(t, dir, "--key", key); code != 0 || res.Appended != 0 {
		t.Errorf("merge after --continue = %d %s %+v, want 0 appended", code, class, res)
	}
}

// TestCampaignShardSIGKILL kills a real `obaudit campaign run --shard 0/2`
// with SIGKILL at random moments: whatever the kill left, merge refuses
// nothing and drops nothing (every identity of the campaign is accounted
// for or counted never-started, none started-and-unaccounted), and run
// --continue finishes the campaign with the merge's interrupted identities
// ERROR in the report.
func TestCampaignShardSIGKILL(t *testing.T) {
	t.Parallel() // sleep-bound: the two kill loops overlap
	bin := selfAsObaudit(t)
	rng := mrand.New(mrand.NewPCG(3, 4))
	for round := range 6 {
		dir, key := newCampaign(t, []string{"reference", "always_act", "duplicate_after_wake"}, []string{"V1", "V2", "V3"}, 6)
		mustRun(t, "campaign", "run", dir, "--key", key, "--shard", "1/2")
		killed := !killAfter(t, time.Duration(100+rng.IntN(600))*time.Millisecond,
			bin, "campaign", "run", dir, "--key", key, "--shard", "0/2", "--parallel", "2")
		if _, err := os.Stat(campaign.ShardID{K: 0, N: 2}.Dir(dir)); err != nil {
			// Killed before its directory was in place: the shard is
			// missing, and merge says so.
			if code, _, class := merge(t, dir, "--key", key); code != 1 || class != string(campaign.ErrShardMissing.Class) {
				t.Fatalf("round %d: merge without shard 0 = %d %s, want refused %s", round, code, class, campaign.ErrShardMissing.Class)
			}
			t.Logf("round %d: killed before the shard directory existed", round)
			continue
		}
		code, m, class := merge(t, dir, "--key", key)
		if code == 1 {
			_, _, e := obaudit("campaign", "merge", dir, "--key", key)
			t.Fatalf("round %d: merge refused a killed shard: %s: %s", round, class, e)
		}
		code, v, errs := verifyCounted(dir)
		if code == 1 || v.Started != 0 || v.NotStarted != m.NotStarted || v.Accounted+v.NotStarted != v.Assigned {
			t.Fatalf("round %d: verify = %d %+v %s after merge %+v", round, code, v, errs, m)
		}
		rep := continueCampaign(t, dir, key)
		if got := rep.Arms[0].ExcludedByReason[campaign.ExclusionInterrupted]; int64(got) != m.Interrupted {
			t.Errorf("round %d: report %d interrupted, merge recorded %d", round, got, m.Interrupted)
		}
		t.Logf("round %d: killed %v; merge: %d appended, %d interrupted, %d never started", round, killed, m.Appended, m.Interrupted, m.NotStarted)
	}
}
