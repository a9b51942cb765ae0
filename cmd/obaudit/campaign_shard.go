package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/obaudit/obaudit/campaign"
	"github.com/spf13/cobra"
)

// The schedulers' shard variables, the documented contract of --shard auto.
const (
	envSlurmTask      = "SLURM_ARRAY_TASK_ID"    // Slurm job array: this task's index
	envSlurmCount     = "SLURM_ARRAY_TASK_COUNT" // Slurm job array: the number of tasks
	envJobIndex       = "JOB_COMPLETION_INDEX"   // Kubernetes Indexed Job: this pod's index
	envObauditIndex   = "OBAUDIT_SHARD_INDEX"    // any other engine (GitHub Actions: strategy.job-index)
	envObauditCount   = "OBAUDIT_SHARD_COUNT"    // with it (GitHub Actions: strategy.job-total)
	shardAutoExplains = "--shard auto reads SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX with --shards N, or OBAUDIT_SHARD_INDEX with OBAUDIT_SHARD_COUNT"
)

// resolveShard turns --shard (K/N or auto) and --shards into a shard,
// reading the scheduler's variables through lookup (os.LookupEnv in the
// binary; an empty variable counts as unset). Exactly one scheduler's index variable must be set for auto; a
// count from the environment and --shards must agree.
func resolveShard(spec string, shards int, lookup func(string) (string, bool)) (campaign.ShardID, error) {
	if shards < 0 || shards > campaign.MaxShards {
		return campaign.ShardID{}, usagef("--shards %d: want 1..%d", shards, campaign.MaxShards)
	}
	if spec != "auto" {
		s, err := campaign.ParseShard(spec)
		if err != nil {
			return s, usagef("--shard: %v", err)
		}
		if shards != 0 && shards != s.N {
			return s, usagef("--shard %s and --shards %d disagree", spec, shards)
		}
		return s, nil
	}
	// An empty variable counts as unset.
	lookup = func(l func(string) (string, bool)) func(string) (string, bool) {
		return func(name string) (string, bool) { v, ok := l(name); return v, ok && v != "" }
	}(lookup)
	var found []string
	for _, name := range []string{envSlurmTask, envJobIndex, envObauditIndex} {
		if _, ok := lookup(name); ok {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return campaign.ShardID{}, usagef("%s; found %d of the index variables %v", shardAutoExplains, len(found), found)
	}
	num := func(name string) (int, bool, error) {
		v, ok := lookup(name)
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, true, usagef("%s=%q is not a non-negative integer", name, v)
		}
		return n, true, nil
	}
	k, _, err := num(found[0])
	if err != nil {
		return campaign.ShardID{}, err
	}
	countVar := map[string]string{envSlurmTask: envSlurmCount, envObauditIndex: envObauditCount}[found[0]]
	n := shards
	if countVar != "" {
		c, ok, err := num(countVar)
		if err != nil {
			return campaign.ShardID{}, err
		}
		switch {
		case ok && shards != 0 && c != shards:
			return campaign.ShardID{}, usagef("%s=%d and --shards %d disagree", countVar, c, shards)
		case ok:
			n = c
		}
	}
	if n == 0 {
		return campaign.ShardID{}, usagef("%s is set but the shard count is not: give --shards N", found[0])
	}
	s, err := campaign.ParseShard(fmt.Sprintf("%d/%d", k, n))
	if err != nil {
		return s, usagef("%s: %v (a Slurm array must be --array=0-(N-1))", found[0], err)
	}
	return s, nil
}

// runShard is campaign run --shard: the shard's identities only, written
// beneath the shard's own directory.
func runShard(cmd *cobra.Command, g *globals, dir string, s campaign.ShardID, shardDir string, ro campaign.RunOptions) error {
	logCtx, err := campaignLogContext(cmd, dir, "")
	if err != nil {
		return err
	}
	res, err := campaign.RunShard(logCtx, dir, campaign.ShardOptions{RunOptions: ro, Shard: s, Dir: shardDir})
	if err != nil {
		return err
	}
	return writeReport(cmd, g, map[string]any{
		"mediaType": "application/vnd.obaudit.campaign-shard-run+json;version=1",
		"shard":     int64(s.K), "shards": int64(s.N), "directory": res.Dir,
		"trials": int64(res.Trials), "executed": int64(res.Executed), "interrupted": int64(res.Interrupted),
		"already_ended": int64(res.AlreadyEnded), "ended": int64(res.Ended), "complete": res.AllDone,
		"checkpoint": string(res.Checkpoint),
	}, func(w io.Writer) {
		fmt.Fprintf(w, "shard %s: %d identities in %s: executed %d now, %d interrupted recorded ERROR, %d had ended before\n",
			s, res.Trials, res.Dir, res.Executed, res.Interrupted, res.AlreadyEnded)
		fmt.Fprintf(w, "shard complete: %v (merge every shard with obaudit campaign merge %s)\n", res.AllDone, dir)
	})
}
