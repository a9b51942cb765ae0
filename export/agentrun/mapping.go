package agentrun

import (
	"fmt"
	"strings"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
)

// Verdicts of the Agent Run schema (outcome.verdict) that the mapping uses.
const (
	VerdictAchieved   = "objective-achieved"
	VerdictMissed     = "objective-missed"
	VerdictAborted    = "aborted"
	VerdictDefective  = "environment-defective"
	dimEnvironment    = "environment_integrity"
	dimTerminal       = "terminal_outcome"
	obauditEngineMark = "+obaudit"
)

func mapEpisode(doc *artefact.Document, op *Operation) map[string]any {
	e := doc.Artefact
	id := Slug(e.Operation.OperationID, e.ScenarioID, e.AgentID, doc.FileSHA256)
	src := e.ExecutionRecord().OutcomeSource
	model := src != artefact.SourceDeterministic && src != artefact.SourceRecorded

	rec := map[string]any{
		"id":          id,
		"name":        fmt.Sprintf("OperateBench %s %s: %s agent", e.Operation.OperationID, e.ScenarioID, e.AgentID),
		"summary":     summary(e),
		"system":      system(e, op, model),
		"environment": environment(e, model),
		"episode":     episode(e),
		"objective":   objective(e, op, model),
		"outcome":     outcome(e, op),
		"failures":    failures(e),
		"sources":     []any{source(e, doc.FileSHA256)},
		"tags":        tags(e, model),
	}
	if e.OperationInstanceID != "" {
		rec["aliases"] = []any{e.OperationInstanceID}
	}
	rec["contested_claims"] = contested(e, model)
	return rec
}

func summary(e *artefact.Artefact) string {
	rel := "reliable"
	if !e.Evaluation.Reliable {
		rel = "not reliable"
	}
	failed := "none"
	if len(e.Evaluation.FailedDimensions) > 0 {
		failed = strings.Join(e.Evaluation.FailedDimensions, ", ")
	}
	return fmt.Sprintf("Agent %s (kind %s) on scenario %s (%s) of %s %s: %s after %d simulated minute(s) over %d agent invocation(s); %s; failed dimensions: %s.",
		e.AgentID, e.AgentKind, e.ScenarioID, e.ScenarioLabel, e.Operation.OperationID, e.Operation.OperationVersion,
		e.Status, e.SimulatedMinutes, e.AgentInvocations, rel, failed)
}

func system(e *artefact.Artefact, op *Operation, model bool) map[string]any {
	s := map[string]any{}
	facts, known := op.agent(e.AgentID)
	var notes []string
	x := e.ExecutionRecord()
	if model {
		name := artefact.Deref(x.Model)
		if name == "" {
			name = e.AgentID
		}
		s["model"] = name
		s["model_confidence"] = "unknown"
		scaffold := []any{"operatebench-agent-interface"}
		if pv := slugify(artefact.Deref(x.ProtocolVersion)); pv != "" && pv != "operatebench-agent-interface" {
			scaffold = append(scaffold, pv)
		}
		s["scaffold"] = scaffold
		s["memory"] = MemoryRetrieval
		attribution := "The artefact names this model"
		if p := e.ProviderExecution; p != nil {
			attribution = fmt.Sprintf("The artefact names model %s through provider %s (%s API, %d call(s))", p.Model, p.Provider, p.API, p.ProviderCalls)
		}
		notes = append(notes, attribution+", but a binding read out of an artefact alone attributes nothing: provider attribution needs an audit of the artefact with its execution ledger, and even a passing audit is not attestation that a provider answered.")
		notes = append(notes, fmt.Sprintf("Registry agent id %s, model protocol %s; the model decides from the same observation and read tools a deterministic agent gets.", e.AgentID, artefact.Deref(x.ProtocolVersion)))
	} else {
		s["model"] = fmt.Sprintf("OperateBench deterministic agent %s (engine %s)", e.AgentID, e.EngineVersion)
		s["model_confidence"] = "stated"
		s["scaffold"] = []any{"operatebench-agent-interface"}
		mem := MemoryUnknown
		if known {
			mem = facts.Memory
		}
		s["memory"] = mem
		notes = append(notes, fmt.Sprintf("An in-process deterministic agent of kind %s from the OperateBench agent registry, named by the engine generation that ships it; it made no provider calls (outcome source %s, %d transport call(s)).", e.AgentKind, x.OutcomeSource, x.TransportCalls))
		switch {
		case !known:
			notes = append(notes, "The agent id is not one obaudit knows, so how it carries state is recorded as unknown.")
		case facts.Memory == MemoryRetrieval:
			notes = append(notes, "It is event-scoped and stateless: on every wake it reconstructs its context from the business system through the published read tools.")
		default:
			notes = append(notes, "Memory: "+facts.MemoryNote+".")
		}
	}
	if op != nil && op.ReadTools > 0 {
		s["tools_available"] = int64(op.ReadTools)
		notes = append(notes, "tools_available counts the read tools of the operation's published retrieval catalogue; business actions are proposed as outcomes, not tool calls.")
	} else {
		s["tools_available"] = nil
	}
	s["notes"] = strings.Join(notes, " ")
	return s
}

