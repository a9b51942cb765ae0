package execledger

import (
	"bytes"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

const (
	upstreamLedger       = "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson"
	upstreamChainDigest  = "73f0c6b77ff6e774ded0c325ee007fe62f62999627ffcd8ae915474809f41b2f"
	upstreamHeaderDigest = "e392ca557589f39ce2a848f3fd063146f3f81708016788ff16610cd4d9327e44"
)

// TestUpstreamLedger is the acceptance fact: the upstream v2 ledger verifies
// to the pinned chain digest and the totals of spec §12.3.
func TestUpstreamLedger(t *testing.T) {
	b := upstreamtest.Read(t, upstreamLedger)
	a, err := Read(bytes.NewReader(b), Options{RequireComplete: true})
	if err != nil {
		t.Fatalf("Read(upstream) = %v", err)
	}
	if a.RowsVerified != 48 || a.Version != 2 || a.Status() != TerminalScored || a.TruncatedTail {
		t.Errorf("rows=%d version=%d status=%s truncated=%v, want 48 2 scored false", a.RowsVerified, a.Version, a.Status(), a.TruncatedTail)
	}
	if a.LedgerDigest() != upstreamChainDigest {
		t.Errorf("LedgerDigest = %s, want %s", a.LedgerDigest(), upstreamChainDigest)
	}
	if a.Header.Provider.SettingsDigest != "5b4a120cfaf3821807d60a3b9ffb848acd90f28cc9b2be496ac054abcbf764e2" ||
		a.Header.Controls.PricingDigest != "3988f30b258bc99a96205bed3d3cef2425efb7229416a1a5e80715a7eae0906e" {
		t.Errorf("settings/pricing digests = %s %s", a.Header.Provider.SettingsDigest, a.Header.Controls.PricingDigest)
	}
	want := Totals{ProviderCalls: 46, Attempts: 46, InputTokens: 193706, OutputTokens: 5428,
		MeasuredCostUSD: "0.2964125", ForfeitedReservationUSD: "0", ReservedUSD: "3.06789", FaultCounts: map[string]int64{}}
	if !totalsEqual(a.Totals, want) {
		t.Errorf("Totals = %+v, want %+v", a.Totals, want)
	}
	if len(a.Calls) != 46 || len(a.DecisionCallIndex) != 46 {
		t.Errorf("calls=%d decisions=%d, want 46 46", len(a.Calls), len(a.DecisionCallIndex))
	}
	// The header row digest (row 1's back-link).
	if a.Calls[0].CallIndex != 0 {
		t.Errorf("first call index %d", a.Calls[0].CallIndex)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if !bytes.Contains(lines[1], []byte(upstreamHeaderDigest)) {
		t.Errorf("row 1 does not back-link to the pinned header digest")
	}
}
