package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

func newValidateCmd(g *globals) *cobra.Command {
	var schema bool
	agentRun := &agentRunFlags{} // --agent-run mode: validate_agentrun.go
	c := &cobra.Command{
		Use:   "validate FILE | validate --agent-run FILE",
		Short: "Check an episode artefact's coherence (contracts 1-8)",
		Long: `Reads an episode artefact strictly and holds it to the contract it declares (1 to 8,
each under its own historical field set, row shapes and result vector): every field's
type, form and vocabulary; the domain's final-state validator; the evaluation's derived
fields; from contract 2 the decision tape, the execution record and the provenance
binding between identity, execution and tape; from contract 7 the provider execution
binding and its coherence with the record; last, the final_state, trajectory and
decisions digests, recomputed over upstream canonical JSON. These named checks are the
validator; the published JSON Schema (schemas/artefact/v8.json) is held to them as an
oracle by the test suite. --schema also runs the published schema itself on the document
(any but one declaring contract 1-7) and reports both verdicts; either refusing exits 1
(artefact/schema when the schema refuses what the named checks accept). --schema and
--agent-run run in obaudit-sigstore, which links the JSON Schema library.

A contract-8 artefact under an engine version and an operation spec this build carries
is then re-graded: its summary fields (status, terminal_outcome, replay_final,
started_at, ended_at, simulated_minutes, agent_invocations) are re-derived from the
trajectory and final state, and its result vector from the trajectory, delivered events
and final state under the recorded engine version; any difference is refused
(validate/summary-mismatch, validate/evaluation-mismatch, naming the first differing
pointer), as is a finding code its dimension cannot raise (validate/unraisable-finding).
The report lists every field it carried (did not establish), by name.

Validation establishes coherence, not attestation, and never opens a ledger: a binding
read out of an artefact alone attributes nothing (see obaudit bundle).

Exit 0: coherent. Exit 1: refused, by class; the detail starts with the JSON pointer.`,
		Args: agentRunArgs(agentRun, cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !linked() {
				// The published schemas run in obaudit-sigstore, which links
				// the schema library (handover.go).
				switch {
				case agentRun.file != "":
					return g.handOver(cmd.CommandPath() + " --agent-run holds the record to the Agent Run JSON Schema")
				case schema:
					return g.handOver(cmd.CommandPath() + " --schema runs the published JSON Schema")
				}
			}
			if agentRun.file != "" {
				return validateAgentRun(cmd, g, agentRun)
			}
			// Before the read: start-up and the read reach the default
			// 4 MB first target on their own.
			collectLessOften()
			in, err := readArtefactInput(cmd, args[0], true)
			if err != nil {
				return err
			}
			b, doc, regraded, err := in.raw, in.doc, in.regraded, in.err
			var sv *schemaVerdict
			if schema {
				sv = checkSchema(b, doc)
				if err == nil && sv.err != nil {
					err = sv.err
				}
			}
			w := cmd.OutOrStdout()
			if err != nil {
				if g.json {
					r := refusedReport(err)
					if sv != nil {
						r["schema_verdict"] = sv.report()
					}
					if werr := writeJSON(cmd, r); werr != nil {
						return werr
					}
				} else if sv != nil {
					named := "accepted"
					if sv.err != err {
						class, _ := refusal.ClassOf(err)
						named = "refused: " + string(class)
					}
					fmt.Fprintf(w, "named checks:     %s\njson schema:      %s\n", named, sv.line())
				}
				return err
			}
			r := validateReport(doc, regraded)
			if sv != nil {
				r["schema_verdict"] = sv.report()
				r["json_schema"] = sv.notApplicable == ""
			}
			return writeReport(cmd, g, r, func(w io.Writer) {
				a := doc.Artefact
				fmt.Fprintf(w, "artefact OK: contract %d, engine %s, scenario %s, agent %s (%s)\n",
					doc.Version(), a.EngineVersion, a.ScenarioID, a.AgentID, a.AgentKind)
				fmt.Fprintf(w, "file sha256:      %s\n", doc.FileSHA256)
				fmt.Fprintf(w, "canonical form:   %v\n", doc.Canonical)
				fmt.Fprintf(w, "final_state:      %s (recomputed)\n", a.FinalStateDigest)
				fmt.Fprintf(w, "trajectory:       %s (recomputed)\n", a.TrajectoryDigest)
				if doc.Version() >= 2 {
					fmt.Fprintf(w, "decisions:        %s (recomputed)\n", a.DecisionsDigest)
					fmt.Fprintf(w, "outcome source:   %s, %d decision(s), %d provider call(s)\n",
						a.Execution.OutcomeSource, len(a.Decisions), a.Execution.TransportCalls)
				}
				if doc.Version() >= 7 {
					if p := a.ProviderExecution; p == nil {
						fmt.Fprintf(w, "provider binding: none (no provider reached)\n")
					} else {
						fmt.Fprintf(w, "provider binding: %s %s %s, ledger v%d %s (not opened)\n",
							p.Provider, p.API, p.Model, p.ExecutionLedgerVersion, p.ExecutionLedgerDigest)
					}
				}
				fmt.Fprintf(w, "reproducible contract: %v\n", artefact.Reproducible(doc.Version()))
				schemaLine := "not run (the named checks are the validator; --schema also runs schemas/artefact/v8.json)"
				if sv != nil {
					schemaLine = sv.line()
				} else if why := schemaNotApplicable(doc.Tree); why != "" {
					schemaLine = why
				}
				fmt.Fprintf(w, "json schema:      %s\n", schemaLine)
				if regraded.Rederived {
					fmt.Fprintf(w, "evaluation:       re-graded under engine %s from the trajectory, events and final state: equal\n", a.EngineVersion)
				}
				fmt.Fprintf(w, "carried:          %s\n", strings.Join(carriedList(doc, regraded), "; "))
				fmt.Fprintf(w, "established:      coherence only; no ledger was opened and nothing is attested\n")
			})
		},
	}
	c.Flags().BoolVar(&schema, "schema", false, "also hold the document to the published JSON Schema (schemas/artefact/v8.json) and report both verdicts")
	addAgentRunFlags(c, agentRun)
	return c
}

