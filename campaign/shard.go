package campaign

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
)

// ShardFormat names version 1 of a shard's manifest (shard.json).
const ShardFormat = "obaudit-campaign-shard/v1"

// Shard files: a shard's directory beneath the campaign directory, and its
// manifest.
const (
	ShardsDir         = "shards"
	ShardManifestFile = "shard.json"
)

// MaxShards bounds N in K/N.
const MaxShards = 4096

// Cost units of the partition's expected cost: every trial costs
// CostEpisode (one episode's CPU, about a millisecond's worth); a
// model-backed trial adds its profile's latency_ms for each call its
// per-trial bound allows (its worst-case provider wait).
const CostEpisode = 1

// ExpectedCost is the partition's cost model for one trial of p.
func ExpectedCost(p *Plan, t Trial) int64 {
	c := int64(CostEpisode)
	if t.SubjectKind != KindProfile {
		return c
	}
	for _, m := range p.File.ModelProfiles {
		if m.ID == t.Subject {
			calls := max(p.File.Bounds.PerTrial.Calls, 1)
			c += int64(m.LatencyMS) * calls
		}
	}
	return c
}

// Partition splits p's trials into n shards, deterministically, balanced by
// expected cost ([ExpectedCost]): trials are taken by cost, highest first
// (ties by plan index), and each goes to the shard whose total is lowest
// (ties: the lowest shard number) — the longest-processing-time rule, whose
// largest shard is within 4/3 of the best possible. Each shard lists its
// trial indices in plan order. Every trial is in exactly one shard; a
// shard may be empty when n exceeds the trials.
func Partition(p *Plan, n int) [][]int {
	order := make([]int, len(p.Trials))
	cost := make([]int64, len(p.Trials))
	for i, t := range p.Trials {
		order[i], cost[i] = i, ExpectedCost(p, t)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(cost[b], cost[a]), a-b) })
	out := make([][]int, n)
	load := make([]int64, n)
	for _, i := range order {
		k := 0
		for j := 1; j < n; j++ {
			if load[j] < load[k] {
				k = j
			}
		}
		out[k] = append(out[k], i)
		load[k] += cost[i]
	}
	for k := range out {
		slices.Sort(out[k])
		if out[k] == nil {
			out[k] = []int{}
		}
	}
	return out
}

// ShardID is shard K of N.
type ShardID struct{ K, N int }

// ParseShard reads "K/N" (0 ≤ K < N ≤ MaxShards).
func ParseShard(s string) (ShardID, error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxShards || k < 0 || k >= n {
		return ShardID{}, fmt.Errorf("shard %q: want K/N with 0 ≤ K < N ≤ %d", s, MaxShards)
	}
	return ShardID{k, n}, nil
}

func (s ShardID) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Dir is the shard's default directory beneath a campaign directory:
// shards/KKKK-of-NNNN.
func (s ShardID) Dir(campaignDir string) string {
	return filepath.Join(campaignDir, ShardsDir, fmt.Sprintf("%04d-of-%04d", s.K, s.N))
}

// Manifest is a shard's shard.json: which plan, which shard, and the
// trial indices the partition gives it (re-derived by merge).
type Manifest struct {
	Format     string `json:"format"`
	PlanSHA256 string `json:"plan_sha256"`
	Shard      int    `json:"shard"`
	Shards     int    `json:"shards"`
	Trials     []int  `json:"trials"`
}

// DecodeManifest reads shard.json strictly (canonical bytes, no unknown
// field, the v1 format).
func DecodeManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := decodeStrict(b, &m); err != nil {
		return nil, refusal.Wrap(ErrShardInvalid, err, "shard.json")
	}
	again, err := encodeFile(&m)
	if err != nil || !bytes.Equal(again, b) || m.Format != ShardFormat || m.Shards < 1 || m.Shards > MaxShards || m.Shard < 0 || m.Shard >= m.Shards {
		return nil, refusal.New(ErrShardInvalid, "shard.json is not a canonical %s manifest with 0 ≤ shard < shards ≤ %d", ShardFormat, MaxShards)
	}
	return &m, nil
}

