package notime

import (
	"regexp"
	"sync"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
)

// The runtime's own arm-neutral entry rule, used for the running common
// evidence that activation identities are derived from. The verifier
// implements the same published rule separately (arm/notimeverify).

var instantLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z|notime:v1)$`)
})

var commonKinds = map[string]string{
	"event_observed": "event", "event_audit_only": "event", "event_rejected": "event", "event_after_terminal": "event",
	"action_proposed": "proposal", "action_rejected": "proposal_rejected", "effect_accepted": "effect",
	"terminal_proposed": "terminal_proposal", "terminal_rejected": "terminal_rejected", "terminal_accepted": "terminal",
	"provisional_close_entered": "provisional_close", "operation_reopened": "reopen",
	"obligation_created": "obligation", "obligation_discharged": "obligation", "obligation_cancelled": "obligation", "obligation_breached": "obligation",
	"checkpoint_opened": "checkpoint", "checkpoint_resolved": "checkpoint", "checkpoint_rejected": "checkpoint",
	"side_effect": "side_effect", "side_effect_failed": "side_effect", "critical_violation": "critical",
	"retrieval_served": "read",
}

var dropped = map[string]bool{"index": true, "transition": true, "at": true, "detail": true, "record_version": true,
	"as_of": true, "observational": true, "reason": true, "due_at": true}

func normalise(v any) any {
	return canon.MapLeaves(v, func(leaf any) any {
		if x, ok := leaf.(string); ok && instantLike().MatchString(x) {
			return "<time>"
		}
		return leaf
	})
}

func commonEntry(row map[string]any) *notimewire.EntryV1 {
	rt, _ := row["record_type"].(string)
	kind, ok := commonKinds[rt]
	if !ok {
		return nil
	}
	f := map[string]any{"record_type": rt}
	for k, v := range row {
		if dropped[k] || k == "record_type" {
			continue
		}
		if rt == "action_proposed" && k == "payload" {
			if p, ok := v.(map[string]any); ok {
				c := make(map[string]any, len(p))
				for pk, pv := range p {
					if pk == "deadline_after_minutes" {
						pv = int64(1)
					}
					c[pk] = pv
				}
				v = c
			}
		}
		f[k] = normalise(v)
	}
	delete(f, "disposition") // carried by record_type
	return &notimewire.EntryV1{Kind: kind, Fields: f}
}
