package execledger

import (
	"maps"
	"slices"
	"strconv"

	"github.com/obaudit/obaudit/refusal"
)

// tally is the cross-row state both the writer (before appending) and the
// reader (independently) hold: it judges admissibility and re-derives every
// amount and total. It keeps O(1) state per journal, never the calls.
type tally struct {
	h                         *parsedHeader
	calls, attempts, in, out  int64
	measured, forfeit, reserv Decimal
	faults                    map[string]int64
	prevInv, prevTurn         int64
	anyFault                  bool // an attempt faulted or was unclassified
	allDecided                bool
	anyEarly                  bool
	// memo of the last derived amounts (calls repeat bounds and counts)
	memoBound, memoIn, memoOut int64
	memoReserve, memoMeasured  string
	sound                      soundness
}

func newTally(h *parsedHeader) *tally {
	return &tally{h: h, faults: map[string]int64{}, allDecided: true} // a zero Decimal is 0
}

// admitCall checks a call against the header and the calls before it
// (upstream check_call_admissible, then the amounts of §5.6).
func (t *tally) admitCall(c *Call) error {
	ct := t.h.Controls
	where := "call " + strconv.Itoa(int(c.CallIndex))
	if c.CallIndex >= ct.MaxProviderCalls {
		return refusal.New(ErrInadmissible, "%s: the run was authorised for %d provider calls", where, ct.MaxProviderCalls)
	}
	if int64(len(c.Attempts)) > ct.MaxAttemptsPerCall {
		return refusal.New(ErrInadmissible, "%s: %d attempts where the retry policy allows %d", where, len(c.Attempts), ct.MaxAttemptsPerCall)
	}
	if c.TerminalReason != nil && *c.TerminalReason == TurnRetriesExhausted && int64(len(c.Attempts)) != ct.MaxAttemptsPerCall {
		return refusal.New(ErrInadmissible, "%s: retries_exhausted before the last attempt the policy allows", where)
	}
	if t.calls > 0 && (c.InvocationIndex < t.prevInv || (c.InvocationIndex == t.prevInv && c.TurnIndex <= t.prevTurn)) {
		return refusal.New(ErrInadmissible, "%s: (invocation_index, turn_index) does not strictly advance; a repeated or re-ordered turn", where)
	}
	if t.memoReserve == "" || t.memoBound != c.InputTokenUpperBound {
		t.memoBound, t.memoReserve = c.InputTokenUpperBound, t.h.rates.Reservation(c.InputTokenUpperBound, ct.MaxOutputTokens).String()
	}
	want := t.memoReserve
	for _, a := range c.Attempts {
		aw := where + " attempt " + strconv.Itoa(int(a.AttemptIndex))
		if a.CostReservationUSD != nil && *a.CostReservationUSD != want {
			return refusal.New(ErrArithmetic, "%s: the reservation is not the call's input bound and the run's output ceiling at the pinned rates", aw)
		}
		if a.CostMeasuredUSD != nil {
			if a.InputTokens == nil || a.OutputTokens == nil {
				return refusal.New(ErrArithmetic, "%s: a measured cost with no reported counts", aw)
			}
			if t.memoMeasured == "" || t.memoIn != *a.InputTokens || t.memoOut != *a.OutputTokens {
				t.memoIn, t.memoOut = *a.InputTokens, *a.OutputTokens
				t.memoMeasured = t.h.rates.Measured(t.memoIn, t.memoOut).String()
			}
			if *a.CostMeasuredUSD != t.memoMeasured {
				return refusal.New(ErrArithmetic, "%s: the measured cost is not the reported counts at the pinned rates", aw)
			}
		}
		if a.CostForfeitedUSD != nil && (a.CostReservationUSD == nil || *a.CostForfeitedUSD != *a.CostReservationUSD) {
			return refusal.New(ErrArithmetic, "%s: a forfeited amount is the whole reservation", aw)
		}
	}
	return nil
}

// addCall folds an admitted call into the running totals.
func (t *tally) addCall(c *Call) {
	t.watchCall(c)
	t.calls++
	t.prevInv, t.prevTurn = c.InvocationIndex, c.TurnIndex
	for _, a := range c.Attempts {
		t.attempts++
		if a.InputTokens != nil {
			t.in += *a.InputTokens
		}
		if a.OutputTokens != nil {
			t.out += *a.OutputTokens
		}
		t.measured = plus(t.measured, a.CostMeasuredUSD)
		t.forfeit = plus(t.forfeit, a.CostForfeitedUSD)
		t.reserv = plus(t.reserv, a.CostReservationUSD)
		if a.Fault != nil {
			t.faults[*a.Fault]++
		}
		if a.Fault != nil || a.Outcome == OutcomeUnclassified {
			t.anyFault = true
		}
	}
	if c.Decision == nil {
		t.allDecided = false
	}
	if c.TerminalReason != nil && slices.Contains(earlyTurnReasons, *c.TerminalReason) {
		t.anyEarly = true
	}
}

// plus is sum and the stored amount s, when s is stated.
func plus(sum Decimal, s *string) Decimal {
	if s == nil {
		return sum
	}
	d, _ := ParseAmount(*s)
	return sum.Add(d)
}

// totals returns the totals derived from the calls so far.
func (t *tally) totals() Totals {
	return Totals{
		ProviderCalls: t.calls, Attempts: t.attempts, InputTokens: t.in, OutputTokens: t.out,
		MeasuredCostUSD: t.measured.String(), ForfeitedReservationUSD: t.forfeit.String(),
		ReservedUSD: t.reserv.String(), FaultCounts: maps.Clone(t.faults),
	}
}

// admitTerminal is upstream check_terminal_admissible.
func (t *tally) admitTerminal(kind, endedAt string, code *string) error {
	switch kind {
	case TerminalScored:
		if err := t.soundTerminal(endedAt); err != nil {
			return err
		}
		if t.anyFault {
			return refusal.New(ErrInadmissible, "terminal: a scored run over a call that faulted or ended unclassified")
		}
		if !t.allDecided {
			return refusal.New(ErrInadmissible, "terminal: a scored run over a call that produced no decision")
		}
	case TerminalExcluded:
		if code == nil || *code == AbortedCode {
			return refusal.New(ErrInadmissible, "terminal: an excluded run names a provider-boundary code, not %s", AbortedCode)
		}
		if !(slices.Contains(controlExclusions, *code) || t.calls == 0 || t.anyFault || t.anyEarly) {
			return refusal.New(ErrInadmissible, "terminal: an exclusion code with nothing behind it names a stop nothing in this journal witnessed")
		}
	}
	return nil
}

func totalsEqual(a, b Totals) bool {
	return a.ProviderCalls == b.ProviderCalls && a.Attempts == b.Attempts &&
		a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens &&
		a.MeasuredCostUSD == b.MeasuredCostUSD && a.ForfeitedReservationUSD == b.ForfeitedReservationUSD &&
		a.ReservedUSD == b.ReservedUSD && maps.Equal(a.FaultCounts, b.FaultCounts)
}