// ShardOptions configure [RunShard].
type ShardOptions struct {
	RunOptions
	Shard ShardID
	// Dir is the shard's directory (empty: Shard.Dir(campaign directory)).
	// It is the only place the shard writes.
	Dir string
}

// ShardResult summarises a shard's run.
type ShardResult struct {
	*RunResult
	Dir     string
	Trials  int // identities the partition gives this shard
	Ended   int // of those, with an outcome in the shard's log
	Shard   ShardID
	AllDone bool // every identity of the shard has its outcome
}

// RunShard executes shard K of N of the campaign in dir. The shard is a
// campaign directory of its own, the only place it writes: the same
// plan.json bytes, its own log (entry 0 seals the plan; checkpoints signed
// by the plan's log key), shard.json, and trials/ holding only the
// identities the partition gives it. The campaign directory itself is only
// read (its plan). A first run creates the shard directory; with Continue a
// later one finishes it, as [Run] does a campaign.
func RunShard(ctx context.Context, dir string, opts ShardOptions) (*ShardResult, error) {
	planFile, p, err := ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	sdir := opts.Dir
	if sdir == "" {
		sdir = opts.Shard.Dir(dir)
	}
	part := Partition(p, opts.Shard.N)[opts.Shard.K]
	m := &Manifest{Format: ShardFormat, PlanSHA256: PlanDigest(planFile), Shard: opts.Shard.K, Shards: opts.Shard.N, Trials: part}
	mb, err := encodeFile(m)
	if err != nil {
		return nil, err
	}
	switch _, err := os.Lstat(sdir); {
	case errors.Is(err, os.ErrNotExist):
		// Created whole or not at all: assembled under a hidden name (a
		// killed attempt's is removed) and renamed into place, so a shard
		// directory always holds its plan, log and manifest.
		parent := filepath.Dir(filepath.Clean(sdir))
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, err
		}
		tmp := filepath.Join(parent, "."+filepath.Base(filepath.Clean(sdir))+".creating")
		if err := os.RemoveAll(tmp); err != nil {
			return nil, err
		}
		if _, err := Create(ctx, tmp, p, opts.Signer); err != nil {
			return nil, err
		}
		if err := safefs.WriteFile(filepath.Join(tmp, ShardManifestFile), mb, 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, sdir); err != nil {
			return nil, err
		}
		if err := syncDir(parent); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		if err := sameShard(sdir, planFile, mb); err != nil {
			return nil, err
		}
	}
	ro := opts.RunOptions
	ro.Only = part
	if ro.Progress != nil {
		progress := ro.Progress
		ro.Progress = func(done, _ int) { progress(done, len(part)) }
	}
	res, err := Run(ctx, sdir, ro)
	if err != nil {
		return nil, err
	}
	st, err := ReadLog(ctx, sdir, opts.Key, p.File.Origin)
	if err != nil {
		return nil, err
	}
	out := &ShardResult{RunResult: res, Dir: sdir, Trials: len(part), Ended: len(st.Entries) - 1, Shard: opts.Shard}
	out.AllDone = out.Ended == out.Trials
	return out, nil
}

// sameShard checks an existing shard directory is this plan's and this
// shard's.
func sameShard(sdir string, planFile, manifest []byte) error {
	b, err := os.ReadFile(filepath.Join(sdir, PlanFile))
	if err != nil {
		return err
	}
	if !bytes.Equal(b, planFile) {
		return refusal.New(ErrShardForeign, "%s holds another plan", sdir)
	}
	mb, err := os.ReadFile(filepath.Join(sdir, ShardManifestFile))
	if err != nil {
		return refusal.Wrap(ErrShardInvalid, err, "%s", sdir)
	}
	if !bytes.Equal(mb, manifest) {
		return refusal.New(ErrShardInvalid, "%s is another shard of this plan", sdir)
	}
	return nil
}
