package campaign

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Delta is the confirmatory estimand of Measurement RFC v2 §3 for one
// subject on one Semantic Scenario, over its matched pairs: every
// scenario × variant × subject × repeat assigned on both full_lifecycle and
// stateful_time_removed (the pair shares one operation instance, fixed in
// the plan).
//
//	δ = Pr_assigned(status=SUCCESS | stateful_time_removed)
//	  − Pr_assigned(status=SUCCESS | full_lifecycle)
//
// with status the CommonOutcomeV1 status on both arms ([CommonStatus]) and
// each probability over all assigned identities of the pairs: FAILURE,
// ERROR and an identity not yet ended are non-success mass and stay in the
// denominator. Positive δ: higher success after the lifecycle treatment is
// removed (the RFC's fixed sign). Variants the protocol calls ineligible
// have no pairs; they are listed by name, not dropped.
type Delta struct {
	Subject          string `json:"subject"`
	SemanticScenario string `json:"semantic_scenario"`
	Pairs            int    `json:"pairs"`
	FullSuccess      int    `json:"full_success"`
	NoTimeSuccess    int    `json:"notime_success"`
	// FullRate, NoTimeRate and Value (δ) are null with no pairs.
	FullRate   *float64 `json:"full_success_rate"`
	NoTimeRate *float64 `json:"notime_success_rate"`
	Value      *float64 `json:"delta"`
	// Table counts the pairs by (Full status, No-Time status), keyed
	// "FULL/NOTIME" (SUCCESS, FAILURE, ERROR, not_ended), every cell listed.
	Table map[string]int `json:"table"`
	// Matrix is the per-trial paired matrix: per eligible variant, one
	// character per repeat on each arm (S, F, E, . not ended).
	Matrix []DeltaRow `json:"matrix"`
	// Ineligible are this subject's variants of the scenario with no pairs
	// because the protocol refuses the treatment arm on them.
	Ineligible []Ineligible `json:"ineligible"`
	Interval   string       `json:"interval"`
}

// DeltaRow is one variant's paired trials in repeat order.
type DeltaRow struct {
	Variant string `json:"variant"`
	Full    string `json:"full_lifecycle"`
	NoTime  string `json:"stateful_time_removed"`
}

const deltaFormula = "δ = Pr_assigned(CommonOutcomeV1 status SUCCESS | stateful_time_removed) − Pr_assigned(SUCCESS | full_lifecycle), per subject × Semantic Scenario over the matched pairs (variant × subject × repeat assigned on both arms, one operation instance per pair); each rate's denominator is every assigned identity of the pairs (FAILURE, ERROR and not-ended are non-success mass); positive = higher success with the lifecycle treatment removed (Measurement RFC v2 §3); ineligible variants (the protocol's compiler refusal, by class) have no pairs and are listed; scenario-specific, so " + NoInterval

// twin is a treatment-arm trial and its full_lifecycle twin (nil: none
// assigned).
type twin struct {
	full   *Trial
	notime Trial
}

// matchPairs pairs every stateful_time_removed trial with the
// full_lifecycle trial of the same variant × subject × repeat.
func matchPairs(p *Plan) []twin {
	type key struct {
		variant, subject string
		repeat           int
	}
	full := map[key]*Trial{}
	for i, t := range p.Trials {
		if t.Arm == ArmFullLifecycle {
			full[key{t.Variant, t.Subject, t.Repeat}] = &p.Trials[i]
		}
	}
	var out []twin
	for _, t := range p.Trials {
		if t.Arm == ArmNoTime {
			out = append(out, twin{full[key{t.Variant, t.Subject, t.Repeat}], t})
		}
	}
	return out
}

func statusChar(o *Outcome) string {
	if o == nil {
		return "."
	}
	return CommonStatus(o)[:1]
}

func statusKey(o *Outcome) string {
	if o == nil {
		return "not_ended"
	}
	return CommonStatus(o)
}