// schemaVerdict is validate --schema's second verdict: the published JSON
// Schema's on the same document (artefact/schema.Check, in a binary that links it), or why it does
// not apply.
type schemaVerdict struct {
	notApplicable string // why the schema was not run, or ""
	err           error  // the schema's refusal
}

// checkSchema runs the published schema on the document read from b (doc's
// tree when the named checks accepted it; otherwise b parsed again, under
// the reader's bounds).
func checkSchema(b []byte, doc *artefact.Document) *schemaVerdict {
	var tree any
	if doc != nil {
		tree = doc.Tree
	} else {
		var err error
		if tree, err = artefact.Parse(b); err != nil {
			return &schemaVerdict{notApplicable: "not run (the document does not parse)"}
		}
	}
	if why := schemaNotApplicable(tree); why != "" {
		return &schemaVerdict{notApplicable: why}
	}
	return &schemaVerdict{err: schemaLib.artefact(tree)}
}

// schemaNotApplicable says why the published schema does not speak to a
// tree (it declares contract 1-7), or "".
func schemaNotApplicable(tree any) string {
	if artefact.SchemaApplies(tree) {
		return ""
	}
	return fmt.Sprintf("not applicable (contract %v; the published schema is contract %d's)", tree.(map[string]any)["artifact_version"], artefact.Version)
}

func (v *schemaVerdict) line() string {
	switch {
	case v.notApplicable != "":
		return v.notApplicable
	case v.err != nil:
		class, _ := refusal.ClassOf(v.err)
		return "refused: " + string(class) + ": " + refusal.Detail(v.err)
	}
	return "passed (schemas/artefact/v8.json)"
}

func (v *schemaVerdict) report() map[string]any {
	switch {
	case v.notApplicable != "":
		return map[string]any{"applicable": false, "reason": v.notApplicable}
	case v.err != nil:
		return map[string]any{"applicable": true, "ok": false, "refusal": refusalObject(v.err)}
	}
	return map[string]any{"applicable": true, "ok": true}
}

