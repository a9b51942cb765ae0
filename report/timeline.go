package report

import (
	"strings"
	"time"

	"github.com/obaudit/obaudit/internal/instant"
)

// Timeline is the episode laid out on its simulated-time axis. Every slice
// is in trajectory (or delivery) order, which is time order.
type Timeline struct {
	Start, End  time.Time // the axis
	Actors      []string  // event lanes, in order of first delivery
	Events      []EventMark
	Invocations []InvocationMark
	Proposals   []ProposalMark
	Messages    []MessageMark
	Waits       []WaitSpan
	Obligations []ObligationSpan
	Checkpoints []CheckpointSpan
	Provisional []ProvisionalSpan
	Findings    []FindingMark
	Terminal    TerminalMark
}

// Origins of a delivered event (its caused_by).
const (
	OriginExogenous = "exogenous" // authored at a fixed time, whatever the agent does
	OriginReactive  = "reactive"  // authored, conditional on an agent action or an event
	OriginTimer     = "timer"     // armed by the engine
)

// EventMark is one delivered event.
type EventMark struct {
	ID, Type, Actor, Disposition, Verdict string
	Origin                                string
	CausedBy                              string
	TriggersAgent                         bool
	At                                    time.Time
	AtText                                string
}

// InvocationMark is one agent invocation.
type InvocationMark struct {
	Index          int64
	At             time.Time
	AtText         string
	TriggerEventID string
}

// ProposalMark is one business action or completion the agent proposed.
type ProposalMark struct {
	Row        int
	Invocation int64
	Terminal   bool   // a COMPLETE
	ActionType string // "complete" for a terminal proposal
	Accepted   bool
	Code       string // the refusal code, when refused
	At         time.Time
	AtText     string
}

// MessageMark is one message dispatch after an accepted send: delivered, or
// failed with the committed decision preserved.
type MessageMark struct {
	Fixture, Recipient string
	Delivered          bool
	At                 time.Time
	AtText             string
}

// WaitSpan is one WAIT from its declaration to the wake that ended it.
type WaitSpan struct {
	Row       int
	From, To  time.Time
	FromText  string
	ToText    string
	Fallback  *time.Time
	WakeOn    []string
	Reason    string
	Woken     bool // ended by a wake rather than by the horizon or the end
	Unresolve bool // recorded as unresolved at the horizon
}

// ObligationSpan is one obligation from creation to its close.
type ObligationSpan struct {
	ID, Kind         string
	Created, Due     time.Time
	Closed           *time.Time
	CreatedText      string
	DueText          string
	ClosedText       string
	Status           string // discharged, cancelled, breached, open
	ClosedAfterDueBy time.Duration
}

// CheckpointSpan is one human checkpoint.
type CheckpointSpan struct {
	ID, Type, Assignee string
	Opened, Deadline   time.Time
	OpenedText         string
	DeadlineText       string
	Resolved           *time.Time
	ResolvedText       string
	Resolution         string // "" while open
}

// ProvisionalSpan is one provisional-close window.
type ProvisionalSpan struct {
	Cycle                 string
	Entered, ReopenUntil  time.Time
	EnteredText, UntilTxt string
	Ended                 *time.Time
	EndedText             string
	Ending                string // "reopened", "finalized" or "open"
	WarrantyCycle         string
}

// FindingMark is one evaluator finding that names an instant.
type FindingMark struct {
	Dimension, Code, Detail string
	At                      time.Time
	AtText                  string
}

// TerminalMark is how the episode ended.
type TerminalMark struct {
	At       time.Time
	AtText   string
	Status   string
	Business bool // a terminal_accepted row (else an execution status)
}

// at is the time of an instant text (the zero time for anything else).
func at(s string) time.Time {
	t, _ := instantOf(s)
	return t
}

// instantOf parses an instant text, reporting ok=false for anything that
// is not one.
func instantOf(s string) (time.Time, bool) {
	sec, ok := instant.Parse(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, 0).UTC(), true
}

// endWindows ends, at t, every provisional-close window of cycle still
// open: reopened as warranty, or finalized (warranty "").
func (tl *Timeline) endWindows(cycle, ending, warranty string, t time.Time, text string) {
	for k := range tl.Provisional {
		if p := &tl.Provisional[k]; p.Ending == "open" && p.Cycle == cycle {
			p.Ended, p.EndedText, p.Ending, p.WarrantyCycle = &t, text, ending, warranty
		}
	}
}

