package artefact

import (
	"maps"
	"slices"
	"sync"

	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/internal/jsonfield"
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
	if v < OldestVersion || v > Version {
		return nil
	}
	return slices.Clone(fieldSet(v))
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

// field is one named field of a shape and the rule its value keeps.
type field struct {
	name string
	rule jsonfield.Rule
}

// shape is an exact body: every field, and nothing else.
type shape []field

func (s shape) names() []string {
	out := make([]string, len(s))
	for i, f := range s {
		out[i] = f.name
	}
	return out
}

// The body each decision kind is written in (beyond "kind"), by kind; an
// ASK's wait is a WAIT's body. outcomeShapes is built on first use (no work
// at package init).
var outcomeShapes = sync.OnceValue(func() map[string]shape {
	text, opt, str, list := rules.Text, rules.OptText, rules.String, rules.TextList
	var m map[string]shape
	wait := func(x any, p string) error { return holdOutcome(m, x, p, decision.KindWait) }
	requests := rules.List(rules.Closed(jsonfield.Field("tool", text), jsonfield.Field("arguments", rules.Open())))
	m = map[string]shape{
		decision.KindAct:       {{"action_type", text}, {"payload", rules.Open()}, {"evidence_refs", list}, {"rationale", str}},
		decision.KindWait:      {{"reason", str}, {"wake_on", list}, {"fallback_after_minutes", jsonfield.OrNull(positive)}},
		decision.KindAsk:       {{"recipient_actor_id", text}, {"message_fixture_id", text}, {"correlation_id", opt}, {"wait", wait}},
		decision.KindEscalate:  {{"checkpoint_id", text}, {"exception_type", text}, {"evidence_refs", list}, {"deadline_after_minutes", positive}, {"rationale", str}},
		decision.KindComplete:  {{"reason", str}, {"evidence_refs", list}},
		decision.KindRetrieve:  {{"requests", requests}},
		decision.KindMalformed: {{"code", oneOf(Classifications)}},
	}
	return m
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
	text, opt, str, flag, list := rules.Text, rules.OptText, rules.String, rules.Flag, rules.TextList
	object, optInstant := rules.Open(), rules.OptInstant
	effectAcceptedBeforeV3 := shape{{"proposal_id", text}, {"action_type", text}, {"code", text}, {"cycle_id", opt}}
	effectAcceptedV3 := shape{{"proposal_id", text}, {"action_type", text}, {"code", text}, {"cycle_id", opt}, {"bindings", rules.Keyed(anyKey, text)}}

	rows8 := map[string][]shape{
		"event_observed":       {{{"event_id", text}, {"event_type", text}, {"actor_id", text}, {"code", text}, {"observational", flag}}},
		"event_audit_only":     {{{"event_id", text}, {"event_type", text}, {"actor_id", text}, {"code", text}, {"observational", flag}}},
		"event_rejected":       {{{"event_id", text}, {"event_type", text}, {"actor_id", text}, {"code", text}, {"detail", str}}},
		"event_after_terminal": {{{"event_id", text}, {"event_type", text}, {"actor_id", text}, {"mutating", flag}}},
		"agent_invoked": {{{"invocation_index", counter}, {"trigger_event_id", opt}, {"trigger_event_type", opt},
			{"trigger_event_authority", opt}, {"trigger_is_authoritative", flag}, {"trigger_claim_values", list}}},
		"agent_outcome":    {{{"invocation_index", counter}, {"turn_index", counter}, {"outcome", outcome}}},
		"outcome_rejected": {{{"invocation_index", counter}, {"turn_index", counter}, {"code", text}, {"detail", str}}},
		"wait_declared": {
			{{"fallback_fired", flag}},
			{{"reason", str}, {"wake_on", list}, {"fallback_at", optInstant}},
		},
		"wait_unresolved_at_horizon": {{{"reason", str}, {"wake_on", list}, {"horizon_at", when}}},
		"wait_rejected": {
			{{"code", text}, {"detail", str}},
			{{"code", text}, {"detail", str}, {"event_id", text}},
		},
		"action_proposed":    {{{"proposal_id", text}, {"action_type", text}, {"payload", object}, {"evidence_refs", list}}},
		"action_rejected":    {{{"proposal_id", text}, {"action_type", text}, {"code", text}, {"detail", str}}},
		"effect_accepted":    {effectAcceptedV3},
		"side_effect":        {{{"channel", text}, {"message_fixture_id", text}, {"recipient_actor_id", text}, {"status", text}}},
		"side_effect_failed": {{{"channel", text}, {"message_fixture_id", text}, {"recipient_actor_id", text}, {"committed_decision_preserved", flag}}},
		"checkpoint_opened": {
			{{"checkpoint_id", text}, {"checkpoint_type", text}, {"assignee_actor_id", text}, {"required", flag}, {"deadline_at", when}},
			{{"checkpoint_id", text}, {"checkpoint_type", text}, {"assignee_actor_id", text}, {"required", flag},
				{"exception_type", text}, {"evidence_refs", list}, {"deadline_at", when}},
		},
		"checkpoint_resolved":       {{{"checkpoint_id", text}, {"checkpoint_type", text}, {"resolution", text}}},
		"checkpoint_rejected":       {{{"checkpoint_id", text}, {"code", text}, {"detail", str}}},
		"obligation_created":        {{{"obligation_id", text}, {"kind", text}, {"due_at", when}}},
		"obligation_discharged":     {{{"obligation_id", text}, {"kind", text}}},
		"obligation_cancelled":      {{{"obligation_id", text}, {"kind", text}}},
		"obligation_breached":       {{{"obligation_id", text}, {"kind", text}}},
		"timer_scheduled":           {{{"event_id", text}, {"event_type", text}, {"due_at", when}}},
		"timer_cancelled":           {{{"event_id", text}}},
		"terminal_proposed":         {{{"reason", str}, {"evidence_refs", list}}},
		"terminal_rejected":         {{{"code", text}, {"detail", str}}},
		"provisional_close_entered": {{{"cycle_id", text}, {"reopen_until", when}, {"replay_final", flag}}},
		"operation_reopened":        {{{"reopened_cycle_id", text}, {"warranty_cycle_id", text}, {"reason", str}}},
		"terminal_accepted": {
			{{"outcome", text}, {"replay_final", flag}, {"cycle_id", opt}},
			{{"outcome", text}, {"replay_final", flag}, {"operator_actor_id", text}},
		},
		"episode_ended": {
			{{"phase", text}},
			{{"phase", text}, {"status", text}, {"invocations", counter}},
		},
		"critical_violation": {{{"code", text}, {"detail", str}}},
		"retrieval_served": {{{"invocation_index", counter}, {"turn_index", counter}, {"batch_index", counter},
			{"request_index", counter}, {"initiated_by", oneOf(retrievalInitiator)}, {"tool", text}, {"source", text},
			{"authority", oneOf(retrievalAuthority)}, {"record_id", text}, {"record_version", text}, {"as_of", when},
			{"schema_id", text}, {"records", object}, {"ok", flag}}},
		"retrieval_refused": {{{"invocation_index", counter}, {"turn_index", counter}, {"request_count", counter},
			{"requested_tools", list}, {"code", oneOf(retrievalRefusal)}, {"detail", str}}},
		"derived_context_invalidated": {{{"invocation_index", counter}, {"turn_index", counter}, {"cause", oneOf(invalidationCause)},
			{"action_type", opt}, {"cleared_tools", list}}},
	}
	t.v8 = rows8
	t.beforeV6 = with(rows8, "agent_invoked",
		shape{{"invocation_index", counter}, {"trigger_event_id", opt}, {"trigger_event_type", opt}})
	t.beforeV5 = without(t.beforeV6, retrievalRecordTypes...)
	t.beforeV4 = with(t.beforeV5, "wait_declared",
		shape{{"fallback_fired", flag}},
		shape{{"reason", str}, {"wake_on", list}, {"fallback_at", optInstant}, {"reachable", flag}})
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
func RecordTypes(v int) []string { return slices.Sorted(maps.Keys(rowShapes(v))) }

func with(base map[string][]shape, name string, shapes ...shape) map[string][]shape {
	out := maps.Clone(base)
	out[name] = shapes
	return out
}

func without(base map[string][]shape, names ...string) map[string][]shape {
	out := maps.Clone(base)
	for _, name := range names {
		delete(out, name)
	}
	return out
}

// Exact nested field sets.
var (
	operationFields = []string{"operation_id", "operation_type", "operation_version", "semantic_scenario_id", "privacy_status", "spec_digest_sha256", "scenario_ids"}
	decisionFields  = []string{"invocation_index", "turn_index", "observation_digest_sha256", "outcome"}
	executionFields = []string{"outcome_source", "model", "protocol_version", "max_output_tokens", "transport_calls", "retry_count", "attempts", "excluded", "exclusion_code", "exclusion_detail"}
	attemptFields   = []string{"invocation_index", "turn_index", "request_digest_sha256", "outcome", "fault"}
	rowHead         = []string{"index", "at", "record_type"}
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
