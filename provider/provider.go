// Package provider holds the bounds and the cost guard that stand between a
// model-backed run and a provider: the build's fixed call and token
// ceilings, the up-front worst-case checks the offline preflight makes
// before anything is constructed, and the guard that reserves each call's
// worst case before dispatch and settles or forfeits it after.
//
// The bounds are fixed by the build, not by a command line: at most
// [MaxProviderCalls] calls (the reference scenario needs
// [ExpectedProviderCalls]) and [TokenHardCap] tokens — those calls at the
// largest request this scaffold has been measured to produce
// ([LargestRequestTokenBound]) plus the whole output ceiling
// ([MaxOutputTokens]). Moving either is a code change.
//
// The package reads no environment itself: [RefuseLiveEnvironment] is
// handed a lookup function by cmd/.
//
// # Refusals
//
// [ErrCallBound], [ErrTokenExposure], [ErrCostExposure] and
// [ErrLiveEnvironment] are the preflight's up-front refusals;
// [ErrCostCapExceeded], [ErrTokenCapExceeded] (which also matches
// [ErrCostCapExceeded]) and [ErrReservationBreached] are the guard's.
package provider

import (
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/refusal"
)

// Bounds fixed by the build (upstream preflight constants).
const (
	MaxProviderCalls         = 60
	ExpectedProviderCalls    = 46
	LargestRequestTokenBound = 23_409
	MaxOutputTokens          = 4096
	TokenHardCap             = MaxProviderCalls * (LargestRequestTokenBound + MaxOutputTokens) // 1,650,300
	// RequestOverheadTokenAllowance is added to a payload's canonical byte
	// length to bound a request's input tokens.
	RequestOverheadTokenAllowance = 1024
)

// Refusal classes.
var (
	// ErrCallBound is returned when a requested number of provider calls is
	// not between 1 and MaxProviderCalls.
	ErrCallBound = refusal.Sentinel("preflight/call-bound")
	// ErrTokenExposure is returned when the worst-case token exposure of a
	// run (calls × (largest request + output ceiling)) passes the cap.
	ErrTokenExposure = refusal.Sentinel("preflight/token-exposure")
	// ErrCostExposure is returned when the worst-case cost of a run at the
	// stated rates passes the cost cap, before anything is dispatched.
	ErrCostExposure = refusal.Sentinel("preflight/cost-exposure")
	// ErrLiveEnvironment is returned when an environment variable that would
	// point a client at a real service (or hand it a credential) is set.
	ErrLiveEnvironment = refusal.Sentinel("preflight/live-environment")
	// ErrCostCapExceeded is returned by [Guard.Authorize] when measured +
	// forfeited + outstanding + this reservation would pass the cost cap;
	// the request is not dispatched.
	ErrCostCapExceeded = refusal.Sentinel("provider/cost-cap-exceeded")
	// ErrTokenCapExceeded is returned by [Guard.Authorize] when the
	// cumulative token exposure would pass the token cap; it also matches
	// [ErrCostCapExceeded] (upstream's subclass), so the run is excluded as a
	// budget stop with nothing on the wire.
	ErrTokenCapExceeded = refusal.Sentinel("provider/token-cap-exceeded")
	// ErrReservationBreached is returned by [Guard.Settle] when a measured
	// cost exceeds its reservation (the measured amount is banked first).
	ErrReservationBreached = refusal.Sentinel("provider/reservation-breached")
)

// TokenWorstCase is n calls at the largest request plus the output ceiling.
func TokenWorstCase(n int64) int64 { return n * (LargestRequestTokenBound + MaxOutputTokens) }

// CheckMaxCalls accepts 1 ≤ n ≤ MaxProviderCalls; fewer are always allowed.
func CheckMaxCalls(n int64) error {
	if n < 1 || n > MaxProviderCalls {
		return refusal.New(ErrCallBound, "%d provider calls: this build allows 1 to %d, fixed by the build", n, MaxProviderCalls)
	}
	return nil
}

// CheckTokenExposure refuses a run whose worst-case exposure passes cap.
func CheckTokenExposure(maxCalls, cap int64) error {
	if w := TokenWorstCase(maxCalls); w > cap {
		return refusal.New(ErrTokenExposure, "%d calls expose %d tokens in the worst case, more than the ceiling of %d", maxCalls, w, cap)
	}
	return nil
}

// WorstCaseUSD is n calls at the largest request plus the output ceiling,
// at the stated rates.
func WorstCaseUSD(n int64, rates execledger.Rates) execledger.Decimal {
	return rates.Reservation(LargestRequestTokenBound, MaxOutputTokens).Mul(execledger.DecimalFromInt(n))
}

// CheckWorstCase refuses a run whose worst case passes the cost cap.
func CheckWorstCase(n int64, rates execledger.Rates, cap execledger.Decimal) error {
	if w := WorstCaseUSD(n, rates); w.Cmp(cap) > 0 {
		return refusal.New(ErrCostExposure, "the worst case of %d calls is %s USD, more than the cap of %s", n, w, cap)
	}
	return nil
}

// LiveVariables are the environment variables that would point a client
// of one of this build's lanes at a real service or hand it a credential
// (the vendors' documented ones).
var LiveVariables = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "MISTRAL_API_KEY",
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "XAI_API_KEY",
}

