package execledger_test

import (
	"bytes"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/execledger/ledgertest"
)

func TestWriterRoundTrip(t *testing.T) {
	a, err := execledger.Read(bytes.NewReader(ledgertest.Scored()), execledger.Options{RequireComplete: true})
	if err != nil {
		t.Fatalf("Read(scored) = %v", err)
	}
	if a.Status() != "scored" || a.Version != 3 || a.RowsVerified != 4 {
		t.Errorf("status=%s version=%d rows=%d", a.Status(), a.Version, a.RowsVerified)
	}
	want := execledger.Totals{ProviderCalls: 2, Attempts: 2, InputTokens: 8422, OutputTokens: 236,
		MeasuredCostUSD: "0.0128875", ForfeitedReservationUSD: "0", ReservedUSD: "0.118685", FaultCounts: map[string]int64{}}
	if got := a.Totals; got.MeasuredCostUSD != want.MeasuredCostUSD || got.ReservedUSD != want.ReservedUSD ||
		got.ForfeitedReservationUSD != want.ForfeitedReservationUSD || got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens {
		t.Errorf("Totals = %+v, want %+v", got, want)
	}
	if a.Header.Controls.PricingDigest != "debe438330ec2e4468ff0f4342d484c98fbc82103ce5bd21b20df552bfa91500" {
		t.Errorf("pricing digest = %s (spec §12.5)", a.Header.Controls.PricingDigest)
	}
	if a.Header.Provider.SettingsDigest != "291e2cf8a38d9557ea0e4422ef45294187ce7a55f2c027ac5889aa11e59fad88" {
		t.Errorf("settings digest = %s (spec §12.5)", a.Header.Provider.SettingsDigest)
	}
}

// TestExcludedTotals is A13.
func TestExcludedTotals(t *testing.T) {
	a, err := execledger.Read(bytes.NewReader(ledgertest.Excluded()), execledger.Options{})
	if err != nil {
		t.Fatalf("Read(excluded) = %v", err)
	}
	tt := a.Totals
	if a.Status() != "excluded" || tt.ForfeitedReservationUSD != "0.0593425" || tt.MeasuredCostUSD != "0.00644375" ||
		tt.ReservedUSD != "0.118685" || tt.FaultCounts["provider_server_error"] != 1 || len(tt.FaultCounts) != 1 {
		t.Errorf("status %s totals %+v", a.Status(), tt)
	}
	if a.Scored() {
		t.Error("an excluded ledger reads as scored")
	}
}
