package artefact

import (
	"slices"
	"strings"

	"github.com/obaudit/obaudit/format/fieldkind"
)

// FieldKind is one row of the artefact's field table: a field (a JSON
// pointer pattern below the document root, "[]" for every array element)
// and its kind ([fieldkind.Covered], [fieldkind.Derived] or
// [fieldkind.Carried]) to validate, replay and bundle. SECURITY.md carries the same
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
	{"artifact_version", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"engine_version", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"operation/operation_id", fieldkind.Carried, fieldkind.Derived, fieldkind.Derived},
	{"operation/operation_type", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"operation/operation_version", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"operation/semantic_scenario_id", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"operation/privacy_status", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"operation/spec_digest_sha256", fieldkind.Carried, fieldkind.Derived, fieldkind.Derived},
	{"operation/scenario_ids", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"operation_instance_id", fieldkind.Carried, fieldkind.Derived, fieldkind.Derived},
	{"scenario_id", fieldkind.Carried, fieldkind.Derived, fieldkind.Derived},
	{"semantic_scenario_id", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"scenario_label", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"agent_id", fieldkind.Carried, fieldkind.Derived, fieldkind.Derived},
	{"agent_kind", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"expected_terminal", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"status", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"terminal_outcome", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"replay_final", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"started_at", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"ended_at", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"simulated_minutes", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"agent_invocations", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"note", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"events", fieldkind.Carried, fieldkind.Derived, fieldkind.Carried},
	{"trajectory", fieldkind.Covered, fieldkind.Derived, fieldkind.Carried},
	{"trajectory_digest_sha256", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"final_state", fieldkind.Covered, fieldkind.Derived, fieldkind.Carried},
	{"final_state_digest_sha256", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"evaluation", fieldkind.Derived, fieldkind.Derived, fieldkind.Carried},
	{"decisions", fieldkind.Covered, fieldkind.Carried, fieldkind.Derived},
	{"decisions_digest_sha256", fieldkind.Derived, fieldkind.Carried, fieldkind.Derived},
	{"agent_execution/outcome_source", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"agent_execution/model", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"agent_execution/protocol_version", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"agent_execution/max_output_tokens", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"agent_execution/transport_calls", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"agent_execution/retry_count", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/attempts/[]/invocation_index", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/attempts/[]/turn_index", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/attempts/[]/request_digest_sha256", fieldkind.Carried, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/attempts/[]/outcome", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/attempts/[]/fault", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/excluded", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/exclusion_code", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"agent_execution/exclusion_detail", fieldkind.Derived, fieldkind.Derived, fieldkind.Derived},
	{"provider_execution/execution_run_id", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/execution_ledger_version", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/execution_ledger_digest_sha256", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/provider", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/api", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/model", fieldkind.Derived, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/settings_digest_sha256", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/pricing_digest_sha256", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/provider_calls", fieldkind.Derived, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/attempts", fieldkind.Derived, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/measured_cost_usd", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/forfeited_reservation_usd", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/input_tokens", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/output_tokens", fieldkind.Carried, fieldkind.Carried, fieldkind.Derived},
	{"provider_execution/decision_call_index", fieldkind.Derived, fieldkind.Carried, fieldkind.Derived},
}

// CarriedFields returns the fields a reader ("validate", "replay" or
// "bundle") carries for a document of contract v, by table order: the
// table's carried rows whose top-level field the contract has.
func CarriedFields(reader string, v int) []string {
	fields := Fields(v)
	var out []string
	for _, k := range fieldKinds {
		top, _, _ := strings.Cut(k.Field, "/")
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
		if kind == fieldkind.Carried {
			out = append(out, k.Field)
		}
	}
	return out
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