// collectLessOften raises the garbage collector's target for the rest of
// this (short-lived) process, unless GOGC or GOMEMLIMIT is set in the
// environment: validation allocates about 4.5 MB for the 220 KB V1 artefact
// and keeps little of it, and at the default target the collector (and the
// write barriers it turns on while it marks) costs about a fifth of the
// CPU time. GOGC=400 lets the heap reach five times its live size before a
// collection (tens of megabytes here); the soft limit readInput sets
// (64 MiB + 7× the bytes read, boundMemory) makes the collector work harder
// rather than let a large input grow the heap past it.
var collectLessOften = sync.OnceFunc(func() {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if gogc || limit {
		return
	}
	debug.SetGCPercent(400)
	// The soft memory limit is readInput's (boundMemory): the collector
	// works harder rather than let the heap pass the bound.
})

// validateReport is the --json report of a coherent artefact.
func validateReport(doc *artefact.Document, rg *episode.Regraded) map[string]any {
	a := doc.Artefact
	digests := map[string]any{
		"final_state_digest_sha256": a.FinalStateDigest,
		"trajectory_digest_sha256":  a.TrajectoryDigest,
	}
	r := map[string]any{
		"mediaType":             "application/vnd.obaudit.validate+json;version=1",
		"ok":                    true,
		"established":           "coherence",
		"ledger_opened":         false,
		"file_sha256":           doc.FileSHA256,
		"canonical":             doc.Canonical,
		"artifact_version":      doc.Version(),
		"reproducible_contract": artefact.Reproducible(doc.Version()),
		"engine_version":        a.EngineVersion,
		"scenario_id":           a.ScenarioID,
		"agent_id":              a.AgentID,
		"agent_kind":            a.AgentKind,
		"digests":               digests,
		"json_schema":           false,
		"regraded":              rg.Rederived,
		"carried":               carriedList(doc, rg),
	}
	if doc.Version() >= 2 {
		digests["decisions_digest_sha256"] = a.DecisionsDigest
		r["outcome_source"] = a.Execution.OutcomeSource
		r["decisions"] = len(a.Decisions)
		r["transport_calls"] = a.Execution.TransportCalls
	}
	if doc.Version() >= 4 {
		r["operation_instance_id"] = a.OperationInstanceID
	}
	if doc.Version() >= 7 {
		r["provider_execution"] = nil
		if p := a.ProviderExecution; p != nil {
			r["provider_execution"] = map[string]any{
				"execution_run_id":               p.ExecutionRunID,
				"execution_ledger_version":       p.ExecutionLedgerVersion,
				"execution_ledger_digest_sha256": p.ExecutionLedgerDigest,
				"provider":                       p.Provider,
				"api":                            p.API,
				"model":                          p.Model,
				"provider_calls":                 p.ProviderCalls,
				"attributed":                     false,
			}
		}
	}
	return r
}

// refusedReport is the --json report of a refused artefact (the refusal is
// also printed to stderr and the exit code is 1).
func refusedReport(err error) map[string]any {
	return map[string]any{
		"mediaType": "application/vnd.obaudit.validate+json;version=1",
		"ok":        false,
		"refusal":   refusalObject(err),
	}
}

// refusalObject is a refusal in a --json report: its class, detail and
// pointer (when it names a value).
func refusalObject(err error) map[string]any {
	class, _ := refusal.ClassOf(err)
	r := map[string]any{"class": string(class), "detail": refusal.Detail(err)}
	if p, ok := artefact.Pointer(err); ok {
		r["pointer"] = p
	}
	return r
}

// artefactOptions registers every carried pack with the artefact reader:
// its operation type, its registered agents and kinds, its terminal classes
// and its canonical-state validator. It is the one wiring of packs into
// artefact reading; validate, replay, bundle and export share it.
func artefactOptions() artefact.Options {
	var opts artefact.Options
	for _, p := range domains.Packs() {
		opts.Domains = append(opts.Domains, p.ArtefactDomain())
	}
	return opts
}

