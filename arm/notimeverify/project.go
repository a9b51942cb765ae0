package notimeverify

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
)

// The verifier's arm-neutral projection (ArmNeutralEvidenceProjectionV1):
// common business rows only, every instant (Full RFC 3339 or the No-Time
// anchor) replaced by "<time>", every positive deadline_after_minutes by 1,
// free-text details, reasons, record versions and as_of dropped.

var entryKind = map[string]string{
	"event_observed": "event", "event_audit_only": "event", "event_rejected": "event", "event_after_terminal": "event",
	"action_proposed": "proposal", "action_rejected": "proposal_rejected", "effect_accepted": "effect",
	"terminal_proposed": "terminal_proposal", "terminal_rejected": "terminal_rejected", "terminal_accepted": "terminal",
	"provisional_close_entered": "provisional_close", "operation_reopened": "reopen",
	"obligation_created": "obligation", "obligation_discharged": "obligation", "obligation_cancelled": "obligation",
	"obligation_breached": "obligation", "checkpoint_opened": "checkpoint", "checkpoint_resolved": "checkpoint",
	"checkpoint_rejected": "checkpoint", "side_effect": "side_effect", "side_effect_failed": "side_effect",
	"critical_violation": "critical", "retrieval_served": "read",
}

var skipField = map[string]bool{"index": true, "transition": true, "at": true, "detail": true, "record_version": true,
	"as_of": true, "observational": true, "reason": true, "due_at": true, "disposition": true, "record_type": true}

var anyInstant = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z|notime:v1)$`)
})

func strip(v any) any {
	return canon.MapLeaves(v, func(leaf any) any {
		if x, ok := leaf.(string); ok && anyInstant().MatchString(x) {
			return "<time>"
		}
		return leaf
	})
}

func entry(r map[string]any) (notimewire.EntryV1, bool) {
	rt, _ := r["record_type"].(string)
	k, ok := entryKind[rt]
	if !ok {
		return notimewire.EntryV1{}, false
	}
	f := map[string]any{"record_type": rt}
	for name, v := range r {
		if skipField[name] {
			continue
		}
		if rt == "action_proposed" && name == "payload" {
			if p, ok := v.(map[string]any); ok {
				q := map[string]any{}
				for pk, pv := range p {
					if n, isInt := pv.(int64); pk == "deadline_after_minutes" && isInt && n > 0 {
						pv = int64(1)
					}
					q[pk] = pv
				}
				v = q
			}
		}
		f[name] = strip(v)
	}
	return notimewire.EntryV1{Kind: k, Fields: f}, true
}

// ProjectFull projects a Full trajectory: the row of a Full timer event
// (an event no plan authored) is a removed mechanism; the business rows its
// reduction wrote stay, so the finalization's terminal row lines up with
// the No-Time finality_cut's.
func ProjectFull(rows []map[string]any, authored map[string]bool, terminal any, final bool) *notimewire.ProjectionV1 {
	p := &notimewire.ProjectionV1{Entries: []notimewire.EntryV1{}, Integrity: "ok", TerminalOutcome: terminal, ReplayFinal: final}
	for _, r := range rows {
		if rt, _ := r["record_type"].(string); entryKind[rt] == "event" {
			if id, _ := r["event_id"].(string); !authored[id] {
				continue
			}
		}
		if e, ok := entry(r); ok {
			p.Entries = append(p.Entries, e)
		}
	}
	return p
}

// ProjectNoTime projects a No-Time run record.
func ProjectNoTime(nt *notimewire.RunV1) *notimewire.ProjectionV1 {
	p := &notimewire.ProjectionV1{Entries: []notimewire.EntryV1{}, Integrity: "ok", TerminalOutcome: nt.TerminalOutcome, ReplayFinal: nt.ReplayFinal}
	if nt.Halt == notimewire.HaltError || nt.Halt == notimewire.HaltHorizon {
		p.Integrity = nt.Halt + ":" + nt.HaltCode
	}
	for _, r := range nt.Trajectory {
		if e, ok := entry(r); ok {
			p.Entries = append(p.Entries, e)
		}
	}
	return p
}

func projectionDigest(p *notimewire.ProjectionV1) (string, error) {
	entries := make([]any, len(p.Entries))
	for i, e := range p.Entries {
		entries[i] = map[string]any{"kind": e.Kind, "fields": e.Fields}
	}
	return canon.Digest(map[string]any{"entries": entries, "integrity_status": p.Integrity,
		"terminal_outcome": p.TerminalOutcome, "replay_final": p.ReplayFinal})
}

func firstDifference(a, b *notimewire.ProjectionV1) string {
	n := min(len(a.Entries), len(b.Entries))
	for i := 0; i < n; i++ {
		x, _ := canon.JCS(map[string]any{"kind": a.Entries[i].Kind, "fields": a.Entries[i].Fields})
		y, _ := canon.JCS(map[string]any{"kind": b.Entries[i].Kind, "fields": b.Entries[i].Fields})
		if string(x) != string(y) {
			return fmt.Sprintf("entry %d: Full %s, No-Time %s", i, x, y)
		}
	}
	if len(a.Entries) != len(b.Entries) {
		return fmt.Sprintf("Full has %d entries, No-Time %d", len(a.Entries), len(b.Entries))
	}
	return fmt.Sprintf("terminal facts or integrity: Full %v/%v/%s, No-Time %v/%v/%s", a.TerminalOutcome, a.ReplayFinal, a.Integrity, b.TerminalOutcome, b.ReplayFinal, b.Integrity)
}
