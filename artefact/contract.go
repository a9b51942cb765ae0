package artefact

import (
	"slices"
	"sync"

	"github.com/obaudit/obaudit/format/decision"
)

// Contract versions. Contracts 1..Version are read, each under its own
// historical semantics; only [Reproducible] contracts are replayed.
const (
	// Version is the contract obaudit writes and reproduces (artifact_version 8).
	Version = 8
	// OldestVersion is the first contract still read.
	OldestVersion = 1
)

// Reproducible reports whether a document of contract v can be replayed.
// Contracts 1..7 are read and never reproduced: each moved the observation,
// the row shapes, the result vector or the top-level field set, so a rerun
// under this build would compare two different contracts.
func Reproducible(v int) bool { return v == Version }

// Note is the sentence every artefact carries in its "note" field.
const Note = "Content digests over canonical UTF-8 JSON. They establish that two records carry the same content; they are not tamper-evidence and make no cryptographic claim about who could have written this file."

// RetryCount is the only retry_count an execution record may state: this
// build makes no retries.
const RetryCount = 0

// Closed vocabularies, spelled exactly as upstream writes them.
var (
	// OutcomeSources are the agent_execution.outcome_source values.
	OutcomeSources = []string{SourceDeterministic, SourceModel, SourceRecorded}
	// Faults are the lifecycle execution faults an attempt or an exclusion
	// may name.
	Faults = []string{"provider_transport", "provider_protocol", "provider_deadline", "provider_budget"}
	// Protocols are the model protocol versions a model record may name.
	Protocols = []string{"operatebench.model.v1", "operatebench.model.v2", "operatebench.model.v3", ProtocolReproducible}
	// Classifications are the MALFORMED decision codes this build records.
	Classifications = []string{
		"MODEL_NO_TOOL_CALL", "MODEL_MULTIPLE_TOOL_CALLS", "MODEL_OUTPUT_TRUNCATED",
		"MODEL_OUTPUT_LIMIT_EXCEEDED", "MODEL_UNKNOWN_TOOL", "MODEL_MALFORMED_ARGUMENTS",
		"MODEL_OUTPUT_UNCLASSIFIED",
	}
	// Providers and APIs a provider execution binding may name, and the
	// pairs allowed between them.
	Providers     = []string{"openai", "anthropic", "xai", "mistral"}
	ProviderAPIs  = []string{"responses", "messages", "chat_completions"}
	ProviderPairs = [][2]string{
		{"openai", "responses"}, {"anthropic", "messages"}, {"xai", "chat_completions"},
		{"xai", "responses"}, {"mistral", "chat_completions"},
	}
	// LedgerVersions are the execution-ledger contracts a binding may name.
	LedgerVersions = []int64{2, 3}
)

// Outcome sources and agent kinds.
const (
	SourceDeterministic = "deterministic"
	SourceModel         = "model"
	SourceRecorded      = "recorded"
	// KindModel and KindRecorded are the agent kinds of the two sources no
	// registry speaks for.
	KindModel    = "model"
	KindRecorded = "recorded"
	// ProtocolReproducible is the one model protocol a reproducible (and
	// bound) model record may name.
	ProtocolReproducible = "operatebench.model.v4"
)

var (
	dispositions       = []string{"accepted", "rejected", "audit", "post_terminal"}
	attemptOutcomes    = []string{"classified", "decided", "failed"}
	retrievalAuthority = []string{"actor_claim", "authoritative_verification", "communication", "system_event", "system_of_record"}
	retrievalInitiator = []string{"agent"}
	retrievalRefusal   = []string{"CONFLICTING_RETRIEVAL_ARGUMENTS", "EMPTY_RETRIEVAL_BATCH", "MALFORMED_RETRIEVAL_REQUEST", "RETRIEVAL_BATCH_TOO_LARGE", "RETRIEVAL_BUDGET_EXHAUSTED", "UNKNOWN_RETRIEVAL_TOOL"}
	invalidationCause  = []string{"effect_accepted", "wake"}
	// contract8FindingCodes may appear only in contract-8 evaluations.
	contract8FindingCodes = []string{"REQUIRED_EVIDENCE_REF_NOT_CITED", "REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED"}
)