func harness(e *artefact.Artefact) []any {
	if strings.Contains(e.EngineVersion, obauditEngineMark) {
		return []any{"obaudit"}
	}
	return []any{"operatebench"}
}

func environment(e *artefact.Artefact, model bool) map[string]any {
	env := map[string]any{
		"name":          "OperateBench " + e.Operation.OperationID,
		"version":       e.Operation.OperationVersion,
		"scenario":      fmt.Sprintf("%s: %s", e.ScenarioID, e.ScenarioLabel),
		"configuration": configuration(e),
		"harness":       harness(e),
		"deterministic": !model,
	}
	if e.OperationInstanceID != "" {
		env["seed"] = e.OperationInstanceID
	} else {
		env["seed"] = nil
	}
	span := fmt.Sprintf("The clock is simulated and deterministic: no wall-clock time passes, and the episode spans %d simulated minute(s) from %s to %s.", e.SimulatedMinutes, e.StartedAt, e.EndedAt)
	var seed string
	if model {
		seed = "Re-running the model is not expected to reproduce the episode; replaying its recorded decision tape is."
	} else {
		seed = "The operation instance id (recorded as the seed) is the only per-run input: re-running the same engine, scenario and agent with it pinned reproduces the artefact byte for byte."
	}
	env["notes"] = span + " " + seed
	return env
}

func configuration(e *artefact.Artefact) string {
	parts := []string{
		"engine " + e.EngineVersion,
		fmt.Sprintf("artefact contract %d", e.ArtifactVersion),
		"operation type " + e.Operation.OperationType,
		"semantic scenario " + e.SemanticScenarioID,
		"expected terminal " + e.ExpectedTerminal,
		"spec digest sha256:" + e.Operation.SpecDigest,
	}
	if e.Operation.PrivacyStatus != "" {
		parts = append(parts, "privacy "+e.Operation.PrivacyStatus)
	}
	return strings.Join(parts, "; ")
}

func episode(e *artefact.Artefact) map[string]any {
	var reads, proposals, accepted, terminals int64
	for _, r := range e.Rows() {
		switch r.Type() {
		case "retrieval_served":
			reads++
		case "action_proposed":
			proposals++
		case "effect_accepted":
			accepted++
		case "terminal_proposed":
			terminals++
		}
	}
	ep := map[string]any{
		"steps":            e.AgentInvocations,
		"step_unit":        "agent invocations",
		"wall_clock_hours": nil,
		"interventions":    []any{},
	}
	if e.ArtifactVersion >= 5 {
		ep["tool_calls"] = reads
	} else {
		ep["tool_calls"] = nil // no retrieval rows before contract 5
	}
	ep["notes"] = fmt.Sprintf("Each step is one agent invocation, woken by one delivered event or fallback; %d agent call(s) in all (decision tape entries). tool_calls counts the read-tool requests the environment served. %d event(s) delivered; %d action proposal(s), %d accepted effect(s), %d completion proposal(s). Wall-clock time is not recorded: the run is in simulated time. interventions is empty as a claim: nobody altered the run; the approver and operator are authored synthetic actors inside the environment.",
		len(e.Decisions), len(e.Events), proposals, accepted, terminals)
	return ep
}

