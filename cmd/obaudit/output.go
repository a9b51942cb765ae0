package main

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/safefs"
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

// checkOutputs refuses, before a command does any work (runs an episode,
// validates, calls a provider), an output path that exists or whose path
// holds a link or a non-directory (safefs.CheckTargets); nothing is
// created. The write itself is exclusive again.
func checkOutputs(paths ...string) error {
	t, err := safefs.CheckTargets(paths...)
	if err != nil {
		return err
	}
	return t.Close()
}