// Top-level field sets, per contract, exactly.
var (
	// Each contract's set is the one before it and the fields it added, so
	// every set is a prefix of the latest: static data, no work at init.
	fieldsV7 = []string{
		"artifact_version", "engine_version", "operation", "scenario_id",
		"semantic_scenario_id", "scenario_label", "agent_id", "agent_kind",
		"expected_terminal", "status", "terminal_outcome", "replay_final",
		"started_at", "ended_at", "simulated_minutes", "agent_invocations",
		"events", "trajectory", "final_state", "final_state_digest_sha256",
		"trajectory_digest_sha256", "evaluation", "note",
		"decisions", "decisions_digest_sha256", "agent_execution", // contract 2
		"operation_instance_id", // contract 4
		"provider_execution",    // contract 7
	}
	fieldsV1 = fieldsV7[:23:23]
	fieldsV2 = fieldsV7[:26:26]
	fieldsV4 = fieldsV7[:27:27]
)

// Fields returns the exact top-level field set of contract v (nil for a
// contract this build does not read), in upstream's declaration order.
func Fields(v int) []string {
	switch {
	case v == 1:
		return slices.Clone(fieldsV1)
	case v == 2 || v == 3:
		return slices.Clone(fieldsV2)
	case v >= 4 && v <= 6:
		return slices.Clone(fieldsV4)
	case v == 7 || v == 8:
		return slices.Clone(fieldsV7)
	}
	return nil
}

func fieldSet(v int) []string {
	switch {
	case v == 1:
		return fieldsV1
	case v == 2 || v == 3:
		return fieldsV2
	case v >= 4 && v <= 6:
		return fieldsV4
	}
	return fieldsV7
}

// Result vectors, per contract, in report order.
var (
	dimensionsV6 = []string{
		"terminal_outcome", "critical_invariants", "temporal_correctness",
		"authority_boundaries", "action_validity", "human_checkpoints",
		"recovery", "obligations", "deterministic_replay",
		"environment_integrity", // contract 2
		"retrieval_discipline",  // contract 6
	}
	dimensionsV1 = dimensionsV6[:9:9]
	dimensionsV2 = dimensionsV6[:10:10]
)

func dimensionVector(v int) []string {
	switch {
	case v == 1:
		return dimensionsV1
	case v <= 5:
		return dimensionsV2
	}
	return dimensionsV6
}

// Section is one replay comparison section: a name and the top-level fields
// it covers. Every field of a contract is in exactly one section.
type Section struct {
	Name   string
	Fields []string
}

// Sections returns contract v's replay sections, in report order.
func Sections(v int) []Section {
	identity := []string{"artifact_version", "engine_version", "operation", "scenario_id",
		"semantic_scenario_id", "scenario_label", "agent_id", "agent_kind", "expected_terminal"}
	if v >= 4 {
		identity = append(identity, "operation_instance_id")
	}
	s := []Section{
		{"identity", identity},
		{"metadata", []string{"status", "terminal_outcome", "replay_final", "started_at", "ended_at", "simulated_minutes", "agent_invocations", "note"}},
		{"events", []string{"events"}},
		{"trajectory", []string{"trajectory", "trajectory_digest_sha256"}},
		{"final_state", []string{"final_state", "final_state_digest_sha256"}},
		{"evaluation", []string{"evaluation"}},
	}
	if v >= 2 {
		s = append(s, Section{"decisions", []string{"decisions", "decisions_digest_sha256"}},
			Section{"execution", []string{"agent_execution"}})
	}
	if v >= 7 {
		s = append(s, Section{"provider_execution", []string{"provider_execution"}})
	}
	return s
}

