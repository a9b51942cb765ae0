package preflight

import (
	"path/filepath"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider"
)

// MediaType names the preflight report format.
const MediaType = "application/vnd.obaudit.preflight+json;version=1"

// LiveMediaType names the report of a live model run.
const LiveMediaType = "application/vnd.obaudit.model-run+json;version=1"

// LiveTransport describes how a live run's requests travelled.
const LiveTransport = "net/http client over TLS to the profile's endpoint (or --base-url), no proxy, redirects refused"

// Transport describes how requests travelled, for the report.
const Transport = "net/http client over TLS to an in-process scripted provider on a loopback listener, in the lane's vendor wire format"

// Summary is the JSON report of a cell. File names are reported as base
// names only.
func (r *Result) Summary() map[string]any {
	base := func(p string) any {
		if p == "" {
			return nil
		}
		return filepath.Base(p)
	}
	s := map[string]any{
		"mediaType":                     MediaType,
		"ok":                            r.OK(),
		"cell_as_expected":              r.AsExpected(),
		"cell":                          string(r.Cell),
		"live_provider_call":            r.Live,
		"credential_read":               r.Live,
		"network_access":                "loopback only",
		"transport":                     Transport,
		"checked_environment_variables": canon.StringList(r.CheckedEnvironment),
		"scenario_id":                   r.ScenarioID,
		"agent_id":                      r.AgentID,
		"model":                         r.Profile.Model,
		"lane":                          r.Lane,
		"provider":                      r.Profile.Provider,
		"budget": map[string]any{
			"worst_case_usd":                 r.WorstCaseUSD,
			"cost_cap_usd":                   r.Controls.CostCapUSD,
			"token_hard_cap":                 r.Controls.TokenHardCap,
			"token_worst_case":               r.TokenWorstCase,
			"largest_request_token_bound":    int64(provider.LargestRequestTokenBound),
			"largest_measured_request_bound": r.LargestRequestBound,
			"max_output_tokens":              r.Controls.MaxOutputTokens,
			"max_provider_calls":             r.Controls.MaxProviderCalls,
		},
		"ledger":                   base(r.LedgerPath),
		"artefact":                 base(r.ArtefactPath),
		"status":                   r.Status,
		"exclusion_code":           nil,
		"provider_requests":        int64(r.ProviderRequests),
		"replay_provider_calls":    r.ReplayProviderCalls,
		"episode_artefact_written": r.ArtefactPath != "",
	}
	if r.Live {
		s["mediaType"] = LiveMediaType
		s["network_access"] = "the profile's endpoint"
		s["transport"] = LiveTransport
		delete(s, "cell")
		delete(s, "cell_as_expected")
		delete(s, "checked_environment_variables")
	}
	if r.ExclusionCode != "" {
		s["exclusion_code"] = r.ExclusionCode
	}
	if r.Ledger != nil {
		s["ledger_audit"] = r.Ledger.Summary()
	}
	if r.Stop != nil && r.Stop.HTTPStatus != 0 {
		s["http_status"] = int64(r.Stop.HTTPStatus)
	}
	if r.Cell == FaultNone {
		s["reliable"] = r.Reliable
	}
	if r.Bundle != nil {
		s["bundle_audit"] = r.Bundle.Summary()
	}
	if r.Replay != nil {
		s["replay"] = map[string]any{
			"ok": r.Replay.OK(), "reproduction": r.Replay.Reproduction,
			"carried_forward": canon.StringList(r.Replay.CarriedForward), "provider_calls": r.Replay.ProviderCalls,
		}
	}
	return s
}
