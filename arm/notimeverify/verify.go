// Package notimeverify is the independent matching verifier of the
// stateful_time_removed arm. From the Full plan, the Full run and the
// No-Time run it recomputes, by its own code, the finality partitions and
// reachable pre-finality closures, the semantic correspondence keys, the
// arm-neutral evidence projections of both runs and the activation
// identities, and requires that the two arms differ only on the protocol's
// allowlisted raw paths.
//
// It shares no code with the compiler/runtime (arm/notime) beyond the
// public wire types of arm/notimewire and the engine's plan and domain
// types; repo_test.go TestDependencyRules holds that both ways.
package notimeverify

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// ErrMismatch is returned when the two arms do not match under the
// protocol: a recomputed partition, closure, key, projection or activation
// differs, a correspondence is missing, extra or ambiguous, or a raw
// difference lies outside the allowlist.
var ErrMismatch = refusal.Sentinel("notimeverify/mismatch")

// Full is the Full arm's side of a pair.
type Full struct {
	Domain engine.Domain
	// Trajectory is the Full episode's ledger rows.
	Trajectory []any
	// TerminalOutcome and ReplayFinal are the Full episode's terminal facts.
	TerminalOutcome any
	ReplayFinal     bool
}

// rows are the Full trajectory's rows that are objects, the plan's
// authored event ids, and how many rows are not objects (left out).
func (f Full) rows() (rows []map[string]any, authored map[string]bool, bad int) {
	authored = map[string]bool{}
	for _, e := range f.Domain.Plan().Events {
		authored[e.EventID] = true
	}
	rows = make([]map[string]any, 0, len(f.Trajectory))
	for _, r := range f.Trajectory {
		if m, ok := r.(map[string]any); ok {
			rows = append(rows, m)
		} else {
			bad++
		}
	}
	return rows, authored, bad
}

// Project is the Full side's arm-neutral projection: [ProjectFull] of its
// trajectory's rows that are objects.
func (f Full) Project() *notimewire.ProjectionV1 {
	rows, authored, _ := f.rows()
	return ProjectFull(rows, authored, f.TerminalOutcome, f.ReplayFinal)
}

// Report is the matching proof.
type Report struct {
	Matched  bool     `json:"matched"`
	Findings []string `json:"findings"`
	// Checked names every comparison made.
	Checked []string `json:"checked"`
	// RawDifferences are the allowlisted raw differences, counted.
	RawDifferences map[string]int64 `json:"raw_differences"`
	// Unverified names what this verifier carries without checking.
	Unverified []string `json:"unverified"`
	// ProjectionDigest is the digest both projections share when matched.
	ProjectionDigest string `json:"projection_digest_sha256"`
	// Activations are the activation ids recomputed from the projection.
	Activations []string `json:"activation_ids"`
}

