package campaign

import (
	"slices"
	"testing"

	"github.com/obaudit/obaudit/refusal"
)

// TestPartition: every trial in exactly one shard, the same partition
// every time, shards in plan order, and balanced by expected cost: a
// model-backed trial at 500 ms × 3 calls weighs 1501 deterministic ones,
// so the shards' costs, not their counts, are even.
func TestPartition(t *testing.T) {
	f := testFile()
	f["agents"], f["comparisons"], f["trials"] = []string{"a", "b", "c"}, [][2]string{}, 3
	f["model_profiles"] = []any{map[string]any{"id": "m", "lane": "loopback-scripted", "model": "x", "latency_ms": 500}}
	f["bounds"] = map[string]any{
		"per_trial": map[string]any{"calls": 3, "tokens": 100, "cost_usd": "0.01", "wall_seconds": 10},
		"aggregate": map[string]any{"calls": 1000, "tokens": 100000, "cost_usd": "10", "wall_seconds": 1000},
	}
	f["rates"] = map[string]any{"input_usd_per_mtok": "1", "output_usd_per_mtok": "1", "pricing_policy_id": "p"}
	pf, err := parse(t, f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(pf, testCatalog, "key")
	if err != nil {
		t.Fatal(err)
	}
	// 2 variants × 4 subjects × 3 repeats: 6 model trials (cost 1501), 18
	// deterministic (cost 1).
	if len(p.Trials) != 24 {
		t.Fatalf("%d trials", len(p.Trials))
	}
	for _, n := range []int{1, 2, 3, 4, 6, 7, 30} {
		parts := Partition(p, n)
		if !slices.EqualFunc(parts, Partition(p, n), slices.Equal) {
			t.Fatalf("n=%d: two partitions differ", n)
		}
		seen := map[int]int{}
		var loads []int64
		var maxCost int64
		for _, part := range parts {
			if !slices.IsSorted(part) {
				t.Errorf("n=%d: a shard is not in plan order: %v", n, part)
			}
			var load int64
			for _, i := range part {
				seen[i]++
				c := ExpectedCost(p, p.Trials[i])
				load += c
				maxCost = max(maxCost, c)
			}
			loads = append(loads, load)
		}
		for i := range p.Trials {
			if seen[i] != 1 {
				t.Fatalf("n=%d: trial %d is in %d shards", n, i, seen[i])
			}
		}
		if hi, lo := slices.Max(loads), slices.Min(loads); hi-lo > maxCost {
			t.Errorf("n=%d: shard costs %v differ by more than one trial's cost %d", n, loads, maxCost)
		}
	}
	// 6 shards: each holds one model trial and three deterministic ones
	// (a count split would put 4 trials anywhere, the model ones clustered).
	for k, part := range Partition(p, 6) {
		models := 0
		for _, i := range part {
			if p.Trials[i].SubjectKind == KindProfile {
				models++
			}
		}
		if models != 1 || len(part) != 4 {
			t.Errorf("shard %d/6: %d trials, %d model-backed; want 4 and 1", k, len(part), models)
		}
	}
	if ExpectedCost(p, p.Trials[slices.IndexFunc(p.Trials, func(t Trial) bool { return t.SubjectKind == KindProfile })]) != 1501 {
		t.Error("a model trial's expected cost is not 1 + 500 ms × 3 calls")
	}
}

func TestParseShardAndManifest(t *testing.T) {
	for _, s := range []string{"0/0", "1/1", "-1/2", "a/2", "2", "1/4097"} {
		if _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) accepted", s)
		}
	}
	if s, err := ParseShard("3/8"); err != nil || s != (ShardID{3, 8}) {
		t.Errorf("ParseShard(3/8) = %v, %v", s, err)
	}
	m := &Manifest{Format: ShardFormat, PlanSHA256: "00", Shard: 1, Shards: 2, Trials: []int{1, 3}}
	b, _ := encodeFile(m)
	if _, err := DecodeManifest(b); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"format":"obaudit-campaign-shard/v1","plan_sha256":"00","shard":2,"shards":2,"trials":[]}` + "\n",
		`{"format":"obaudit-campaign-shard/v2","plan_sha256":"00","shard":0,"shards":2,"trials":[]}` + "\n",
		`{"format": "obaudit-campaign-shard/v1","plan_sha256":"00","shard":0,"shards":2,"trials":[]}` + "\n",
		`{"extra":1,"format":"obaudit-campaign-shard/v1","plan_sha256":"00","shard":0,"shards":2,"trials":[]}` + "\n",
	} {
		if _, err := DecodeManifest([]byte(bad)); classOf(err) != ErrShardInvalid.Class {
			t.Errorf("DecodeManifest(%s) = %v, want %s", bad, err, ErrShardInvalid.Class)
		}
	}
}

func classOf(err error) refusal.Class {
	c, _ := refusal.ClassOf(err)
	return c
}