// Field kinds used by the shape tables.
const (
	kText            = "text"
	kOptionalText    = "optional_text"
	kString          = "string"
	kCounter         = "counter"
	kFlag            = "flag"
	kInstant         = "instant"
	kOptionalInstant = "optional_instant"
	kObject          = "object"
	kBindings        = "bindings"
	kMinutes         = "minutes"
	kOptionalMinutes = "optional_minutes"
	kTextList        = "text_list"
	kAuthority       = "retrieval_authority"
	kInitiator       = "retrieval_initiator"
	kRefusal         = "retrieval_refusal"
	kCause           = "invalidation_cause"
	kRecords         = "retrieval_records"
	kRequests        = "retrieval_requests"
	kClassification  = "classification"
	kWait            = "wait"
	kOutcome         = "outcome"
)

// field is one named field of a shape with its kind.
type field struct{ name, kind string }

// shape is an exact body: every field, and nothing else.
type shape []field

func (s shape) names() []string {
	out := make([]string, len(s))
	for i, f := range s {
		out[i] = f.name
	}
	return out
}

func sh(pairs ...string) shape {
	s := make(shape, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		s = append(s, field{pairs[i], pairs[i+1]})
	}
	return s
}

// The body each decision kind is written in (beyond "kind").
// outcomeShapes is built on first use (no work at package init).
var outcomeShapes = sync.OnceValue(func() map[string]shape {
	return map[string]shape{
		decision.KindAct:       sh("action_type", kText, "payload", kObject, "evidence_refs", kTextList, "rationale", kString),
		decision.KindWait:      sh("reason", kString, "wake_on", kTextList, "fallback_after_minutes", kOptionalMinutes),
		decision.KindAsk:       sh("recipient_actor_id", kText, "message_fixture_id", kText, "correlation_id", kOptionalText, "wait", kWait),
		decision.KindEscalate:  sh("checkpoint_id", kText, "exception_type", kText, "evidence_refs", kTextList, "deadline_after_minutes", kMinutes, "rationale", kString),
		decision.KindComplete:  sh("reason", kString, "evidence_refs", kTextList),
		decision.KindRetrieve:  sh("requests", kRequests),
		decision.KindMalformed: sh("code", kClassification),
	}
})

var decisionKinds = []string{decision.KindAct, decision.KindAsk, decision.KindComplete, decision.KindEscalate, decision.KindMalformed, decision.KindRetrieve, decision.KindWait}

// attemptOutcomeFor is the attempt outcome that sits beside each decision
// kind in a model record.
func attemptOutcomeFor(kind string) string {
	if kind == decision.KindMalformed {
		return "classified"
	}
	return "decided"
}

