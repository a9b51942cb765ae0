package main

import (
	"bufio"
	"fmt"
	"github.com/obaudit/obaudit/internal/safefs"
	"io"
	"path/filepath"
	"strings"

	"github.com/obaudit/obaudit/execledger"
	"github.com/spf13/cobra"
)

func newLedgerCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "ledger",
		Short: "Read execution ledgers",
	}
	c.AddCommand(&cobra.Command{
		Use:   "verify LEDGER|-",
		Short: "Verify an execution ledger on its own: chain, schema, arithmetic, scanner",
		Long: `Reads an execution ledger (version 2 or 3) as a stream and verifies every row: the
hash chain (index, back-link, digest), the schema and closed vocabularies of the row's
version, the forbidden-content scan, the header's settings and pricing digests, every
amount (re-derived at the pinned rates) and the terminal totals (re-derived from the
call rows). Prints the read status (scored, excluded, aborted, or incomplete for a
verified prefix), the chain head, the row count and the totals.

Exit 0: a complete verified ledger. Exit 2: a verified prefix with no terminal row
(incomplete; never a scored run). Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader
			name := args[0]
			if name == "-" {
				r = cmd.InOrStdin()
			} else {
				f, err := safefs.OpenRegular(name)
				if err != nil {
					return err
				}
				defer f.Close()
				r = f
			}
			br := bufio.NewReaderSize(r, sniffLimit)
			if err := peekKind(name, br, kindLedger); err != nil {
				return err
			}
			r = br
			if name != "-" {
				name = filepath.Base(name)
			}
			a, err := execledger.Read(r, execledger.Options{DiscardCalls: true})
			if err != nil {
				return err
			}
			s := a.Summary()
			s["mediaType"] = "application/vnd.obaudit.ledger-verify+json;version=1"
			s["ledger"] = name
			s["carried"] = execledger.CarriedFields("ledger")
			if err := writeReport(cmd, g, s, func(w io.Writer) {
				t := a.Totals
				fmt.Fprintf(w, "%s: %s\n", name, a.Status())
				fmt.Fprintf(w, "ledger version:   %d\n", a.Version)
				fmt.Fprintf(w, "execution run:    %s\n", a.Header.ExecutionRunID)
				fmt.Fprintf(w, "rows verified:    %d\n", a.RowsVerified)
				fmt.Fprintf(w, "chain head:       %s\n", a.ChainTip)
				if a.Complete() {
					fmt.Fprintf(w, "ledger digest:    %s\n", a.LedgerDigest())
				} else {
					fmt.Fprintf(w, "ledger digest:    none (no terminal row; truncated tail: %v)\n", a.TruncatedTail)
				}
				fmt.Fprintf(w, "calls/attempts:   %d/%d\n", t.ProviderCalls, t.Attempts)
				fmt.Fprintf(w, "tokens in/out:    %d/%d\n", t.InputTokens, t.OutputTokens)
				fmt.Fprintf(w, "measured USD:     %s\n", t.MeasuredCostUSD)
				fmt.Fprintf(w, "forfeited USD:    %s\n", t.ForfeitedReservationUSD)
				fmt.Fprintf(w, "reserved USD:     %s (authorised, not spent; never summed with the two above)\n", t.ReservedUSD)
				fmt.Fprintf(w, "carried:          %s\n", strings.Join(execledger.CarriedFields("ledger"), "; "))
			}); err != nil {
				return err
			}
			return answerNoUnless(a.Complete(), "%s is a verified prefix of %d rows with no terminal row: incomplete", name, a.RowsVerified)
		},
	})
	return c
}
