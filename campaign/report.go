package campaign

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/campaign/stats"
	"github.com/obaudit/obaudit/checkpoint"
)

// ReportMediaType names the campaign report format.
const ReportMediaType = "application/vnd.obaudit.campaign-report+json;version=1"

// NoInterval is what the report says instead of an interval when the
// outcomes come from fewer than two Semantic Scenarios.
const NoInterval = "one semantic unit: no interval"

// Report is a campaign's population report, computed from its outcome
// records alone ([BuildReport]); verify re-derives it.
type Report struct {
	MediaType  string `json:"mediaType"`
	Campaign   string `json:"campaign"`
	Origin     string `json:"origin"`
	PlanSHA256 string `json:"plan_sha256"`
	LogSize    uint64 `json:"log_size"`
	LogRoot    string `json:"log_root"`
	Assigned   int    `json:"assigned"`
	// SemanticScenarios are the clusters; with fewer than two, every
	// interval is replaced by NoInterval and the raw matrix is the result.
	SemanticScenarios []string `json:"semantic_scenarios"`
	Arms              []Arm    `json:"arms"`
	Cells             []Cell   `json:"cells"`
	Paired            []Pair   `json:"paired"`
	// Definitions states every metric's formula and denominator.
	Definitions []Definition `json:"definitions"`
	// Ineligible are the plan's variant × arm cells the protocol refuses;
	// Deltas the confirmatory estimand when both arms are assigned.
	Ineligible []Ineligible `json:"ineligible,omitempty"`
	Deltas     []Delta      `json:"deltas,omitempty"`
}

// Arm is one arm's funnel: state counts over every assigned identity.
type Arm struct {
	Arm              string         `json:"arm"`
	Funnel           []StageCount   `json:"funnel"`
	ExcludedByReason map[string]int `json:"excluded_by_reason"`
	Status           map[string]int `json:"status"`
}

// StageCount is how many identities reached a stage.
type StageCount struct {
	Stage string `json:"stage"`
	Count int    `json:"count"`
}

// Cell is one subject × arm over every variant and trial.
type Cell struct {
	Subject  string         `json:"subject"`
	Kind     string         `json:"kind"`
	Arm      string         `json:"arm"`
	Assigned int            `json:"assigned"`
	Scored   int            `json:"scored"`
	Status   map[string]int `json:"status"`
	Metrics  []Metric       `json:"metrics"`
	// Stability is pass^k over the cell's variant cells.
	Stability Stability `json:"stability"`
	// Matrix is the raw per-trial matrix: one row per variant, one
	// character per repeat (S success, F failure, E error).
	Matrix []MatrixRow `json:"matrix"`
}

// Metric is one rate with its numerator and denominator.
type Metric struct {
	Name        string `json:"name"`
	Numerator   int    `json:"numerator"`
	Denominator int    `json:"denominator"`
	// Value is Numerator/Denominator (null for an empty denominator).
	Value *float64 `json:"value"`
	// UpperBound95 is the Clopper–Pearson one-sided 95 % upper bound
	// (critical violations only).
	UpperBound95 *float64 `json:"upper_bound_95"`
	// ClusterSE is the standard error clustered by Semantic Scenario, or
	// null with Interval saying why.
	ClusterSE *float64 `json:"cluster_se"`
	Interval  string   `json:"interval"`
}

// Stability is pass^k by the unbiased estimator, or why it is refused.
type Stability struct {
	K       int      `json:"k"`
	Value   *float64 `json:"value"`
	Refused string   `json:"refused"`
}

// MatrixRow is one variant's trials in repeat order.
type MatrixRow struct {
	Variant string `json:"variant"`
	Trials  string `json:"trials"`
}

// Pair is a paired difference of reliable operation between two subjects
// over the same variant × repeat (per arm).
type Pair struct {
	A, B     string   `json:"-"`
	Subjects []string `json:"subjects"`
	Arm      string   `json:"arm"`
	Pairs    int      `json:"pairs"`
	Both     int      `json:"both_success"`
	OnlyA    int      `json:"only_first"`
	OnlyB    int      `json:"only_second"`
	Neither  int      `json:"neither"`
	Mean     float64  `json:"mean_difference"`
	SE       *float64 `json:"cluster_se"`
	Interval string   `json:"interval"`
}