// RefuseLiveEnvironment refuses when any of [LiveVariables] is set to a
// non-empty value (lookup is os.LookupEnv, passed in by cmd). The values are
// never read into the refusal. It returns the names it checked.
func RefuseLiveEnvironment(lookup func(string) (string, bool)) ([]string, error) {
	var set []string
	for _, n := range LiveVariables {
		if v, ok := lookup(n); ok && v != "" {
			set = append(set, n)
		}
	}
	slices.Sort(set)
	if len(set) > 0 {
		return slices.Clone(LiveVariables), refusal.New(ErrLiveEnvironment, "refusing to start beside %s: the preflight reads no credential and makes no live call", strings.Join(set, ", "))
	}
	return slices.Clone(LiveVariables), nil
}

// Reservation is one authorised, not yet settled, call.
type Reservation struct {
	Amount execledger.Decimal
	Tokens int64
	id     int
}

// Guard reserves each call's worst case before dispatch (token exposure
// checked before cost), and settles it as measured (from reported counts)
// or forfeits it whole. Token reservations are cumulative and are released
// only by [Guard.Cancel] (a request proven never dispatched). It is safe for
// concurrent use.
type Guard struct {
	mu                               sync.Mutex
	cap                              execledger.Decimal
	rates                            execledger.Rates
	ceiling, tokenCap                int64
	measured, forfeited, outstanding execledger.Decimal
	reservedTokens                   int64
	next                             int
	open                             map[int]Reservation
}

// NewGuard returns a guard for a positive cost cap, a positive output
// ceiling and a positive token cap (0 means no token cap).
func NewGuard(cap execledger.Decimal, rates execledger.Rates, maxOutputTokens, tokenCap int64) (*Guard, error) {
	if cap.Sign() <= 0 {
		return nil, refusal.New(ErrCostExposure, "a cost cap of zero authorises nothing")
	}
	if maxOutputTokens <= 0 || tokenCap < 0 {
		return nil, refusal.New(ErrTokenExposure, "the output ceiling and token cap are positive")
	}
	z := execledger.DecimalFromInt(0)
	return &Guard{cap: cap, rates: rates, ceiling: maxOutputTokens, tokenCap: tokenCap,
		measured: z, forfeited: z, outstanding: z, open: map[int]Reservation{}}, nil
}

// Authorize reserves a request bounded by bound input tokens.
func (g *Guard) Authorize(bound int64) (Reservation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	exposure := bound + g.ceiling
	if g.tokenCap > 0 && g.reservedTokens+exposure > g.tokenCap {
		return Reservation{}, refusal.Wrap(ErrTokenCapExceeded, refusal.New(ErrCostCapExceeded, "token ceiling"),
			"reserving %d more tokens would pass the ceiling of %d (%d reserved)", exposure, g.tokenCap, g.reservedTokens)
	}
	amount := g.rates.Reservation(bound, g.ceiling)
	if g.measured.Add(g.forfeited).Add(g.outstanding).Add(amount).Cmp(g.cap) > 0 {
		return Reservation{}, refusal.New(ErrCostCapExceeded, "reserving %s USD would pass the cap of %s USD", amount, g.cap)
	}
	g.reservedTokens += exposure
	g.outstanding = g.outstanding.Add(amount)
	g.next++
	r := Reservation{Amount: amount, Tokens: exposure, id: g.next}
	g.open[r.id] = r
	return r, nil
}

func (g *Guard) close(r Reservation) bool {
	if _, ok := g.open[r.id]; !ok {
		return false
	}
	delete(g.open, r.id)
	g.outstanding = g.outstanding.Add(r.Amount.Mul(execledger.DecimalFromInt(-1)))
	return true
}

// Settle moves a reservation to measured, priced from the reported counts.
func (g *Guard) Settle(r Reservation, inTokens, outTokens int64) (execledger.Decimal, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.close(r) {
		return execledger.Decimal{}, refusal.New(ErrCostCapExceeded, "settling a reservation this guard does not hold")
	}
	m := g.rates.Measured(inTokens, outTokens)
	g.measured = g.measured.Add(m)
	if m.Cmp(r.Amount) > 0 {
		return m, refusal.New(ErrReservationBreached, "measured %s USD against a reservation of %s", m, r.Amount)
	}
	return m, nil
}

// Forfeit moves a reservation whose cost is unknown to forfeited, whole.
func (g *Guard) Forfeit(r Reservation) execledger.Decimal {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.close(r) {
		g.forfeited = g.forfeited.Add(r.Amount)
	}
	return r.Amount
}

// Cancel releases a reservation proven never dispatched (its tokens too).
func (g *Guard) Cancel(r Reservation) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.close(r) {
		g.reservedTokens -= r.Tokens
	}
}

// ReservedTokens is the cumulative token exposure reserved.
func (g *Guard) ReservedTokens() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reservedTokens
}

// Totals returns measured, forfeited and outstanding amounts (never summed).
func (g *Guard) Totals() (measured, forfeited, outstanding execledger.Decimal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.measured, g.forfeited, g.outstanding
}
