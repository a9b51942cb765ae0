package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

func newReplayCmd(g *globals) *cobra.Command {
	var specFile string
	c := &cobra.Command{
		Use:   "replay FILE [--spec FILE]",
		Short: "Re-execute an episode artefact and compare the result section by section",
		Long: `Validates the artefact (see obaudit validate), then re-executes its episode under the
engine version it names, against the operation spec (the embedded default unless --spec
names one; its digest must be the artefact's), and compares the artefact that reproduction
would have written with the recorded one, section by section (identity, metadata, events,
trajectory, final_state, evaluation, decisions, execution, provider_execution), on canonical
bytes. The report names the first divergence and lists what was carried forward unverified.

A deterministic record is reproduced by rerunning its registered agent (nothing carried).
A model or recorded record is reproduced by playing its own decision tape back: each
decision must be asked for at its recorded invocation and turn and be offered an observation
with its recorded digest. A model record's execution record and provider binding are
carried forward (the ledger is never opened). Its request digests are rebuilt from the
observations the replay offers, under the recorded model and output ceiling, when its
binding names this build's request mapping (the settings obaudit preflight records), and
must equal the recorded ones (else refused: replay/request-digest-mismatch); any other
model record's request digests are listed as unverified.

Replay makes no provider call and opens no network connection. Contracts 1 to 7 are read
but not reproduced.

Exit 0: reproduced. Exit 1: refused, by class. Exit 2: replayed, and it differs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			doc, err := readArtefact(cmd, args[0])
			if err != nil {
				return err
			}
			pack, err := replayPack(doc)
			if err != nil {
				return err
			}
			spec, err := readOptional(cmd, specFile, kindSpec)
			if err != nil {
				return err
			}
			r, err := replayAgainst(pack, doc, spec, specFile)
			if err != nil {
				return err
			}
			t := r.Tree()
			t["mediaType"] = "application/vnd.obaudit.replay+json;version=1"
			t["established"] = "reproduction"
			t["ledger_opened"] = false
			if err := writeReport(cmd, g, t, func(w io.Writer) { printReplay(w, r) }); err != nil {
				return err
			}
			if !r.OK() {
				d := r.FirstDivergence
				return answerNo("the replay differs from the record: first at %s %s (recorded %s, replayed %s)", d.Section, d.Pointer, d.Recorded, d.Replayed)
			}
			return nil
		},
	}
	c.Flags().StringVar(&specFile, "spec", "", "operation spec YAML to replay against (default: the embedded spec of the artefact's pack)")
	return c
}

// replayPack is the carried pack that re-executes doc. It refuses a record
// whose contract is not reproduced and one whose operation type no carried
// pack executes.
func replayPack(doc *artefact.Document) (*domains.Pack, error) {
	if err := artefact.NotReproducible(doc.Version()); err != nil {
		return nil, err
	}
	pack := packOfType(doc.Artefact.Operation.OperationType)
	if pack == nil {
		return nil, refusal.New(artefact.ErrUnknownOperationType, "no carried pack executes operation type %q", doc.Artefact.Operation.OperationType)
	}
	return pack, nil
}

// replayAgainst re-executes doc under pack against the operation spec
// (named source; nil is the pack's embedded spec).
func replayAgainst(pack *domains.Pack, doc *artefact.Document, spec []byte, source string) (*artefact.ReplayReport, error) {
	dom, err := pack.Operation(spec, source, doc.Artefact.ScenarioID)
	if err != nil {
		return nil, err
	}
	return episode.Replay(doc, episode.ReplayConfig{Domain: dom, Agents: packAgents(pack), RequestDigests: preflight.RequestDigests})
}

// packAgents looks up pack's registered agents by id, for replay and
// preflight.
func packAgents(pack *domains.Pack) func(id string) (episode.Registered, bool) {
	return func(id string) (episode.Registered, bool) {
		a, ok := pack.Agent(id)
		return episode.Registered{Kind: a.Kind, New: func() engine.Agent { return a.New() }}, ok
	}
}

func printReplay(w io.Writer, r *artefact.ReplayReport) {
	if r.OK() {
		fmt.Fprintf(w, "replay OK: contract %d, scenario %s, agent %s, engine %s\n", r.ArtifactVersion, r.ScenarioID, r.AgentID, r.EngineVersion)
	} else {
		fmt.Fprintf(w, "replay DIFFERS: contract %d, scenario %s, agent %s, engine %s\n", r.ArtifactVersion, r.ScenarioID, r.AgentID, r.EngineVersion)
	}
	fmt.Fprintf(w, "reproduced by      %s\n", r.Reproduction)
	fmt.Fprintf(w, "provider calls     %d\n", r.ProviderCalls)
	var secs []string
	for _, s := range r.Sections {
		v := "ok"
		if !s.Matches {
			v = "DIFFERS"
		}
		secs = append(secs, s.Name+" "+v)
	}
	fmt.Fprintf(w, "sections           %s\n", strings.Join(secs, ", "))
	fmt.Fprintf(w, "final state        recorded %s, replayed %s\n", r.RecordedFinalStateDigest, r.ReplayedFinalStateDigest)
	fmt.Fprintf(w, "trajectory         recorded %s, replayed %s\n", r.RecordedTrajectoryDigest, r.ReplayedTrajectoryDigest)
	if d := r.FirstDivergence; d != nil {
		fmt.Fprintf(w, "first divergence   %s %s: recorded %s, replayed %s\n", d.Section, d.Pointer, d.Recorded, d.Replayed)
		for _, line := range r.Differences {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if !r.TotalComparison() {
		fmt.Fprintf(w, "carried forward    %s (not total: these fields came from the record and were not re-derived)\n", strings.Join(r.CarriedForward, ", "))
	}
	if r.RequestDigestsRebuilt > 0 {
		fmt.Fprintf(w, "request digests    %d rebuilt from the replayed observations under the recorded identity, all equal\n", r.RequestDigestsRebuilt)
	}
	for _, u := range r.Unverified {
		fmt.Fprintf(w, "unverified         %s\n", u)
	}
	fmt.Fprintf(w, "established        reproduction under the recorded engine; no ledger was opened and nothing is attested\n")
}

// writeRunArtefact takes the contract-8 artefact of an episode `obaudit run`
// executed and graded (episode.Run), validates it as a reader would, and
// writes it to path exactly once without following links (mode 0600). The
// file's SHA-256 goes to stderr so stdout stays the run report.
func writeRunArtefact(cmd *cobra.Command, path string, a *artefact.Artefact) error {
	b, err := artefact.Write(path, a, artefactOptions())
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "artefact written: %s (sha256 %s)\n", path, canon.SHA256Hex(b))
	return nil
}