// Definition states a metric's formula.
type Definition struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
}

type metricDef struct {
	name, formula string
	overAssigned  bool
	hit           func(o *Outcome) bool
}

func hasFinding(o *Outcome, codes ...string) bool {
	for _, c := range codes {
		if slices.Contains(o.Vector.FindingCodes, c) {
			return true
		}
	}
	return false
}

func failed(o *Outcome, dim string) bool { return slices.Contains(o.Vector.FailedDimensions, dim) }

// metricDefs are the report's rates, each in one place.
var metricDefs = []metricDef{
	{"reliable_operation_rate", "identities with status SUCCESS (reliable: the strict conjunction) / assigned identities (ERROR and exclusions stay in the denominator as non-success)", true,
		func(o *Outcome) bool { return o.Status == StatusSuccess }},
	{"error_rate", "identities with status ERROR / assigned identities", true,
		func(o *Outcome) bool { return o.Status == StatusError }},
	{"critical_violation_rate", "scored episodes failing critical_invariants / scored episodes, with the Clopper–Pearson one-sided 95 % upper bound", false,
		func(o *Outcome) bool { return failed(o, "critical_invariants") }},
	{"operation_completion_rate", "scored episodes with legitimate_completion / scored episodes", false,
		func(o *Outcome) bool { return o.Vector.LegitimateCompletion }},
	{"correct_wait_follow_up_rate", "scored episodes passing temporal_correctness / scored episodes", false,
		func(o *Outcome) bool { return !failed(o, "temporal_correctness") }},
	{"unnecessary_human_touches", "scored episodes with UNNECESSARY_CHECKPOINT, UNNECESSARY_ESCALATION or UNNECESSARY_APPROVAL_REQUEST / scored episodes", false,
		func(o *Outcome) bool {
			return hasFinding(o, "UNNECESSARY_CHECKPOINT", "UNNECESSARY_ESCALATION", "UNNECESSARY_APPROVAL_REQUEST")
		}},
	{"missed_escalations", "scored episodes with MISSED_REQUIRED_CHECKPOINT / scored episodes", false,
		func(o *Outcome) bool { return hasFinding(o, "MISSED_REQUIRED_CHECKPOINT") }},
	{"duplicate_invalid_action_rate", "scored episodes with DUPLICATE_OR_INVALID_ACTION or CRITICAL_DUPLICATE_IRREVERSIBLE_ACTION / scored episodes", false,
		func(o *Outcome) bool {
			return hasFinding(o, "DUPLICATE_OR_INVALID_ACTION", "CRITICAL_DUPLICATE_IRREVERSIBLE_ACTION")
		}},
	{"sla_violations", "scored episodes with SLA_BREACH / scored episodes", false,
		func(o *Outcome) bool { return hasFinding(o, "SLA_BREACH") }},
	{"recovery_rate", "scored episodes passing recovery / scored episodes", false,
		func(o *Outcome) bool { return !failed(o, "recovery") }},
}

const stabilityFormula = "pass^k: per subject × arm × variant cell with n trials and c SUCCESS, C(c,k)/C(n,k), averaged over the cell's variants; refused when a cell has fewer than k trials (trials within a cell are assumed exchangeable; variants of one Semantic Scenario are not independent samples)"

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
func ptr(x float64) *float64   { r := round6(x); return &r }

