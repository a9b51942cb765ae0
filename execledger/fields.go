package execledger

// Kinds of evidence a ledger field is, to one reader (the same three words
// as the artefact's field table).
const (
	// Covered: content a digest covers, recomputed by the reader.
	Covered = "covered"
	// Derived: re-derived by the reader from covered content, or held to the
	// document beside it; a difference is a named refusal.
	Derived = "derived"
	// Carried: form-checked only (and, where stated, held to rules that bound
	// it), reported by name as carried.
	Carried = "carried"
)

// FieldKind is one row of the ledger's field table: a field (a pointer
// pattern below a row, "[]" for every array element) and its kind to
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
	{"ledger_version", Derived, Derived},
	{"row_index", Derived, Derived},
	{"row_kind", Derived, Derived},
	{"previous_row_digest_sha256", Derived, Derived},
	{"row_digest_sha256", Derived, Derived},
	{"header/execution_run_id", Carried, Derived},
	{"header/operation_instance_id", Carried, Derived},
	{"header/operation_id", Carried, Derived},
	{"header/scenario_id", Carried, Derived},
	{"header/agent_id", Carried, Derived},
	{"header/agent_kind", Carried, Derived},
	{"header/spec_digest_sha256", Carried, Derived},
	{"header/engine_version", Carried, Derived},
	{"header/intended_artifact_version", Derived, Derived},
	{"header/started_at", Carried, Carried},
	{"header/provider/provider", Carried, Derived},
	{"header/provider/api", Carried, Derived},
	{"header/provider/model", Carried, Derived},
	{"header/provider/implementation", Carried, Carried},
	{"header/provider/request_mapping", Carried, Carried},
	{"header/provider/protocol_version", Carried, Derived},
	{"header/provider/sdk", Carried, Carried},
	{"header/provider/sdk_version", Carried, Carried},
	{"header/provider/base_url", Carried, Carried},
	{"header/provider/settings", Carried, Carried},
	{"header/provider/settings_digest_sha256", Derived, Derived},
	{"header/controls/max_provider_calls", Carried, Carried},
	{"header/controls/max_attempts_per_call", Carried, Carried},
	{"header/controls/expected_provider_calls", Carried, Carried},
	{"header/controls/token_hard_cap", Carried, Carried},
	{"header/controls/max_output_tokens", Carried, Derived},
	{"header/controls/cost_cap_usd", Carried, Carried},
	{"header/controls/cost_cap_policy", Carried, Carried},
	{"header/controls/turn_deadline_seconds", Carried, Carried},
	{"header/controls/wall_clock_deadline_seconds", Carried, Carried},
	{"header/controls/pricing", Carried, Carried},
	{"header/controls/pricing_digest_sha256", Derived, Derived},
	{"call/call_index", Derived, Derived},
	{"call/invocation_index", Carried, Derived},
	{"call/turn_index", Carried, Derived},
	{"call/request_digest_sha256", Carried, Derived},
	{"call/prompt_digest_sha256", Carried, Carried},
	{"call/observation_digest_sha256", Carried, Derived},
	{"call/payload_digest_sha256", Carried, Carried},
	{"call/wire_request_digest_sha256", Carried, Carried},
	{"call/wire_request_bytes", Carried, Carried},
	{"call/wire_request_method", Carried, Carried},
	{"call/wire_request_url", Carried, Carried},
	{"call/input_token_upper_bound", Carried, Carried},
	{"call/started_at", Carried, Carried},
	{"call/ended_at", Carried, Carried},
	{"call/turn_latency_seconds", Carried, Carried},
	{"call/terminal_reason", Carried, Carried},
	{"call/attempts/[]/attempt_index", Derived, Derived},
	{"call/attempts/[]/outcome", Carried, Carried},
	{"call/attempts/[]/fault", Carried, Carried},
	{"call/attempts/[]/http_status", Carried, Carried},
	{"call/attempts/[]/latency_seconds", Carried, Carried},
	{"call/attempts/[]/response_received", Carried, Carried},
	{"call/attempts/[]/usage_reported", Carried, Carried},
	{"call/attempts/[]/cost_reservation_usd", Derived, Derived},
	{"call/attempts/[]/cost_settlement", Carried, Carried},
	{"call/attempts/[]/cost_measured_usd", Derived, Derived},
	{"call/attempts/[]/cost_forfeited_usd", Derived, Derived},
	{"call/attempts/[]/input_tokens", Carried, Carried},
	{"call/attempts/[]/output_tokens", Carried, Carried},
	{"call/attempts/[]/response_model", Derived, Derived},
	{"call/attempts/[]/response_id_digest_sha256", Carried, Carried},
	{"call/attempts/[]/response_stop_classification", Carried, Carried},
	{"call/attempts/[]/response_normalized_digest_sha256", Carried, Carried},
	{"call/decision/kind", Carried, Derived},
	{"call/decision/decision_digest_sha256", Carried, Derived},
	{"call/decision/classification_code", Carried, Carried},
	{"terminal/kind", Carried, Carried},
	{"terminal/ended_at", Carried, Carried},
	{"terminal/exclusion_code", Carried, Carried},
	{"terminal/exclusion_detail", Derived, Derived},
	{"terminal/totals/provider_calls", Derived, Derived},
	{"terminal/totals/attempts", Derived, Derived},
	{"terminal/totals/input_tokens", Derived, Derived},
	{"terminal/totals/output_tokens", Derived, Derived},
	{"terminal/totals/measured_cost_usd", Derived, Derived},
	{"terminal/totals/forfeited_reservation_usd", Derived, Derived},
	{"terminal/totals/reserved_usd", Derived, Derived},
	{"terminal/totals/fault_counts", Derived, Derived},
}

// CarriedFields returns the fields reader ("ledger" or "bundle") carries.
func CarriedFields(reader string) []string {
	var out []string
	for _, k := range fieldKinds {
		kind := k.Ledger
		if reader == "bundle" {
			kind = k.Bundle
		}
		if kind == Carried {
			out = append(out, k.Field)
		}
	}
	return out
}
