package provider_test

import (
	"errors"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/refusal"
)

func dec(t *testing.T, s string) execledger.Decimal {
	t.Helper()
	d, ok := execledger.ParseDecimal(s)
	if !ok {
		t.Fatalf("ParseDecimal(%q)", s)
	}
	return d
}

func rates(t *testing.T) execledger.Rates {
	return execledger.Rates{In: dec(t, "1.25"), Out: dec(t, "10.00")}
}

// TestConstants is F1.
func TestConstants(t *testing.T) {
	if provider.MaxProviderCalls != 60 || provider.ExpectedProviderCalls != 46 || provider.TokenHardCap != 1_650_300 ||
		provider.TokenWorstCase(60) != 1_650_300 || provider.TokenWorstCase(61) != 1_677_805 {
		t.Error("bounds moved")
	}
}

// TestCheckMaxCalls is F3.
func TestCheckMaxCalls(t *testing.T) {
	for _, n := range []int64{1, 46, 59, 60} {
		if err := provider.CheckMaxCalls(n); err != nil {
			t.Errorf("CheckMaxCalls(%d) = %v", n, err)
		}
	}
	for _, n := range []int64{61, 100, 0, -1} {
		if err := provider.CheckMaxCalls(n); refusal.Of(err) != provider.ErrCallBound.Class {
			t.Errorf("CheckMaxCalls(%d) = %v, want preflight/call-bound", n, err)
		}
	}
}

// TestTokenExposure is F5.
func TestTokenExposure(t *testing.T) {
	if err := provider.CheckTokenExposure(61, provider.TokenHardCap); refusal.Of(err) != provider.ErrTokenExposure.Class {
		t.Errorf("61 calls: %v", err)
	}
	if err := provider.CheckTokenExposure(60, 1000); refusal.Of(err) != provider.ErrTokenExposure.Class {
		t.Errorf("cap 1000: %v", err)
	}
	if err := provider.CheckTokenExposure(60, provider.TokenHardCap); err != nil {
		t.Errorf("60 calls at the cap: %v", err)
	}
}

// TestWorstCase is F15 and spec §12.2.
func TestWorstCase(t *testing.T) {
	if got := provider.WorstCaseUSD(60, rates(t)).String(); got != "4.213275" {
		t.Errorf("WorstCaseUSD(60) = %s", got)
	}
	if err := provider.CheckWorstCase(60, rates(t), dec(t, "10.00")); err != nil {
		t.Error(err)
	}
	if err := provider.CheckWorstCase(60, rates(t), dec(t, "4.2")); refusal.Of(err) != provider.ErrCostExposure.Class {
		t.Errorf("cap 4.2: %v", err)
	}
}

// TestGuardTokenCap is F6–F9.
func TestGuardTokenCap(t *testing.T) {
	g, err := provider.NewGuard(dec(t, "10"), rates(t), 4096, 2*(1000+4096))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := g.Authorize(1000); err != nil {
			t.Fatal(err)
		}
	}
	_, err = g.Authorize(1000)
	if refusal.Of(err) != provider.ErrTokenCapExceeded.Class || !errors.Is(err, provider.ErrCostCapExceeded) {
		t.Errorf("third Authorize = %v, want token-cap (a cost-cap refusal)", err)
	}
	if g.ReservedTokens() != 2*5096 {
		t.Errorf("reserved %d", g.ReservedTokens())
	}
	g2, _ := provider.NewGuard(dec(t, "10"), rates(t), 4096, 4096)
	if _, err := g2.Authorize(1); refusal.Of(err) != provider.ErrTokenCapExceeded.Class || g2.ReservedTokens() != 0 {
		t.Errorf("F8: %v, reserved %d", err, g2.ReservedTokens())
	}
	g3, _ := provider.NewGuard(dec(t, "10"), rates(t), 4096, 0)
	if _, err := g3.Authorize(23409); err != nil || g3.ReservedTokens() != 27505 {
		t.Errorf("F9: %v, reserved %d", err, g3.ReservedTokens())
	}
}

// TestGuardCostCap is F10, R18 and the settlement rules.
func TestGuardCostCap(t *testing.T) {
	g, _ := provider.NewGuard(dec(t, "0.0001"), rates(t), 4096, provider.TokenHardCap)
	_, err := g.Authorize(14706)
	if refusal.Of(err) != provider.ErrCostCapExceeded.Class || refusal.Of(err) == provider.ErrTokenCapExceeded.Class {
		t.Errorf("F10: %v, want a cost-cap refusal that is not the token cap", err)
	}
	g, _ = provider.NewGuard(dec(t, "1"), rates(t), 4096, provider.TokenHardCap)
	r, _ := g.Authorize(14706)
	if r.Amount.String() != "0.0593425" {
		t.Errorf("reservation %s", r.Amount)
	}
	if m, err := g.Settle(r, 4211, 118); err != nil || m.String() != "0.00644375" {
		t.Errorf("Settle = %s, %v", m, err)
	}
	r2, _ := g.Authorize(14706)
	g.Forfeit(r2)
	r3, _ := g.Authorize(10)
	if _, err := g.Settle(r3, 100000, 100000); refusal.Of(err) != provider.ErrReservationBreached.Class {
		t.Errorf("breach: %v", err)
	}
	m, f, o := g.Totals()
	if f.String() != "0.0593425" || o.String() != "0" || m.String() == "0" {
		t.Errorf("totals %s %s %s", m, f, o)
	}
	if _, err := provider.NewGuard(dec(t, "0"), rates(t), 4096, 0); refusal.Of(err) != provider.ErrCostExposure.Class {
		t.Errorf("zero cap: %v", err)
	}
}

// TestRefuseLiveEnvironment is F14's environment half.
func TestRefuseLiveEnvironment(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-not-read", "OPENAI_BASE_URL": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if _, err := provider.RefuseLiveEnvironment(lookup); refusal.Of(err) != provider.ErrLiveEnvironment.Class {
		t.Errorf("with a key: %v", err)
	}
	delete(env, "OPENAI_API_KEY")
	if names, err := provider.RefuseLiveEnvironment(lookup); err != nil || len(names) != 8 {
		t.Errorf("empty base URL only: %v %v", names, err)
	}
	// Every lane's credential variable is checked.
	for _, name := range []string{"ANTHROPIC_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY"} {
		one := func(k string) (string, bool) { return "x", k == name }
		if _, err := provider.RefuseLiveEnvironment(one); refusal.Of(err) != provider.ErrLiveEnvironment.Class {
			t.Errorf("%s set: %v", name, err)
		}
	}
}