// BuildReport computes the report from the plan and its outcomes (one per
// identity that has ended) under the log checkpoint cp. Identities with no
// outcome yet count as assigned and nothing more.
func BuildReport(p *Plan, planDigest string, outcomes map[int]*Outcome, cp checkpoint.Checkpoint) *Report {
	r := &Report{MediaType: ReportMediaType, Campaign: p.File.Name, Origin: p.File.Origin, PlanSHA256: planDigest,
		LogSize: cp.Size, LogRoot: hex.EncodeToString(cp.Root), Assigned: len(p.Trials)}
	r.SemanticScenarios = semanticScenarios(p.Variants)
	for _, d := range metricDefs {
		r.Definitions = append(r.Definitions, Definition{d.name, d.formula})
	}
	r.Definitions = append(r.Definitions, Definition{"stability_at_k", stabilityFormula},
		Definition{"cluster_se", "V = G/(G−1) · Σ_g (Σ_{i∈g} (y_i − ȳ))² / N² over Semantic Scenarios g (G ≥ 2), else \"" + NoInterval + "\""},
		Definition{"paired_difference", "mean over the same variant × repeat of I(first SUCCESS) − I(second SUCCESS), clustered by Semantic Scenario"})
	for _, arm := range p.File.Arms {
		a := Arm{Arm: arm, ExcludedByReason: map[string]int{}, Status: map[string]int{StatusSuccess: 0, StatusFailure: 0, StatusError: 0, "not_ended": 0}}
		counts := make([]int, len(Stages))
		for _, t := range p.Trials {
			if t.Arm != arm {
				continue
			}
			o := outcomes[t.Index]
			if o == nil {
				counts[0]++
				a.Status["not_ended"]++
				continue
			}
			for i := 0; i <= stageIndex(o.Stage); i++ {
				counts[i]++
			}
			a.Status[o.Status]++
			if o.Exclusion != "" {
				a.ExcludedByReason[o.Exclusion]++
			}
		}
		for i, s := range Stages {
			a.Funnel = append(a.Funnel, StageCount{s, counts[i]})
		}
		r.Arms = append(r.Arms, a)
	}
	kinds := map[string]string{}
	for _, t := range p.Trials {
		kinds[t.Subject] = t.SubjectKind
	}
	for _, arm := range p.File.Arms {
		for _, s := range p.File.subjects() {
			r.Cells = append(r.Cells, buildCell(p, outcomes, s, kinds[s], arm))
		}
	}
	for _, c := range p.File.Comparisons {
		for _, arm := range p.File.Arms {
			r.Paired = append(r.Paired, buildPair(p, outcomes, c[0], c[1], arm))
		}
	}
	r.Ineligible = p.Ineligible
	r.Deltas = buildDeltas(p, outcomes)
	if slices.Contains(p.File.Arms, ArmNoTime) {
		r.Definitions = append(r.Definitions, Definition{"stateful_time_removed cells", "status is the CommonOutcomeV1 status; the evaluator's metrics (every scored-episode rate and reliable_operation_rate) are full_lifecycle only and are not given"})
	}
	if r.Deltas != nil {
		r.Definitions = append(r.Definitions, Definition{"delta", deltaFormula})
	}
	return r
}

