// Package commonoutcome is the CommonOutcomeV1 oracle (Measurement RFC v2
// §2.2): a tri-state status SUCCESS / FAILURE / ERROR with one named
// predicate per business conjunct and closed finding codes, over an
// arm-neutral evidence projection. It imports neither the evaluator nor
// the No-Time compiler/runtime nor the verifier: only the public wire types
// and its own independently authored scenario cards.
package commonoutcome

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/obaudit/obaudit/arm/notimewire"
)

// Predicate ids, in contract order.
const (
	PredTerminal    = "legitimate_business_terminal"
	PredInvariant   = "no_critical_invariant_violation"
	PredObligations = "common_decision_obligations_discharged"
	PredAuthority   = "common_authority_evidence_finality_predicates_satisfied"
)

// Predicates lists the predicate ids in contract order.
var Predicates = []string{PredTerminal, PredInvariant, PredObligations, PredAuthority}

// Finding codes (closed).
const (
	CodeTerminalNotReached      = "TERMINAL_NOT_REACHED"
	CodeTerminalNotLegitimate   = "TERMINAL_NOT_LEGITIMATE"
	CodeCriticalViolation       = "CRITICAL_VIOLATION"
	CodeObligationOpen          = "OBLIGATION_NOT_DISCHARGED"
	CodeObligationBreached      = "OBLIGATION_BREACHED"
	CodeSideEffectFailed        = "REQUIRED_SIDE_EFFECT_FAILED"
	CodeEvidenceNotServed       = "EVIDENCE_NOT_SERVED_BEFORE_PROPOSAL"
	CodeMutationAfterFinal      = "MUTATION_AFTER_FINAL"
	CodeIntegrity               = "EVIDENCE_INTEGRITY_INVALID"
	CodeMalformedEntry          = "MALFORMED_COMMON_ENTRY"
	CodeEffectWithoutProposal   = "EFFECT_WITHOUT_PROPOSAL"
	CodeDuplicateEvent          = "DUPLICATE_COMMON_EVENT"
	CodeTerminalFactsDisagree   = "TERMINAL_FACTS_INCONSISTENT"
	CodeUnknownEntryKind        = "UNKNOWN_COMMON_ENTRY_KIND"
	CodeObligationUnknown       = "OBLIGATION_TRANSITION_UNMATCHED"
	CodeDuplicateObligationOpen = "DUPLICATE_OBLIGATION"
	CodeDuplicateOfAccepted     = "PROPOSAL_REPEATS_ACCEPTED_EFFECT"
)

// Card is the independently authored outcome card of one semantic
// scenario: the business terminals that are legitimate for it.
type Card struct {
	ScenarioID          string
	LegitimateTerminals []string
}

// Cards are obaudit's authored cards for the maintenance variants (facts of
// the scenario definitions, not read from the evaluator or the spec loader).
var Cards = map[string]Card{
	"V1": {ScenarioID: "V1", LegitimateTerminals: []string{"completed_successfully"}},
	"V2": {ScenarioID: "V2", LegitimateTerminals: []string{"transferred_to_human_ownership"}},
	"V3": {ScenarioID: "V3", LegitimateTerminals: []string{"transferred_to_human_ownership"}},
}

var knownKinds = []string{"event", "proposal", "proposal_rejected", "effect", "terminal_proposal", "terminal_rejected", "terminal",
	"provisional_close", "reopen", "obligation", "checkpoint", "side_effect", "critical", "read"}

func str(f map[string]any, k string) (string, bool) {
	s, ok := f[k].(string)
	return s, ok && s != ""
}

