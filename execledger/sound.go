package execledger

import (
	"strconv"

	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes for states no scored run could be in. Each is found while
// the calls are read (or written) and refused at a scored terminal row: an
// excluded or aborted run may legitimately have stopped on exactly such a
// state (a breached reservation, an overlong answer), and says so. Each also
// matches [ErrInadmissible].
var (
	// ErrModelMismatch is returned when a scored run's answer names another
	// model (response_model) than the one the header pins.
	ErrModelMismatch = refusal.Sentinel("ledger/model-mismatch")
	// ErrOutputOverCeiling is returned when a scored run's attempt reports
	// more output tokens than controls.max_output_tokens allows.
	ErrOutputOverCeiling = refusal.Sentinel("ledger/output-over-ceiling")
	// ErrInputOverBound is returned when a scored run's attempt reports more
	// input tokens than its call's own input_token_upper_bound.
	ErrInputOverBound = refusal.Sentinel("ledger/input-over-bound")
	// ErrReservationBreached is returned when a scored run's measured cost
	// is above the reservation of the same attempt.
	ErrReservationBreached = refusal.Sentinel("ledger/reservation-breached")
	// ErrCostCapExceeded is returned when, under refuse_before_dispatch, a
	// scored run's cumulative reservations pass cost_cap_usd (a run whose
	// worst case passes its cap is refused before its first dispatch, so
	// no run it starts can reserve more).
	ErrCostCapExceeded = refusal.Sentinel("ledger/cost-cap-exceeded")
	// ErrTokenCapExceeded is returned when a scored run's cumulative token
	// exposure (each reserved attempt's input bound plus the output
	// ceiling) passes token_hard_cap.
	ErrTokenCapExceeded = refusal.Sentinel("ledger/token-cap-exceeded")
	// ErrErrorAsAnswer is returned when a scored run counts an attempt with
	// an HTTP status of 400 or more as an answer (outcome response).
	ErrErrorAsAnswer = refusal.Sentinel("ledger/error-as-answer")
	// ErrDeadlineExceeded is returned when a scored run's turn or attempt
	// latency, or a call's own span, passes turn_deadline_seconds, or the run
	// (header start to terminal end, or its turns' summed latency) passes
	// wall_clock_deadline_seconds.
	ErrDeadlineExceeded = refusal.Sentinel("ledger/deadline-exceeded")
	// ErrTimeBackwards is returned when a scored run's instants move
	// backwards: a call starting before the header's start or the previous
	// call's start, or ending before the previous call's end, or the
	// terminal ending before the header's start or the last call's end.
	ErrTimeBackwards = refusal.Sentinel("ledger/time-backwards")
	// ErrSettingsIncoherent is returned when the header's settings mapping
	// restates a header field (model, api, base_url, protocol_version,
	// request_mapping, sdk, sdk_version, max_output_tokens,
	// turn_deadline_seconds, retry.max_attempts) with another value: the
	// settings digest the binding carries would describe another request.
	ErrSettingsIncoherent = refusal.Sentinel("ledger/settings-incoherent")
)

// settingsCoherent holds every settings key that restates a header field
// to that field (absent keys are not required).
func settingsCoherent(h *Header) error {
	s := h.Provider.Settings
	p, ct := h.Provider, h.Controls
	for _, f := range []struct {
		key  string
		want any
	}{
		{"model", p.Model}, {"api", p.API}, {"base_url", p.BaseURL}, {"protocol_version", p.ProtocolVersion},
		{"request_mapping", p.RequestMapping}, {"sdk", p.SDK}, {"sdk_version", p.SDKVersion},
		{"max_output_tokens", ct.MaxOutputTokens}, {"turn_deadline_seconds", ct.TurnDeadlineSeconds},
	} {
		v, ok := s[f.key]
		if ok && !sameValue(v, f.want) {
			return refusal.New(ErrSettingsIncoherent, "header.provider.settings.%s restates the header with another value", f.key)
		}
	}
	if r, ok := s["retry"].(map[string]any); ok {
		if v, ok := r["max_attempts"]; ok && !sameValue(v, ct.MaxAttemptsPerCall) {
			return refusal.New(ErrSettingsIncoherent, "header.provider.settings.retry.max_attempts restates controls.max_attempts_per_call with another value")
		}
	}
	return nil
}

// sameValue compares two JSON scalars, numbers by value.
func sameValue(a, b any) bool {
	x, okA := seconds(a)
	y, okB := seconds(b)
	if okA && okB {
		return x == y
	}
	return a == b
}

// soundness is the part of the tally that watches for states no scored run
// could be in. It keeps O(1) state.
type soundness struct {
	bar           error // the first such state seen, refused at a scored terminal
	start, last   int64 // header start, the last call's end (seconds)
	lastStart     int64 // the last call's start
	started       bool
	tokens        int64
	reserved      Decimal
	costCap       Decimal // the header's cap, when its policy refuses before dispatch
	capped        bool
	latencySum    float64
	headerInstant bool
}

func (s *soundness) fail(class *refusal.Refusal, format string, args ...any) {
	if s.bar == nil {
		s.bar = refusal.Wrap(class, refusal.New(ErrInadmissible, "a state no scored run could be in"), format, args...)
	}
}

// seconds reads a duration field (nil, int64 or float64).
func seconds(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// watchCall records whatever in c no scored run could have produced.
func (t *tally) watchCall(c *Call) {
	s := &t.sound
	h := t.h
	ct := h.Controls
	where := "call " + strconv.Itoa(int(c.CallIndex))
	if !s.started {
		s.started = true
		if ct.CostCapPolicy == CostCapPolicy {
			s.costCap, s.capped = ParseDecimal(ct.CostCapUSD)
		}
		s.start, s.headerInstant = instant.Parse(h.StartedAt)
		s.last, s.lastStart = s.start, s.start
	}
	t0, ok0 := instant.Parse(c.StartedAt)
	t1, ok1 := instant.Parse(c.EndedAt)
	if ok0 && ok1 && s.headerInstant {
		switch {
		case t0 < s.lastStart:
			s.fail(ErrTimeBackwards, "%s: starts at %s, before the header's start or the previous call's start", where, c.StartedAt)
		case t1 < s.last:
			s.fail(ErrTimeBackwards, "%s: ends at %s, before the previous call's end", where, c.EndedAt)
		}
		s.lastStart, s.last = max(s.lastStart, t0), max(s.last, t1)
	}
	turnDeadline, hasTurn := seconds(ct.TurnDeadlineSeconds)
	if hasTurn && ok0 && ok1 && float64(t1-t0) > turnDeadline {
		s.fail(ErrDeadlineExceeded, "%s: spans %d s against a turn deadline of %v s", where, t1-t0, turnDeadline)
	}
	if l, ok := seconds(c.TurnLatencySeconds); ok {
		s.latencySum += l
		if hasTurn && l > turnDeadline {
			s.fail(ErrDeadlineExceeded, "%s: turn latency %v s against a turn deadline of %v s", where, l, turnDeadline)
		}
	}
	for _, a := range c.Attempts {
		aw := where + " attempt " + strconv.Itoa(int(a.AttemptIndex))
		if l, ok := seconds(a.LatencySeconds); ok && hasTurn && l > turnDeadline {
			s.fail(ErrDeadlineExceeded, "%s: latency %v s against a turn deadline of %v s", aw, l, turnDeadline)
		}
		if a.Outcome == OutcomeResponse {
			if a.HTTPStatus != nil && *a.HTTPStatus >= 400 {
				s.fail(ErrErrorAsAnswer, "%s: HTTP status %d counted as an answer", aw, *a.HTTPStatus)
			}
			if a.ResponseModel != nil && *a.ResponseModel != h.Provider.Model {
				s.fail(ErrModelMismatch, "%s: the answer names model %q and the header pins %q", aw, *a.ResponseModel, h.Provider.Model)
			}
		}
		if a.CostReservationUSD != nil && a.CostMeasuredUSD != nil {
			m, _ := ParseAmount(*a.CostMeasuredUSD)
			if r, _ := ParseAmount(*a.CostReservationUSD); m.Cmp(r) > 0 {
				s.fail(ErrReservationBreached, "%s: measured %s USD against a reservation of %s USD", aw, *a.CostMeasuredUSD, *a.CostReservationUSD)
			}
		}
		if a.OutputTokens != nil && *a.OutputTokens > ct.MaxOutputTokens {
			s.fail(ErrOutputOverCeiling, "%s: %d output tokens against a ceiling of %d", aw, *a.OutputTokens, ct.MaxOutputTokens)
		}
		if a.InputTokens != nil && *a.InputTokens > c.InputTokenUpperBound {
			s.fail(ErrInputOverBound, "%s: %d input tokens against the call's bound of %d", aw, *a.InputTokens, c.InputTokenUpperBound)
		}
		if a.CostReservationUSD == nil {
			continue
		}
		s.tokens += c.InputTokenUpperBound + ct.MaxOutputTokens
		if s.tokens > ct.TokenHardCap {
			s.fail(ErrTokenCapExceeded, "%s: cumulative token exposure %d passes the token cap of %d", aw, s.tokens, ct.TokenHardCap)
		}
		s.reserved = plus(s.reserved, a.CostReservationUSD)
		if s.capped && s.reserved.Cmp(s.costCap) > 0 {
			s.fail(ErrCostCapExceeded, "%s: cumulative reservations of %s USD pass the cost cap of %s USD", aw, s.reserved, ct.CostCapUSD)
		}
	}
}

// soundTerminal is the scored terminal's own check: the first state no
// scored run could be in, then the terminal's instant and the run's span.
func (t *tally) soundTerminal(endedAt string) error {
	s := &t.sound
	if s.bar != nil {
		return s.bar
	}
	end, ok := instant.Parse(endedAt)
	start, okh := instant.Parse(t.h.StartedAt)
	if !ok || !okh {
		return nil
	}
	if end < start || s.started && end < s.last {
		s.fail(ErrTimeBackwards, "terminal: ends at %s, before the header's start or the last call's end", endedAt)
		return s.bar
	}
	if wall, ok := seconds(t.h.Controls.WallClockDeadlineSeconds); ok {
		if float64(end-start) > wall {
			s.fail(ErrDeadlineExceeded, "terminal: the run spans %d s against a wall-clock deadline of %v s", end-start, wall)
		} else if s.latencySum > wall {
			s.fail(ErrDeadlineExceeded, "terminal: the turns' latencies sum to %v s against a wall-clock deadline of %v s", s.latencySum, wall)
		}
	}
	return s.bar
}
