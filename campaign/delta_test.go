package campaign

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/refusal"
)

// armsCatalog carries three variants of one Semantic Scenario and both
// arms; the treatment arm's protocol refuses V3 (as the No-Time compiler
// refuses the maintenance V3).
var armsCatalog = func() Catalog {
	c := testCatalog
	c.Variant = func(id string) (Variant, bool) {
		ok := id == "V1" || id == "V2" || id == "V3"
		return Variant{ID: id, SemanticScenario: "s1", SpecDigest: "d" + id}, ok
	}
	c.Arms = []string{ArmFullLifecycle, ArmNoTime}
	c.Eligible = func(v, arm string) string {
		if v == "V3" && arm == ArmNoTime {
			return "notime/causal-order-mismatch"
		}
		return ""
	}
	return c
}()

func common(status string) *CommonOutcome {
	return &CommonOutcome{Status: status, PredicateVerdicts: map[string]string{"p": "PASS"}, FindingCodes: []string{}}
}

// armsExecutor scripts each trial from a table: per arm and variant one
// character per repeat — S, F (scored with that CommonOutcomeV1 status),
// E (not scored: ERROR) — and, on full_lifecycle, r: scored, CommonOutcomeV1
// SUCCESS but the evaluator's reliable verdict false (δ reads the former).
type armsExecutor map[string]string

func (e armsExecutor) Execute(ctx context.Context, t Trial, dir string) (*Execution, error) {
	ch := e[t.Arm+"/"+t.Variant][t.Repeat-1]
	if ch == 'E' {
		return &Execution{Stage: "runtime_completed"}, nil
	}
	status := map[byte]string{'S': StatusSuccess, 'F': StatusFailure, 'r': StatusSuccess}[ch]
	ex := &Execution{Stage: "replay_valid", Artefact: "a.json", ArtefactBytes: []byte(t.ID + "\n"), Common: common(status)}
	if t.Arm == ArmFullLifecycle {
		ex.Evaluation = &artefact.Evaluation{Reliable: ch == 'S', LegitimateCompletion: ch == 'S'}
	}
	return ex, nil
}

// TestDeltaAgainstHandComputation: one subject, V1–V3 of one Semantic
// Scenario, 4 trials, both arms; V3 is ineligible on the treatment arm.
//
//	full   V1 S S F E   V2 S S S r   (r: CommonOutcomeV1 SUCCESS, evaluator unreliable)
//	notime V1 S F F S   V2 S S E F
//
// Pairs: V1 and V2 × 4 repeats = 8 (V3 has none: ineligible, listed).
// Full SUCCESS = 2 + 4 = 6 (r counts: δ reads CommonOutcomeV1), No-Time
// SUCCESS = 2 + 2 = 4, both over 8 assigned (ERROR stays in the
// denominator): δ = 4/8 − 6/8 = −0.25.
// Pairs by full/notime status: V1 S/S S/F F/F E/S, V2 S/S S/S S/E S/F.
func TestDeltaAgainstHandComputation(t *testing.T) {
	f := testFile()
	f["variants"], f["agents"], f["comparisons"] = []string{"V1", "V2", "V3"}, []string{"a"}, [][2]string{}
	f["arms"], f["trials"], f["stability_k"] = []string{ArmFullLifecycle, ArmNoTime}, 4, 2
	ex := armsExecutor{
		"full_lifecycle/V1": "SSFE", "full_lifecycle/V2": "SSSr", "full_lifecycle/V3": "SSSS",
		"stateful_time_removed/V1": "SFFS", "stateful_time_removed/V2": "SSEF",
	}
	r, _ := runScripted(t, armsCatalog, f, ex)
	if r.Assigned != 12+8 {
		t.Errorf("assigned %d, want 20 (no identity on the ineligible cell)", r.Assigned)
	}
	want := []Ineligible{{Variant: "V3", Arm: ArmNoTime, Class: "notime/causal-order-mismatch"}}
	if !slices.Equal(r.Ineligible, want) {
		t.Errorf("ineligible %v, want %v", r.Ineligible, want)
	}
	if len(r.Deltas) != 1 {
		t.Fatalf("deltas %+v", r.Deltas)
	}
	d := r.Deltas[0]
	if d.Pairs != 8 || d.FullSuccess != 6 || d.NoTimeSuccess != 4 || d.Value == nil || *d.Value != -0.25 ||
		*d.FullRate != 0.75 || *d.NoTimeRate != 0.5 || d.Interval != NoInterval {
		t.Errorf("δ = %+v, want 4/8 − 6/8 = −0.25", d)
	}
	if !slices.Equal(d.Matrix, []DeltaRow{{"V1", "SSFE", "SFFS"}, {"V2", "SSSS", "SSEF"}}) || !slices.Equal(d.Ineligible, want) {
		t.Errorf("matrix %v, ineligible %v", d.Matrix, d.Ineligible)
	}
	tab := map[string]int{"SUCCESS/SUCCESS": 3, "SUCCESS/FAILURE": 2, "FAILURE/FAILURE": 1, "ERROR/SUCCESS": 1, "SUCCESS/ERROR": 1}
	total := 0
	for k, n := range d.Table {
		total += n
		if n != tab[k] {
			t.Errorf("table %s = %d, want %d", k, n, tab[k])
		}
	}
	if total != 8 || len(d.Table) != 16 {
		t.Errorf("table has %d pairs in %d cells, want 8 in 16", total, len(d.Table))
	}
	// The funnel of the treatment arm reconciles its 8 identities; its
	// cell gives no evaluator metric.
	for _, a := range r.Arms {
		if a.Arm == ArmNoTime && (a.Funnel[0].Count != 8 || a.Status[StatusSuccess] != 4 || a.Status[StatusError] != 1) {
			t.Errorf("no-time arm %+v", a)
		}
	}
	for _, c := range r.Cells {
		if c.Arm == ArmNoTime && (len(c.Metrics) != 1 || c.Metrics[0].Name != "error_rate" || len(c.Matrix) != 2 || c.Stability.Value == nil) {
			t.Errorf("no-time cell: metrics %+v, matrix %v (V3 has no row), stability %+v", c.Metrics, c.Matrix, c.Stability)
		}
	}
}