// validateArtefactTree is the full artefact validation (every registered
// pack) and re-grade for callers that hold a parsed tree, such as the bundle
// audit's first step.
func validateArtefactTree(tree map[string]any) error {
	a, err := artefact.Validate(tree, artefactOptions())
	if err != nil {
		return err
	}
	_, err = regradeArtefact(&artefact.Document{Artefact: a, Tree: tree})
	return err
}

// checkArtefact is the one reading of an artefact every command that vouches
// for one shares: obaudit validate's strict read of the file's bytes with
// every named check of the contract the document declares and every
// carried pack's final-state validator, then the re-grade of its summary
// fields and result vector (episode.Regrade) under the recorded engine
// version.
func checkArtefact(b []byte) (*artefact.Document, *episode.Regraded, error) {
	collectLessOften()
	doc, err := artefact.Read(b, artefactOptions())
	if err != nil {
		return nil, nil, err
	}
	r, err := regradeArtefact(doc)
	if err != nil {
		return nil, nil, err
	}
	return doc, r, nil
}

// artefactInput is an artefact input read whole and parsed once.
type artefactInput struct {
	raw      []byte
	doc      *artefact.Document // nil when err is not
	regraded *episode.Regraded  // with the re-grade (checkArtefact)
	err      error              // the parse's, or the checks', refusal
}

// readArtefactInput is the one path by which a command reads an artefact
// input (a file, or - for stdin): whole, then strictly with every named
// check of its contract (artefact.Read), and with regrade the re-grade
// after them (checkArtefact). Its kind is judged after that parse
// (checkArtefactKind), not by a sniff before it, so an input recognisably
// of another kind is refused (input/wrong-kind) before the parse's own
// refusal, as readInputAs refuses it. The returned error is the read's or
// the kind's; the parse's is in.err, for the command to report in its own
// terms and order.
func readArtefactInput(cmd *cobra.Command, name string, regrade bool) (*artefactInput, error) {
	b, err := readInput(cmd, name)
	if err != nil {
		return nil, err
	}
	in := parseArtefact(b, regrade)
	var tree map[string]any
	if in.err == nil {
		tree = in.doc.Tree
	}
	if err := checkArtefactKind(name, b, tree); err != nil {
		return nil, err
	}
	return in, nil
}

// parseArtefact is readArtefactInput's parse of b, which judges no kind.
func parseArtefact(b []byte, regrade bool) *artefactInput {
	in := &artefactInput{raw: b}
	if regrade {
		in.doc, in.regraded, in.err = checkArtefact(b)
	} else {
		in.doc, in.err = artefact.Read(b, artefactOptions())
	}
	return in
}

// readArtefact is readArtefactInput without the re-grade, as arms verify
// and replay take an artefact: the parse's refusal is its error.
func readArtefact(cmd *cobra.Command, name string) (*artefact.Document, error) {
	in, err := readArtefactInput(cmd, name, false)
	if err != nil {
		return nil, err
	}
	return in.doc, in.err
}

// regradeArtefact re-grades doc with the grading contract of the carried
// spec it names (the pack's embedded spec, when its digest is the
// artefact's; otherwise the evaluation is carried, by name).
func regradeArtefact(doc *artefact.Document) (*episode.Regraded, error) {
	var cfg episode.RegradeConfig
	a := doc.Artefact
	if p := packOfType(a.Operation.OperationType); p != nil && p.Terminal != nil {
		dom, err := p.Operation(nil, "", a.ScenarioID)
		if g, ok := dom.(engine.Graded); ok && err == nil && dom.Plan().Meta.SpecDigest == a.Operation.SpecDigest {
			cfg.Contract = g.GradingContract()
			cfg.Terminal = p.Terminal
		}
	}
	return episode.Regrade(doc, cfg)
}

// carriedList names every field validate did not establish: the field
// table's carried rows for the document's contract (artefact.CarriedFields)
// and what the re-grade carried, with its reason.
func carriedList(doc *artefact.Document, rg *episode.Regraded) []string {
	out := artefact.CarriedFields("validate", doc.Version())
	return append(out, rg.Carried...)
}
