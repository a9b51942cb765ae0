package campaign

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/commitment"
)

// scriptedExecutor decides each trial's result from its identity: a
// stand-in for the domain (the runner's contract is what is under test).
type scriptedExecutor struct {
	result func(t Trial) (stage, exclusion string, reliable bool)
}

func (e scriptedExecutor) Execute(ctx context.Context, t Trial, dir string) (*Execution, error) {
	stage, excl, ok := e.result(t)
	ex := &Execution{Stage: stage, Exclusion: excl}
	if stage == "replay_valid" {
		ex.Artefact, ex.ArtefactBytes = "a.json", []byte(t.ID+"\n")
		ex.Evaluation = &artefact.Evaluation{Reliable: ok, LegitimateCompletion: ok}
		if !ok {
			ex.Evaluation.FailedDimensions = []string{"critical_invariants"}
		}
	}
	return ex, nil
}

func runScripted(t *testing.T, cat Catalog, f map[string]any, ex Executor) (*Report, string) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pf, err := parse(t, f)
	if err != nil {
		t.Fatal(err)
	}
	lk, _ := EncodeLogKey(&k.PublicKey)
	p, err := Expand(pf, cat, lk)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := checkpoint.NewNoteSigner(pf.Origin, k, rand.Reader)
	dir := filepath.Join(campaigntest.TempDir(t), "c")
	if _, err := Create(context.Background(), dir, p, s); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), dir, RunOptions{Parallel: 3, Executor: ex, Signer: s, Key: &k.PublicKey,
		Commit: func(ctx context.Context, in commitment.Inputs) ([]byte, error) {
			return []byte("bundle " + in.ArtefactName), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatal("Run did not complete")
	}
	r, err := ReportOf(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// TestRunExclusionsStayInTheDenominator: a provider fault is an excluded
// trial, ERROR, never a success and never dropped; the funnel reconciles
// every identity once.
func TestRunExclusionsStayInTheDenominator(t *testing.T) {
	f := testFile()
	f["agents"], f["comparisons"], f["trials"] = []string{"a"}, [][2]string{}, 4
	r, dir := runScripted(t, testCatalog, f, scriptedExecutor{func(tr Trial) (string, string, bool) {
		if tr.Repeat == 2 {
			return "dispatched", "provider_rate_limited", false
		}
		return "replay_valid", "", true
	}})
	a := r.Arms[0]
	if a.Status[StatusSuccess] != 6 || a.Status[StatusError] != 2 || a.ExcludedByReason["provider_rate_limited"] != 2 {
		t.Errorf("status %v, excluded %v; want 6 SUCCESS, 2 ERROR excluded provider_rate_limited", a.Status, a.ExcludedByReason)
	}
	want := []int{8, 8, 8, 6, 6, 6, 6, 6}
	for i, s := range a.Funnel {
		if s.Count != want[i] {
			t.Errorf("funnel %s = %d, want %d", s.Stage, s.Count, want[i])
		}
	}
	m := r.Cells[0].Metrics[0]
	if m.Name != "reliable_operation_rate" || m.Numerator != 6 || m.Denominator != 8 {
		t.Errorf("reliable_operation_rate = %+v, want 6/8", m)
	}
	// t00001 (V1, repeat 2) was excluded: it has no artefact.
	if _, err := os.Stat(filepath.Join(dir, TrialsDir, "t00001", "a.json")); err == nil {
		t.Error("an excluded trial has an artefact")
	}
}

// TestReportAgainstHandComputation: two Semantic Scenarios, so intervals
// are clustered; every figure is worked out by hand below.
func TestReportAgainstHandComputation(t *testing.T) {
	cat := testCatalog
	cat.Variant = func(id string) (Variant, bool) {
		sem := map[string]string{"V1": "s1", "V2": "s2"}[id]
		return Variant{ID: id, SemanticScenario: sem, SpecDigest: "d" + id}, sem != ""
	}
	f := testFile()
	f["agents"], f["trials"], f["stability_k"] = []string{"a", "b"}, 4, 2
	f["comparisons"] = [][2]string{{"a", "b"}}
	// a: V1 repeats 1–4 S S S F; V2 S F F F.  b: V1 all S; V2 all F.
	r, _ := runScripted(t, cat, f, scriptedExecutor{func(tr Trial) (string, string, bool) {
		ok := tr.Variant == "V1"
		if tr.Subject == "a" {
			ok = (tr.Variant == "V1" && tr.Repeat <= 3) || (tr.Variant == "V2" && tr.Repeat == 1)
		}
		return "replay_valid", "", ok
	}})
	if len(r.SemanticScenarios) != 2 {
		t.Fatalf("semantic scenarios %v", r.SemanticScenarios)
	}
	a := r.Cells[0]
	if a.Matrix[0].Trials != "SSSF" || a.Matrix[1].Trials != "SFFF" {
		t.Errorf("matrix %v", a.Matrix)
	}
	// ROR(a) = 4/8 = 0.5. Cluster sums: s1 3 − 4·0.5 = 1, s2 1 − 2 = −1;
	// V = 2/1 · 2 / 64 = 1/16, SE = 0.25.
	ror := a.Metrics[0]
	if ror.Numerator != 4 || ror.Denominator != 8 || *ror.Value != 0.5 || ror.ClusterSE == nil || *ror.ClusterSE != 0.25 {
		t.Errorf("ROR(a) = %+v, want 4/8, SE 0.25", ror)
	}
	// Critical violations of a: the 4 FAILUREs (critical_invariants failed)
	// of 8 scored; upper bound solves P(X ≤ 4 | 8, p) = 0.05.
	cv := a.Metrics[2]
	if cv.Name != "critical_violation_rate" || cv.Numerator != 4 || cv.Denominator != 8 || cv.UpperBound95 == nil {
		t.Fatalf("critical_violation_rate = %+v", cv)
	}
	u := *cv.UpperBound95
	binom := []float64{1, 8, 28, 56, 70}
	cdf := 0.0
	for k, c := range binom {
		cdf += c * math.Pow(u, float64(k)) * math.Pow(1-u, float64(8-k))
	}
	if math.Abs(cdf-0.05) > 1e-5 {
		t.Errorf("upper bound %v: P(X≤4) there is %v, want 0.05", u, cdf)
	}
	// pass^2(a): V1 C(3,2)/C(4,2) = 3/6, V2 C(1,2) = 0: mean 0.25.
	if a.Stability.Value == nil || *a.Stability.Value != 0.25 {
		t.Errorf("pass^2(a) = %+v, want 0.25", a.Stability)
	}
	// Paired a − b over (variant, repeat): V1 r4 only b; V2 r1 only a;
	// both on V1 r1–3; neither on V2 r2–4. d sums by cluster: s1 −1 − 4·0
	// = −1, s2 1: mean 0, V = 2 · 2 / 64, SE = 0.25.
	p := r.Paired[0]
	if p.Pairs != 8 || p.Both != 3 || p.OnlyA != 1 || p.OnlyB != 1 || p.Neither != 3 || p.Mean != 0 || p.SE == nil || *p.SE != 0.25 {
		t.Errorf("paired = %+v", p)
	}
}
