package execledger

import "github.com/obaudit/obaudit/internal/amount"

// USD amounts are exact decimals (internal/amount), never floats.

// Decimal is an exact decimal amount.
type Decimal = amount.Decimal

// DecimalFromInt returns n as a Decimal.
func DecimalFromInt(n int64) Decimal { return amount.FromInt(n) }

// ParseAmount reads a stored amount (amount.ParseCanonical): the one
// canonical rendering of a finite, non-negative decimal.
func ParseAmount(s string) (Decimal, bool) { return amount.ParseCanonical(s) }

// ParseDecimal reads an operator-stated decimal, a rate or a cap
// (amount.Parse); it need not be canonical.
func ParseDecimal(s string) (Decimal, bool) { return amount.Parse(s) }

// Rates are a pricing policy's pinned per-million-token USD rates.
type Rates struct {
	In, Out Decimal
}

// Reservation is the amount authorised before dispatching a request whose
// input is bounded by bound tokens with an output ceiling of ceiling tokens:
// (bound×in + ceiling×out) / 1,000,000.
func (r Rates) Reservation(bound, ceiling int64) Decimal {
	return DecimalFromInt(bound).Mul(r.In).Add(DecimalFromInt(ceiling).Mul(r.Out)).Shift(-6).Round()
}

// Measured is the cost of the reported counts at the same rates.
func (r Rates) Measured(in, out int64) Decimal {
	return r.Reservation(in, out)
}
