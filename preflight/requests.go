package preflight

import (
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/profile"
)

// loopbackLedgerURL is how the preflight's endpoint is recorded: the
// loopback listener's base URL without its port ([lane.LedgerURL]).
const loopbackLedgerURL = "https://127.0.0.1/v1"

// SettingsDigest is the settings_digest_sha256 a preflight run of lane
// laneID records in its ledger header and artefact binding: the lane's
// settings under its embedded example profile on the loopback endpoint,
// under this binary's Go release (the settings name it as the client's
// version).
func SettingsDigest(laneID string) (string, error) {
	p, err := profile.ForLane(laneID)
	if err != nil {
		return "", err
	}
	return lane.SettingsDigest(p.Lane, p.Run, loopbackLedgerURL, lane.SDKVersion())
}

// RequestDigests is the replay's request rebuilder for the model records
// this build's preflight writes ([episode.ReplayConfig.RequestDigests]): a
// record whose binding names one lane's preflight settings
// ([SettingsDigest], and with them this build's request mapping of that
// lane) gets the request digests [lane.BuildRequest] makes under its
// recorded identity. Any other record gets nil, and its request digests
// stay unverified.
func RequestDigests(doc *artefact.Document) episode.RequestRebuilder {
	return Rebuilder(func(b *artefact.Binding) bool {
		for _, id := range profile.LaneIDs() {
			p, _ := profile.ForLane(id)
			if want, err := SettingsDigest(id); err == nil && b.SettingsDigest == want && b.Provider == p.Run.Provider && b.API == p.Lane.API() {
				return true
			}
		}
		return false
	})(doc)
}

// Rebuilder returns a replay request rebuilder for the records whose
// binding ours accepts (it recognises the settings digest as a mapping of
// this build's): the request identity is lane-neutral, so it is rebuilt
// under the record's model and output ceiling as the record states them (a
// label edited consistently in record and binding rebuilds other digests).
func Rebuilder(ours func(*artefact.Binding) bool) func(*artefact.Document) episode.RequestRebuilder {
	return func(doc *artefact.Document) episode.RequestRebuilder {
		ex, b := doc.Artefact.Execution, doc.Artefact.ProviderExecution
		if ex == nil || b == nil || ex.Model == nil || ex.MaxOutputTokens == nil || ex.ProtocolVersion == nil ||
			*ex.ProtocolVersion != lane.ProtocolVersion || !ours(b) {
			return nil
		}
		p := lane.Profile{Model: *ex.Model, MaxOutputTokens: *ex.MaxOutputTokens}
		return func(obs *engine.Observation) (string, error) {
			r, err := lane.Identity(obs, p)
			if err != nil {
				return "", err
			}
			return r.RequestDigest, nil
		}
	}
}