func objective(e *artefact.Artefact, op *Operation, model bool) map[string]any {
	o := map[string]any{
		"given": fmt.Sprintf("Run operation %s, scenario %s, to its expected legitimate terminal %s, reliably: legitimate completion with every one of the deterministic evaluator's %d dimensions holding.",
			e.Operation.OperationID, e.ScenarioID, e.ExpectedTerminal, len(e.Evaluation.Dimensions)),
	}
	if model {
		o["strategy_source"] = "model-selected"
	} else {
		o["strategy_source"] = "specified"
		if f, ok := op.agent(e.AgentID); ok {
			o["strategy_chosen"] = f.Strategy
		}
		if e.AgentKind == "negative" {
			o["notes"] = "A negative control: the agent is built to fail in one named way, and the evaluator is trusted only if it rejects the run for that reason while the unrelated dimensions still pass."
		}
	}
	return o
}

// Verdict maps an episode to the schema's outcome verdict: a failed
// environment_integrity dimension is environment-defective; an excluded run
// or one the engine stopped in deadlock is aborted; a reliable run achieved
// its objective; anything else (a legitimate terminal reached unreliably, a
// wrong terminal, the horizon exhausted) missed it.
func Verdict(e *artefact.Artefact) string {
	if d, ok := e.Evaluation.Dimension(dimEnvironment); ok && !d.OK {
		return VerdictDefective
	}
	if e.ExecutionRecord().Excluded || e.Status == engine.StatusDeadlock {
		return VerdictAborted
	}
	if e.Evaluation.Reliable {
		return VerdictAchieved
	}
	return VerdictMissed
}

func outcome(e *artefact.Artefact, op *Operation) map[string]any {
	ev := e.Evaluation
	n := len(ev.Dimensions)
	passed := n - len(ev.FailedDimensions)
	verdict := Verdict(e)
	var why string
	switch verdict {
	case VerdictDefective:
		why = "The environment_integrity dimension failed: the delivered events and the trajectory disagree with the scenario's own declaration, which is evidence about the apparatus, so the run is not counted as an agent failure."
	case VerdictAborted:
		if e.ExecutionRecord().Excluded {
			why = "The run was excluded before it could be scored."
		} else {
			why = fmt.Sprintf("The engine stopped the episode in %s: the agent did not yield control within an invocation's turn limit, so no business terminal was reached. This is an execution status, not a business outcome.", e.Status)
		}
	case VerdictAchieved:
		why = fmt.Sprintf("Status %s equals the expected terminal and is replay-final, and all %d dimensions hold, so the run is reliable.", e.Status, n)
	default:
		switch {
		case ev.LegitimateCompletion:
			why = fmt.Sprintf("The run reached its expected terminal %s legitimately, but %d of %d dimensions failed (%s), so it is not reliable.", e.Status, len(ev.FailedDimensions), n, strings.Join(ev.FailedDimensions, ", "))
		case e.Status == engine.StatusHorizon:
			why = "The operational horizon ran out before any terminal: the episode ended by the environment's own rule with the objective unmet."
		case op.businessTerminal(e.Status):
			why = fmt.Sprintf("The run ended %s where the scenario expects %s.", e.Status, e.ExpectedTerminal)
		default:
			why = fmt.Sprintf("The run ended with status %s, not the expected terminal %s.", e.Status, e.ExpectedTerminal)
		}
	}
	kind := "a business terminal"
	if !op.businessTerminal(e.Status) {
		kind = "an execution status, not a business terminal"
	}
	final := "replay-final"
	if !e.ReplayFinal {
		final = "not replay-final"
	}
	terminal := fmt.Sprintf("%s (%s); %s; final phase %s; ended at simulated %s", e.Status, kind, final, e.FinalPhase(), e.EndedAt)
	margin := fmt.Sprintf("%d of %d dimensions passed", passed, n)
	if len(ev.FailedDimensions) > 0 {
		margin += "; failed: " + strings.Join(ev.FailedDimensions, ", ")
	}
	return map[string]any{
		"verdict":           verdict,
		"verdict_reasoning": why,
		"terminal_state":    terminal,
		"margin":            margin,
		"notes":             fmt.Sprintf("reliable=%t, legitimate_completion=%t; the evaluator is deterministic and reads the semantic trajectory and final state, never a judge model.", ev.Reliable, ev.LegitimateCompletion),
	}
}

