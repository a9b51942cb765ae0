package execledger

import "github.com/obaudit/obaudit/format/fieldkind"

// FieldKind is one row of the ledger's field table: a field (a pointer
// pattern below a row, "[]" for every array element) and its kind (in
// [fieldkind]'s words, the artefact's field table's three) to
// `obaudit ledger verify` and to `obaudit bundle`.
type FieldKind struct {
	Field          string
	Ledger, Bundle string
}

// fieldKinds is the ledger's field table (versions 2 and 3 share it).
// Carried fields that the reader nevertheless bounds (instants that may not
// move backwards, latencies within the deadlines, token counts within the
// ceiling and bound) stay carried: the bound is not the value.
var fieldKinds = []FieldKind{
	{"ledger_version", fieldkind.Derived, fieldkind.Derived},
	{"row_index", fieldkind.Derived, fieldkind.Derived},
	{"row_kind", fieldkind.Derived, fieldkind.Derived},
	{"previous_row_digest_sha256", fieldkind.Derived, fieldkind.Derived},
	{"row_digest_sha256", fieldkind.Derived, fieldkind.Derived},
	{"header/execution_run_id", fieldkind.Carried, fieldkind.Derived},
	{"header/operation_instance_id", fieldkind.Carried, fieldkind.Derived},
	{"header/operation_id", fieldkind.Carried, fieldkind.Derived},
	{"header/scenario_id", fieldkind.Carried, fieldkind.Derived},
	{"header/agent_id", fieldkind.Carried, fieldkind.Derived},
	{"header/agent_kind", fieldkind.Carried, fieldkind.Derived},
	{"header/spec_digest_sha256", fieldkind.Carried, fieldkind.Derived},
	{"header/engine_version", fieldkind.Carried, fieldkind.Derived},
	{"header/intended_artifact_version", fieldkind.Derived, fieldkind.Derived},
	{"header/started_at", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/provider", fieldkind.Carried, fieldkind.Derived},
	{"header/provider/api", fieldkind.Carried, fieldkind.Derived},
	{"header/provider/model", fieldkind.Carried, fieldkind.Derived},
	{"header/provider/implementation", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/request_mapping", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/protocol_version", fieldkind.Carried, fieldkind.Derived},
	{"header/provider/sdk", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/sdk_version", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/base_url", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/settings", fieldkind.Carried, fieldkind.Carried},
	{"header/provider/settings_digest_sha256", fieldkind.Derived, fieldkind.Derived},
	{"header/controls/max_provider_calls", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/max_attempts_per_call", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/expected_provider_calls", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/token_hard_cap", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/max_output_tokens", fieldkind.Carried, fieldkind.Derived},
	{"header/controls/cost_cap_usd", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/cost_cap_policy", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/turn_deadline_seconds", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/wall_clock_deadline_seconds", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/pricing", fieldkind.Carried, fieldkind.Carried},
	{"header/controls/pricing_digest_sha256", fieldkind.Derived, fieldkind.Derived},
	{"call/call_index", fieldkind.Derived, fieldkind.Derived},
	{"call/invocation_index", fieldkind.Carried, fieldkind.Derived},
	{"call/turn_index", fieldkind.Carried, fieldkind.Derived},
	{"call/request_digest_sha256", fieldkind.Carried, fieldkind.Derived},
	{"call/prompt_digest_sha256", fieldkind.Carried, fieldkind.Carried},
	{"call/observation_digest_sha256", fieldkind.Carried, fieldkind.Derived},
	{"call/payload_digest_sha256", fieldkind.Carried, fieldkind.Carried},
	{"call/wire_request_digest_sha256", fieldkind.Carried, fieldkind.Carried},
	{"call/wire_request_bytes", fieldkind.Carried, fieldkind.Carried},
	{"call/wire_request_method", fieldkind.Carried, fieldkind.Carried},
	{"call/wire_request_url", fieldkind.Carried, fieldkind.Carried},
	{"call/input_token_upper_bound", fieldkind.Carried, fieldkind.Carried},
	{"call/started_at", fieldkind.Carried, fieldkind.Carried},
	{"call/ended_at", fieldkind.Carried, fieldkind.Carried},
	{"call/turn_latency_seconds", fieldkind.Carried, fieldkind.Carried},
	{"call/terminal_reason", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/attempt_index", fieldkind.Derived, fieldkind.Derived},
	{"call/attempts/[]/outcome", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/fault", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/http_status", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/latency_seconds", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/response_received", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/usage_reported", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/cost_reservation_usd", fieldkind.Derived, fieldkind.Derived},
	{"call/attempts/[]/cost_settlement", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/cost_measured_usd", fieldkind.Derived, fieldkind.Derived},
	{"call/attempts/[]/cost_forfeited_usd", fieldkind.Derived, fieldkind.Derived},
	{"call/attempts/[]/input_tokens", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/output_tokens", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/response_model", fieldkind.Derived, fieldkind.Derived},
	{"call/attempts/[]/response_id_digest_sha256", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/response_stop_classification", fieldkind.Carried, fieldkind.Carried},
	{"call/attempts/[]/response_normalized_digest_sha256", fieldkind.Carried, fieldkind.Carried},
	{"call/decision/kind", fieldkind.Carried, fieldkind.Derived},
	{"call/decision/decision_digest_sha256", fieldkind.Carried, fieldkind.Derived},
	{"call/decision/classification_code", fieldkind.Carried, fieldkind.Carried},
	{"terminal/kind", fieldkind.Carried, fieldkind.Carried},
	{"terminal/ended_at", fieldkind.Carried, fieldkind.Carried},
	{"terminal/exclusion_code", fieldkind.Carried, fieldkind.Carried},
	{"terminal/exclusion_detail", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/provider_calls", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/attempts", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/input_tokens", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/output_tokens", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/measured_cost_usd", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/forfeited_reservation_usd", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/reserved_usd", fieldkind.Derived, fieldkind.Derived},
	{"terminal/totals/fault_counts", fieldkind.Derived, fieldkind.Derived},
}

// CarriedFields returns the fields reader ("ledger" or "bundle") carries.
func CarriedFields(reader string) []string {
	var out []string
	for _, k := range fieldKinds {
		kind := k.Ledger
		if reader == "bundle" {
			kind = k.Bundle
		}
		if kind == fieldkind.Carried {
			out = append(out, k.Field)
		}
	}
	return out
}