// Row shapes. rows8 is the table contracts 6, 7 and 8 are written in; the
// older tables are derived from it exactly as upstream derives them. They
// are built on first use (no work at package init).
var shapeTables = sync.OnceValue(func() (t struct{ v8, beforeV3, beforeV4, beforeV5, beforeV6 map[string][]shape }) {
	effectAcceptedBeforeV3 := sh("proposal_id", kText, "action_type", kText, "code", kText, "cycle_id", kOptionalText)
	effectAcceptedV3 := sh("proposal_id", kText, "action_type", kText, "code", kText, "cycle_id", kOptionalText, "bindings", kBindings)

	rows8 := map[string][]shape{
		"event_observed":       {sh("event_id", kText, "event_type", kText, "actor_id", kText, "code", kText, "observational", kFlag)},
		"event_audit_only":     {sh("event_id", kText, "event_type", kText, "actor_id", kText, "code", kText, "observational", kFlag)},
		"event_rejected":       {sh("event_id", kText, "event_type", kText, "actor_id", kText, "code", kText, "detail", kString)},
		"event_after_terminal": {sh("event_id", kText, "event_type", kText, "actor_id", kText, "mutating", kFlag)},
		"agent_invoked": {sh("invocation_index", kCounter, "trigger_event_id", kOptionalText, "trigger_event_type", kOptionalText,
			"trigger_event_authority", kOptionalText, "trigger_is_authoritative", kFlag, "trigger_claim_values", kTextList)},
		"agent_outcome":    {sh("invocation_index", kCounter, "turn_index", kCounter, "outcome", kOutcome)},
		"outcome_rejected": {sh("invocation_index", kCounter, "turn_index", kCounter, "code", kText, "detail", kString)},
		"wait_declared": {
			sh("fallback_fired", kFlag),
			sh("reason", kString, "wake_on", kTextList, "fallback_at", kOptionalInstant),
		},
		"wait_unresolved_at_horizon": {sh("reason", kString, "wake_on", kTextList, "horizon_at", kInstant)},
		"wait_rejected": {
			sh("code", kText, "detail", kString),
			sh("code", kText, "detail", kString, "event_id", kText),
		},
		"action_proposed":    {sh("proposal_id", kText, "action_type", kText, "payload", kObject, "evidence_refs", kTextList)},
		"action_rejected":    {sh("proposal_id", kText, "action_type", kText, "code", kText, "detail", kString)},
		"effect_accepted":    {effectAcceptedV3},
		"side_effect":        {sh("channel", kText, "message_fixture_id", kText, "recipient_actor_id", kText, "status", kText)},
		"side_effect_failed": {sh("channel", kText, "message_fixture_id", kText, "recipient_actor_id", kText, "committed_decision_preserved", kFlag)},
		"checkpoint_opened": {
			sh("checkpoint_id", kText, "checkpoint_type", kText, "assignee_actor_id", kText, "required", kFlag, "deadline_at", kInstant),
			sh("checkpoint_id", kText, "checkpoint_type", kText, "assignee_actor_id", kText, "required", kFlag,
				"exception_type", kText, "evidence_refs", kTextList, "deadline_at", kInstant),
		},
		"checkpoint_resolved":       {sh("checkpoint_id", kText, "checkpoint_type", kText, "resolution", kText)},
		"checkpoint_rejected":       {sh("checkpoint_id", kText, "code", kText, "detail", kString)},
		"obligation_created":        {sh("obligation_id", kText, "kind", kText, "due_at", kInstant)},
		"obligation_discharged":     {sh("obligation_id", kText, "kind", kText)},
		"obligation_cancelled":      {sh("obligation_id", kText, "kind", kText)},
		"obligation_breached":       {sh("obligation_id", kText, "kind", kText)},
		"timer_scheduled":           {sh("event_id", kText, "event_type", kText, "due_at", kInstant)},
		"timer_cancelled":           {sh("event_id", kText)},
		"terminal_proposed":         {sh("reason", kString, "evidence_refs", kTextList)},
		"terminal_rejected":         {sh("code", kText, "detail", kString)},
		"provisional_close_entered": {sh("cycle_id", kText, "reopen_until", kInstant, "replay_final", kFlag)},
		"operation_reopened":        {sh("reopened_cycle_id", kText, "warranty_cycle_id", kText, "reason", kString)},
		"terminal_accepted": {
			sh("outcome", kText, "replay_final", kFlag, "cycle_id", kOptionalText),
			sh("outcome", kText, "replay_final", kFlag, "operator_actor_id", kText),
		},
		"episode_ended": {
			sh("phase", kText),
			sh("phase", kText, "status", kText, "invocations", kCounter),
		},
		"critical_violation": {sh("code", kText, "detail", kString)},
		"retrieval_served": {sh("invocation_index", kCounter, "turn_index", kCounter, "batch_index", kCounter,
			"request_index", kCounter, "initiated_by", kInitiator, "tool", kText, "source", kText,
			"authority", kAuthority, "record_id", kText, "record_version", kText, "as_of", kInstant,
			"schema_id", kText, "records", kRecords, "ok", kFlag)},
		"retrieval_refused": {sh("invocation_index", kCounter, "turn_index", kCounter, "request_count", kCounter,
			"requested_tools", kTextList, "code", kRefusal, "detail", kString)},
		"derived_context_invalidated": {sh("invocation_index", kCounter, "turn_index", kCounter, "cause", kCause,
			"action_type", kOptionalText, "cleared_tools", kTextList)},
	}
	t.v8 = rows8
	t.beforeV6 = with(rows8, "agent_invoked",
		sh("invocation_index", kCounter, "trigger_event_id", kOptionalText, "trigger_event_type", kOptionalText))
	t.beforeV5 = without(t.beforeV6, retrievalRecordTypes...)
	t.beforeV4 = with(t.beforeV5, "wait_declared",
		sh("fallback_fired", kFlag),
		sh("reason", kString, "wake_on", kTextList, "fallback_at", kOptionalInstant, "reachable", kFlag))
	t.beforeV3 = with(t.beforeV4, "effect_accepted", effectAcceptedBeforeV3)
	return t
})

