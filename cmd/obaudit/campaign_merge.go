package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/spf13/cobra"
)

func newCampaignMergeCmd(g *globals) *cobra.Command {
	var keyPath string
	var parallel int
	c := &cobra.Command{
		Use:   "merge DIR [SHARD...] --key KEY [--parallel N]",
		Short: "Combine a campaign's shards into its directory and log, in plan order",
		Long: `Merges the shard directories SHARD... (default: every directory beneath DIR/shards) that
obaudit campaign run DIR --shard K/N wrote into the campaign directory DIR. Everything is
checked before anything is written: every shard holds DIR's plan.json and a shard.json of
the same N-way partition, listing exactly the identities the partition gives it; no shard is
missing or given twice; each shard's log verifies under the plan's key; no outcome or trial
directory is of another shard's identity; every scored outcome agrees with its own files
(artefact validated and replayed, ledger bundle-audited, commitment verified, vector). A
shard identity that started and never ended (a killed shard) is recorded ERROR
(interrupted), its partial files kept; one that never started stays without an outcome.
Then each trial directory is copied whole into DIR/trials and every outcome is appended to
DIR's log in plan order (signed by KEY); report.json is written when every identity has its
outcome. Running merge again appends nothing; another outcome for an ended identity is
refused.

Exit 0: every identity has its outcome. Exit 2: merged, but identities never started
(campaign run DIR --continue finishes them). Exit 1: refused, by class.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkKeyParallel(keyPath, parallel); err != nil {
				return err
			}
			defer debug.SetGCPercent(debug.SetGCPercent(400))
			dir := args[0]
			var shardDirs []string
			if len(args) > 1 {
				shardDirs = args[1:]
			}
			key, p, err := readKeyAndPlan(cmd, keyPath, dir)
			if err != nil {
				return err
			}
			signer, err := checkpoint.NewNoteSigner(p.File.Origin, key, rand.Reader)
			if err != nil {
				return err
			}
			cv, err := verifiers.key(&key.PublicKey)
			if err != nil {
				return err
			}
			logCtx, err := campaignLogContext(cmd, dir, "")
			if err != nil {
				return err
			}
			res, err := campaign.Merge(logCtx, dir, shardDirs, campaign.MergeOptions{
				Signer: signer, Key: &key.PublicKey, Check: campaignCheck(p), Commitments: cv, Parallel: parallel,
			})
			if err != nil {
				return err
			}
			report := map[string]any{
				"mediaType": "application/vnd.obaudit.campaign-merge+json;version=1",
				"shards":    int64(res.Shards), "appended": int64(res.Appended), "already_merged": int64(res.AlreadyMerged),
				"interrupted": int64(res.Interrupted), "not_started": int64(res.NotStarted),
				"complete": res.Complete, "checkpoint": string(res.Checkpoint),
			}
			if err := writeReport(cmd, g, report, func(w io.Writer) {
				fmt.Fprintf(w, "merged %d shards: %d outcomes appended in plan order, %d already merged, %d interrupted recorded ERROR, %d never started\n",
					res.Shards, res.Appended, res.AlreadyMerged, res.Interrupted, res.NotStarted)
				fmt.Fprintf(w, "complete: %v\ncheckpoint:\n%s", res.Complete, res.Checkpoint)
			}); err != nil {
				return err
			}
			return answerNoUnless(res.Complete, "merged, but %d identities never started: run obaudit campaign run %s --continue", res.NotStarted, dir)
		},
	}
	c.Flags().StringVar(&keyPath, "key", "", "the plan's ECDSA P-256 private key (PEM)")
	c.Flags().IntVar(&parallel, "parallel", 2, "shard trials re-derived at once")
	return c
}
