package campaign

import (
	"maps"
	"slices"

	"github.com/obaudit/obaudit/arm/notimewire"
)

// ArmNoTime is the confirmatory treatment arm (Measurement RFC v2 §1): the
// stateful_time_removed protocol. Its trials write the No-Time run record,
// are graded by CommonOutcomeV1 alone (no evaluator vector, no contract-8
// run commitment: the record is covered by its outcome's SHA-256 in the
// signed log) and pair with their full_lifecycle twin for δ.
const ArmNoTime = notimewire.ArmNoTime

// Ineligible is a variant × arm the arm's protocol refuses to compile
// (for stateful_time_removed: notime/causal-order-mismatch,
// notime/finality-cut-unclassifiable, notime/finality-cut-ambiguous).
// Expand records it in the plan by name and assigns no identity to it:
// there is nothing the protocol allows to dispatch. The report lists it;
// verify re-derives it.
type Ineligible struct {
	Variant string `json:"variant"`
	Arm     string `json:"arm"`
	// Class is the refusal class of the compiler's refusal.
	Class string `json:"class"`
}

// ineligibleCells are the arm × variant cells eligible refuses, by class,
// arms then variants in file order.
func ineligibleCells(f *File, eligible func(variant, arm string) string) []Ineligible {
	var out []Ineligible
	for _, a := range f.Arms {
		for _, v := range f.Variants {
			if class := eligible(v, a); class != "" {
				out = append(out, Ineligible{Variant: v, Arm: a, Class: class})
			}
		}
	}
	return out
}

// CommonOutcome is a scored trial's CommonOutcomeV1 object (Measurement
// RFC v2 §2.2), the wire type recorded verbatim.
type CommonOutcome = notimewire.CommonOutcomeV1

// OutcomeStatus is the one rule mapping an outcome to its primary endpoint
// status: on full_lifecycle [StatusOf] (the evaluator's reliable verdict);
// on stateful_time_removed the CommonOutcomeV1 status of a scored trial;
// ERROR for every identity that was not scored.
func OutcomeStatus(arm, stage string, v *Vector, c *CommonOutcome) string {
	if arm == ArmFullLifecycle {
		return StatusOf(stage, v)
	}
	if stage != "scored" || c == nil {
		return StatusError
	}
	return c.Status
}

// CommonStatus is an outcome's CommonOutcomeV1 status, the endpoint of δ on
// both arms: the recorded object's status for a scored trial that has one,
// ERROR for any other (an unscored identity stays non-success mass).
func CommonStatus(o *Outcome) string {
	if o == nil || o.Stage != "scored" || o.Common == nil {
		return StatusError
	}
	return o.Common.Status
}

// commonCoherent checks a recorded CommonOutcomeV1 object's form: a known
// status, verdicts present, finding codes sorted and unique.
func commonCoherent(c *CommonOutcome) bool {
	if c == nil {
		return true
	}
	if !slices.Contains([]string{StatusSuccess, StatusFailure, StatusError}, c.Status) || len(c.PredicateVerdicts) == 0 || c.FindingCodes == nil {
		return false
	}
	return slices.IsSorted(c.FindingCodes) && len(slices.Compact(slices.Clone(c.FindingCodes))) == len(c.FindingCodes)
}

// sameCommon reports whether two CommonOutcomeV1 objects are equal.
func sameCommon(a, b *CommonOutcome) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && slices.Equal(a.FindingCodes, b.FindingCodes) && maps.Equal(a.PredicateVerdicts, b.PredicateVerdicts)
}

// eligible reports whether the plan lets arm run on variant.
func (p *Plan) eligible(variant, arm string) bool {
	return !slices.ContainsFunc(p.Ineligible, func(x Ineligible) bool { return x.Variant == variant && x.Arm == arm })
}

// RecordsCommon is the one rule saying which outcomes carry a
// CommonOutcomeV1 object: every scored stateful_time_removed trial, and a
// scored full_lifecycle trial only in a plan that also assigns
// stateful_time_removed (δ compares the two; a Full-only campaign's
// outcomes are as they were before the arm existed).
func (p *Plan) RecordsCommon(arm string) bool {
	return arm != ArmFullLifecycle || slices.Contains(p.File.Arms, ArmNoTime)
}