var retrievalRecordTypes = []string{"retrieval_served", "retrieval_refused", "derived_context_invalidated"}

// rowShapes returns the row-shape table contract v is held to.
func rowShapes(v int) map[string][]shape {
	t := shapeTables()
	switch {
	case v <= 2:
		return t.beforeV3
	case v == 3:
		return t.beforeV4
	case v == 4:
		return t.beforeV5
	case v == 5:
		return t.beforeV6
	}
	return t.v8
}

// RecordTypes returns every trajectory record type contract v's runtime
// wrote, sorted.
func RecordTypes(v int) []string {
	t := rowShapes(v)
	out := make([]string, 0, len(t))
	for k := range t {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func with(base map[string][]shape, name string, shapes ...shape) map[string][]shape {
	out := make(map[string][]shape, len(base))
	for k, v := range base {
		out[k] = v
	}
	out[name] = shapes
	return out
}

func without(base map[string][]shape, names ...string) map[string][]shape {
	out := make(map[string][]shape, len(base))
	for k, v := range base {
		if !slices.Contains(names, k) {
			out[k] = v
		}
	}
	return out
}

// Exact nested field sets.
var (
	operationFields  = []string{"operation_id", "operation_type", "operation_version", "semantic_scenario_id", "privacy_status", "spec_digest_sha256", "scenario_ids"}
	eventFields      = []string{"event_id", "event_type", "actor_id", "at", "sequence", "payload", "triggers_agent", "caused_by", "disposition", "verdict_code"}
	evaluationFields = []string{"terminal_outcome", "legitimate_completion", "reliable", "failed_dimensions", "finding_codes", "dimensions"}
	dimensionFields  = []string{"name", "ok", "findings", "counts", "note"}
	findingFields    = []string{"code", "detail", "at"}
	decisionFields   = []string{"invocation_index", "turn_index", "observation_digest_sha256", "outcome"}
	executionFields  = []string{"outcome_source", "model", "protocol_version", "max_output_tokens", "transport_calls", "retry_count", "attempts", "excluded", "exclusion_code", "exclusion_detail"}
	attemptFields    = []string{"invocation_index", "turn_index", "request_digest_sha256", "outcome", "fault"}
	rowHead          = []string{"index", "at", "record_type"}
	// BindingFields are the exact keys of a provider execution binding.
	bindingFields = []string{
		"execution_run_id", "execution_ledger_version", "execution_ledger_digest_sha256",
		"provider", "api", "model", "settings_digest_sha256", "pricing_digest_sha256",
		"provider_calls", "attempts", "measured_cost_usd", "forfeited_reservation_usd",
		"input_tokens", "output_tokens", "decision_call_index",
	}
)

// SchemaApplies reports whether the published JSON Schema
// (schemas/artefact/v8.json, run by artefact/schema) speaks to a tree:
// every document except one declaring a contract 1..7 this build also reads
// (the schema is contract 8's, and holds artifact_version to 8).
func SchemaApplies(tree any) bool {
	root, _ := tree.(map[string]any)
	v, ok := root["artifact_version"].(int64)
	return !ok || v < OldestVersion || v >= Version
}
