package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
	"github.com/spf13/cobra"
)

// runMediaType names the `obaudit run --json` report format.
const runMediaType = "application/vnd.obaudit.run+json;version=1"

func newRunCmd(g *globals) *cobra.Command {
	var scenario, agentID, specFile, instanceID, engineVersion, output, arm string
	var model modelFlags
	c := &cobra.Command{
		Use:   "run --scenario V1|V2|V3 [--agent reference] [--spec FILE] [--operation-instance-id ID]",
		Short: "Run one episode of the embedded deterministic engine and report its result vector and digests",
		Long: `Run one episode of the lettings maintenance operation with a deterministic agent,
including the determinism self-check (the episode is executed twice and the
final-state and trajectory digests compared), and report the terminal status,
invocations, simulated minutes, the trajectory, final-state and decisions
digests, and the result vector graded under the engine version: reliable, the
eleven dimensions with pass/fail, counts and finding codes (the artefact's
evaluation, computed as --output writes it). An unknown --engine is refused
(engine/unknown-version). The operation instance id is minted at random unless given; pin it
(opinst_0123456789abcdef0123456789abcdef) to reproduce upstream's fixtures.

With --model PROFILE the episode is decided by a model through its profile's provider lane
(docs/commands.md, "run a real model"): --live is required (without it the command is refused
before anything is read or dialled), with --output-dir, --input-usd-per-mtok,
--output-usd-per-mtok and --cost-cap-usd (no defaults), and the credential in the profile's
environment variable.

Agents (--agent):
` + agentTable(domains.Default()) + `
Exit status: 0 the episode ran and reproduced; 2 the determinism self-check did
not reproduce it; 1 an input was refused, by class (an unknown --agent is
agent/unknown, an unknown --engine engine/unknown-version); 64 the command line
was invalid; 70 an I/O failure; 130 interrupted (SIGINT or SIGTERM) before
anything was written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("model") {
				if arm != armFull {
					return usagef("--model runs the %s arm only; a model on %s is not built yet", armFull, arm)
				}
				return runModel(cmd, g, &model, scenario, instanceID, engineVersion)
			} else if err := model.strayFlags(cmd); err != nil {
				return err
			}
			if cmd.Flags().Changed("arm") {
				return runArm(cmd, g, armRun{arm, scenario, agentID, specFile, instanceID, engineVersion, output})
			}
			pack := domains.Default()
			if scenario == "" {
				return usagef("--scenario is required")
			}
			agent, ok := pack.Agent(agentID)
			if !ok {
				return refusal.New(agents.ErrUnknownAgent, "--agent %q is not a registered agent; the registered agents are %s", agentID, strings.Join(pack.AgentIDs(), ", "))
			}
			if err := knownEngine(engineVersion); err != nil {
				return err
			}
			if instanceID == "" {
				instanceID = randomID("opinst_")
			}
			spec, err := readOptional(cmd, specFile, kindSpec)
			if err != nil {
				return err
			}
			dom, err := pack.Operation(spec, specFile, scenario)
			if err != nil {
				return err
			}
			if output != "" {
				if err := checkOutputs(artefact.FileMode, output); err != nil { // before the episode runs
					return err
				}
			}
			res, err := episode.Run(episode.Config{
				Domain: dom, NewAgent: agent.New, AgentID: agent.ID, AgentKind: agent.Kind,
				OperationInstanceID: instanceID, EngineVersion: engineVersion,
			})
			if err != nil {
				return err
			}
			ep, ev := res.Episode, &res.Artefact.Evaluation
			if err := interrupted(cmd.Context()); err != nil {
				return err // nothing is written after an interrupt
			}
			if output != "" {
				if err := writeRunArtefact(cmd, output, res.Artefact); err != nil {
					return err
				}
			}
			replay := "diverged"
			if ep.ReplayOK != nil && *ep.ReplayOK {
				replay = "reproduced"
			}
			report := map[string]any{
				"mediaType":                 runMediaType,
				"engine_version":            ep.EngineVersion,
				"operation":                 ep.Meta.Operation,
				"operation_instance_id":     ep.OperationInstanceID,
				"scenario_id":               ep.Meta.ScenarioID,
				"agent_id":                  ep.AgentID,
				"agent_kind":                ep.AgentKind,
				"expected_terminal":         ep.Meta.ExpectedTerminal,
				"status":                    ep.Status,
				"terminal_outcome":          ep.TerminalOutcome,
				"replay_final":              ep.ReplayFinal,
				"started_at":                ep.StartedAt,
				"ended_at":                  ep.EndedAt,
				"agent_invocations":         int64(ep.Invocations),
				"decisions":                 int64(len(ep.Decisions)),
				"simulated_minutes":         ep.SimulatedMinutes,
				"trajectory_records":        int64(len(ep.Trajectory)),
				"trajectory_digest_sha256":  ep.TrajectoryDigest,
				"final_state_digest_sha256": ep.FinalStateDigest,
				"decisions_digest_sha256":   ep.DecisionsDigest,
				"determinism_self_check":    replay,
				"reliable":                  ev.Reliable,
				"evaluation":                res.Artefact.Tree()["evaluation"],
			}
			if err := writeReport(cmd, g, report, func(w io.Writer) {
				terminal := "null"
				if s, ok := ep.TerminalOutcome.(string); ok {
					terminal = s
				}
				fmt.Fprintf(w, "scenario %s, agent %s (%s), engine %s\n", ep.Meta.ScenarioID, ep.AgentID, ep.AgentKind, ep.EngineVersion)
				fmt.Fprintf(w, "operation %s, spec %s\n", ep.Meta.OperationID, ep.Meta.SpecDigest)
				fmt.Fprintf(w, "operation_instance_id: %s\n", ep.OperationInstanceID)
				fmt.Fprintf(w, "status: %s (expected terminal %s)\n", ep.Status, ep.Meta.ExpectedTerminal)
				fmt.Fprintf(w, "terminal_outcome: %s\n", terminal)
				fmt.Fprintf(w, "agent_invocations: %d\n", ep.Invocations)
				fmt.Fprintf(w, "decisions: %d\n", len(ep.Decisions))
				fmt.Fprintf(w, "simulated_minutes: %d (%s to %s)\n", ep.SimulatedMinutes, ep.StartedAt, ep.EndedAt)
				fmt.Fprintf(w, "trajectory_records: %d\n", len(ep.Trajectory))
				fmt.Fprintf(w, "trajectory_digest_sha256: %s\n", ep.TrajectoryDigest)
				fmt.Fprintf(w, "final_state_digest_sha256: %s\n", ep.FinalStateDigest)
				fmt.Fprintf(w, "decisions_digest_sha256: %s\n", ep.DecisionsDigest)
				fmt.Fprintf(w, "determinism_self_check: %s\n", replay)
				writeResultVector(w, ev)
			}); err != nil {
				return err
			}
			return answerNoUnless(replay == "reproduced", "the determinism self-check did not reproduce the episode")
		},
	}
	c.Flags().StringVar(&scenario, "scenario", "", "scenario to run (V1, V2 or V3)")
	c.Flags().StringVar(&agentID, "agent", "reference", "registered agent id")
	c.Flags().StringVar(&specFile, "spec", "", "operation spec YAML (default: the embedded lettings_maintenance_synthetic_v1 0.6.0)")
	c.Flags().StringVar(&instanceID, "operation-instance-id", "", "opinst_ + 32 lower-case hex (default: random)")
	c.Flags().StringVar(&output, "output", "", "write the episode artefact (contract 8) to this new file")
	model.register(c.Flags())
	c.Flags().StringVar(&engineVersion, "engine", schemas.EngineObaudit, "engine version recorded for the run (the runtime is the same for both)")
	c.Flags().StringVar(&arm, "arm", armFull, "primary arm: full_lifecycle or stateful_time_removed (given: the report carries CommonOutcomeV1; see run_arms.go)")
	return c
}

// agentTable lists a pack's agents as an aligned table: id, kind, the
// scenarios it is registered for.
func agentTable(p *domains.Pack) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  id\tkind\tscenarios\n")
	for _, a := range p.Agents {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", a.ID, a.Kind, strings.Join(a.Scenarios, ", "))
	}
	tw.Flush()
	return b.String()
}

// knownEngine refuses an engine version this build does not carry, by name
// (engine/unknown-version, exit 1), as the engine and the gate do.
func knownEngine(version string) error {
	if !slices.Contains(schemas.Engines(), version) {
		return refusal.New(engine.ErrUnknownEngineVersion, "--engine %q is not one of %s", version, strings.Join(schemas.Engines(), ", "))
	}
	return nil
}

// writeResultVector prints the evaluation of a run: the verdict, then the
// eleven dimensions in contract order, each with its result, its counts
// (sorted by name) and its findings.
func writeResultVector(w io.Writer, ev *artefact.Evaluation) {
	none := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(w, "reliable: %v (legitimate_completion: %v)\n", ev.Reliable, ev.LegitimateCompletion)
	fmt.Fprintf(w, "failed_dimensions: %s\n", none(ev.FailedDimensions))
	fmt.Fprintf(w, "finding_codes: %s\n", none(ev.FindingCodes))
	fmt.Fprintf(w, "dimensions:\n")
	for i, d := range ev.Dimensions {
		res := "OK"
		if !d.OK {
			res = "FAILED"
		}
		var counts []string
		for _, k := range slices.Sorted(maps.Keys(d.Counts)) {
			counts = append(counts, fmt.Sprintf("%s=%d", k, d.Counts[k]))
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %2d %-22s %-6s %s", i+1, d.Name, res, strings.Join(counts, " ")), " "))
		for _, f := range d.Findings {
			fmt.Fprintf(w, "       ! %s: %s\n", f.Code, f.Detail)
		}
	}
}
