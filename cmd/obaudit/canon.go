package main

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/spf13/cobra"
)

func newCanonCmd(g *globals) *cobra.Command {
	var form string
	c := &cobra.Command{
		Use:   "canon FILE|-",
		Short: "Print a JSON document's canonical bytes (RFC 8785 by default)",
		Long: `Reads one JSON document strictly and prints its canonical bytes followed by a newline.

--form jcs             RFC 8785 (default; obaudit's own formats and everything it signs)
--form upstream        upstream OperateBench's canonical JSON (artefact files, digests)
--form upstream-spaced the upstream form with ", " and ": " (upstream ledger lines)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, _, err := readCanonical(cmd, args[0], form)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(append(out, '\n'))
			return err
		},
	}
	addFormFlag(c, &form)
	return c
}

// addFormFlag registers --form, the canonical form, on c (canon and
// digest).
func addFormFlag(c *cobra.Command, form *string) {
	c.Flags().StringVar(form, "form", "jcs", "canonical form: jcs, upstream or upstream-spaced")
	c.RegisterFlagCompletionFunc("form", cobra.FixedCompletions([]string{"jcs", "upstream", "upstream-spaced"}, cobra.ShellCompDirectiveNoFileComp))
}

// readCanonical reads the JSON document name (a file, or - for stdin)
// strictly and returns its canonical bytes in the --form form.
func readCanonical(cmd *cobra.Command, name, form string) ([]byte, canon.Form, error) {
	f, ok := canon.ParseForm(form)
	if !ok {
		return nil, f, usagef("unknown --form %q (want jcs, upstream or upstream-spaced)", form)
	}
	in, err := readInput(cmd, name)
	if err != nil {
		return nil, f, err
	}
	out, err := canon.TransformForm(in, f)
	return out, f, err
}
