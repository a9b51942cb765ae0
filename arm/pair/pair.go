// Package pair composes the two primary arms for one scenario and agent:
// it runs Full (the engine) and stateful_time_removed (arm/notime), projects
// both with the independent verifier, grades both with CommonOutcomeV1 and
// proves the match. It is composition only: it exports no partition, key,
// closure or projection rule of its own, and neither the compiler nor the
// verifier imports it.
package pair

import (
	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/commonoutcome"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// ErrUnknownArm is returned for an arm name other than full_lifecycle and
// stateful_time_removed.
var ErrUnknownArm = refusal.Sentinel("arm/unknown")

// ErrNoCard is returned when no CommonOutcomeV1 card is authored for the
// scenario.
var ErrNoCard = refusal.Sentinel("arm/no-outcome-card")

// Arms lists the arm names in CLI order.
var Arms = []string{notimewire.ArmFull, notimewire.ArmNoTime}

// Known refuses an unknown arm.
func Known(arm string) error {
	if arm != notimewire.ArmFull && arm != notimewire.ArmNoTime {
		return refusal.New(ErrUnknownArm, "%q is not one of %v", arm, Arms)
	}
	return nil
}

// Agent is what a run needs of an agent.
type Agent struct {
	ID, Kind string
	New      func() engine.Agent
}

// FullRun runs the Full arm once (with its determinism rerun) and returns
// the episode.
func FullRun(d engine.Domain, a Agent, instanceID string) (*engine.Episode, error) {
	return engine.Run(engine.Config{Domain: d, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind,
		OperationInstanceID: instanceID, EngineVersion: schemas.EngineObaudit, SelfCheck: engine.SelfCheckRerun})
}

// NoTimeRun compiles d and runs the No-Time arm with a fresh agent.
func NoTimeRun(d engine.Domain, a Agent, instanceID string) (*notimewire.RunV1, error) {
	prof, plan, err := compile(d)
	if err != nil {
		return nil, err
	}
	return notime.Run(notime.Config{Domain: d, Profile: prof, Plan: plan, Agent: a.New(), AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: instanceID})
}

// Eligible compiles d under the No-Time protocol and returns the
// compiler's refusal when the protocol calls the plan ineligible (nil:
// eligible). Campaigns seal the answer in their plan and re-derive it.
func Eligible(d engine.Domain) error {
	_, _, err := compile(d)
	return err
}

// compile is d's maintenance profile and its No-Time plan.
func compile(d engine.Domain) (notime.Profile, *notimewire.PlanV1, error) {
	prof, err := notime.MaintenanceProfile(d.Static())
	if err != nil {
		return notime.Profile{}, nil, err
	}
	plan, err := notime.Compile(d, prof)
	return prof, plan, err
}

// Replay re-executes a recorded No-Time run from its decision tape (no
// agent, no provider) and reports whether it reproduced the record byte for
// byte (so every carried field is re-derived, not only the digests).
func Replay(d engine.Domain, rec *notimewire.RunV1) (bool, error) {
	prof, plan, err := compile(d)
	if err != nil {
		return false, err
	}
	pd, err := notimerecord.PlanDigest(plan)
	if err != nil {
		return false, err
	}
	if pd != rec.PlanDigest {
		return false, nil
	}
	again, err := notime.Run(notime.Config{Domain: d, Profile: prof, Plan: plan, Agent: engine.NewPlayback(rec.Decisions),
		AgentID: rec.AgentID, AgentKind: rec.AgentKind, OperationInstanceID: rec.OperationInstanceID})
	if err != nil {
		return false, err
	}
	// Every field of the record, not only its digests, must be what the
	// re-execution gives.
	a, err := notimerecord.Encode(again)
	if err != nil {
		return false, err
	}
	b, err := notimerecord.Encode(rec)
	if err != nil {
		return false, err
	}
	return string(a) == string(b), nil
}

// grade is CommonOutcomeV1 of p, a projection of a run of d, by the card
// authored for d's scenario.
func grade(d engine.Domain, p *notimewire.ProjectionV1) (notimewire.CommonOutcomeV1, error) {
	scenario := d.Plan().Meta.ScenarioID
	c, ok := commonoutcome.Cards[scenario]
	if !ok {
		return notimewire.CommonOutcomeV1{}, refusal.New(ErrNoCard, "no CommonOutcomeV1 card for scenario %q", scenario)
	}
	return commonoutcome.Evaluate(p, c), nil
}

// full is the Full side of a pair: the episode ep of d.
func full(d engine.Domain, ep *engine.Episode) notimeverify.Full {
	return notimeverify.Full{Domain: d, Trajectory: ep.Trajectory, TerminalOutcome: ep.TerminalOutcome, ReplayFinal: ep.ReplayFinal}
}

// GradeFull is CommonOutcomeV1 of a Full episode.
func GradeFull(d engine.Domain, ep *engine.Episode) (notimewire.CommonOutcomeV1, error) {
	p := full(d, ep).Project()
	if ep.ReplayOK != nil && !*ep.ReplayOK {
		p.Integrity = "REPLAY_DIVERGED"
	}
	return grade(d, p)
}

// GradeNoTime is CommonOutcomeV1 of a No-Time run.
func GradeNoTime(d engine.Domain, nt *notimewire.RunV1) (notimewire.CommonOutcomeV1, error) {
	return grade(d, notimeverify.ProjectNoTime(nt))
}

// Verify is the independent matching proof of a Full episode and a No-Time
// run of the same domain.
func Verify(d engine.Domain, ep *engine.Episode, nt *notimewire.RunV1) (*notimeverify.Report, error) {
	return notimeverify.Verify(full(d, ep), nt)
}

// Refusals of a pair that is not one.
var (
	// ErrSpecMismatch is returned when a record names a spec digest other
	// than the spec the verifier binds it to.
	ErrSpecMismatch = refusal.Sentinel("arm/spec-mismatch")
	// ErrNotAPair is returned when a Full artefact and a No-Time record do
	// not name the same scenario, operation instance and agent.
	ErrNotAPair = refusal.Sentinel("arm/not-a-pair")
)
