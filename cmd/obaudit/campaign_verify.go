package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/domains"
	"github.com/spf13/cobra"
)

func newCampaignVerifyCmd(g *globals) *cobra.Command {
	var cpPath string
	var parallel int
	c := &cobra.Command{
		Use:   "verify DIR [--checkpoint F] [--parallel N]",
		Short: "Recompute a campaign from its directory and a checkpoint you hold",
		Long: `Checks, fail-closed: plan.json decodes and is sealed by the log's first entry; the log's
checkpoint is signed by the plan's key and its entries hash to its root; the checkpoint F you
hold (default: the directory's own pre-dispatch copy, reported as carried) is a prefix of the
log, by a consistency proof from F to the final checkpoint and by the entries' own prefix
root; every outcome names one assigned identity exactly once; every scored trial's files are
the ones its outcome digests, its artefact validates and replays, its ledger passes the bundle
audit, its run commitment is signed by the plan's key and covers those files, and its result
vector is the outcome's; report.json is the report those outcomes give, byte for byte.

Exit 0: every assigned identity accounted for and everything above holds. Exit 2: it holds
together but is incomplete (identities without an outcome: run --continue). Exit 1: refused,
by class (results added, dropped or rewritten after F, a file changed, a report edited).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkParallel(parallel); err != nil {
				return err
			}
			// Each episode allocates ~4 MB of short-lived trees; fewer GC
			// cycles cut CPU per episode (BENCHMARKS.md, as obaudit check).
			defer debug.SetGCPercent(debug.SetGCPercent(400))
			dir := args[0]
			held, err := readOptional(cmd, cpPath)
			if err != nil {
				return err
			}
			_, p, err := campaign.ReadPlan(dir)
			if err != nil {
				return err
			}
			pub, err := p.PublicKey()
			if err != nil {
				return err
			}
			cv, err := verifiers.key(pub)
			if err != nil {
				return err
			}
			logCtx, err := campaignLogContext(cmd, dir, "")
			if err != nil {
				return err
			}
			v, err := campaign.Verify(logCtx, dir, campaign.VerifyOptions{
				Held: held, Check: campaignCheck(p), Commitments: cv, Parallel: parallel,
				Pair: campaignPair, Eligible: campaignEligible(domains.Default()),
			})
			if err != nil {
				return err
			}
			heldSrc := "held (--checkpoint)"
			if v.HeldCarried {
				heldSrc = "carried in the directory (not independent evidence)"
			}
			report := map[string]any{
				"mediaType":   "application/vnd.obaudit.campaign-verify+json;version=1",
				"plan_sha256": v.PlanSHA256, "log_size": int64(v.Log.Size), "held_size": int64(v.Held.Size),
				"held_carried": v.HeldCarried, "assigned": int64(v.Assigned), "accounted": int64(v.Accounted),
				"started_not_ended": int64(v.Started), "not_started": int64(v.NotStarted),
				"scored_rederived": int64(v.Checked), "carried_unverified": v.Carried,
				"report_rederived": v.Report, "complete": v.Complete,
				"pairs_matched": int64(v.Matched), "unmatched_carried": v.Unmatched,
			}
			if err := writeReport(cmd, g, report, func(w io.Writer) {
				fmt.Fprintf(w, "plan sha256 %s sealed by log entry 0\n", v.PlanSHA256)
				fmt.Fprintf(w, "log: size %d, checkpoint signed by the plan's key; consistent with the checkpoint of size %d %s\n", v.Log.Size, v.Held.Size, heldSrc)
				fmt.Fprintf(w, "identities: %d assigned, %d accounted for, %d started and not ended, %d not started\n", v.Assigned, v.Accounted, v.Started, v.NotStarted)
				fmt.Fprintf(w, "scored trials re-derived (validate, replay, bundle audit, commitment): %d\n", v.Checked)
				fmt.Fprintf(w, "files of unscored outcomes carried, digested, not vouched for: %d\n", len(v.Carried))
				if slices.Contains(p.File.Arms, campaign.ArmNoTime) {
					fmt.Fprintf(w, "stateful_time_removed pairs proven against their Full twin (arms verify): %d; without a scored twin, not vouched for as matched: %d\n", v.Matched, len(v.Unmatched))
				}
				fmt.Fprintf(w, "report.json re-derived: %v\n", v.Report)
			}); err != nil {
				return err
			}
			return answerNoUnless(v.Complete, "the campaign is incomplete: %d of %d identities accounted for; report.json present: %v", v.Accounted, v.Assigned, v.Report)
		},
	}
	c.Flags().StringVar(&cpPath, "checkpoint", "", "a checkpoint of this campaign's log you hold (e.g. the pre-dispatch one)")
	c.Flags().IntVar(&parallel, "parallel", 2, "trials re-derived at once")
	return c
}
