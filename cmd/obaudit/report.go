package main

import (
	"fmt"
	"path/filepath"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/safefs"
	episodereport "github.com/obaudit/obaudit/report"
	"github.com/spf13/cobra"
)

func newReportCmd(g *globals) *cobra.Command {
	var htmlFile, format string
	c := &cobra.Command{
		Use:   "report ARTEFACT",
		Short: "Render an episode for an auditor: timeline, dimensions, digests",
		Long: `Validates the artefact (an artefact that does not validate is not rendered) and renders
it: the episode on its simulated-time axis (authored and exogenous events by actor, agent
invocations and proposals, each WAIT from declaration to wake, obligations with due times and
breaches, the approval checkpoint, provisional close and reopen, the terminal), then the
eleven dimensions with counts and findings, then the digests.

--html FILE writes one self-contained HTML page (no scripts, no external assets; a
Content-Security-Policy forbids every load), created exclusively. --format text (the
default) prints the same content as plain text; --format html prints the page to stdout.
The same artefact always renders to the same bytes. With --json, stdout is one JSON
document: the rendering --format names (as "text" or "html"), the page's SHA-256 and
the --html file written.

Exit 0: rendered. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "html" {
				return usagef("unknown --format %q (want text or html)", format)
			}
			raw, err := readInputAs(cmd, args[0], kindArtefact)
			if err != nil {
				return err
			}
			r, err := episodereport.Build(raw, episodereport.ValidatorFunc(validateArtefactBytes))
			if err != nil {
				return err
			}
			if htmlFile != "" {
				if err := safefs.WriteFile(filepath.Clean(htmlFile), r.HTML(), 0o644); err != nil {
					return err
				}
			}
			if g.json {
				// One JSON document, never the text silently: the rendering
				// as --format names it, and the page's digest.
				doc := map[string]any{
					"mediaType":   "application/vnd.obaudit.report+json;version=1",
					"artefact":    args[0],
					"format":      format,
					"html_sha256": canon.SHA256Hex(r.HTML()),
				}
				if htmlFile != "" {
					doc["html_file"] = htmlFile
				}
				if format == "html" {
					doc["html"] = string(r.HTML())
				} else {
					doc["text"] = string(r.Text())
				}
				return writeJSON(cmd, doc)
			}
			if htmlFile != "" {
				if !cmd.Flags().Changed("format") {
					fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", htmlFile)
					return nil
				}
			}
			out := r.Text()
			if format == "html" {
				out = r.HTML()
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	c.Flags().StringVar(&htmlFile, "html", "", "write the self-contained HTML report to FILE")
	c.Flags().StringVar(&format, "format", "text", "what to print on stdout: text or html")
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "html"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}
