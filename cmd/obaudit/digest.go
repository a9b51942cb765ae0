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
			f, ok := canon.ParseForm(form)
			if !ok {
				return usagef("unknown --form %q (want jcs, upstream or upstream-spaced)", form)
			}
			in, err := readInput(cmd, args[0])
			if err != nil {
				return err
			}
			out, err := canon.TransformForm(in, f)
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
	c.Flags().StringVar(&form, "form", "jcs", "canonical form: jcs, upstream or upstream-spaced")
	c.RegisterFlagCompletionFunc("form", cobra.FixedCompletions([]string{"jcs", "upstream", "upstream-spaced"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}