func failures(e *artefact.Artefact) []any {
	out := []any{}
	rows := e.Rows()
	for _, d := range e.Evaluation.Dimensions {
		used := map[int]bool{}
		for _, f := range d.Findings {
			class, _ := ClassOf(f.Code)
			item := map[string]any{
				"kind":            class.Kind,
				"attributable_to": class.AttributableTo,
				"description":     fmt.Sprintf("%s: %s: %s", d.Name, f.Code, f.Detail),
			}
			ev := locate(rows, d.Name, f, used)
			item["at_step"] = nil
			if ev.step > 0 {
				item["at_step"] = ev.step
			}
			item["evidence"] = ev.text
			out = append(out, item)
		}
	}
	return out
}

func source(e *artefact.Artefact, fileSHA256 string) map[string]any {
	notes := fmt.Sprintf("trajectory_digest_sha256 %s; final_state_digest_sha256 %s", e.TrajectoryDigest, e.FinalStateDigest)
	if e.DecisionsDigest != "" {
		notes += "; decisions_digest_sha256 " + e.DecisionsDigest
	}
	notes += fmt.Sprintf("; engine %s; artefact contract %d", e.EngineVersion, e.ArtifactVersion)
	if e.OperationInstanceID != "" {
		notes += "; operation instance " + e.OperationInstanceID
	}
	notes += ". Content digests over canonical JSON: they identify the content, they are not tamper-evidence."
	return map[string]any{
		"title":         fmt.Sprintf("OperateBench episode artefact (contract %d): %s %s, agent %s", e.ArtifactVersion, e.Operation.OperationID, e.ScenarioID, e.AgentID),
		"kind":          "episode-artefact",
		"identifier":    "sha256:" + fileSHA256,
		"digest_sha256": fileSHA256,
		"notes":         notes,
	}
}

func tags(e *artefact.Artefact, model bool) []any {
	t := []any{"operatebench"}
	if e.Operation.PrivacyStatus == "SYNTHETIC_ONLY" {
		t = append(t, "synthetic")
	}
	switch {
	case model:
		t = append(t, "model-agent")
	case e.AgentKind == "negative":
		t = append(t, "negative-control")
	default:
		t = append(t, "deterministic-agent")
	}
	if e.Evaluation.Reliable {
		t = append(t, "reliable")
	} else {
		t = append(t, "not-reliable")
	}
	return t
}

func contested(e *artefact.Artefact, model bool) []any {
	replay := "not graded"
	if d, ok := e.Evaluation.Dimension("deterministic_replay"); ok {
		replay = fmt.Sprintf("ok=%t", d.OK)
	}
	out := []any{map[string]any{
		"claim": "The recorded episode is what the engine did.",
		"note":  fmt.Sprintf("The artefact is a local, unsigned file. Its digests and the engine's in-process self-check (deterministic_replay %s) are internal-consistency evidence, not a cryptographic guarantee; obaudit replay re-executes the episode and a signed run commitment binds its digests to a key.", replay),
	}}
	if model {
		out = append(out, map[string]any{
			"claim": "The named model produced these decisions.",
			"note":  "Read from the artefact alone this attributes nothing; it needs the execution-ledger bundle audit, and a passing audit still does not establish that a provider answered.",
		})
	}
	return out
}
