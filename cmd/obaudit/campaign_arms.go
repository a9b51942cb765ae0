package main

import (
	"context"
	"errors"

	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// The stateful_time_removed arm in campaigns: eligibility (sealed in the
// plan, re-derived by verify), the No-Time trial executor, the
// CommonOutcomeV1 grade of both arms, and the matching proof of a pair.

const campaignNoTimeFile = "notime_record.json"

// campaignEligible is the No-Time protocol's verdict on a variant of the
// default pack: "" eligible, else the compiler refusal's class.
func campaignEligible(pack *domains.Pack) func(variant, arm string) string {
	return func(variant, arm string) string {
		if arm != campaign.ArmNoTime {
			return ""
		}
		dom, err := pack.Operation(nil, "", variant)
		if err != nil {
			return ""
		}
		if err := pair.Eligible(dom); err != nil && pair.IneligibleAsExpected(err) {
			if c, ok := refusal.ClassOf(err); ok {
				return string(c)
			}
		}
		return ""
	}
}

// commonOfArtefact is CommonOutcomeV1 of a Full artefact's episode, as
// `obaudit arms verify` grades it (nil: the scenario has no outcome card).
func commonOfArtefact(dom engine.Domain, a *artefact.Artefact) (*campaign.CommonOutcome, error) {
	o, err := pair.GradeFull(dom, fullEpisodeOf(a))
	if errors.Is(err, pair.ErrNoCard) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &o, nil
}

func fullEpisodeOf(a *artefact.Artefact) *engine.Episode {
	var terminal any
	if a.TerminalOutcome != nil {
		terminal = *a.TerminalOutcome
	}
	return &engine.Episode{Trajectory: a.Trajectory, TerminalOutcome: terminal, ReplayFinal: a.ReplayFinal}
}

// executeNoTime runs a deterministic agent's stateful_time_removed trial:
// the No-Time record (validated as arms validate reads it), its
// determinism self-check (a second run with a fresh agent gives the same
// bytes) and its replay from the decision tape at zero provider calls, and
// its CommonOutcomeV1 grade.
func (e *campaignExecutor) executeNoTime(dom engine.Domain, t campaign.Trial) (*campaign.Execution, error) {
	a, ok := e.pack.Agent(t.Subject)
	if !ok || t.SubjectKind != campaign.KindAgent {
		return &campaign.Execution{Stage: "dispatched"}, nil
	}
	ag := pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}
	nt, err := pair.NoTimeRun(dom, ag, t.OperationInstanceID)
	if err != nil {
		if _, ok := refusal.ClassOf(err); ok {
			return &campaign.Execution{Stage: "provider_completed"}, nil
		}
		return nil, err
	}
	ex := &campaign.Execution{Stage: "runtime_completed"}
	b, err := notimerecord.Encode(nt)
	if err != nil {
		return ex, nil
	}
	rec, err := notimerecord.Decode(b)
	if err != nil {
		return ex, nil
	}
	ex.Stage, ex.Artefact, ex.ArtefactBytes = "artifact_valid", campaignNoTimeFile, b
	again, err := pair.NoTimeRun(dom, ag, t.OperationInstanceID)
	if err != nil {
		return ex, nil
	}
	b2, err := notimerecord.Encode(again)
	if err != nil || string(b2) != string(b) {
		return ex, nil
	}
	if ok, err := pair.Replay(dom, rec); err != nil || !ok {
		return ex, nil
	}
	ex.Stage = "replay_valid"
	o, err := pair.GradeNoTime(dom, rec)
	if err != nil {
		return ex, nil
	}
	ex.Common = &o
	return ex, nil
}

// checkNoTime re-derives a scored stateful_time_removed trial for verify:
// the record decoded strictly (schema, canonical bytes, every digest), its
// identity the plan's and the spec the build's, replayed from its decision
// tape, and re-graded.
func checkNoTime(p *campaign.Plan, t campaign.Trial, b []byte) (*campaign.CommonOutcome, error) {
	rec, err := notimerecord.Decode(b)
	if err != nil {
		return nil, err
	}
	dom, err := domains.Default().Operation(nil, "", t.Variant)
	if err != nil {
		return nil, err
	}
	if rec.SpecDigest != dom.Plan().Meta.SpecDigest {
		return nil, refusal.New(pair.ErrSpecMismatch, "%s: the record names spec %s", t.ID, rec.SpecDigest)
	}
	if rec.ScenarioID != t.Variant || rec.OperationInstanceID != t.OperationInstanceID || rec.AgentID != t.Subject {
		return nil, refusal.New(campaign.ErrIdentityMismatch, "%s: the record is of another identity (instance %s, scenario %s, agent %s)", t.ID, rec.OperationInstanceID, rec.ScenarioID, rec.AgentID)
	}
	ok, err := pair.Replay(dom, rec)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, refusal.New(campaign.ErrOutcomeMismatch, "%s: the record does not replay from its decision tape", t.ID)
	}
	o, err := pair.GradeNoTime(dom, rec)
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// campaignPair is the independent matching proof of a pair (as `obaudit
// arms verify FULL NOTIME`): both files already re-derived by the trial
// checker.
func campaignPair(ctx context.Context, full, notime campaign.Trial, fullArt, rec []byte) error {
	doc, err := artefact.Read(fullArt, artefactOptions())
	if err != nil {
		return err
	}
	nt, err := notimerecord.Decode(rec)
	if err != nil {
		return err
	}
	a := doc.Artefact
	if a.ScenarioID != nt.ScenarioID || a.OperationInstanceID != nt.OperationInstanceID || a.AgentID != nt.AgentID {
		return refusal.New(pair.ErrNotAPair, "Full %s/%s/%s, No-Time %s/%s/%s (scenario/instance/agent)",
			a.ScenarioID, a.OperationInstanceID, a.AgentID, nt.ScenarioID, nt.OperationInstanceID, nt.AgentID)
	}
	dom, err := domains.Default().Operation(nil, "", full.Variant)
	if err != nil {
		return err
	}
	rep, err := pair.Verify(dom, fullEpisodeOf(a), nt)
	if err != nil {
		return err
	}
	if !rep.Matched {
		return refusal.New(notimeverify.ErrMismatch, "the pair does not match: %v", rep.Findings)
	}
	return nil
}

// ineligibleTree is the plan's ineligible cells for --json.
func ineligibleTree(xs []campaign.Ineligible) []any {
	out := []any{}
	for _, x := range xs {
		out = append(out, map[string]any{"variant": x.Variant, "arm": x.Arm, "class": x.Class})
	}
	return out
}
