package artefact

import "slices"

// Kinds of evidence a field is, to one reader.
const (
	// Covered: the field is content a digest covers, and the reader
	// recomputes the digest.
	Covered = "covered"
	// Derived: the reader re-derives the field from covered content (or
	// from the other document it holds the field to) and refuses a
	// difference by name.
	Derived = "derived"
	// Carried: the reader checks the field's form only and reports it by
	// name as carried (unverified).
	Carried = "carried"
)

// FieldKind is one row of the artefact's field table: a field (a JSON
// pointer pattern below the document root, "[]" for every array element)
// and its kind to validate, replay and bundle. SECURITY.md carries the same
// table; a test keeps the two in step with the field sets the reader
// enforces.
type FieldKind struct {
	Field                    string
	Validate, Replay, Bundle string
}

// fieldKinds is the contract-8 field table. Nested objects whose every
// field has the same kind as the object (events, trajectory rows, the final
// state, the decision tape, the result vector) are one row.
var fieldKinds = []FieldKind{
	{"artifact_version", Derived, Derived, Derived},
	{"engine_version", Carried, Carried, Derived},
	{"operation/operation_id", Carried, Derived, Derived},
	{"operation/operation_type", Carried, Derived, Carried},
	{"operation/operation_version", Carried, Derived, Carried},
	{"operation/semantic_scenario_id", Carried, Derived, Carried},
	{"operation/privacy_status", Carried, Derived, Carried},
	{"operation/spec_digest_sha256", Carried, Derived, Derived},
	{"operation/scenario_ids", Carried, Derived, Carried},
	{"operation_instance_id", Carried, Derived, Derived},
	{"scenario_id", Carried, Derived, Derived},
	{"semantic_scenario_id", Carried, Derived, Carried},
	{"scenario_label", Carried, Derived, Carried},
	{"agent_id", Carried, Derived, Derived},
	{"agent_kind", Carried, Carried, Derived},
	{"expected_terminal", Carried, Derived, Carried},
	{"status", Derived, Derived, Carried},
	{"terminal_outcome", Derived, Derived, Carried},
	{"replay_final", Derived, Derived, Carried},
	{"started_at", Derived, Derived, Carried},
	{"ended_at", Derived, Derived, Carried},
	{"simulated_minutes", Derived, Derived, Carried},
	{"agent_invocations", Derived, Derived, Carried},
	{"note", Carried, Derived, Carried},
	{"events", Carried, Derived, Carried},
	{"trajectory", Covered, Derived, Carried},
	{"trajectory_digest_sha256", Derived, Derived, Carried},
	{"final_state", Covered, Derived, Carried},
	{"final_state_digest_sha256", Derived, Derived, Carried},
	{"evaluation", Derived, Derived, Carried},
	{"decisions", Covered, Carried, Derived},
	{"decisions_digest_sha256", Derived, Carried, Derived},
	{"agent_execution/outcome_source", Carried, Carried, Derived},
	{"agent_execution/model", Carried, Carried, Derived},
	{"agent_execution/protocol_version", Carried, Carried, Derived},
	{"agent_execution/max_output_tokens", Carried, Carried, Derived},
	{"agent_execution/transport_calls", Carried, Carried, Derived},
	{"agent_execution/retry_count", Derived, Derived, Derived},
	{"agent_execution/attempts/[]/invocation_index", Derived, Derived, Derived},
	{"agent_execution/attempts/[]/turn_index", Derived, Derived, Derived},
	{"agent_execution/attempts/[]/request_digest_sha256", Carried, Derived, Derived},
	{"agent_execution/attempts/[]/outcome", Derived, Derived, Derived},
	{"agent_execution/attempts/[]/fault", Derived, Derived, Derived},
	{"agent_execution/excluded", Derived, Derived, Derived},
	{"agent_execution/exclusion_code", Derived, Derived, Derived},
	{"agent_execution/exclusion_detail", Derived, Derived, Derived},
	{"provider_execution/execution_run_id", Carried, Carried, Derived},
	{"provider_execution/execution_ledger_version", Carried, Carried, Derived},
	{"provider_execution/execution_ledger_digest_sha256", Carried, Carried, Derived},
	{"provider_execution/provider", Carried, Carried, Derived},
	{"provider_execution/api", Carried, Carried, Derived},
	{"provider_execution/model", Derived, Carried, Derived},
	{"provider_execution/settings_digest_sha256", Carried, Carried, Derived},
	{"provider_execution/pricing_digest_sha256", Carried, Carried, Derived},
	{"provider_execution/provider_calls", Derived, Carried, Derived},
	{"provider_execution/attempts", Derived, Carried, Derived},
	{"provider_execution/measured_cost_usd", Carried, Carried, Derived},
	{"provider_execution/forfeited_reservation_usd", Carried, Carried, Derived},
	{"provider_execution/input_tokens", Carried, Carried, Derived},
	{"provider_execution/output_tokens", Carried, Carried, Derived},
	{"provider_execution/decision_call_index", Derived, Carried, Derived},
}

// CarriedFields returns the fields a reader ("validate", "replay" or
// "bundle") carries for a document of contract v, by table order: the
// table's carried rows whose top-level field the contract has.
func CarriedFields(reader string, v int) []string {
	fields := Fields(v)
	var out []string
	for _, k := range fieldKinds {
		top, _, _ := cut(k.Field)
		if !slices.Contains(fields, top) {
			continue
		}
		kind := k.Validate
		switch reader {
		case "replay":
			kind = k.Replay
		case "bundle":
			kind = k.Bundle
		}
		if kind == Carried {
			out = append(out, k.Field)
		}
	}
	return out
}

func cut(p string) (string, string, bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// ModelAgentID is the agent id a model run's binding names: its provider
// and its pinned model, joined by a hyphen, with every character of the
// model that is not a lower-case letter or a digit turned into a hyphen
// ("openai" and "gpt-5.6-luna" name "openai-gpt-5-6-luna", the id upstream
// and obaudit's model agent run under).
func ModelAgentID(provider, model string) string {
	b := []byte(provider + "-" + model)
	for i := len(provider) + 1; i < len(b); i++ {
		if !(b[i] >= 'a' && b[i] <= 'z' || b[i] >= '0' && b[i] <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}
