package execledger

import (
	"io"
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// upstreamStyle builds a small journal in-package (header, one answered
// call, scored) at ledger version v by hand, re-chained, so tests here need
// no import of ledgertest (which imports this package).
func upstreamStyle(t *testing.T, v int) []byte {
	t.Helper()
	hdr := `{"execution_run_id": "exec_00000000000000000000000000000000", "operation_instance_id": "opinst_11111111111111111111111111111111", "operation_id": "op", "scenario_id": "V1", "agent_id": "a", "agent_kind": "model", "spec_digest_sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "engine_version": "0.9.0", "intended_artifact_version": 8, "started_at": "2031-03-03T09:00:00Z",
 "provider": {"provider": "openai", "api": "responses", "model": "m", "implementation": "i", "request_mapping": "r", "protocol_version": "p", "sdk": "openai", "sdk_version": "1", "base_url": "https://api.openai.com/v1", "settings": {"unicode_label": "模型-é", "x": 1.0}, "settings_digest_sha256": ""},
 "controls": {"max_provider_calls": 2, "max_attempts_per_call": 1, "expected_provider_calls": 1, "token_hard_cap": 100000, "max_output_tokens": 4096, "cost_cap_usd": "1", "cost_cap_policy": "refuse_before_dispatch", "turn_deadline_seconds": 30.0, "wall_clock_deadline_seconds": 1800.0, "pricing": {"input_usd_per_mtok": "1.25", "output_usd_per_mtok": "10"}, "pricing_digest_sha256": ""}}`
	call := `{"call_index": 0, "invocation_index": 1, "turn_index": 0, "request_digest_sha256": "1111111111111111111111111111111111111111111111111111111111111111", "prompt_digest_sha256": "1111111111111111111111111111111111111111111111111111111111111111", "observation_digest_sha256": "1111111111111111111111111111111111111111111111111111111111111111", "payload_digest_sha256": "1111111111111111111111111111111111111111111111111111111111111111", "wire_request_digest_sha256": null, "wire_request_bytes": null, "wire_request_method": null, "wire_request_url": null, "input_token_upper_bound": 14706, "started_at": "2031-03-03T09:00:00Z", "ended_at": "2031-03-03T09:00:00Z", "turn_latency_seconds": null, "terminal_reason": "response",
 "attempts": [{"attempt_index": 1, "outcome": "response", "fault": null, "http_status": 200, "latency_seconds": 0.5, "response_received": true, "usage_reported": true, "cost_reservation_usd": "0.0593425", "cost_settlement": "measured", "cost_measured_usd": "0.00644375", "cost_forfeited_usd": null, "input_tokens": 4211, "output_tokens": 118, "response_model": "m", "response_id_digest_sha256": null, "response_stop_classification": "completed", "response_normalized_digest_sha256": "2222222222222222222222222222222222222222222222222222222222222222"}],
 "decision": {"kind": "ACT", "decision_digest_sha256": "3333333333333333333333333333333333333333333333333333333333333333", "classification_code": null}}`
	term := `{"kind": "scored", "ended_at": "2031-03-03T09:00:01Z", "exclusion_code": null, "exclusion_detail": "", "totals": {"provider_calls": 1, "attempts": 1, "input_tokens": 4211, "output_tokens": 118, "measured_cost_usd": "0.00644375", "forfeited_reservation_usd": "0", "reserved_usd": "0.0593425", "fault_counts": {}}}`
	parse := func(s string) map[string]any {
		v, err := canon.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v.(map[string]any)
	}
	h := parse(hdr)
	p := h["provider"].(map[string]any)
	p["settings_digest_sha256"], _ = canon.UpstreamDigest(p["settings"])
	k := h["controls"].(map[string]any)
	k["pricing_digest_sha256"], _ = canon.UpstreamDigest(k["pricing"])
	var out []byte
	prev := GenesisDigest
	for i, pl := range []struct {
		kind string
		v    any
	}{{"header", h}, {"call", parse(call)}, {"terminal", parse(term)}} {
		row := map[string]any{"ledger_version": int64(v), "row_index": int64(i), "row_kind": pl.kind, "previous_row_digest_sha256": prev, pl.kind: pl.v}
		d, err := canon.UpstreamDigest(row)
		if err != nil {
			t.Fatal(err)
		}
		row["row_digest_sha256"] = d
		prev = d
		b, _ := canon.Append(nil, row, canon.UpstreamSpacedForm)
		out = append(append(out, b...), '\n')
	}
	if _, err := Read(bytesReader(out), Options{RequireComplete: true}); err != nil {
		t.Fatalf("the in-package fixture does not read: %v", err)
	}
	return out
}

func bytesReader(b []byte) *bytesR { return &bytesR{b: b} }

type bytesR struct{ b []byte }

func (r *bytesR) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, errEOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

var errEOF = io.EOF
