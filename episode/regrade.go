package episode

import (
	"fmt"
	"slices"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// Refusal classes of [Regrade].
var (
	// ErrSummaryMismatch is returned by Regrade when a summary field the
	// artefact states (status, terminal_outcome, replay_final, started_at,
	// ended_at, simulated_minutes, agent_invocations) is not the one its
	// covered trajectory and final state derive. The detail starts with the
	// field's JSON pointer.
	ErrSummaryMismatch = refusal.Sentinel("validate/summary-mismatch")
	// ErrEvaluationMismatch is returned by Regrade when the result vector
	// the artefact states is not the one the evaluator derives, under the
	// recorded engine version, from the recorded trajectory, delivered
	// events and final state. The detail starts with the first differing
	// JSON pointer below /evaluation.
	ErrEvaluationMismatch = refusal.Sentinel("validate/evaluation-mismatch")
	// ErrUnraisableFinding is returned by Regrade when a finding code sits
	// in a dimension that cannot raise it under the recorded engine version
	// (an invented code, or a real code moved to another dimension).
	ErrUnraisableFinding = refusal.Sentinel("validate/unraisable-finding")
)

// Summary fields of an artefact, in the order Regrade derives them.
var summaryFields = []string{"started_at", "ended_at", "simulated_minutes", "agent_invocations", "status", "terminal_outcome", "replay_final"}

// RegradeConfig is what a re-grade needs besides the artefact. It is wired
// by cmd/obaudit from the carried packs.
type RegradeConfig struct {
	// Contract is the grading contract of the artefact's operation spec and
	// scenario. Nil when this build does not carry the spec the artefact
	// names (its digest is another): the evaluation is then carried.
	Contract *engine.GradingContract
	// Terminal reads the terminal outcome (nil: none) and the replay-final
	// flag out of a canonical final state (the domain's own reading).
	Terminal func(finalState map[string]any) (outcome *string, replayFinal bool, err error)
}

// Regraded is the re-derived result of one artefact: the summary fields and
// the result vector obaudit computes from the covered trajectory, events
// and final state, and the fields it could not re-derive, by name.
type Regraded struct {
	// Rederived reports whether the summary and evaluation were re-derived
	// (false: contracts 1 to 7, an engine or spec this build does not carry;
	// everything is then in Carried).
	Rederived bool
	// Evaluation is the re-graded result vector (zero unless Rederived).
	Evaluation artefact.Evaluation
	// Status … AgentInvocations are the re-derived summary fields.
	Status           string
	TerminalOutcome  *string
	ReplayFinal      bool
	SimulatedMinutes int64
	AgentInvocations int64
	// Carried names each field taken from the record without re-derivation,
	// with the reason.
	Carried []string
}

// Regrade re-derives a validated artefact's summary fields and result
// vector and refuses any difference from what it states: the summary from
// the trajectory (its first and last episode_ended rows) and the final state
// ([RegradeConfig.Terminal]); the evaluation by grading the recorded
// trajectory, delivered events and final state under the recorded engine
// version. The determinism self-check's result (deterministic_replay) is the
// one input the files do not hold: it is taken from the record and reported
// as carried (replay re-establishes it). Contracts 1 to 7, an engine version
// this build does not grade under, or an operation spec it does not carry
// are not re-graded: the evaluation and summary are reported as carried,
// by name.
func Regrade(doc *artefact.Document, cfg RegradeConfig) (*Regraded, error) {
	a := doc.Artefact
	carry := func(why string) *Regraded {
		r := &Regraded{}
		for _, f := range append(slices.Clone(summaryFields), "evaluation") {
			r.Carried = append(r.Carried, f+": "+why)
		}
		return r
	}
	switch {
	case !artefact.Reproducible(doc.Version()):
		return carry(fmt.Sprintf("contract %d is read, not re-graded", doc.Version())), nil
	case !slices.Contains(schemas.Engines(), a.EngineVersion):
		return carry(fmt.Sprintf("engine %s is not one this build grades under", a.EngineVersion)), nil
	case cfg.Contract == nil || cfg.Terminal == nil:
		return carry(fmt.Sprintf("operation spec %s is not one this build carries", a.Operation.SpecDigest)), nil
	}
	r := &Regraded{Rederived: true}
	if err := r.summary(a, cfg); err != nil {
		return nil, err
	}
	if err := raisable(a); err != nil {
		return nil, err
	}
	replayOK, err := selfCheck(a)
	if err != nil {
		return nil, err
	}
	ev, err := evaluator.Evaluate(a.EngineVersion, cfg.Contract, evaluator.Run{
		Status: r.Status, ReplayFinal: r.ReplayFinal, SimulatedMinutes: r.SimulatedMinutes,
		AgentInvocations: r.AgentInvocations, FinalState: doc.Tree["final_state"],
		Trajectory: a.Trajectory, Events: a.Events, ReplayOK: replayOK,
	})
	if err != nil {
		return nil, err
	}
	r.Evaluation = evaluationOf(ev)
	if got := r.Evaluation.Tree(); !artefact.SameCanonical(doc.Tree["evaluation"], got) {
		p, rec, re := artefact.FirstDifference(doc.Tree["evaluation"], got, "/evaluation")
		return nil, refusal.New(ErrEvaluationMismatch, "%s: the artefact states %s, and grading its trajectory, events and final state under engine %s gives %s",
			p, artefact.Summarize(rec), a.EngineVersion, artefact.Summarize(re))
	}
	r.Carried = []string{"evaluation/dimensions/" + evaluator.DeterministicReplay + "/ok: the determinism self-check's result, taken from the record (replay re-establishes it)"}
	return r, nil
}

// summary derives the summary fields and compares each with the record's.
func (r *Regraded) summary(a *artefact.Artefact, cfg RegradeConfig) error {
	rows := a.Trajectory
	row := func(i int) map[string]any {
		if i < 0 || i >= len(rows) {
			return nil
		}
		m, _ := rows[i].(map[string]any)
		return m
	}
	first, last := row(0), row(len(rows)-1)
	if first["record_type"] != "episode_ended" || first["phase"] != "started" {
		return refusal.New(ErrSummaryMismatch, "/trajectory/0: an episode's first row is its episode_ended start row, and this one is not")
	}
	if last["record_type"] != "episode_ended" || last["phase"] != "ended" {
		return refusal.New(ErrSummaryMismatch, "/trajectory/%d: an episode's last row is its episode_ended end row, and this one is not", len(rows)-1)
	}
	startedAt, _ := first["at"].(string)
	endedAt, _ := last["at"].(string)
	r.Status, _ = last["status"].(string)
	r.AgentInvocations, _ = last["invocations"].(int64)
	start, err1 := engine.ParseInstant(startedAt)
	end, err2 := engine.ParseInstant(endedAt)
	if err1 != nil || err2 != nil {
		return refusal.New(ErrSummaryMismatch, "/trajectory: the episode_ended rows carry no readable instants")
	}
	r.SimulatedMinutes = elapsedMinutes(end - start)
	var err error
	if r.TerminalOutcome, r.ReplayFinal, err = cfg.Terminal(a.FinalState); err != nil {
		return err
	}
	type field struct {
		name      string
		rec, want any
	}
	for _, f := range []field{
		{"started_at", a.StartedAt, startedAt},
		{"ended_at", a.EndedAt, endedAt},
		{"simulated_minutes", a.SimulatedMinutes, r.SimulatedMinutes},
		{"agent_invocations", a.AgentInvocations, r.AgentInvocations},
		{"status", a.Status, r.Status},
		{"terminal_outcome", optString(a.TerminalOutcome), optString(r.TerminalOutcome)},
		{"replay_final", a.ReplayFinal, r.ReplayFinal},
	} {
		if f.rec != f.want {
			return refusal.New(ErrSummaryMismatch, "/%s: the artefact states %v, and its trajectory and final state give %v", f.name, f.rec, f.want)
		}
	}
	return nil
}

// elapsedMinutes is the engine clock's whole elapsed minutes.
func elapsedMinutes(d int64) int64 {
	if d < 0 {
		return -((-d + 59) / 60)
	}
	return d / 60
}

func optString(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// raisable refuses a finding code its dimension cannot raise under the
// recorded engine version. temporal_correctness also carries the code of
// every wait_rejected row of the trajectory.
func raisable(a *artefact.Artefact) error {
	codes := evaluator.FindingCodes(a.EngineVersion)
	var waitCodes []string
	for _, row := range a.Trajectory {
		if m, ok := row.(map[string]any); ok && m["record_type"] == "wait_rejected" {
			if c, ok := m["code"].(string); ok {
				waitCodes = append(waitCodes, c)
			}
		}
	}
	for i, d := range a.Evaluation.Dimensions {
		allowed := codes[d.Name]
		for j, f := range d.Findings {
			if slices.Contains(allowed, f.Code) || d.Name == evaluator.TemporalCorrectness && slices.Contains(waitCodes, f.Code) {
				continue
			}
			return refusal.New(ErrUnraisableFinding, "/evaluation/dimensions/%d/findings/%d/code: %q is not a code dimension %s raises under engine %s", i, j, f.Code, d.Name, a.EngineVersion)
		}
	}
	return nil
}

// selfCheck is the determinism self-check's result as the record states it
// (nil: not run), the one grading input no file holds.
func selfCheck(a *artefact.Artefact) (*bool, error) {
	for _, d := range a.Evaluation.Dimensions {
		if d.Name != evaluator.DeterministicReplay {
			continue
		}
		if slices.ContainsFunc(d.Findings, func(f artefact.Finding) bool { return f.Code == "REPLAY_NOT_CHECKED" }) {
			return nil, nil
		}
		ok := d.OK
		return &ok, nil
	}
	return nil, refusal.New(ErrEvaluationMismatch, "/evaluation/dimensions: no %s dimension", evaluator.DeterministicReplay)
}
