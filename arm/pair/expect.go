package pair

import (
	"errors"
	"slices"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/commonoutcome"
)

// Expectation is one hand-authored cell of the two-arm check: what
// CommonOutcomeV1 must say of an agent on a scenario, on both arms, read
// from each agent's declared intent (not from a run). Ineligible marks a
// scenario the No-Time compiler must refuse.
type Expectation struct {
	Scenario, Agent, Status string
	Failing, Codes          []string
	Ineligible              bool
}

// Expectations are the cells `obaudit check --arm` runs.
var Expectations = []Expectation{
	{Scenario: "V1", Agent: "reference", Status: notimewire.StatusSuccess},
	{Scenario: "V1", Agent: "complete_early", Status: notimewire.StatusFailure,
		Failing: []string{commonoutcome.PredTerminal, commonoutcome.PredInvariant}, Codes: []string{"CRITICAL_VIOLATION", "TERMINAL_NOT_REACHED"}},
	{Scenario: "V1", Agent: "always_act", Status: notimewire.StatusFailure,
		Failing: []string{commonoutcome.PredTerminal, commonoutcome.PredInvariant, commonoutcome.PredObligations, commonoutcome.PredAuthority},
		Codes:   []string{"CRITICAL_VIOLATION", "OBLIGATION_NOT_DISCHARGED", "PROPOSAL_REPEATS_ACCEPTED_EFFECT", "TERMINAL_NOT_REACHED"}},
	{Scenario: "V1", Agent: "always_wait", Status: notimewire.StatusFailure, Failing: []string{commonoutcome.PredTerminal}, Codes: []string{"TERMINAL_NOT_REACHED"}},
	{Scenario: "V1", Agent: "always_escalate", Status: notimewire.StatusFailure,
		Failing: []string{commonoutcome.PredTerminal, commonoutcome.PredInvariant}, Codes: []string{"CRITICAL_VIOLATION", "TERMINAL_NOT_REACHED"}},
	{Scenario: "V1", Agent: "ignore_new_events", Status: notimewire.StatusFailure, Failing: []string{commonoutcome.PredTerminal}, Codes: []string{"TERMINAL_NOT_REACHED"}},
	{Scenario: "V1", Agent: "trust_actor_claim", Status: notimewire.StatusFailure, Failing: []string{commonoutcome.PredAuthority}, Codes: []string{"EVIDENCE_NOT_SERVED_BEFORE_PROPOSAL"}},
	{Scenario: "V1", Agent: "stale_after_wake", Status: notimewire.StatusFailure, Failing: []string{commonoutcome.PredAuthority}, Codes: []string{"EVIDENCE_NOT_SERVED_BEFORE_PROPOSAL"}},
	{Scenario: "V1", Agent: "duplicate_after_wake", Status: notimewire.StatusFailure, Failing: []string{commonoutcome.PredAuthority}, Codes: []string{"PROPOSAL_REPEATS_ACCEPTED_EFFECT"}},
	// V2 authors a permanent dispatch failure of the transfer notice: the
	// legitimate transfer is reached but the required notification is not
	// delivered, in both arms.
	{Scenario: "V2", Agent: "reference", Status: notimewire.StatusFailure, Failing: []string{commonoutcome.PredObligations}, Codes: []string{"REQUIRED_SIDE_EFFECT_FAILED"}},
	// V3's approver decision is authored on the approval-deadline timer
	// (on_event approval_deadline_due): removing time removes its cause.
	{Scenario: "V3", Agent: "reference", Status: notimewire.StatusSuccess, Ineligible: true},
}

// Met says whether an outcome meets the expectation ("" when it does, else
// why not).
func (x Expectation) Met(o notimewire.CommonOutcomeV1) string {
	if o.Status != x.Status {
		return "status " + o.Status + ", want " + x.Status
	}
	var failing []string
	for _, p := range commonoutcome.Predicates {
		if o.PredicateVerdicts[p] != notimewire.VerdictPass {
			failing = append(failing, p)
		}
	}
	if !slices.Equal(failing, x.Failing) {
		return "failing predicates differ from the expectation"
	}
	if !slices.Equal(o.FindingCodes, x.Codes) && (len(o.FindingCodes) != 0 || len(x.Codes) != 0) {
		return "finding codes differ from the expectation"
	}
	return ""
}

// IneligibleAsExpected reports whether err is the compiler's refusal of an
// ineligible plan.
func IneligibleAsExpected(err error) bool {
	return errors.Is(err, notime.ErrCausalOrder) || errors.Is(err, notime.ErrCutUnclassifiable) || errors.Is(err, notime.ErrCutAmbiguous)
}
