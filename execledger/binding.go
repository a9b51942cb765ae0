package execledger

import (
	"errors"

	"github.com/obaudit/obaudit/refusal"
)

// ErrNoBinding is returned by [Writer.Binding] and [Audit.Binding] when the
// journal cannot back an artefact's provider_execution binding: it is not
// finalised, its writer is poisoned, or its terminal kind is not scored. A
// model run in that state writes no artefact.
var ErrNoBinding = refusal.Sentinel("ledger/no-binding")

// Binding is the artefact's provider_execution object (contract 7+): the
// journal an episode's decisions came off, by identity and digest. It holds
// no prose, no credential, no raw response and no path.
type Binding struct {
	ExecutionRunID          string
	ExecutionLedgerVersion  int
	ExecutionLedgerDigest   string
	Provider, API, Model    string
	SettingsDigest          string
	PricingDigest           string
	ProviderCalls           int64
	Attempts                int64
	MeasuredCostUSD         string
	ForfeitedReservationUSD string
	InputTokens             int64
	OutputTokens            int64
	DecisionCallIndex       []int64
}

// Map renders b with upstream's 15 field names.
func (b Binding) Map() map[string]any {
	idx := make([]any, len(b.DecisionCallIndex))
	for i, n := range b.DecisionCallIndex {
		idx[i] = n
	}
	return map[string]any{
		"execution_run_id":               b.ExecutionRunID,
		"execution_ledger_version":       int64(b.ExecutionLedgerVersion),
		"execution_ledger_digest_sha256": b.ExecutionLedgerDigest,
		"provider":                       b.Provider,
		"api":                            b.API,
		"model":                          b.Model,
		"settings_digest_sha256":         b.SettingsDigest,
		"pricing_digest_sha256":          b.PricingDigest,
		"provider_calls":                 b.ProviderCalls,
		"attempts":                       b.Attempts,
		"measured_cost_usd":              b.MeasuredCostUSD,
		"forfeited_reservation_usd":      b.ForfeitedReservationUSD,
		"input_tokens":                   b.InputTokens,
		"output_tokens":                  b.OutputTokens,
		"decision_call_index":            idx,
	}
}

func binding(h Header, version int, digest string, t Totals, idx []int64) Binding {
	return Binding{
		ExecutionRunID: h.ExecutionRunID, ExecutionLedgerVersion: version, ExecutionLedgerDigest: digest,
		Provider: h.Provider.Provider, API: h.Provider.API, Model: h.Provider.Model,
		SettingsDigest: h.Provider.SettingsDigest, PricingDigest: h.Controls.PricingDigest,
		ProviderCalls: t.ProviderCalls, Attempts: t.Attempts,
		MeasuredCostUSD: t.MeasuredCostUSD, ForfeitedReservationUSD: t.ForfeitedReservationUSD,
		InputTokens: t.InputTokens, OutputTokens: t.OutputTokens,
		DecisionCallIndex: append([]int64(nil), idx...),
	}
}

// Binding returns the provider_execution binding for the journal this
// writer finalised as scored; otherwise [ErrNoBinding].
func (w *Writer) Binding() (Binding, error) {
	switch {
	case w.poison != nil:
		return Binding{}, refusal.New(ErrNoBinding, "the journal is poisoned by a failed write")
	case w.terminal == nil:
		return Binding{}, refusal.New(ErrNoBinding, "the journal has no terminal row")
	case w.terminal.Kind != TerminalScored:
		return Binding{}, refusal.New(ErrNoBinding, "the journal ended %s; only a scored run has an artefact", w.terminal.Kind)
	}
	return binding(w.h.Header, Version, w.prev, w.t.totals(), w.decisions), nil
}

// Binding returns the provider_execution binding a scored journal backs;
// otherwise [ErrNoBinding].
func (a *Audit) Binding() (Binding, error) {
	if a.discarded {
		return Binding{}, errors.New("execledger: Audit.Binding needs the decision call index, which a read with DiscardCalls does not keep")
	}
	if !a.Scored() {
		return Binding{}, refusal.New(ErrNoBinding, "the journal is %s; only a scored run has an artefact", a.Status())
	}
	return binding(a.Header, a.Version, a.ChainTip, a.Totals, a.DecisionCallIndex), nil
}