// Verify compares a Full run and a No-Time run of the same plan.
func Verify(f Full, nt *notimewire.RunV1) (*Report, error) {
	rep := &Report{RawDifferences: map[string]int64{}, Findings: []string{}, Activations: []string{},
		Unverified: []string{"observation and provider-request projections (only their digests are recorded)", "decision tapes (not compared across arms; each arm re-derives its own digest)"}}
	find := func(format string, a ...any) { rep.Findings = append(rep.Findings, fmt.Sprintf(format, a...)) }
	check := func(name string) { rep.Checked = append(rep.Checked, name) }
	plan := f.Domain.Plan()

	check("protocol identity")
	if nt.Protocol != notimewire.Protocol || nt.Plan.Protocol != notimewire.Protocol || nt.Contract != notimewire.RunContract || nt.Arm != notimewire.ArmNoTime {
		find("the No-Time record does not name protocol %s and contract %s", notimewire.Protocol, notimewire.RunContract)
	}
	check("origin plan digest")
	if d := originDigest(plan); d != nt.Plan.OriginPlanDigest {
		find("origin_plan_digest %s is not the Full plan's %s", nt.Plan.OriginPlanDigest, d)
	}
	check("bounds")
	want := 1 + int64(len(plan.Events)) + countConditionals(plan) + int64(plan.MaxInvocations)*(int64(plan.MaxTurnsPerInvocation)+int64(plan.MaxRetrievalBatchesPerInvocation)+1)
	if nt.Plan.MaxTransitions != want || nt.Plan.MaxInvocations != int64(plan.MaxInvocations) ||
		nt.Plan.MaxTurnsPerInvocation != int64(plan.MaxTurnsPerInvocation) || nt.Plan.MaxRetrievalBatchesPerInvocation != int64(plan.MaxRetrievalBatchesPerInvocation) {
		find("bounds differ from the Full plan's (max_transitions %d, want %d)", nt.Plan.MaxTransitions, want)
	}

	check("events and partitions")
	parts, specs, err := partitions(f.Domain)
	if err != nil {
		find("%v", err)
	}
	if len(nt.Plan.Events) != len(plan.Events) {
		find("the No-Time plan has %d events, the Full plan %d", len(nt.Plan.Events), len(plan.Events))
	}
	seen := map[string]bool{}
	for _, e := range nt.Plan.Events {
		if seen[e.EventID] {
			find("event %s appears twice in the No-Time plan", e.EventID)
		}
		seen[e.EventID] = true
		fe := fullEvent(plan, e.EventID)
		if fe == nil {
			find("event %s is not in the Full plan", e.EventID)
			continue
		}
		pa, _ := canon.JCS(e.Payload)
		pb, _ := canon.JCS(fe.Payload) // a nil map is canon's {} too
		if e.EventType != fe.EventType || e.ActorID != fe.ActorID || e.AuthoredSequence != fe.Sequence || e.TriggersAgent != fe.TriggersAgent || string(pa) != string(pb) {
			find("event %s differs from the Full plan beyond the allowlist", e.EventID)
		}
		if (fe.Trigger == nil) != (e.Cause == nil) || (fe.Trigger != nil && (fe.Trigger.Kind != e.Cause.Kind || fe.Trigger.Type != e.Cause.Type || textOf(fe.Trigger.CycleID) != textOf(e.Cause.CycleID))) {
			find("event %s has a cause other than the Full trigger", e.EventID)
		}
		got, _ := canon.JCS(anyMap(e.FinalityRelations))
		exp, _ := canon.JCS(anyMap(parts[e.EventID]))
		if string(got) != string(exp) {
			find("event %s finality relations %s, recomputed %s", e.EventID, got, exp)
		}
	}
	check("cut specifications and closures")
	if len(specs) != len(nt.Plan.FinalityCutSpecs) {
		find("%d cut specifications, recomputed %d", len(nt.Plan.FinalityCutSpecs), len(specs))
	} else {
		for i, s := range nt.Plan.FinalityCutSpecs {
			w := specs[i]
			if s.ProvisionalCloseCommonCauseKey != w.key || s.CompleteCommonPointKey != w.point || textOf(s.CompleteCycleID) != textOf(w.cycle) {
				find("cut specification %d keys differ from the recomputation", i)
			}
			if s.Closure.ClosureDigest != w.closureDigest || closureOf(s.Closure) != w.closureDigest {
				find("cut specification %d closure digest %s, recomputed %s", i, s.Closure.ClosureDigest, w.closureDigest)
			}
		}
	}

	check("arm-neutral projections")
	fullRows, authored, bad := f.rows()
	for range bad {
		find("a Full trajectory row is not an object")
	}
	pf := ProjectFull(fullRows, authored, f.TerminalOutcome, f.ReplayFinal)
	pn := ProjectNoTime(nt)
	df, _ := projectionDigest(pf)
	dn, _ := projectionDigest(pn)
	if df != dn {
		find("the arm-neutral projections differ (%s)", firstDifference(pf, pn))
	} else {
		rep.ProjectionDigest = df
	}
	check("event correspondence")
	for _, p := range []*notimewire.ProjectionV1{pf, pn} {
		ids := map[string]int{}
		for _, e := range p.Entries {
			if e.Kind == "event" {
				id, _ := e.Fields["event_id"].(string)
				ids[id]++
				if ids[id] > 1 {
					find("event %s is delivered twice in one arm", id)
				}
			}
		}
	}
	check("activation identities")
	acts, err := activations(pn, specs)
	if err != nil {
		find("%v", err)
	}
	actsFull, err := activations(pf, specs)
	if err != nil {
		find("%v", err)
	}
	if !slices.Equal(acts, actsFull) {
		find("activation identities recomputed from the two arms differ")
	}
	var recorded []string
	var cancelled []string
	current := ""
	for _, r := range nt.Trajectory {
		id, _ := r["activation_id"].(string)
		switch r["record_type"] {
		case "finality_activation":
			if current != "" {
				find("activation %s is superseded by %s without a cancellation or cut", current, id)
			}
			recorded = append(recorded, id)
			current = id
		case "finality_activation_cancelled":
			if id != current || id == "" {
				find("cancellation names activation %s, the active one is %s", id, current)
			}
			cancelled = append(cancelled, id)
			current = ""
		case "finality_cut":
			if id != current || id == "" || slices.Contains(cancelled, id) {
				find("finality_cut names activation %s, the active one is %s", id, current)
			}
			current = ""
		}
	}
	reopens := 0
	for _, e := range pn.Entries {
		if e.Kind == "reopen" {
			reopens++
		}
	}
	if reopens != len(cancelled) {
		find("%d reopen(s) cancelled %d activation(s); each reopen cancels exactly the active one", reopens, len(cancelled))
	}
	if !slices.Equal(recorded, acts) {
		find("the run recorded activations %v, recomputed %v", recorded, acts)
	}
	u := map[string]bool{}
	for _, a := range acts {
		if u[a] {
			find("activation id %s is reused", a)
		}
		u[a] = true
	}
	rep.Activations = append(rep.Activations, acts...)

	check("post-finality audit-only parity")
	postCut := map[string]bool{}
	for id, rel := range parts {
		for _, side := range rel {
			if side == notimewire.PostFinality {
				postCut[id] = true
			}
		}
	}
	invokedBy := map[string]bool{}
	final := false
	for _, r := range nt.Trajectory {
		rt, _ := r["record_type"].(string)
		if rt == "agent_invoked" {
			id, _ := r["trigger_event_id"].(string)
			invokedBy[id] = true
			if final {
				find("the subject was invoked after replay-final")
			}
		}
		if rt == "finality_cut" && r["finalized"] == true {
			final = true
		}
		if final && (rt == "event_observed" || rt == "event_audit_only" || rt == "event_rejected" || rt == "effect_accepted") {
			find("%s after replay-final", rt)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(postCut)) {
		if invokedBy[id] && nt.ReplayFinal {
			find("post-finality event %s invoked the subject", id)
		}
	}
	check("untriggered-at-finality closures")
	// At a finalized cut every conditional still registered closes; those
	// are exactly the plan's conditionals the No-Time run never delivered,
	// and Full (which finalized with them unscheduled) never delivered them
	// either.
	cutDone := false
	var closedIDs []string
	deliveredNT := map[string]bool{}
	for _, r := range nt.Trajectory {
		rt, _ := r["record_type"].(string)
		switch {
		case rt == "finality_cut" && r["finalized"] == true:
			cutDone = true
		case rt == "conditional_closed":
			id, _ := r["event_id"].(string)
			closedIDs = append(closedIDs, id)
		case entryKind[rt] == "event":
			id, _ := r["event_id"].(string)
			deliveredNT[id] = true
		}
	}
	deliveredFull := map[string]bool{}
	for _, r := range fullRows {
		if rt, _ := r["record_type"].(string); entryKind[rt] == "event" {
			id, _ := r["event_id"].(string)
			deliveredFull[id] = true
		}
	}
	var wantClosed []string
	if cutDone {
		for _, e := range plan.Events {
			if e.Trigger != nil && !deliveredNT[e.EventID] {
				wantClosed = append(wantClosed, e.EventID)
			}
		}
	}
	slices.Sort(wantClosed)
	slices.Sort(closedIDs)
	if !slices.Equal(wantClosed, closedIDs) {
		find("closed UNTRIGGERED_AT_FINALITY %v, recomputed %v", closedIDs, wantClosed)
	}
	for _, id := range closedIDs {
		if deliveredFull[id] || deliveredNT[id] {
			find("conditional %s closed untriggered but was delivered", id)
		}
	}

	check("invocation opportunities")
	fi, ni := triggers(fullRows, authored), triggers(nt.Trajectory, authored)
	if !slices.Equal(fi, ni) {
		find("the subject was invoked by authored events %v in Full and %v in No-Time", fi, ni)
	}

	check("allowlisted raw differences")
	for _, arm := range []struct {
		key, name string
		rows      []map[string]any
		only      map[string]bool
	}{{"no_time:", "No-Time", nt.Trajectory, noTimeOnly}, {"full:", "Full", fullRows, fullOnly}} {
		for _, r := range arm.rows {
			if rt, _ := r["record_type"].(string); arm.only[rt] {
				rep.RawDifferences[arm.key+rt]++
			} else if !sharedTypes[rt] {
				find("%s record type %q is outside the allowlist", arm.name, rt)
			}
		}
	}
	check("no Full time in the No-Time record")
	if leak := fullTimeLeak(plan, nt); leak != "" {
		find("the No-Time record carries Full time: %s", leak)
	}
	rep.Matched = len(rep.Findings) == 0
	if !rep.Matched {
		return rep, refusal.New(ErrMismatch, "%s", strings.Join(rep.Findings, "; "))
	}
	return rep, nil
}

var sharedTypes = map[string]bool{
	"event_observed": true, "event_audit_only": true, "event_rejected": true, "event_after_terminal": true, "agent_invoked": true,
	"agent_outcome": true, "outcome_rejected": true, "wait_rejected": true, "action_proposed": true, "action_rejected": true,
	"effect_accepted": true, "side_effect": true, "side_effect_failed": true, "checkpoint_opened": true, "checkpoint_resolved": true,
	"checkpoint_rejected": true, "obligation_created": true, "obligation_discharged": true, "obligation_cancelled": true,
	"obligation_breached": true, "terminal_proposed": true, "terminal_rejected": true, "provisional_close_entered": true,
	"operation_reopened": true, "terminal_accepted": true, "episode_ended": true, "critical_violation": true,
	"retrieval_served": true, "retrieval_refused": true, "derived_context_invalidated": true,
}

// noTimeOnly are the closed removal/protocol categories of allowlist v1.
var noTimeOnly = map[string]bool{
	"wait_removed": true, "deadline_removed": true, "timer_obligation_removed": true, "finality_activation": true,
	"finality_activation_cancelled": true, "finality_cut": true, "conditional_closed": true, "deadlock": true, "integrity_finding": true,
}

// fullOnly are the Full mechanism rows the allowlist removes.
var fullOnly = map[string]bool{"timer_scheduled": true, "timer_cancelled": true, "wait_declared": true, "wait_unresolved_at_horizon": true}

func triggers(rows []map[string]any, authored map[string]bool) []string {
	out := []string{}
	for _, r := range rows {
		if r["record_type"] == "agent_invoked" {
			if id, ok := r["trigger_event_id"].(string); ok && authored[id] {
				out = append(out, id)
			}
		}
	}
	return out
}

var fullInstant = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`) })

func fullTimeLeak(plan *engine.Plan, nt *notimewire.RunV1) string {
	for _, part := range []any{nt.Trajectory, nt.Decisions, nt.FinalState} {
		b, err := canon.JCS(toTree(part))
		if err != nil {
			return "unencodable record part"
		}
		if m := fullInstant().Find(b); m != nil {
			return string(m)
		}
	}
	return ""
}

func toTree(v any) any {
	switch x := v.(type) {
	case []map[string]any:
		out := make([]any, len(x))
		for i, m := range x {
			out[i] = m
		}
		return out
	}
	return v
}

func fullEvent(p *engine.Plan, id string) *engine.PlannedEvent {
	for i := range p.Events {
		if p.Events[i].EventID == id {
			return &p.Events[i]
		}
	}
	return nil
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func textOf(p *string) string {
	if p == nil {
		return "\x00nil"
	}
	return *p
}

func countConditionals(p *engine.Plan) int64 {
	n := int64(0)
	for _, e := range p.Events {
		if e.Trigger != nil {
			n++
		}
	}
	return n
}
