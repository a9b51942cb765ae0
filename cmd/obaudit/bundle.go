package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/execledger"
	"github.com/spf13/cobra"
)

func newBundleCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "bundle ARTEFACT LEDGER",
		Short: "Audit an episode artefact against its execution ledger",
		Long: `Holds an artefact's provider_execution binding to the execution ledger: the ledger
must verify completely and be scored; then run identity, provider identity, settings and
pricing digests, totals re-derived from the rows, and call by call the request digest and
decision digest must agree; last, the ledger digest. Each refusal is its own class.

A pass establishes that two local documents describe one run. It does not establish that
a provider answered: anyone who can run this build can produce both files.

Exit 0: the bundle agrees. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFileKind(args[0], kindArtefact); err != nil {
				return err
			}
			if err := checkFileKind(args[1], kindLedger); err != nil {
				return err
			}
			r, err := bundle.AuditFiles(args[0], args[1], bundle.Options{ValidateArtefact: validateArtefactTree})
			if err != nil {
				return err
			}
			s := r.Summary()
			s["mediaType"] = "application/vnd.obaudit.bundle-audit+json;version=1"
			s["carried"] = bundleCarried()
			return writeReport(cmd, g, s, func(w io.Writer) {
				fmt.Fprintf(w, "bundle OK: the artefact and %s describe one run\n", r.Ledger)
				fmt.Fprintf(w, "execution run:    %s\n", r.ExecutionRunID)
				fmt.Fprintf(w, "ledger:           v%d, digest %s\n", r.ExecutionLedgerVersion, r.ExecutionLedgerDigest)
				fmt.Fprintf(w, "provider:         %s %s %s\n", r.Provider, r.API, r.Model)
				fmt.Fprintf(w, "calls/attempts:   %d/%d\n", r.ProviderCalls, r.Attempts)
				fmt.Fprintf(w, "tokens in/out:    %d/%d\n", r.InputTokens, r.OutputTokens)
				fmt.Fprintf(w, "measured USD:     %s, forfeited USD: %s\n", r.MeasuredCostUSD, r.ForfeitedReservationUSD)
				fmt.Fprintf(w, "provider attested: no\n")
				fmt.Fprintf(w, "carried:          %s\n", strings.Join(bundleCarried(), "; "))
				fmt.Fprintf(w, "not established:  %s\n", bundle.DoesNotEstablish)
			})
		},
	}
}

// bundleCarried names every field the bundle audit does not establish:
// the artefact's and the ledger's field-table rows carried to bundle
// (artefact fields unprefixed, ledger fields under "ledger/").
func bundleCarried() []string {
	out := artefact.CarriedFields("bundle", artefact.Version)
	for _, f := range execledger.CarriedFields("bundle") {
		out = append(out, "ledger/"+f)
	}
	return out
}
