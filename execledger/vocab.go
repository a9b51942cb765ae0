package execledger

import "slices"

// Versions.
const (
	// VersionV2 is the historical execution-ledger version 2 (read only).
	VersionV2 = 2
	// Version is the execution-ledger version this build writes.
	Version = 3
	// IntendedArtefactVersion is the artefact contract every header names.
	IntendedArtefactVersion = 8
)

// GenesisDigest is row 0's previous_row_digest_sha256.
const GenesisDigest = "0000000000000000000000000000000000000000000000000000000000000000"

// MaxTextCharacters bounds every string (key or value) in any row.
const MaxTextCharacters = 256

// Row kinds.
const (
	RowHeader   = "header"
	RowCall     = "call"
	RowTerminal = "terminal"
)

// Terminal kinds, and the reader status of a journal without one.
const (
	TerminalScored   = "scored"
	TerminalExcluded = "excluded"
	TerminalAborted  = "aborted"
	StatusIncomplete = "incomplete"
)

// Attempt outcomes and settlements.
const (
	OutcomeFault        = "fault"
	OutcomeResponse     = "response"
	OutcomeUnclassified = "unclassified_error"
	SettlementMeasured  = "measured"
	SettlementForfeited = "forfeited"
)

// Turn terminal reasons with fixed meaning in the rules.
const (
	TurnResponse         = "response"
	TurnUnclassified     = "unclassified_error"
	TurnRetriesExhausted = "retries_exhausted"
)

// Exclusion codes with fixed meaning in the rules.
const (
	AbortedCode       = "execution_aborted"
	ExclusionBudget   = "provider_budget"
	ExclusionDeadline = "provider_deadline"
	// ExclusionInterrupted is obaudit's addition to upstream's
	// EXCLUSION_CODES: the operator interrupted the run (SIGINT/SIGTERM)
	// and no further request was dispatched. Like a budget or deadline stop
	// it is a control stop: no fault need stand behind it.
	ExclusionInterrupted = "operator_interrupted"
	CostCapPolicy        = "refuse_before_dispatch"
	RateSourceOperator   = "operator_supplied_pinned_rates"
)

// TerminalDetail is this build's fixed exclusion_detail sentence for a
// terminal kind ("" for scored and for a kind it does not write).
func TerminalDetail(kind string) string {
	switch kind {
	case TerminalExcluded:
		return "execution stopped at the provider boundary"
	case TerminalAborted:
		return "execution did not reach a terminal state and was abandoned"
	}
	return ""
}

// vocab is the closed vocabulary one ledger version owns. Each version owns
// literal copies, so a later change cannot move what an old row may say.
type vocab struct {
	outcomes, settlements, faults, retryable, turnReasons []string
	httpStatusNeedsResponse                               bool
}

// vocabFor returns the vocabulary ledger version v owns, or nil.
func vocabFor(v int64) *vocab {
	switch v {
	case VersionV2:
		return &vocabV2
	case Version:
		return &vocabV3
	}
	return nil
}

// The vocabularies are composite literals of constants: laid out by the
// compiler, with no work at package init.
var vocabV2 = vocab{
	outcomes:    []string{"fault", "response", "unclassified_error"},
	settlements: []string{"forfeited", "measured"},
	faults: []string{
		"provider_authentication", "provider_configuration", "provider_network_error",
		"provider_rate_limited", "provider_request_rejected", "provider_response_invalid",
		"provider_server_error", "provider_timeout",
	},
	retryable: []string{"provider_network_error", "provider_rate_limited", "provider_server_error", "provider_timeout"},
	turnReasons: []string{
		"backoff_unaffordable", "cost_cap_exhausted", "deadline_exceeded", "fault_not_retryable",
		"pre_dispatch_refused", "response", "retries_exhausted", "unclassified_error",
	},
}

var vocabV3 = vocab{
	outcomes:    []string{"fault", "response", "unclassified_error"},
	settlements: []string{"forfeited", "measured"},
	faults: []string{
		"provider_authentication", "provider_bad_request_unclassified", "provider_configuration",
		"provider_invalid_request_or_spend_limit", "provider_network_error", "provider_rate_limited",
		"provider_request_rejected", "provider_response_invalid", "provider_server_error",
		"provider_spend_limit", "provider_timeout",
	},
	retryable: []string{"provider_network_error", "provider_rate_limited", "provider_server_error", "provider_timeout"},
	turnReasons: []string{
		"backoff_unaffordable", "cost_cap_exhausted", "deadline_exceeded", "fault_not_retryable",
		"pre_dispatch_refused", "response", "retries_exhausted", "unclassified_error",
	},
	httpStatusNeedsResponse: true,
}

var (
	terminalKinds     = []string{TerminalAborted, TerminalExcluded, TerminalScored}
	stopClasses       = []string{"completed", "max_tokens"}
	earlyTurnReasons  = []string{"backoff_unaffordable", "cost_cap_exhausted", "deadline_exceeded", "pre_dispatch_refused"}
	controlExclusions = []string{ExclusionBudget, ExclusionDeadline, ExclusionInterrupted}
	// exclusionCodes is not version-split (upstream's EXCLUSION_CODES): the
	// lifecycle faults, the v3 provider faults and the abort code, plus
	// obaudit's operator_interrupted (VERSIONING.md).
	exclusionCodes = []string{
		AbortedCode, ExclusionBudget, ExclusionDeadline, ExclusionInterrupted,
		"provider_authentication", "provider_bad_request_unclassified", "provider_configuration",
		"provider_invalid_request_or_spend_limit", "provider_network_error", "provider_rate_limited",
		"provider_request_rejected", "provider_response_invalid", "provider_server_error",
		"provider_spend_limit", "provider_timeout",
		"provider_protocol", "provider_transport",
	}
)

// ExclusionCodes returns every code a terminal row may carry.
func ExclusionCodes() []string { return slices.Clone(exclusionCodes) }