func buildCell(p *Plan, outcomes map[int]*Outcome, subject, kind, arm string) Cell {
	c := Cell{Subject: subject, Kind: kind, Arm: arm, Status: map[string]int{StatusSuccess: 0, StatusFailure: 0, StatusError: 0, "not_ended": 0}}
	var trials []Trial
	for _, t := range p.Trials {
		if t.Subject == subject && t.Arm == arm {
			trials = append(trials, t)
		}
	}
	slices.SortFunc(trials, func(a, b Trial) int {
		if a.Variant != b.Variant {
			return slices.Index(p.File.Variants, a.Variant) - slices.Index(p.File.Variants, b.Variant)
		}
		return a.Repeat - b.Repeat
	})
	c.Assigned = len(trials)
	rows := map[string]*strings.Builder{}
	var vn, vc []int
	for _, v := range p.File.Variants {
		rows[v] = &strings.Builder{}
	}
	perVariant := map[string][2]int{}
	for _, t := range trials {
		o := outcomes[t.Index]
		ch := "."
		if o == nil {
			c.Status["not_ended"]++
		} else {
			c.Status[o.Status]++
			ch = o.Status[:1]
			if o.Stage == "scored" {
				c.Scored++
			}
		}
		rows[t.Variant].WriteString(ch)
		pv := perVariant[t.Variant]
		pv[0]++
		if o != nil && o.Status == StatusSuccess {
			pv[1]++
		}
		perVariant[t.Variant] = pv
	}
	for _, v := range p.File.Variants {
		if !p.eligible(v, arm) {
			continue // no identity assigned: listed in the report's ineligible cells
		}
		c.Matrix = append(c.Matrix, MatrixRow{v, rows[v].String()})
		vn = append(vn, perVariant[v][0])
		vc = append(vc, perVariant[v][1])
	}
	for _, d := range metricDefs {
		if arm != ArmFullLifecycle && d.name != "error_rate" {
			continue
		}
		m := Metric{Name: d.name}
		var y []float64
		var cl []string
		for _, t := range trials {
			o := outcomes[t.Index]
			if !d.overAssigned && (o == nil || o.Stage != "scored") {
				continue
			}
			hit := o != nil && d.hit(o)
			m.Denominator++
			v := 0.0
			if hit {
				m.Numerator++
				v = 1
			}
			y = append(y, v)
			cl = append(cl, t.SemanticScenario)
		}
		if m.Denominator > 0 {
			m.Value = ptr(float64(m.Numerator) / float64(m.Denominator))
			if _, se, _, err := stats.ClusterSE(y, cl); err == nil {
				m.ClusterSE = ptr(se)
				m.Interval = "clustered by Semantic Scenario"
			} else {
				m.Interval = NoInterval
			}
			if d.name == "critical_violation_rate" {
				if u, err := stats.ClopperPearsonUpper(m.Numerator, m.Denominator, 0.05); err == nil {
					m.UpperBound95 = ptr(u)
				}
			}
		} else {
			m.Interval = "empty denominator: undefined"
		}
		c.Metrics = append(c.Metrics, m)
	}
	c.Stability.K = p.File.StabilityK
	if v, err := stats.PassK(vn, vc, p.File.StabilityK); err != nil {
		c.Stability.Refused = fmt.Sprintf("a cell has fewer than k=%d trials", p.File.StabilityK)
		if !errors.Is(err, stats.ErrTooFewTrials) {
			c.Stability.Refused = "no trials"
		}
	} else {
		c.Stability.Value = ptr(v)
	}
	return c
}

func buildPair(p *Plan, outcomes map[int]*Outcome, a, b, arm string) Pair {
	pr := Pair{A: a, B: b, Subjects: []string{a, b}, Arm: arm}
	type unit struct {
		variant string
		repeat  int
	}
	of := map[unit]*Outcome{}
	for _, t := range p.Trials {
		if t.Arm != arm || t.Subject != b {
			continue
		}
		of[unit{t.Variant, t.Repeat}] = outcomes[t.Index]
	}
	var ya, yb []bool
	var cl []string
	for _, t := range p.Trials {
		if t.Arm != arm || t.Subject != a {
			continue
		}
		u := unit{t.Variant, t.Repeat}
		oa, ob := outcomes[t.Index], of[u]
		ya = append(ya, oa != nil && oa.Status == StatusSuccess)
		yb = append(yb, ob != nil && ob.Status == StatusSuccess)
		cl = append(cl, t.SemanticScenario)
	}
	res, err := stats.Paired(ya, yb, cl)
	if err != nil {
		pr.Interval = "no pairs"
		return pr
	}
	pr.Pairs, pr.Both, pr.OnlyA, pr.OnlyB, pr.Neither = res.Pairs, res.Both, res.OnlyA, res.OnlyB, res.Neither
	pr.Mean = round6(res.Mean)
	if res.Err == nil {
		pr.SE = ptr(res.SE)
		pr.Interval = "clustered by Semantic Scenario"
	} else {
		pr.Interval = NoInterval
	}
	return pr
}

// Encode is report.json: RFC 8785 and a newline.
func (r *Report) Encode() ([]byte, error) { return encodeFile(r) }

func fmtVal(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.4f", *v)
}

