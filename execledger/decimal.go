package execledger

import (
	"math/big"
	"strings"
)

// Exact decimal arithmetic for USD amounts, as upstream's Python Decimal does
// it: a coefficient and a power of ten, every product and sum rounded to
// [Precision] significant digits, half to even. Amounts are never floats.

// Precision is the number of significant digits every derived amount is
// computed to (upstream LEDGER_PRICING_PRECISION).
const Precision = 60

// TokensPerRateUnit is the divisor that turns tokens × USD-per-million-tokens
// into USD (upstream TOKENS_PER_RATE_UNIT).
const TokensPerRateUnit = 1_000_000

// maxExponent bounds the exponent a rate string may state, so "1e999999999"
// cannot make the arithmetic allocate without bound.
const maxExponent = 1000

// Decimal is an exact decimal number coef × 10^exp.
type Decimal struct {
	coef *big.Int
	exp  int
}

var (
	bigTen    = big.NewInt(10)
	limit60   = new(big.Int).Exp(bigTen, big.NewInt(Precision), nil)
	bigZeroOK = big.NewInt(0)
)

// DecimalFromInt returns n as a Decimal.
func DecimalFromInt(n int64) Decimal { return Decimal{coef: big.NewInt(n)} }

// IsZero reports whether d is zero.
func (d Decimal) IsZero() bool { return d.coef == nil || d.coef.Sign() == 0 }

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	if d.coef == nil {
		return 0
	}
	return d.coef.Sign()
}

func (d Decimal) c() *big.Int {
	if d.coef == nil {
		return bigZeroOK
	}
	return d.coef
}

// parseDecimal reads a plain decimal string: optional '+', digits with an
// optional fraction (".5" and "5." are read as Python's Decimal reads them),
// optional exponent. No sign other than '+', no whitespace, no underscores,
// no NaN or Infinity. ok is false for anything else.
func parseDecimal(s string) (Decimal, bool) {
	if s == "" {
		return Decimal{}, false
	}
	i := 0
	if s[0] == '+' {
		i++
	}
	var digits strings.Builder
	intDigits, fracDigits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		digits.WriteByte(s[i])
		i++
		intDigits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			digits.WriteByte(s[i])
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 || intDigits+fracDigits > 4*Precision {
		return Decimal{}, false
	}
	exp := -fracDigits
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			neg = s[i] == '-'
			i++
		}
		n, start := 0, i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			n = n*10 + int(s[i]-'0')
			i++
			if n > maxExponent {
				return Decimal{}, false
			}
		}
		if i == start {
			return Decimal{}, false
		}
		if neg {
			n = -n
		}
		exp += n
	}
	if i != len(s) {
		return Decimal{}, false
	}
	c, ok := new(big.Int).SetString(digits.String(), 10)
	if !ok {
		return Decimal{}, false
	}
	return Decimal{coef: c, exp: exp}, true
}

// ParseAmount reads a stored amount: a string in the one canonical rendering
// (see [Decimal.String]), finite and not negative. "0.50", "+1", "5E-2", "-0"
// and " 1" are not canonical and are refused.
func ParseAmount(s string) (Decimal, bool) {
	if !canonicalAmountText(s) {
		return Decimal{}, false
	}
	return parseDecimal(s)
}

// canonicalAmountText matches ^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$.
func canonicalAmountText(s string) bool {
	if s == "" || len(s) > 4*Precision {
		return false
	}
	i := 0
	if s[0] == '0' {
		i = 1
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return false
		}
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' || i+1 == len(s) || s[len(s)-1] == '0' {
		return false
	}
	for _, c := range []byte(s[i+1:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// round returns d rounded to Precision significant digits, half to even.
func (d Decimal) round() Decimal {
	c := d.c()
	a := new(big.Int).Abs(c)
	if a.Cmp(limit60) < 0 {
		return d
	}
	// number of digits beyond Precision
	drop := len(a.String()) - Precision
	p := new(big.Int).Exp(bigTen, big.NewInt(int64(drop)), nil)
	q, r := new(big.Int).QuoRem(a, p, new(big.Int))
	twice := new(big.Int).Lsh(r, 1)
	switch twice.Cmp(p) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	if c.Sign() < 0 {
		q.Neg(q)
	}
	return Decimal{coef: q, exp: d.exp + drop}.round() // a carry can add a digit
}

// smallPow10 holds 10^0 … 10^63, shared and never modified.
var smallPow10 = func() (t [64]*big.Int) {
	for i := range t {
		t[i] = new(big.Int).Exp(bigTen, big.NewInt(int64(i)), nil)
	}
	return t
}()

// pow10 returns 10^n (n ≥ 0); the result must not be modified.
func pow10(n int) *big.Int {
	if n < len(smallPow10) {
		return smallPow10[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// Mul returns d×e rounded to Precision digits.
func (d Decimal) Mul(e Decimal) Decimal {
	return Decimal{coef: new(big.Int).Mul(d.c(), e.c()), exp: d.exp + e.exp}.round()
}

// Add returns d+e rounded to Precision digits.
func (d Decimal) Add(e Decimal) Decimal {
	a, b := d.c(), e.c()
	exp := d.exp
	switch {
	case d.exp > e.exp:
		a = new(big.Int).Mul(a, pow10(d.exp-e.exp))
		exp = e.exp
	case e.exp > d.exp:
		b = new(big.Int).Mul(b, pow10(e.exp-d.exp))
	}
	return Decimal{coef: new(big.Int).Add(a, b), exp: exp}.round()
}

// shift returns d × 10^n, exactly.
func (d Decimal) shift(n int) Decimal { return Decimal{coef: d.c(), exp: d.exp + n} }

// Cmp compares d and e exactly.
func (d Decimal) Cmp(e Decimal) int {
	return d.Add(e.neg()).Sign()
}

func (d Decimal) neg() Decimal { return Decimal{coef: new(big.Int).Neg(d.c()), exp: d.exp} }

// String renders d in the one canonical amount form (upstream usd_text):
// positional, no exponent, trailing fractional zeros and a trailing point
// removed, "0" for zero.
func (d Decimal) String() string {
	c := d.c()
	neg := c.Sign() < 0
	digits := new(big.Int).Abs(c).String()
	var s string
	switch {
	case d.exp >= 0:
		if digits == "0" {
			s = "0"
		} else {
			s = digits + strings.Repeat("0", d.exp)
		}
	default:
		n := -d.exp
		if len(digits) <= n {
			digits = strings.Repeat("0", n-len(digits)+1) + digits
		}
		s = digits[:len(digits)-n] + "." + digits[len(digits)-n:]
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
		if s == "" {
			s = "0"
		}
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

// Rates are a pricing policy's pinned per-million-token USD rates.
type Rates struct {
	In, Out Decimal
}

// Reservation is the amount authorised before dispatching a request whose
// input is bounded by bound tokens with an output ceiling of ceiling tokens:
// (bound×in + ceiling×out) / 1,000,000.
func (r Rates) Reservation(bound, ceiling int64) Decimal {
	return DecimalFromInt(bound).Mul(r.In).Add(DecimalFromInt(ceiling).Mul(r.Out)).shift(-6).round()
}

// Measured is the cost of the reported counts at the same rates.
func (r Rates) Measured(in, out int64) Decimal {
	return r.Reservation(in, out)
}

// ParseDecimal reads an operator-stated decimal (a rate or a cap): optional
// '+', digits with an optional fraction, optional exponent (|e| ≤ 1000); no
// whitespace, underscores, NaN or Infinity. It need not be canonical.
func ParseDecimal(s string) (Decimal, bool) { return parseDecimal(s) }
