package main

import (
	"fmt"
	"io"

	"github.com/obaudit/obaudit/export/agentrun"
	"github.com/spf13/cobra"
)

// The --agent-run mode of `obaudit validate`. It lives in its own file so
// that the validate command (artefact validation, validate.go) needs only a
// minimal hook: it registers the flags with addAgentRunFlags, takes its
// argument rule through agentRunArgs, and when agentRunFlags.file is set
// returns validateAgentRun instead of validating an artefact.

// agentRunFlags are the validate command's --agent-run options.
type agentRunFlags struct {
	file      string
	schemaDir string
}

// agentRunArgs is the validate command's argument rule: no positional
// argument with --agent-run, otherwise the artefact command's own rule.
func agentRunArgs(f *agentRunFlags, otherwise cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if f.file != "" {
			return cobra.NoArgs(cmd, args)
		}
		return otherwise(cmd, args)
	}
}

// addAgentRunFlags registers --agent-run and --schema-dir on c, into f.
func addAgentRunFlags(c *cobra.Command, f *agentRunFlags) {
	c.Flags().StringVar(&f.file, "agent-run", "", "validate an Agent Run record FILE (schema and the id = file slug rule) instead of an artefact")
	c.Flags().StringVar(&f.schemaDir, "schema-dir", "", "with --agent-run: directory of real schema documents for the Agent Run schema's external $ids")
}

// validateAgentRun checks an Agent Run record file: strict JSON, the seed
// schema compiled offline (external $ids from --schema-dir or the labelled
// local stand-ins), and its id against its file name. Exit 0 valid; exit 1
// refused, by class.
func validateAgentRun(cmd *cobra.Command, g *globals, f *agentRunFlags) error {
	s, err := compileAgentRunSchema(f.schemaDir)
	if err != nil {
		return err
	}
	raw, err := readInput(cmd, f.file)
	if err != nil {
		return err
	}
	checked, err := agentrun.ValidateRecord(raw, f.file, s)
	if err != nil {
		return err
	}
	return writeReport(cmd, g, map[string]any{
		"mediaType":          "application/vnd.obaudit.agent-run-validation+json;version=1",
		"ok":                 true,
		"id":                 checked.ID,
		"file":               f.file,
		"schemas":            schemaSources(s),
		"stand_ins_used":     int64(s.StandInsUsed()),
		"does_not_establish": "that the record's claims are true: it checks the record's shape and its name, not the episode it describes (export it again from the artefact to compare)",
	}, func(w io.Writer) {
		fmt.Fprintf(w, "agent-run OK: %s (id %s)\n", f.file, checked.ID)
		for _, src := range s.Sources() {
			from := src.Origin
			if src.File != "" {
				from += " " + src.File
			}
			fmt.Fprintf(w, "  schema %s: %s\n", src.ID, from)
		}
		if n := s.StandInsUsed(); n > 0 {
			fmt.Fprintf(w, "note: %d external schema(s) are local stand-ins; --schema-dir supplies the real ones\n", n)
		}
	})
}