// buildDeltas computes δ for every subject × Semantic Scenario of a plan
// that assigns both arms (nil otherwise).
func buildDeltas(p *Plan, outcomes map[int]*Outcome) []Delta {
	if !slices.Contains(p.File.Arms, ArmFullLifecycle) || !slices.Contains(p.File.Arms, ArmNoTime) {
		return nil
	}
	pairs := matchPairs(p)
	keys := []string{StatusSuccess, StatusFailure, StatusError, "not_ended"}
	var out []Delta
	for _, s := range semanticScenarios(p.Variants) {
		for _, subj := range p.File.subjects() {
			d := Delta{Subject: subj, SemanticScenario: s, Table: map[string]int{}, Matrix: []DeltaRow{}, Ineligible: []Ineligible{}, Interval: NoInterval}
			for _, a := range keys {
				for _, b := range keys {
					d.Table[a+"/"+b] = 0
				}
			}
			for _, v := range p.Variants {
				if v.SemanticScenario != s {
					continue
				}
				if !p.eligible(v.ID, ArmNoTime) {
					for _, x := range p.Ineligible {
						if x.Variant == v.ID && x.Arm == ArmNoTime {
							d.Ineligible = append(d.Ineligible, x)
						}
					}
					continue
				}
				row := DeltaRow{Variant: v.ID}
				var ps []twin
				for _, pr := range pairs {
					if pr.full != nil && pr.notime.Variant == v.ID && pr.notime.Subject == subj {
						ps = append(ps, pr)
					}
				}
				slices.SortFunc(ps, func(a, b twin) int { return a.notime.Repeat - b.notime.Repeat })
				var fb, nb strings.Builder
				for _, pr := range ps {
					of, on := outcomes[pr.full.Index], outcomes[pr.notime.Index]
					d.Pairs++
					if of != nil && CommonStatus(of) == StatusSuccess {
						d.FullSuccess++
					}
					if on != nil && CommonStatus(on) == StatusSuccess {
						d.NoTimeSuccess++
					}
					d.Table[statusKey(of)+"/"+statusKey(on)]++
					fb.WriteString(statusChar(of))
					nb.WriteString(statusChar(on))
				}
				row.Full, row.NoTime = fb.String(), nb.String()
				d.Matrix = append(d.Matrix, row)
			}
			if d.Pairs > 0 {
				n := float64(d.Pairs)
				d.FullRate, d.NoTimeRate = ptr(float64(d.FullSuccess)/n), ptr(float64(d.NoTimeSuccess)/n)
				d.Value = ptr(float64(d.NoTimeSuccess-d.FullSuccess) / n)
			} else {
				d.Interval = "no matched pairs: undefined"
			}
			out = append(out, d)
		}
	}
	return out
}

func writeDeltas(w io.Writer, r *Report) {
	if len(r.Ineligible) > 0 {
		fmt.Fprintf(w, "\nineligible (no identity assigned; the protocol refuses the arm):\n")
		for _, x := range r.Ineligible {
			fmt.Fprintf(w, "  %s on %s: %s\n", x.Arm, x.Variant, x.Class)
		}
	}
	for _, d := range r.Deltas {
		fmt.Fprintf(w, "\nδ %s on %s (stateful_time_removed − full_lifecycle, CommonOutcomeV1 SUCCESS over %d matched pairs): ", d.Subject, d.SemanticScenario, d.Pairs)
		if d.Value == nil {
			fmt.Fprintf(w, "undefined (%s)\n", d.Interval)
		} else {
			fmt.Fprintf(w, "%d/%d − %d/%d = %s; %s\n", d.NoTimeSuccess, d.Pairs, d.FullSuccess, d.Pairs, fmtSigned(*d.Value), d.Interval)
		}
		for _, row := range d.Matrix {
			fmt.Fprintf(w, "  %s full %s | notime %s\n", row.Variant, row.Full, row.NoTime)
		}
		for _, x := range d.Ineligible {
			fmt.Fprintf(w, "  %s ineligible: %s (no pairs)\n", x.Variant, x.Class)
		}
		var cells []string
		for _, k := range slices.Sorted(maps.Keys(d.Table)) {
			if d.Table[k] > 0 {
				cells = append(cells, fmt.Sprintf("%s=%d", k, d.Table[k]))
			}
		}
		if len(cells) > 0 {
			fmt.Fprintf(w, "  pairs by full/notime status: %s\n", strings.Join(cells, ", "))
		}
	}
}

func fmtSigned(x float64) string { return fmt.Sprintf("%+.4f", x) }
