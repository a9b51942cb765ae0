package preflight

import (
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/openai"
)

// loopbackLedgerURL is how the preflight's endpoint is recorded: the
// loopback listener's base URL without its port ([openai.LedgerURL]).
const loopbackLedgerURL = "https://127.0.0.1/v1"

// SettingsDigest is the settings_digest_sha256 a preflight run of this
// build records in its ledger header and artefact binding: the provider
// settings of [openai.RequestMapping] for the preflight's model and ceiling
// on the loopback endpoint, under this binary's Go release (the settings
// name it as the client's version).
func SettingsDigest() (string, error) {
	p := openai.Profile{Model: Model, MaxOutputTokens: provider.MaxOutputTokens}
	return canon.UpstreamDigest(openai.Settings(p, loopbackLedgerURL, openai.SDKVersion(), TurnDeadlineSeconds))
}

// RequestDigests is the replay's request rebuilder for the model records
// this build speaks ([episode.ReplayConfig.RequestDigests]): a record whose
// binding names the preflight's settings ([SettingsDigest], and with them
// this build's request mapping) and whose execution names this build's
// protocol gets [openai.BuildRequest]'s request digest under its recorded
// identity (model and output ceiling, as the record states them, so a label
// edited consistently in record and binding rebuilds other digests). Any
// other record (upstream's, whose requests another mapping built; one
// written under another Go release; one whose settings digest was changed)
// gets nil, and its request digests stay unverified.
func RequestDigests(doc *artefact.Document) episode.RequestRebuilder {
	ex, b := doc.Artefact.Execution, doc.Artefact.ProviderExecution
	if ex == nil || b == nil || ex.Model == nil || ex.MaxOutputTokens == nil || ex.ProtocolVersion == nil ||
		*ex.ProtocolVersion != openai.ProtocolVersion || b.Provider != openai.ProviderName || b.API != openai.API {
		return nil
	}
	if want, err := SettingsDigest(); err != nil || b.SettingsDigest != want {
		return nil
	}
	p := openai.Profile{Model: *ex.Model, MaxOutputTokens: *ex.MaxOutputTokens}
	return func(obs *engine.Observation) (string, error) {
		r, err := openai.BuildRequest(obs, p)
		if err != nil {
			return "", err
		}
		return r.RequestDigest, nil
	}
}
