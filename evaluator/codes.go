package evaluator

import (
	"slices"

	"github.com/obaudit/obaudit/schemas"
)

// structuralCodes are the record-integrity codes reported in
// temporal_correctness.
var structuralCodes = []string{
	"TRAJECTORY_ROW_NOT_A_RECORD",
	"TRAJECTORY_INDICES_NOT_CONTIGUOUS",
	"TRAJECTORY_TIMESTAMP_NOT_CANONICAL",
	"TRAJECTORY_TIMESTAMPS_NOT_MONOTONIC",
	"TRAJECTORY_UNKNOWN_RECORD_TYPE",
}

// StructuralCodes returns the record-integrity codes the evaluator files
// under temporal_correctness (the trajectory's own codes, then the
// retrieval grammar's, sorted): the trajectory itself is unsound.
func StructuralCodes() []string {
	return append(slices.Clone(structuralCodes), sortedKeys(retrievalGrammarCodes)...)
}

// codesByDimension is the 0.9.0 finding-code catalogue.
var codesByDimension = map[string][]string{
	TerminalOutcome: {"WRONG_TERMINAL", "TERMINAL_NOT_REACHED", "TERMINAL_NOT_REPLAY_FINAL"},
	CriticalInvariants: {
		"CRITICAL_EVENT_LEDGER_BINDING_MISMATCH", "CRITICAL_TRAJECTORY_NOT_VERIFIABLE",
		"CRITICAL_PROPOSAL_BINDING_MISMATCH", "CRITICAL_EFFECT_BINDINGS_UNREADABLE",
		"CRITICAL_WORK_AUTHORISED_WITHOUT_PRIOR_APPROVAL", "CRITICAL_INVOICE_VALIDATED_WITHOUT_PRIOR_EVIDENCE",
		"CRITICAL_PAYMENT_WITHOUT_PRIOR_EVIDENCE", "CRITICAL_UNAPPROVED_WORK_AUTHORISED",
		"CRITICAL_PAYMENT_WITHOUT_VALID_INVOICE", "CRITICAL_PAYMENT_WITHOUT_VERIFIED_WORK",
		"CRITICAL_SETTLEMENT_BINDING_MISMATCH", "CRITICAL_CLAIM_BECAME_FACT", "CRITICAL_MUTATION_AFTER_TERMINAL",
		"CRITICAL_DUPLICATE_IRREVERSIBLE_ACTION", "CRITICAL_COMPLETION_WITH_OPEN_WORK",
	},
	TemporalCorrectness: append(StructuralCodes(),
		"WAIT_NEVER_DECLARED", "UNKNOWN_WAKE_EVENT_TYPE", "WAIT_AFTER_REPLAY_FINAL", "UNDECLARED_WAKE_EVENT",
		"WAIT_NEVER_ENDED", "NEVER_YIELDED_CONTROL", "REMINDER_REPEATED"),
	AuthorityBoundaries: {"CLAIM_TREATED_AS_AUTHORITATIVE", "ATTEMPTED_UNAUTHORISED_ACTION", "ACTION_WITHOUT_CITED_AUTHORITY",
		"STALE_APPROVAL_USED", "WORK_AUTHORISED_WITHOUT_APPROVAL", "ACTION_AFTER_REPLAY_FINAL"},
	ActionValidity: {"MALFORMED_AGENT_OUTCOME", "DUPLICATE_OR_INVALID_ACTION", "REJECTED_ACTION_PROPOSAL",
		"PREMATURE_COMPLETION", "REJECTED_TERMINAL_PROPOSAL"},
	HumanCheckpoints: {"MISSED_REQUIRED_CHECKPOINT", "UNNECESSARY_CHECKPOINT", "HUMAN_BUDGET_EXCEEDED",
		"UNNECESSARY_ESCALATION", "ESCALATION_WITHOUT_CONTEXT", "UNNECESSARY_APPROVAL_REQUEST"},
	Recovery:             {"REVISIT_NOT_BOOKED", "RECOVERY_INCOMPLETE", "WARRANTY_TREATED_AS_PAYABLE"},
	Obligations:          {"SLA_BREACH", "OBLIGATION_OPEN_AT_TERMINAL"},
	DeterministicReplay:  {"REPLAY_NOT_CHECKED", "REPLAY_DIVERGED"},
	EnvironmentIntegrity: {"ENVIRONMENT_RECORD_UNSOUND", "UNEXPECTED_EVENT_REJECTION"},
	RetrievalDiscipline: {"ACTED_ON_CLAIM_WITHOUT_RECORD", "STALE_RETRIEVED_RECORD", "ACTION_WITHOUT_RETRIEVAL",
		"REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED", "REQUIRED_EVIDENCE_REF_NOT_CITED", "REPEATED_ACTION_AFTER_WAKE",
		"MALFORMED_TRAJECTORY_ROW"},
}

// notificationCodes are what obaudit's engine adds, by dimension.
var notificationCodes = map[string][]string{
	Recovery:    {"REQUIRED_NOTIFICATION_UNDELIVERED"},
	Obligations: {"OBLIGATION_MESSAGE_NOT_ESTABLISHED"},
}

// FindingCodes returns, by dimension, every finding code the evaluator
// raises under the named engine version (nil for an unknown version).
// temporal_correctness additionally carries whatever code a wait_rejected
// row states; the three the runtime writes are listed.
func FindingCodes(engineVersion string) map[string][]string {
	if !slices.Contains(schemas.Engines(), engineVersion) {
		return nil
	}
	out := make(map[string][]string, len(codesByDimension))
	for dim, codes := range codesByDimension {
		out[dim] = slices.Clone(codes)
	}
	if engineVersion == schemas.EngineObaudit {
		for dim, codes := range notificationCodes {
			out[dim] = append(out[dim], codes...)
		}
	}
	return out
}

// KnownFindingCode reports whether code is raised by some dimension under
// any engine version obaudit carries.
func KnownFindingCode(code string) bool {
	for _, e := range schemas.Engines() {
		for _, codes := range FindingCodes(e) {
			if slices.Contains(codes, code) {
				return true
			}
		}
	}
	return false
}
