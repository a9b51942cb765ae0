package main

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	episodereport "github.com/obaudit/obaudit/report"
	"github.com/spf13/cobra"
)

func newReportCmd(g *globals) *cobra.Command {
	var htmlFile, format, ledgerFile string
	c := &cobra.Command{
		Use:   "report ARTEFACT [--ledger LEDGER] [--html FILE]",
		Short: "Render an episode for an auditor: timeline, invocations, dimensions, digests",
		Long: `Validates the artefact (an artefact that does not validate is not rendered) and renders
it: what the scenario authors beside what happened (the expected terminal, authored dispatch
faults and event refusals, human decisions as business); the episode on its simulated-time
axis (events by actor, agent invocations, proposals, messages, WAITs, reads by tool with the
required reads a proposal lacked, obligations, human checkpoints, provisional close, findings,
the terminal); every invocation in detail (the waking event and its claims, each decision
with its payload, the reads served and the reads the pack requires, the engine's answer);
then the eleven dimensions with counts and findings, and the digests.

The pack that executes the artefact's operation, when obaudit carries one with exactly the
spec the artefact names (same spec digest), supplies actor roles, required reads and the
scenario's authored expectations, and the acceptance gate's rule (as 'obaudit check' applies
it) judges the verdict: a correct agent must be reliable, V2's authored notification fault
must fail exactly as authored (shown as authored, not as an agent failure), a negative
control must fail as its oracle declares. Otherwise the page says they are not shown.

--ledger LEDGER reads a model-backed run's execution ledger (verified as 'ledger verify'
does; it must be complete and be the ledger the artefact binds, by digest and run id, else
report/ledger-mismatch) and shows each provider call's tokens, cost, latency and status
beside the decision it produced.

--html FILE writes one self-contained HTML page (inline SVG, one inline stylesheet and one
inline script for search, filters and zoom, both admitted by hash; a Content-Security-Policy
forbids every load and connection), created exclusively. --format text (the default)
prints the identity, timeline, dimensions and digests as plain text; --format html prints
the page to stdout. The same inputs always render to the same bytes. With --json, stdout is one JSON
document: the rendering --format names (as "text" or "html"), the page's SHA-256 and
the --html file written.

Exit 0: rendered. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "html" {
				return usagef("unknown --format %q (want text or html)", format)
			}
			in, err := readArtefactInput(cmd, args[0], true)
			if err != nil {
				return err
			}
			opts := episodereport.Options{Pack: reportPack}
			if ledgerFile != "" {
				a, err := execledger.ReadFile(ledgerFile, execledger.Options{RequireComplete: true})
				if err != nil {
					return err
				}
				opts.Ledger = a
			}
			if in.err != nil {
				return wrapRefusal(ErrReportArtefactInvalid, in.err, "not rendered")
			}
			doc, regraded := in.doc, in.regraded
			if p := packOfType(doc.Artefact.Operation.OperationType); p != nil {
				opts.Expiry = episodereport.Expiry(p.Presentation.Expiry)
			}
			r, err := episodereport.Build(doc, opts)
			if err != nil {
				return err
			}
			if !regraded.Rederived {
				r.MarkCarried(regraded.Carried)
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
			if htmlFile != "" && !cmd.Flags().Changed("format") {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", htmlFile)
				return nil
			}
			out := r.Text()
			if format == "html" {
				out = r.HTML()
			} else if !regraded.Rederived {
				// The values above are the record's: say which were carried.
				out = append(out, []byte("\nCARRIED (not re-derived by this build; shown as the record states them):\n")...)
				for _, c := range regraded.Carried {
					out = append(out, "  "+c+"\n"...)
				}
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	c.Flags().StringVar(&htmlFile, "html", "", "write the self-contained HTML report to FILE")
	c.Flags().StringVar(&format, "format", "text", "what to print on stdout: text or html")
	c.Flags().StringVar(&ledgerFile, "ledger", "", "the execution ledger the artefact binds (a model-backed run): per-call tokens, cost, latency, status")
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "html"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// ErrReportArtefactInvalid is returned by report when the artefact does
// not validate (its own refusal is the cause); nothing is rendered.
var ErrReportArtefactInvalid = refusal.Sentinel("report/artefact-invalid")

// wrapRefusal files a refusal of the input under class (the refusal kept
// as its cause); any other failure is not a judgement on the input and is
// returned as it is.
func wrapRefusal(class *refusal.Refusal, err error, detail string) error {
	if _, ok := refusal.ClassOf(err); !ok {
		return err
	}
	return refusal.Wrap(class, err, "%s", detail)
}

// packOfType is the carried pack that executes operationType, or nil.
func packOfType(operationType string) *domains.Pack {
	for _, p := range domains.Packs() {
		if p.OperationType == operationType {
			return p
		}
	}
	return nil
}

// reportPack is the report's view of the domains registry: the pack that
// executes the artefact's operation with exactly the spec it names, and the
// acceptance gate's judgement of the episode (the reference rule, V2's
// authored fault expectation, a negative control's oracle declaration).
func reportPack(q episodereport.PackQuery) *episodereport.Pack {
	p := packOfType(q.OperationType)
	if p == nil {
		return nil
	}
	dom, err := p.Operation(nil, "", q.ScenarioID)
	if err != nil || dom.Plan().Meta.SpecDigest != q.SpecDigest {
		return nil
	}
	k := episodereport.PackOf(p.Name, dom)
	if p.Gate != nil {
		if s, err := p.Gate(nil, nil, "", ""); err == nil {
			k.Judge = func(o episodereport.Observed) *episodereport.Judgement {
				return judgeForReport(s, q.EngineVersion, o)
			}
		}
	}
	return k
}

// judgeForReport holds an episode to the gate's rule for its agent.
func judgeForReport(s *gate.Subject, version string, o episodereport.Observed) *episodereport.Judgement {
	c := gate.Check{AgentID: o.AgentID, ScenarioID: o.ScenarioID, Kind: o.AgentKind, Reliable: o.Reliable, Status: o.Status,
		FailedDimensions: o.Failed, PassedDimensions: o.Passed, FindingCodes: slices.Compact(slices.Sorted(slices.Values(o.Findings)))}
	gate.Judge(&c, s, version)
	j := &episodereport.Judgement{Failed: c.ExpectedTargets, Findings: c.ExpectedFindings, Passing: c.RequiredPassing, Problems: c.Problems}
	id := s.Oracle
	switch {
	case c.ReferenceExpectationID != "":
		j.Rule, j.Authored = c.ReferenceExpectationID, true
	case o.AgentKind == gate.KindNegative:
		j.Rule = fmt.Sprintf("oracle %s %s, control %s", id.OracleID, id.OracleVersion, o.AgentID)
	default:
		j.Rule, j.ExpectReliable = "the gate's rule for a "+o.AgentKind+" agent", true
	}
	return j
}
