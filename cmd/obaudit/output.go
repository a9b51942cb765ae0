package main

import (
	"io"
	"strconv"
	"strings"

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

// writeReport writes a command's report to stdout: with --json the
// document tree (writeJSON), otherwise the text text writes.
func writeReport(cmd *cobra.Command, g *globals, tree map[string]any, text func(w io.Writer)) error {
	if g.json {
		return writeJSON(cmd, tree)
	}
	text(cmd.OutOrStdout())
	return nil
}

// checkOutputs refuses, before a command does any work (runs an episode,
// validates, calls a provider), an output path that exists or whose path
// holds a link or a non-directory (safefs.CheckTargets); nothing is
// created. The write itself is exclusive again. perm is the mode the
// files will be written with: a missing directory's hint says to make it
// private (mkdir -m 0700) when they are.
func checkOutputs(perm uint32, paths ...string) error {
	t, err := safefs.CheckTargets(paths...)
	if err != nil {
		return safefs.WithMkdirHint(err, perm)
	}
	return t.Close()
}

// outcomeMediaType names the document --json writes when a command ends
// without a report of its own (a refusal, a usage error, a failure, an
// interruption).
const outcomeMediaType = "application/vnd.obaudit.outcome+json;version=1"

// writeOutcomeJSON writes o as {"class","detail","exit","mediaType","ok"}
// (RFC 8785). A write error is ignored: stderr already carries the outcome.
func writeOutcomeJSON(w io.Writer, o outcome) {
	b, err := canon.JCS(map[string]any{
		"mediaType": outcomeMediaType,
		"ok":        o.exit == exitOK,
		"class":     o.class,
		"detail":    o.detail,
		"exit":      int64(o.exit),
	})
	if err != nil {
		return
	}
	w.Write(append(b, '\n'))
}

// jsonRequested reports whether args ask for --json anywhere before a "--"
// terminator: --json is global and may follow any subcommand, and it must
// hold even for a command line cobra could not parse.
func jsonRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			b, err := strconv.ParseBool(v)
			return err == nil && b
		}
	}
	return false
}

// countingWriter counts what a command wrote to stdout, so that --json adds
// an outcome document only when the command wrote none.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
