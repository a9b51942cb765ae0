// Package provexec is the provider execution binding: the 15-field object
// an artefact carries as provider_execution (contract 7 and later) and an
// execution ledger backs. The artefact reader validates it, the ledger
// builds it from a finalised journal, and the bundle audit holds the two
// together; all three use this one type. It is a leaf: it imports nothing
// of the project.
package provexec

// Binding is the provider execution binding: the journal an episode's
// decisions came off, by identity and digest. It holds no prose, no
// credential, no raw response and no path. Reading one attributes nothing;
// only a bundle audit against the ledger establishes agreement. Field
// comments give the JSON keys.
type Binding struct {
	ExecutionRunID          string  // execution_run_id
	ExecutionLedgerVersion  int64   // execution_ledger_version
	ExecutionLedgerDigest   string  // execution_ledger_digest_sha256 (the ledger's terminal row digest)
	Provider                string  // provider
	API                     string  // api
	Model                   string  // model
	SettingsDigest          string  // settings_digest_sha256
	PricingDigest           string  // pricing_digest_sha256
	ProviderCalls           int64   // provider_calls
	Attempts                int64   // attempts
	MeasuredCostUSD         string  // measured_cost_usd (exact decimal string)
	ForfeitedReservationUSD string  // forfeited_reservation_usd (exact decimal string)
	InputTokens             int64   // input_tokens
	OutputTokens            int64   // output_tokens
	DecisionCallIndex       []int64 // decision_call_index
}

// Tree renders b as its JSON object, with upstream's 15 field names.
func (b *Binding) Tree() map[string]any {
	index := make([]any, len(b.DecisionCallIndex))
	for i, n := range b.DecisionCallIndex {
		index[i] = n
	}
	return map[string]any{
		"execution_run_id":               b.ExecutionRunID,
		"execution_ledger_version":       b.ExecutionLedgerVersion,
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
		"decision_call_index":            index,
	}
}
