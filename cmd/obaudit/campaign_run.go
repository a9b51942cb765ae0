package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/spf13/cobra"
)

func newCampaignRunCmd(g *globals) *cobra.Command {
	var keyPath string
	var parallel int
	var cont bool
	var shard, shardDir string
	var shards int
	c := &cobra.Command{
		Use:   "run DIR --key KEY [--parallel N] [--continue] [--shard K/N|auto [--shards N] [--shard-dir D]]",
		Short: "Execute a sealed campaign's assigned trials, each ending with exactly one logged outcome",
		Long: `Executes the trial identities DIR/plan.json assigns, N at a time, with no hidden retries
and no replacements: each identity ends with exactly one outcome record appended to the
campaign log (status SUCCESS, FAILURE or ERROR, its funnel stage, its exclusion reason from
a closed taxonomy, the digests of its files, its result vector) after its files and its run
commitment (signed by KEY) are written and fsynced. A provider fault is an excluded trial
(ERROR with the ledger's exclusion code), never a success and never dropped.

A campaign runs once. --continue finishes an interrupted one: an identity that started and
never ended is recorded ERROR (interrupted) with its partial files kept and digested; one
that never started is executed. When every identity has its outcome, DIR/report.json is
written. Progress goes to stderr (a bar on a terminal, lines otherwise).

--shard K/N executes only shard K's identities of the deterministic, cost-balanced N-way
partition of the plan (docs/commands.md), writing only beneath the shard's own directory
(default DIR/shards/KKKK-of-NNNN; --shard-dir D); DIR itself is only read. --shard auto takes
K (and N) from the scheduler: SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (sbatch
--array=0-(N-1)), JOB_COMPLETION_INDEX with --shards N (a Kubernetes Indexed Job), or
OBAUDIT_SHARD_INDEX with OBAUDIT_SHARD_COUNT (any other engine, e.g. a GitHub Actions
matrix). obaudit campaign merge then combines the shards into DIR.

Exit 0: every identity (of the shard) has an outcome. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkKeyParallel(keyPath, parallel); err != nil {
				return err
			}
			var sh campaign.ShardID
			if shard != "" {
				var err error
				if sh, err = resolveShard(shard, shards, os.LookupEnv); err != nil {
					return err
				}
			} else if shards != 0 || shardDir != "" {
				return usagef("--shards and --shard-dir need --shard")
			}
			// Each episode allocates ~4 MB of short-lived trees; fewer GC
			// cycles cut CPU per episode (BENCHMARKS.md, as obaudit check).
			defer debug.SetGCPercent(debug.SetGCPercent(400))
			dir := args[0]
			key, p, err := readKeyAndPlan(cmd, keyPath, dir)
			if err != nil {
				return err
			}
			exec, err := newCampaignExecutor(p)
			if err != nil {
				return err
			}
			signer, err := checkpoint.NewNoteSigner(p.File.Origin, key, rand.Reader)
			if err != nil {
				return err
			}
			commit, err := campaignCommit(key)
			if err != nil {
				return err
			}
			ro := campaign.RunOptions{
				Parallel: parallel, Continue: cont, Executor: exec, Commit: commit,
				Signer: signer, Key: &key.PublicKey, Now: time.Now,
				Progress: progressPrinter(cmd.ErrOrStderr()),
			}
			if shard != "" {
				return runShard(cmd, g, dir, sh, shardDir, ro)
			}
			logCtx, err := campaignLogContext(cmd, dir, "")
			if err != nil {
				return err
			}
			res, err := campaign.Run(logCtx, dir, ro)
			if err != nil {
				return err
			}
			return writeReport(cmd, g, map[string]any{
				"mediaType": "application/vnd.obaudit.campaign-run+json;version=1",
				"assigned":  int64(res.Total), "executed": int64(res.Executed),
				"interrupted": int64(res.Interrupted), "already_ended": int64(res.AlreadyEnded),
				"complete": res.Complete, "checkpoint": string(res.Checkpoint),
			}, func(w io.Writer) {
				fmt.Fprintf(w, "assigned %d: executed %d now, %d interrupted recorded ERROR, %d had ended before\n", res.Total, res.Executed, res.Interrupted, res.AlreadyEnded)
				fmt.Fprintf(w, "complete: %v\ncheckpoint:\n%s", res.Complete, res.Checkpoint)
			})
		},
	}
	c.Flags().StringVar(&keyPath, "key", "", "the plan's ECDSA P-256 private key (PEM)")
	c.Flags().IntVar(&parallel, "parallel", 1, "trials executing at once")
	c.Flags().BoolVar(&cont, "continue", false, "finish an interrupted campaign")
	c.Flags().StringVar(&shard, "shard", "", "run shard K/N of the plan only, or auto (the scheduler's index variable)")
	c.Flags().IntVar(&shards, "shards", 0, "the shard count N (with --shard auto on a Kubernetes Indexed Job)")
	c.Flags().StringVar(&shardDir, "shard-dir", "", "the shard's directory (default DIR/shards/KKKK-of-NNNN)")
	return c
}

// progressPrinter draws a bar on a terminal and prints a line per
// twentieth otherwise.
func progressPrinter(w io.Writer) func(done, total int) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	step := 1
	return func(done, total int) {
		if step == 1 && total >= 20 {
			step = total / 20
		}
		if tty {
			n := 40 * done / max(total, 1)
			fmt.Fprintf(w, "\r[%s%s] %d/%d", strings.Repeat("#", n), strings.Repeat(".", 40-n), done, total)
			if done == total {
				fmt.Fprintln(w)
			}
			return
		}
		if done%step == 0 || done == total {
			fmt.Fprintf(w, "progress: %d/%d outcomes\n", done, total)
		}
	}
}