// derive lays the episode out on its timeline.
func (r *Report) derive() *Timeline {
	e := r.a
	started, ended := at(e.StartedAt), at(e.EndedAt)
	tl := &Timeline{Start: started, End: ended}
	seen := map[string]bool{}
	for _, ev := range r.events {
		origin := OriginExogenous
		switch {
		case ev.CausedBy == "timer":
			origin = OriginTimer
		case ev.CausedBy != "":
			origin = OriginReactive
		}
		tl.Events = append(tl.Events, EventMark{
			ID: ev.EventID, Type: ev.EventType, Actor: ev.ActorID, Disposition: ev.Disposition, Verdict: ev.VerdictCode,
			Origin: origin, CausedBy: ev.CausedBy, TriggersAgent: ev.TriggersAgent, At: at(ev.At), AtText: ev.At,
		})
		if !seen[ev.ActorID] {
			seen[ev.ActorID] = true
			tl.Actors = append(tl.Actors, ev.ActorID)
		}
	}

	rows := r.rows
	var inv int64
	obl := map[string]int{}
	cps := map[string]int{}
	for i, r := range rows {
		rAt, rText := at(r.At()), r.At()
		switch r.Type() {
		case "agent_invoked":
			inv, _ = r.Int("invocation_index")
			tl.Invocations = append(tl.Invocations, InvocationMark{Index: inv, At: rAt, AtText: rText, TriggerEventID: r.Str("trigger_event_id")})
		case "action_proposed":
			p := ProposalMark{Row: i, Invocation: inv, ActionType: r.Str("action_type"), At: rAt, AtText: rText}
			id := r.Str("proposal_id")
			for _, s := range rows[i+1:] {
				if s.Str("proposal_id") != id {
					continue
				}
				if s.Type() == "effect_accepted" {
					p.Accepted = true
					break
				}
				if s.Type() == "action_rejected" {
					p.Code = s.Str("code")
					break
				}
			}
			tl.Proposals = append(tl.Proposals, p)
		case "terminal_proposed":
			p := ProposalMark{Row: i, Invocation: inv, Terminal: true, ActionType: "complete", At: rAt, AtText: rText}
		answer:
			for _, s := range rows[i+1:] {
				switch s.Type() {
				case "terminal_rejected":
					p.Code = s.Str("code")
					break answer
				case "provisional_close_entered", "terminal_accepted":
					p.Accepted = true
					break answer
				case "terminal_proposed", "agent_invoked":
					break answer
				}
			}
			tl.Proposals = append(tl.Proposals, p)
		case "side_effect", "side_effect_failed":
			tl.Messages = append(tl.Messages, MessageMark{Fixture: r.Str("message_fixture_id"), Recipient: r.Str("recipient_actor_id"),
				Delivered: r.Type() == "side_effect" && r.Str("status") == "DELIVERED", At: rAt, AtText: rText})
		case "wait_declared":
			if _, ok := r["wake_on"]; !ok {
				continue // a fallback firing, not a declaration
			}
			w := WaitSpan{Row: i, From: rAt, FromText: rText, WakeOn: r.Strs("wake_on"), Reason: r.Str("reason"), To: ended, ToText: e.EndedAt}
			if fb, ok := instantOf(r.Str("fallback_at")); ok {
				w.Fallback = &fb
			}
		end:
			for _, s := range rows[i+1:] {
				switch s.Type() {
				case "agent_invoked":
					w.To, w.ToText, w.Woken = at(s.At()), s.At(), true
					break end
				case "wait_unresolved_at_horizon":
					w.Unresolve = true
					if h, ok := instantOf(s.Str("horizon_at")); ok {
						w.To, w.ToText = h, s.Str("horizon_at")
					}
					break end
				case "wait_declared":
					w.To, w.ToText = at(s.At()), s.At()
					break end
				}
			}
			tl.Waits = append(tl.Waits, w)
		case "obligation_created":
			o := ObligationSpan{ID: r.Str("obligation_id"), Kind: r.Str("kind"), Created: rAt, CreatedText: rText, Status: "open"}
			if d, ok := instantOf(r.Str("due_at")); ok {
				o.Due, o.DueText = d, r.Str("due_at")
			}
			if _, dup := obl[o.ID]; !dup {
				obl[o.ID] = len(tl.Obligations)
				tl.Obligations = append(tl.Obligations, o)
			}
		case "obligation_discharged", "obligation_cancelled", "obligation_breached":
			if k, ok := obl[r.Str("obligation_id")]; ok && tl.Obligations[k].Closed == nil {
				o := &tl.Obligations[k]
				t := rAt
				o.Closed, o.ClosedText = &t, rText
				o.Status = strings.TrimPrefix(r.Type(), "obligation_")
				if !o.Due.IsZero() && t.After(o.Due) {
					o.ClosedAfterDueBy = t.Sub(o.Due)
				}
			}
		case "checkpoint_opened":
			c := CheckpointSpan{ID: r.Str("checkpoint_id"), Type: r.Str("checkpoint_type"), Assignee: r.Str("assignee_actor_id"), Opened: rAt, OpenedText: rText}
			if d, ok := instantOf(r.Str("deadline_at")); ok {
				c.Deadline, c.DeadlineText = d, r.Str("deadline_at")
			}
			cps[c.ID] = len(tl.Checkpoints)
			tl.Checkpoints = append(tl.Checkpoints, c)
		case "checkpoint_resolved":
			if k, ok := cps[r.Str("checkpoint_id")]; ok && tl.Checkpoints[k].Resolved == nil {
				t := rAt
				tl.Checkpoints[k].Resolved, tl.Checkpoints[k].ResolvedText = &t, rText
				tl.Checkpoints[k].Resolution = r.Str("resolution")
			}
		case "provisional_close_entered":
			p := ProvisionalSpan{Cycle: r.Str("cycle_id"), Entered: rAt, EnteredText: rText, Ending: "open"}
			if u, ok := instantOf(r.Str("reopen_until")); ok {
				p.ReopenUntil, p.UntilTxt = u, r.Str("reopen_until")
			}
			tl.Provisional = append(tl.Provisional, p)
		case "operation_reopened":
			tl.endWindows(r.Str("reopened_cycle_id"), "reopened", r.Str("warranty_cycle_id"), rAt, rText)
		case "terminal_accepted":
			tl.Terminal = TerminalMark{At: rAt, AtText: rText, Status: r.Str("outcome"), Business: true}
			tl.endWindows(r.Str("cycle_id"), "finalized", "", rAt, rText)
		}
	}
	// An approval that expired at its deadline has no resolution row: the
	// accepted deadline timer is what closed it.
	for _, ev := range r.events {
		if x := r.expiry; x.EventType == "" || ev.EventType != x.EventType || ev.Disposition != "accepted" {
			continue
		}
		id, _ := ev.Payload[r.expiry.CheckpointKey].(string)
		if k, ok := cps[id]; ok && tl.Checkpoints[k].Resolved == nil {
			t := at(ev.At)
			tl.Checkpoints[k].Resolved, tl.Checkpoints[k].ResolvedText, tl.Checkpoints[k].Resolution = &t, ev.At, r.expiry.Resolution
		}
	}
	if !tl.Terminal.Business {
		tl.Terminal = TerminalMark{At: ended, AtText: e.EndedAt, Status: e.Status}
	}
	for _, d := range e.Evaluation.Dimensions {
		for _, f := range d.Findings {
			if t, ok := instantOf(f.Instant()); ok {
				tl.Findings = append(tl.Findings, FindingMark{Dimension: d.Name, Code: f.Code, Detail: f.Detail, At: t, AtText: f.Instant()})
			}
		}
	}
	// The axis covers everything drawn: due times and deadlines may lie past
	// the end of an episode that stopped early.
	extend := func(t time.Time) {
		if !t.IsZero() && t.After(tl.End) {
			tl.End = t
		}
	}
	for _, w := range tl.Waits {
		extend(w.To)
		if w.Fallback != nil {
			extend(*w.Fallback)
		}
	}
	for _, o := range tl.Obligations {
		extend(o.Due)
	}
	for _, c := range tl.Checkpoints {
		extend(c.Deadline)
	}
	for _, p := range tl.Provisional {
		extend(p.ReopenUntil)
	}
	if !tl.End.After(tl.Start) {
		tl.End = tl.Start.Add(time.Hour)
	}
	return tl
}
