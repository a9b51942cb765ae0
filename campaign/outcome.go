package campaign

import (
	"bytes"
	"slices"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/refusal"
)

// OutcomeFormat names version 1 of the outcome record.
const OutcomeFormat = "obaudit-campaign-outcome/v1"

// Primary endpoint statuses (Measurement RFC v2 §2.1).
const (
	StatusSuccess = "SUCCESS"
	StatusFailure = "FAILURE"
	StatusError   = "ERROR"
)

// Stages is the state funnel, in order (Measurement RFC v2 §7). An
// identity's stage is the furthest state it reached; the funnel counts
// every identity at its stage and every earlier one.
var Stages = []string{
	"assigned", "authorized", "dispatched", "provider_completed",
	"runtime_completed", "artifact_valid", "replay_valid", "scored",
}

// Exclusion reasons of the campaign runner itself; with the execution
// ledger's provider exclusion codes (execledger.ExclusionCodes) they are
// the closed taxonomy an outcome's exclusion is drawn from.
const (
	// ExclusionInterrupted: the trial started and never finished (the run
	// was killed); found and recorded by run --continue.
	ExclusionInterrupted = "interrupted"
	// ExclusionBudget: never dispatched, an aggregate bound was reached.
	ExclusionBudget = "budget_exhausted"
	// ExclusionInfrastructure: the runner failed to execute or record the
	// trial (an I/O or internal failure), not a provider fault.
	ExclusionInfrastructure = "infrastructure_error"
)

// Exclusions returns the closed exclusion taxonomy, sorted.
func Exclusions() []string {
	out := append([]string{ExclusionInterrupted, ExclusionBudget, ExclusionInfrastructure}, execledger.ExclusionCodes()...)
	slices.Sort(out)
	return out
}

// Outcome is one trial's outcome record: the log entry that ends an
// assigned identity.
type Outcome struct {
	Format     string `json:"format"`
	PlanSHA256 string `json:"plan_sha256"`
	Trial      int    `json:"trial"`
	TrialID    string `json:"trial_id"`
	Subject    string `json:"subject"`
	Variant    string `json:"variant"`
	Arm        string `json:"arm"`
	Seed       string `json:"seed"`
	// Status is the primary endpoint; Stage the furthest funnel state;
	// Exclusion a reason from [Exclusions] or "".
	Status    string `json:"status"`
	Stage     string `json:"stage"`
	Exclusion string `json:"exclusion"`
	// Files are the trial's files, by role, with their SHA-256.
	Files []TrialFile `json:"files"`
	// Vector is the per-episode result vector of a scored full_lifecycle
	// trial (nil otherwise).
	Vector *Vector `json:"vector"`
	// Common is a scored trial's CommonOutcomeV1 object (on
	// stateful_time_removed always; on full_lifecycle when the scenario has
	// an outcome card), absent otherwise.
	Common *CommonOutcome `json:"common_outcome,omitempty"`
}

// TrialFile is one file an outcome names. Role is "artefact", "ledger",
// "commitment" or "partial" (a file an interrupted trial left, kept and
// digested but not vouched for).
type TrialFile struct {
	Role   string `json:"role"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Vector is what a report needs of one scored episode's result vector.
type Vector struct {
	Reliable             bool     `json:"reliable"`
	LegitimateCompletion bool     `json:"legitimate_completion"`
	FailedDimensions     []string `json:"failed_dimensions"`
	FindingCodes         []string `json:"finding_codes"`
}

// VectorOf is the one derivation of a [Vector] from an artefact's
// evaluation (the runner records it; verify re-derives it).
func VectorOf(ev *artefact.Evaluation) *Vector {
	return &Vector{Reliable: ev.Reliable, LegitimateCompletion: ev.LegitimateCompletion,
		FailedDimensions: sortedCopy(ev.FailedDimensions), FindingCodes: sortedCopy(ev.FindingCodes)}
}

// sortedCopy is a sorted copy of s (never nil).
func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

// StatusOf is the one rule mapping a stage and vector to the primary
// endpoint: SUCCESS or FAILURE only for a scored trial, by its reliable
// verdict; ERROR otherwise (an exclusion is ERROR for the primary
// estimand, and stays in the assigned denominator).
func StatusOf(stage string, v *Vector) string {
	if stage != "scored" || v == nil {
		return StatusError
	}
	if v.Reliable {
		return StatusSuccess
	}
	return StatusFailure
}

func stageIndex(s string) int { return slices.Index(Stages, s) }

// Entry returns the outcome's log entry: the tag and its RFC 8785 bytes.
func (o *Outcome) Entry() ([]byte, error) {
	c, err := jcs(o)
	if err != nil {
		return nil, err
	}
	return append([]byte(OutcomeLeafTag), c...), nil
}

// ParseOutcome reads an outcome log entry strictly and checks it is
// internally coherent (a known stage and exclusion, the status the stage
// and vector imply).
func ParseOutcome(entry []byte) (*Outcome, error) {
	body, ok := bytes.CutPrefix(entry, []byte(OutcomeLeafTag))
	if !ok {
		return nil, refusal.New(ErrLogInvalid, "entry is not an outcome record")
	}
	var o Outcome
	if err := decodeStrict(body, &o); err != nil {
		return nil, refusal.Because(ErrLogInvalid, err, "an outcome record is not the JSON obaudit writes (unknown, missing or mistyped fields): the log entry was edited")
	}
	again, err := o.Entry()
	if err != nil || !bytes.Equal(again, entry) {
		return nil, refusal.New(ErrLogInvalid, "outcome record is not its own canonical encoding")
	}
	if o.Format != OutcomeFormat || stageIndex(o.Stage) < 0 ||
		(o.Exclusion != "" && !slices.Contains(Exclusions(), o.Exclusion)) ||
		o.Status != OutcomeStatus(o.Arm, o.Stage, o.Vector, o.Common) || !commonCoherent(o.Common) ||
		(o.Stage != "scored" && o.Common != nil) ||
		(o.Arm == ArmFullLifecycle && (o.Stage == "scored") != (o.Vector != nil)) ||
		(o.Arm != ArmFullLifecycle && (o.Vector != nil || (o.Stage == "scored") != (o.Common != nil))) {
		return nil, refusal.New(ErrLogInvalid, "outcome record of %s is incoherent (format, stage %q, exclusion %q, status %q)", o.TrialID, o.Stage, o.Exclusion, o.Status)
	}
	return &o, nil
}

// matches reports whether the outcome names exactly the plan's identity.
func (o *Outcome) matches(t Trial) bool {
	return o.Trial == t.Index && o.TrialID == t.ID && o.Subject == t.Subject && o.Variant == t.Variant &&
		o.Arm == t.Arm && o.Seed == t.Seed
}
