package main

import (
	"bytes"

	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/spf13/cobra"
)

func newCampaignReportCmd(g *globals) *cobra.Command {
	var html string
	c := &cobra.Command{
		Use:   "report DIR [--json | --html F]",
		Short: "The campaign's population report: funnel, rates with formulas, intervals, pass^k, paired differences",
		Long: `Computes the report from the campaign log's outcome records (the checkpoint verified
under the plan's key, the entries hashing to its root): per arm the state funnel assigned →
authorized → dispatched → provider_completed → runtime_completed → artifact_valid →
replay_valid → scored and excluded_by_reason; per subject Reliable Operation Rate over all
assigned identities and the rate-shaped metrics over scored episodes, each with its formula
and denominator; critical violations as x/N with the Clopper–Pearson one-sided 95 % upper
bound; standard errors clustered by Semantic Scenario only with at least two, otherwise
"one semantic unit: no interval" and the raw per-trial matrix; pass^k by the unbiased
estimator (refused for a cell with fewer than k trials); paired differences.

It does not re-derive the trials' files (obaudit campaign verify does). --json writes RFC
8785 JSON (the form of DIR/report.json); --html F writes a self-contained page with SVG
charts to the new file F.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if html != "" && g.json {
				return usagef("--json and --html are exclusive")
			}
			logCtx, err := campaignLogContext(cmd, args[0], "")
			if err != nil {
				return err
			}
			rep, err := campaign.ReportOf(logCtx, args[0])
			if err != nil {
				return err
			}
			switch {
			case g.json:
				b, err := rep.Encode()
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(b)
				return err
			case html != "":
				var b bytes.Buffer
				if err := rep.WriteHTML(&b); err != nil {
					return err
				}
				return safefs.WriteFile(html, b.Bytes(), 0o644)
			}
			rep.WriteText(cmd.OutOrStdout())
			return nil
		},
	}
	c.Flags().StringVar(&html, "html", "", "write the report as a self-contained HTML page to this new file")
	return c
}