// Evaluate grades one projection under card.
func Evaluate(p *notimewire.ProjectionV1, card Card) notimewire.CommonOutcomeV1 {
	v := map[string]string{}
	for _, id := range Predicates {
		v[id] = notimewire.VerdictPass
	}
	codes := map[string]bool{}
	fail := func(pred, code string) {
		if v[pred] != notimewire.VerdictError {
			v[pred] = notimewire.VerdictFail
		}
		codes[code] = true
	}
	integrity := func(code string) {
		for _, id := range Predicates {
			v[id] = notimewire.VerdictError
		}
		codes[code] = true
	}
	if p == nil || p.Integrity != "ok" {
		integrity(CodeIntegrity)
		return finish(v, codes)
	}
	// Well-formedness (ERROR) first.
	proposals := map[string]bool{}
	events := map[string]bool{}
	obligations := map[string]string{} // id → open|discharged|cancelled|breached
	var terminalEntry map[string]any
	for _, e := range p.Entries {
		if !slices.Contains(knownKinds, e.Kind) || e.Fields == nil {
			integrity(CodeUnknownEntryKind)
			return finish(v, codes)
		}
		rt, _ := str(e.Fields, "record_type")
		switch e.Kind {
		case "event":
			id, ok := str(e.Fields, "event_id")
			if !ok {
				integrity(CodeMalformedEntry)
				return finish(v, codes)
			}
			if events[id] {
				integrity(CodeDuplicateEvent)
				return finish(v, codes)
			}
			events[id] = true
		case "proposal":
			id, ok := str(e.Fields, "proposal_id")
			if _, at := str(e.Fields, "action_type"); !ok || !at {
				integrity(CodeMalformedEntry)
				return finish(v, codes)
			}
			proposals[id] = true
		case "effect", "proposal_rejected":
			id, ok := str(e.Fields, "proposal_id")
			if !ok || !proposals[id] {
				integrity(CodeEffectWithoutProposal)
				return finish(v, codes)
			}
		case "obligation":
			id, ok := str(e.Fields, "obligation_id")
			if !ok {
				integrity(CodeMalformedEntry)
				return finish(v, codes)
			}
			switch rt {
			case "obligation_created":
				if _, dup := obligations[id]; dup {
					integrity(CodeDuplicateObligationOpen)
					return finish(v, codes)
				}
				obligations[id] = "open"
			default:
				if obligations[id] != "open" {
					integrity(CodeObligationUnknown)
					return finish(v, codes)
				}
				obligations[id] = rt
			}
		case "terminal":
			if _, ok := str(e.Fields, "outcome"); !ok {
				integrity(CodeMalformedEntry)
				return finish(v, codes)
			}
			terminalEntry = e.Fields
		}
	}
	if terminalEntry != nil {
		if terminalEntry["outcome"] != p.TerminalOutcome || terminalEntry["replay_final"] != p.ReplayFinal {
			integrity(CodeTerminalFactsDisagree)
			return finish(v, codes)
		}
	} else if p.ReplayFinal {
		integrity(CodeTerminalFactsDisagree)
		return finish(v, codes)
	}

	// legitimate_business_terminal
	switch t, _ := p.TerminalOutcome.(string); {
	case !p.ReplayFinal || t == "":
		fail(PredTerminal, CodeTerminalNotReached)
	case !slices.Contains(card.LegitimateTerminals, t):
		fail(PredTerminal, CodeTerminalNotLegitimate)
	}
	// no_critical_invariant_violation
	for _, e := range p.Entries {
		if e.Kind == "critical" {
			fail(PredInvariant, CodeCriticalViolation)
		}
	}
	// common_decision_obligations_discharged
	for _, id := range slices.Sorted(maps.Keys(obligations)) {
		switch obligations[id] {
		case "open":
			fail(PredObligations, CodeObligationOpen)
		case "obligation_breached":
			fail(PredObligations, CodeObligationBreached)
		}
	}
	for _, e := range p.Entries {
		if e.Kind == "side_effect" && e.Fields["record_type"] == "side_effect_failed" {
			fail(PredObligations, CodeSideEffectFailed)
		}
	}
	// common_authority_evidence_finality_predicates_satisfied: every
	// evidence ref a proposal (action or terminal) cites was served as a
	// value of a read record in the current derived context (since the last
	// delivered event or accepted effect) before it was proposed; no
	// proposal repeats an accepted effect; nothing mutates after the
	// replay-final terminal.
	served := map[string]bool{}
	accepted := map[string]bool{}
	payloadOf := map[string]string{}
	final := false
	for _, e := range p.Entries {
		switch e.Kind {
		case "read":
			collect(e.Fields["records"], served)
		case "proposal", "terminal_proposal":
			for _, r := range strings(e.Fields["evidence_refs"]) {
				if !served[r] {
					fail(PredAuthority, CodeEvidenceNotServed)
				}
			}
			if e.Kind == "proposal" {
				id, _ := str(e.Fields, "proposal_id")
				k := identity(e.Fields)
				payloadOf[id] = k
				if accepted[k] {
					fail(PredAuthority, CodeDuplicateOfAccepted)
				}
			}
		case "effect":
			if final {
				fail(PredAuthority, CodeMutationAfterFinal)
			}
			id, _ := str(e.Fields, "proposal_id")
			accepted[payloadOf[id]] = true
			served = map[string]bool{}
		case "event":
			if final && e.Fields["record_type"] != "event_after_terminal" {
				fail(PredAuthority, CodeMutationAfterFinal)
			}
			served = map[string]bool{}
		case "terminal":
			if e.Fields["replay_final"] == true {
				final = true
			}
		}
	}
	return finish(v, codes)
}

// identity is a proposal's action type and payload, canonically joined.
func identity(f map[string]any) string {
	b, err := json.Marshal(map[string]any{"action_type": f["action_type"], "payload": f["payload"]})
	if err != nil {
		return ""
	}
	return string(b)
}

func collect(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case map[string]any:
		for k, e := range x {
			into[k] = true
			collect(e, into)
		}
	case []any:
		for _, e := range x {
			collect(e, into)
		}
	}
}

func strings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func finish(v map[string]string, codes map[string]bool) notimewire.CommonOutcomeV1 {
	out := notimewire.CommonOutcomeV1{PredicateVerdicts: v, FindingCodes: []string{}}
	for c := range codes {
		out.FindingCodes = append(out.FindingCodes, c)
	}
	slices.Sort(out.FindingCodes)
	out.Status = notimewire.StatusSuccess
	for _, id := range Predicates {
		switch v[id] {
		case notimewire.VerdictError:
			out.Status = notimewire.StatusError
			return out
		case notimewire.VerdictFail:
			out.Status = notimewire.StatusFailure
		}
	}
	return out
}

// Tree is the outcome's canonical wire tree.
func Tree(o notimewire.CommonOutcomeV1) map[string]any {
	pv := map[string]any{}
	for k, s := range o.PredicateVerdicts {
		pv[k] = s
	}
	fc := make([]any, len(o.FindingCodes))
	for i, c := range o.FindingCodes {
		fc[i] = c
	}
	return map[string]any{"status": o.Status, "predicate_verdicts": pv, "finding_codes": fc}
}
