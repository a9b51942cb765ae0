package execledger

import (
	"errors"

	"github.com/obaudit/obaudit/format/provexec"
	"github.com/obaudit/obaudit/refusal"
)

// ErrNoBinding is returned by [Writer.Binding] and [Audit.Binding] (the
// artefact's provider_execution object, [provexec.Binding]) when the
// journal cannot back an artefact's provider_execution binding: it is not
// finalised, its writer is poisoned, or its terminal kind is not scored. A
// model run in that state writes no artefact.
var ErrNoBinding = refusal.Sentinel("ledger/no-binding")

func binding(h Header, version int, digest string, t Totals, idx []int64) provexec.Binding {
	return provexec.Binding{
		ExecutionRunID: h.ExecutionRunID, ExecutionLedgerVersion: int64(version), ExecutionLedgerDigest: digest,
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
func (w *Writer) Binding() (provexec.Binding, error) {
	switch {
	case w.poison != nil:
		return provexec.Binding{}, refusal.New(ErrNoBinding, "the journal is poisoned by a failed write")
	case w.terminal == nil:
		return provexec.Binding{}, refusal.New(ErrNoBinding, "the journal has no terminal row")
	case w.terminal.Kind != TerminalScored:
		return provexec.Binding{}, refusal.New(ErrNoBinding, "the journal ended %s; only a scored run has an artefact", w.terminal.Kind)
	}
	return binding(w.h.Header, Version, w.prev, w.t.totals(), w.decisions), nil
}

// Binding returns the provider_execution binding a scored journal backs;
// otherwise [ErrNoBinding].
func (a *Audit) Binding() (provexec.Binding, error) {
	if a.discarded {
		return provexec.Binding{}, errors.New("execledger: Audit.Binding needs the decision call index, which a read with DiscardCalls does not keep")
	}
	if !a.Scored() {
		return provexec.Binding{}, refusal.New(ErrNoBinding, "the journal is %s; only a scored run has an artefact", a.Status())
	}
	return binding(a.Header, a.Version, a.ChainTip, a.Totals, a.DecisionCallIndex), nil
}