// WriteText writes the report for a terminal.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "campaign %s (%s)\n", r.Campaign, r.Origin)
	fmt.Fprintf(w, "plan sha256 %s; log size %d root %s\n", r.PlanSHA256, r.LogSize, r.LogRoot)
	fmt.Fprintf(w, "assigned: %d identities; semantic scenarios: %d (%s)\n", r.Assigned, len(r.SemanticScenarios), strings.Join(r.SemanticScenarios, ", "))
	if len(r.SemanticScenarios) < 2 {
		fmt.Fprintf(w, "note: %s — variants of one Semantic Scenario are one semantic unit, not independent samples; the raw per-trial matrix below is the result\n", NoInterval)
	}
	for _, a := range r.Arms {
		fmt.Fprintf(w, "\narm %s funnel:\n", a.Arm)
		for _, s := range a.Funnel {
			fmt.Fprintf(w, "  %-20s %d\n", s.Stage, s.Count)
		}
		fmt.Fprintf(w, "  status: SUCCESS %d, FAILURE %d, ERROR %d, not ended %d\n", a.Status[StatusSuccess], a.Status[StatusFailure], a.Status[StatusError], a.Status["not_ended"])
		var ex []string
		for _, k := range slices.Sorted(maps.Keys(a.ExcludedByReason)) {
			ex = append(ex, fmt.Sprintf("%s=%d", k, a.ExcludedByReason[k]))
		}
		if len(ex) == 0 {
			ex = []string{"none"}
		}
		fmt.Fprintf(w, "  excluded_by_reason: %s\n", strings.Join(ex, ", "))
	}
	for _, c := range r.Cells {
		fmt.Fprintf(w, "\n%s %s (%s), arm %s: assigned %d, scored %d; SUCCESS %d FAILURE %d ERROR %d\n", c.Kind, c.Subject, c.Kind, c.Arm, c.Assigned, c.Scored, c.Status[StatusSuccess], c.Status[StatusFailure], c.Status[StatusError])
		for _, m := range c.Metrics {
			line := fmt.Sprintf("  %-30s %4d/%-4d %s", m.Name, m.Numerator, m.Denominator, fmtVal(m.Value))
			if m.UpperBound95 != nil {
				line += fmt.Sprintf("  (95%% upper %s)", fmtVal(m.UpperBound95))
			}
			if m.ClusterSE != nil {
				line += fmt.Sprintf("  SE %s", fmtVal(m.ClusterSE))
			} else {
				line += "  " + m.Interval
			}
			fmt.Fprintln(w, line)
		}
		if c.Stability.Value != nil {
			fmt.Fprintf(w, "  %-30s %s\n", fmt.Sprintf("stability@%d (pass^%d)", c.Stability.K, c.Stability.K), fmtVal(c.Stability.Value))
		} else {
			fmt.Fprintf(w, "  stability@%d refused: %s\n", c.Stability.K, c.Stability.Refused)
		}
		for _, row := range c.Matrix {
			fmt.Fprintf(w, "  %s %s\n", row.Variant, row.Trials)
		}
	}
	for _, p := range r.Paired {
		se := p.Interval
		if p.SE != nil {
			se = "SE " + fmtVal(p.SE)
		}
		fmt.Fprintf(w, "\npaired %s − %s (arm %s): %d pairs, both %d, only first %d, only second %d, neither %d; mean difference %.4f; %s\n",
			p.A, p.B, p.Arm, p.Pairs, p.Both, p.OnlyA, p.OnlyB, p.Neither, p.Mean, se)
	}
	writeDeltas(w, r)
	fmt.Fprintf(w, "\ndefinitions:\n")
	for _, d := range r.Definitions {
		fmt.Fprintf(w, "  %s: %s\n", d.Name, d.Formula)
	}
}

// ReportOf reads a campaign directory's plan and log (checkpoint signed by
// the plan's key, entries hashing to its root, every outcome an assigned
// identity once) and computes its report. It does not re-derive the
// trials' files: that is [Verify].
func ReportOf(ctx context.Context, dir string) (*Report, error) {
	planFile, p, _, st, err := readCampaign(ctx, dir)
	if err != nil {
		return nil, err
	}
	outcomes, err := outcomesOf(p, planFile, st)
	if err != nil {
		return nil, err
	}
	return BuildReport(p, PlanDigest(planFile), outcomes, st.Checkpoint), nil
}
