package main

import (
	"fmt"
	"io"

	"github.com/obaudit/obaudit/canon"
	"github.com/spf13/cobra"
)

func newCanonCmd(g *globals) *cobra.Command {
	return newFormCmd("canon FILE|-", "Print a JSON document's canonical bytes (RFC 8785 by default)",
		`Reads one JSON document strictly and prints its canonical bytes followed by a newline.

--form jcs             RFC 8785 (default; obaudit's own formats and everything it signs)
--form upstream        upstream OperateBench's canonical JSON (artefact files, digests)
--form upstream-spaced the upstream form with ", " and ": " (upstream ledger lines)`,
		func(cmd *cobra.Command, out []byte, _ canon.Form) error {
			_, err := cmd.OutOrStdout().Write(append(out, '\n'))
			return err
		})
}

func newDigestCmd(g *globals) *cobra.Command {
	return newFormCmd("digest FILE|-", "Print the SHA-256 of a JSON document's canonical bytes", "",
		func(cmd *cobra.Command, out []byte, f canon.Form) error {
			d := canon.SHA256Hex(out)
			return writeReport(cmd, g, map[string]any{"form": f.String(), "sha256": d}, func(w io.Writer) {
				fmt.Fprintln(w, d)
			})
		})
}

// newFormCmd is a command (canon, digest) that reads one JSON document
// (FILE, or - for stdin) into its canonical bytes in the --form form
// (readCanonical) and writes them out with emit.
func newFormCmd(use, short, long string, emit func(cmd *cobra.Command, out []byte, f canon.Form) error) *cobra.Command {
	var form string
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, f, err := readCanonical(cmd, args[0], form)
			if err != nil {
				return err
			}
			return emit(cmd, out, f)
		},
	}
	addFormFlag(c, &form)
	return c
}

// addFormFlag registers --form, the canonical form, on c.
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
