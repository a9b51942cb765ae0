package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/export/agentrun"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

func newExportCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "export",
		Short: "Export an episode in a format read outside the benchmark",
	}
	c.AddCommand(markSibling(newExportAgentRunCmd(g), "holds its record to the Agent Run JSON Schema"))
	return c
}

func newExportAgentRunCmd(g *globals) *cobra.Command {
	var output, schemaDir string
	c := &cobra.Command{
		Use:   "agent-run ARTEFACT",
		Short: "Map an episode artefact to an Agent Run record (the seed's agent-run schema)",
		Long: `Validates the artefact (an artefact that does not validate is not exported), maps it to an
Agent Run record as docs/agent-run-mapping.md documents field by field, and checks the record
against the Agent Run JSON Schema, compiled offline. The record's id is a slug derived from the
artefact; its file must be named <id>.json.

Without --output the record is written to stdout. --output FILE writes it to FILE, whose name
must be <id>.json; --output DIR/ (an existing directory) writes DIR/<id>.json. Files are
created exclusively and never overwritten.

The schema's external references (the okf-envelope slug, the case-study source, related case
and record metadata) resolve to labelled local stand-ins unless --schema-dir supplies the real
documents (every *.json there, keyed by its $id). Nothing is fetched. The command runs in
obaudit-sigstore, which links the JSON Schema library.

Exit 0: exported. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// A named output file is checked before any work; a directory's
			// file name is the record's id, known only after the export.
			if output != "" && !strings.HasSuffix(output, "/") {
				if fi, err := os.Stat(output); err != nil || !fi.IsDir() {
					if err := checkOutputs(0o644, output); err != nil {
						return err
					}
				}
			}
			s, err := compileAgentRunSchema(schemaDir)
			if err != nil {
				return err
			}
			in, err := readArtefactInput(cmd, args[0], true)
			if err != nil {
				return err
			}
			doc, err := exportValidate(in)
			if err != nil {
				return wrapRefusal(ErrExportArtefactInvalid, err, "not exported")
			}
			rec, err := agentrun.Export(doc, exportOperation(doc), s)
			if err != nil {
				return err
			}
			if output == "" {
				if _, err := cmd.OutOrStdout().Write(rec.Bytes); err != nil {
					return err
				}
				standInNote(cmd, s)
				return nil
			}
			path, err := agentRunPath(output, rec)
			if err != nil {
				return err
			}
			if err := safefs.WriteFile(path, rec.Bytes, 0o644); err != nil {
				return err
			}
			return writeReport(cmd, g, map[string]any{
				"mediaType": "application/vnd.obaudit.agent-run-export+json;version=1",
				"id":        rec.ID,
				"file":      path,
				"sha256":    canon.SHA256Hex(rec.Bytes),
				"schemas":   schemaSources(s),
			}, func(w io.Writer) {
				fmt.Fprintf(w, "exported %s to %s\n", rec.ID, path)
				standInNote(cmd, s)
			})
		},
	}
	c.Flags().StringVar(&output, "output", "", "write the record to FILE (named <id>.json) or into an existing DIR/")
	c.Flags().StringVar(&schemaDir, "schema-dir", "", "directory of real schema documents for the Agent Run schema's external $ids")
	return c
}

// standInNote says on stderr when external $ids were checked against the
// local stand-ins rather than the real documents.
func standInNote(cmd *cobra.Command, s agentRunSchema) {
	if n := s.StandInsUsed(); n > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: checked against %d local stand-in schema(s) for external $ids; --schema-dir supplies the real ones\n", n)
	}
}

// agentRunPath resolves --output: an existing directory (or a path ending
// in a separator) receives <id>.json; a file name must already be it.
func agentRunPath(output string, rec *agentrun.Record) (string, error) {
	fi, err := os.Stat(output)
	if strings.HasSuffix(output, "/") || strings.HasSuffix(output, string(filepath.Separator)) || err == nil && fi.IsDir() {
		return filepath.Clean(filepath.Join(output, rec.FileName())), nil
	}
	if err := agentrun.CheckFileName(rec.ID, output); err != nil {
		return "", err
	}
	return filepath.Clean(output), nil
}

// compileAgentRunSchema compiles the Agent Run schema, its external $ids
// resolved to the documents in dir ("": the embedded stand-ins). Only a
// binary that links the schema library runs it.
func compileAgentRunSchema(dir string) (agentRunSchema, error) {
	if dir == "" {
		return schemaLib.agentRun(nil)
	}
	return schemaLib.agentRun(os.DirFS(dir))
}

func schemaSources(s agentRunSchema) []any {
	var out []any
	for _, src := range s.Sources() {
		m := map[string]any{"id": src.ID, "origin": src.Origin}
		if src.File != "" {
			m["file"] = src.File
		}
		out = append(out, m)
	}
	return out
}

// exportOperation is what the pack that executes doc's operation states for
// the Agent Run export (nil when no carried pack executes it).
func exportOperation(doc *artefact.Document) *agentrun.Operation {
	p := packOfType(doc.Artefact.Operation.OperationType)
	if p == nil {
		return nil
	}
	op := &agentrun.Operation{ReadTools: p.Presentation.ReadTools, BusinessTerminals: p.TerminalClasses,
		Agents: make(map[string]agentrun.AgentFacts, len(p.Presentation.Agents))}
	for id, f := range p.Presentation.Agents {
		op.Agents[id] = agentrun.AgentFacts(f)
	}
	return op
}

// ErrEvaluationCarried is returned by export agent-run for an artefact whose
// summary fields and result vector this build could not re-derive (a
// contract, engine version or operation spec it does not carry): an Agent
// Run record has no place to say a verdict is carried, so none is exported
// as if it were established.
var ErrEvaluationCarried = refusal.Sentinel("export/evaluation-carried")

// ErrExportArtefactInvalid is returned by export agent-run when the
// artefact does not validate or its evaluation is carried (the refusal is
// the cause); nothing is exported.
var ErrExportArtefactInvalid = refusal.Sentinel("agentrun/artefact-invalid")

// exportValidate is export's check: checkArtefact, and a re-graded result
// (the record's evaluation is then the one obaudit re-derived).
func exportValidate(in *artefactInput) (*artefact.Document, error) {
	if in.err != nil {
		return nil, in.err
	}
	if rg := in.regraded; !rg.Rederived {
		return nil, refusal.New(ErrEvaluationCarried, "the evaluation is carried, not re-derived: %s", strings.Join(rg.Carried, "; "))
	}
	return in.doc, nil
}
