package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// vector writes the journal of a committed ledger vector to a temp file.
func vector(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "execledger", "testdata", "vectors", "ledger", "v3", name))
	if err != nil {
		t.Fatal(err)
	}
	_, data, _ := strings.Cut(string(b), "\n\n")
	p := filepath.Join(t.TempDir(), "ledger.ndjson")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLedgerAndBundleExitCodes: 0 complete (or agreeing), 2 verified but
// incomplete prefix, 1 refused, 64 usage, 70 I/O failure.
func TestLedgerAndBundleExitCodes(t *testing.T) {
	up := upstreamtest.Path(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson")
	art := upstreamtest.Path(t, "artifact8-fake-openai-reference-v1.json")
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"ledger", "verify", up}, exitOK},
		{[]string{"ledger", "verify", vector(t, "ok-excluded.ndjson")}, exitOK},
		{[]string{"ledger", "verify", vector(t, "ok-never-finalised.ndjson")}, exitNo},
		{[]string{"ledger", "verify", "--json", vector(t, "ok-torn-3@terminal.ndjson")}, exitNo},
		{[]string{"ledger", "verify", vector(t, "swap@rows1-2.ndjson")}, exitRefused},
		{[]string{"ledger", "verify", filepath.Join(t.TempDir(), "absent")}, exitFailure},
		{[]string{"ledger", "verify"}, exitUsage},
		{[]string{"bundle", art, up}, exitOK},
		{[]string{"bundle", art, vector(t, "ok-scored.ndjson")}, exitRefused},
		{[]string{"bundle", art}, exitUsage},
	}
	for _, c := range cases {
		if got, _, errs := obaudit(c.args...); got != c.code {
			t.Errorf("obaudit %v = %d, want %d (stderr %s)", c.args, got, c.code, errs)
		}
	}
}
