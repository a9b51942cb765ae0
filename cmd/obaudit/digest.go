package main

import (
	"fmt"

	"github.com/obaudit/obaudit/canon"
	"github.com/spf13/cobra"
)

func newDigestCmd(g *globals) *cobra.Command {
	var form string
	c := &cobra.Command{
		Use:   "digest FILE|-",
		Short: "Print the SHA-256 of a JSON document's canonical bytes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, f, err := readCanonical(cmd, args[0], form)
			if err != nil {
				return err
			}
			d := canon.SHA256Hex(out)
			if g.json {
				return writeJSON(cmd, map[string]any{"form": f.String(), "sha256": d})
			}
			fmt.Fprintln(cmd.OutOrStdout(), d)
			return nil
		},
	}
	addFormFlag(c, &form)
	return c
}