// TestPairIdentity: a treatment-arm trial runs its Full twin's operation
// instance, and adding the arm leaves every Full identity as it was.
func TestPairIdentity(t *testing.T) {
	f := testFile()
	one, _ := parse(t, f)
	f["arms"] = []string{ArmFullLifecycle, ArmNoTime}
	two, _ := parse(t, f)
	p1, err := Expand(one, armsCatalog, "k")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Expand(two, armsCatalog, "k")
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]Trial{}
	for _, tr := range p1.Trials {
		full[tr.Variant+tr.Subject+string(rune('0'+tr.Repeat))] = tr
	}
	n := 0
	for _, pr := range matchPairs(p2) {
		tw := full[pr.notime.Variant+pr.notime.Subject+string(rune('0'+pr.notime.Repeat))]
		if pr.full == nil || pr.full.OperationInstanceID != tw.OperationInstanceID || pr.full.Seed != tw.Seed ||
			pr.notime.OperationInstanceID != tw.OperationInstanceID || pr.notime.Seed == tw.Seed {
			t.Errorf("%s: twin %+v", pr.notime.ID, pr.full)
		}
		n++
	}
	if n != len(p1.Trials) {
		t.Errorf("%d pairs, want %d", n, len(p1.Trials))
	}
}

func TestTreatmentArmRefusals(t *testing.T) {
	// An outcome whose status is not its CommonOutcomeV1 status, or a
	// treatment-arm outcome with an evaluator vector, is incoherent.
	o := &Outcome{Format: OutcomeFormat, Arm: ArmNoTime, Stage: "scored", Status: StatusFailure, Files: []TrialFile{}, Common: common(StatusSuccess)}
	for _, bad := range []func(o *Outcome){
		func(o *Outcome) {},
		func(o *Outcome) {
			o.Status = StatusSuccess
			o.Vector = &Vector{Reliable: true, FailedDimensions: []string{}, FindingCodes: []string{}}
		},
		func(o *Outcome) { o.Status = StatusError; o.Stage = "replay_valid" },
	} {
		c := *o
		bad(&c)
		e, _ := c.Entry()
		if _, err := ParseOutcome(e); refusalClass(err) != ErrLogInvalid.Class {
			t.Errorf("%+v: %v, want %s", c, err, ErrLogInvalid.Class)
		}
	}
	good := *o
	good.Status = StatusSuccess
	e, _ := good.Entry()
	if _, err := ParseOutcome(e); err != nil {
		t.Errorf("a coherent treatment-arm outcome: %v", err)
	}
}

func refusalClass(err error) refusal.Class {
	c, _ := refusal.ClassOf(err)
	return c
}

// TestFullOnlyRecordsNoCommon: a Full-only campaign's outcomes are as they
// were before the treatment arm existed (no CommonOutcomeV1 object, no δ),
// even from an executor that grades one.
func TestFullOnlyRecordsNoCommon(t *testing.T) {
	f := testFile()
	f["agents"], f["comparisons"], f["trials"] = []string{"a"}, [][2]string{}, 2
	r, dir := runScripted(t, armsCatalog, f, armsExecutor{"full_lifecycle/V1": "SS", "full_lifecycle/V2": "SF"})
	if r.Deltas != nil || r.Ineligible != nil {
		t.Errorf("deltas %v, ineligible %v", r.Deltas, r.Ineligible)
	}
	pf, _ := os.ReadFile(filepath.Join(dir, PlanFile))
	p, _ := DecodePlan(pf)
	pub, _ := p.PublicKey()
	st, err := ReadLog(context.Background(), dir, pub, p.File.Origin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range st.Entries[1:] {
		if o, _ := ParseOutcome(e); o == nil || o.Common != nil {
			t.Errorf("outcome %+v", o)
		}
	}
}
