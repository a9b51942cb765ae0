package main

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/spf13/cobra"
)

// writeJSON writes v to stdout as RFC 8785 canonical JSON plus a newline:
// every --json report is canonical, so it can be digested and diffed.
func writeJSON(cmd *cobra.Command, v any) error {
	b, err := canon.JCS(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = cmd.OutOrStdout().Write(b)
	return err
}
