package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commonoutcome"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/spf13/cobra"
)

const (
	armFull = notimewire.ArmFull
	// runArmMediaType names the `obaudit run --arm` report format.
	runArmMediaType = "application/vnd.obaudit.run-arm+json;version=1"
)

// armRun is what `obaudit run --arm` was given.
type armRun struct {
	arm, scenario, agentID, specFile, instanceID, engineVersion, output string
}

// armDomain binds one scenario of the default pack (or --spec) and the agent.
func armDomain(cmd *cobra.Command, specFile, scenario, agentID string) (engine.Domain, pair.Agent, error) {
	pack := domains.Default()
	a, ok := pack.Agent(agentID)
	if !ok {
		return nil, pair.Agent{}, usagef("unknown --agent %q (want one of %v)", agentID, pack.AgentIDs())
	}
	spec, err := readOptional(cmd, specFile)
	if err != nil {
		return nil, pair.Agent{}, err
	}
	d, err := pack.Operation(spec, specFile, scenario)
	if err != nil {
		return nil, pair.Agent{}, err
	}
	return d, pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}, nil
}

// runArm runs one episode on the named primary arm and reports it with its
// CommonOutcomeV1 object. full_lifecycle writes a contract-8 artefact with
// --output; stateful_time_removed writes an obaudit.arm.stateful_time_removed.run.v1
// record.
func runArm(cmd *cobra.Command, g *globals, o armRun) error {
	if err := pair.Known(o.arm); err != nil {
		return err
	}
	if o.scenario == "" {
		return usagef("--scenario is required")
	}
	d, a, err := armDomain(cmd, o.specFile, o.scenario, o.agentID)
	if err != nil {
		return err
	}
	if o.instanceID == "" {
		o.instanceID = randomID("opinst_")
	}
	report := map[string]any{"mediaType": runArmMediaType, "arm": o.arm, "scenario_id": d.Plan().Meta.ScenarioID,
		"agent_id": a.ID, "agent_kind": a.Kind, "operation_instance_id": o.instanceID, "spec_digest_sha256": d.Plan().Meta.SpecDigest}
	var outcome notimewire.CommonOutcomeV1
	reproduced := false
	if o.arm == armFull {
		if err := knownEngine(o.engineVersion); err != nil {
			return err
		}
		res, err := episode.Run(episode.Config{Domain: d, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind,
			OperationInstanceID: o.instanceID, EngineVersion: o.engineVersion})
		if err != nil {
			return err
		}
		if o.output != "" {
			if err := writeRunArtefact(cmd, o.output, res.Artefact); err != nil {
				return err
			}
		}
		ep := res.Episode
		if outcome, err = pair.GradeFull(d, ep); err != nil {
			return err
		}
		reproduced = ep.ReplayOK != nil && *ep.ReplayOK
		report["engine_version"] = ep.EngineVersion
		report["status"] = ep.Status
		report["terminal_outcome"] = ep.TerminalOutcome
		report["replay_final"] = ep.ReplayFinal
		report["agent_invocations"] = int64(ep.Invocations)
		report["simulated_minutes"] = ep.SimulatedMinutes
		report["trajectory_digest_sha256"] = ep.TrajectoryDigest
		report["final_state_digest_sha256"] = ep.FinalStateDigest
		report["decisions_digest_sha256"] = ep.DecisionsDigest
	} else {
		nt, err := pair.NoTimeRun(d, a, o.instanceID)
		if err != nil {
			return err
		}
		b, err := notimerecord.Encode(nt)
		if err != nil {
			return err
		}
		// Determinism self-check: a second execution with a fresh agent
		// gives the same record bytes, and the record replays from its
		// decision tape alone (no agent, no provider).
		same, err := noTimeRerunSame(d, a, o.instanceID, b)
		if err != nil {
			return err
		}
		replayed, err := pair.Replay(d, nt)
		if err != nil {
			return err
		}
		reproduced = same && replayed
		if o.output != "" {
			if err := safefs.WriteFile(o.output, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "record written: %s (sha256 %s)\n", o.output, canon.SHA256Hex(b))
		}
		if outcome, err = pair.GradeNoTime(d, nt); err != nil {
			return err
		}
		report["protocol"] = notimewire.Protocol
		report["contract"] = notimewire.RunContract
		report["status"] = nt.Halt
		report["halt_code"] = nt.HaltCode
		report["terminal_outcome"] = nt.TerminalOutcome
		report["replay_final"] = nt.ReplayFinal
		report["agent_invocations"] = nt.Invocations
		report["transitions"] = nt.TransitionCount
		report["max_transitions"] = nt.Plan.MaxTransitions
		report["simulated_minutes"] = nil
		report["trajectory_digest_sha256"] = nt.TrajectoryDigest
		report["final_state_digest_sha256"] = nt.FinalStateDigest
		report["decisions_digest_sha256"] = nt.DecisionsDigest
		report["plan_digest_sha256"] = nt.PlanDigest
		report["provider_calls"] = int64(0)
	}
	self := "diverged"
	if reproduced {
		self = "reproduced"
	}
	report["determinism_self_check"] = self
	report["common_outcome"] = commonoutcome.Tree(outcome)
	if err := writeReport(cmd, g, report, func(w io.Writer) {
		fmt.Fprintf(w, "arm: %s\n", o.arm)
		fmt.Fprintf(w, "scenario %s, agent %s (%s)\n", report["scenario_id"], a.ID, a.Kind)
		fmt.Fprintf(w, "operation_instance_id: %s\n", o.instanceID)
		fmt.Fprintf(w, "status: %v\n", report["status"])
		fmt.Fprintf(w, "terminal_outcome: %v\n", orNull(report["terminal_outcome"]))
		fmt.Fprintf(w, "agent_invocations: %v\n", report["agent_invocations"])
		if o.arm != armFull {
			fmt.Fprintf(w, "transitions: %v of %v\n", report["transitions"], report["max_transitions"])
			fmt.Fprintf(w, "plan_digest_sha256: %s\n", report["plan_digest_sha256"])
		}
		fmt.Fprintf(w, "trajectory_digest_sha256: %s\n", report["trajectory_digest_sha256"])
		fmt.Fprintf(w, "final_state_digest_sha256: %s\n", report["final_state_digest_sha256"])
		fmt.Fprintf(w, "decisions_digest_sha256: %s\n", report["decisions_digest_sha256"])
		fmt.Fprintf(w, "determinism_self_check: %s\n", self)
		writeCommonOutcome(w, outcome)
	}); err != nil {
		return err
	}
	return answerNoUnless(reproduced, "the determinism self-check did not reproduce the episode")
}

func orNull(v any) any {
	if v == nil {
		return "null"
	}
	return v
}

// writeCommonOutcome prints a CommonOutcomeV1 object.
func writeCommonOutcome(w io.Writer, o notimewire.CommonOutcomeV1) {
	fmt.Fprintf(w, "common_outcome.status: %s\n", o.Status)
	for _, p := range commonoutcome.Predicates {
		fmt.Fprintf(w, "  %-56s %s\n", p, o.PredicateVerdicts[p])
	}
	codes := "none"
	if len(o.FindingCodes) > 0 {
		codes = strings.Join(o.FindingCodes, ", ")
	}
	fmt.Fprintf(w, "common_outcome.finding_codes: %s\n", codes)
}
