// Package amount is the one exact-decimal USD amount of obaudit's formats,
// computed like upstream's Python Decimal: a coefficient and a power of
// ten, every product and sum rounded to [Precision] significant digits,
// half to even, rendered in upstream's one form (usd_text). Amounts are
// never floats. It imports only the standard library; the differential
// test holds it to vectors CPython's decimal module generates
// (testdata/gen_vectors.py, its output testdata/vectors.tsv).
package amount

import (
	"math/big"
	"strings"
)

// Precision is the number of significant digits every derived amount is
// computed to (upstream LEDGER_PRICING_PRECISION).
const Precision = 60

// MaxDigits bounds the digits [Parse] reads and MaxExponent the exponent it
// reads, so that "1e999999999" or a megabyte of digits cannot make the
// arithmetic allocate without bound.
const (
	MaxDigits   = 4 * Precision
	MaxExponent = 1000
)

// Decimal is an exact decimal number coef × 10^exp. The zero value is 0.
// Decimals are never modified in place.
type Decimal struct {
	coef *big.Int
	exp  int
}

// FromInt returns n as a Decimal.
func FromInt(n int64) Decimal { return Decimal{coef: big.NewInt(n)} }

// IsZero reports whether d is zero.
func (d Decimal) IsZero() bool { return d.Sign() == 0 }

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int { return d.c().Sign() }

func (d Decimal) c() *big.Int {
	if d.coef == nil {
		return new(big.Int)
	}
	return d.coef
}

// Parse reads an operator-stated decimal (a rate or a cap): optional '+',
// ASCII digits with an optional fraction (".5" and "5." read as Python's
// Decimal reads them), optional exponent (|e| ≤ MaxExponent), at most
// MaxDigits digits. It is stricter than Python's Decimal, on purpose: no
// '-' (no operator amount is negative), no whitespace, underscores,
// non-ASCII digits, NaN or Infinity. ok is false for anything else.
func Parse(s string) (Decimal, bool) {
	i := 0
	if i < len(s) && s[i] == '+' {
		i++
	}
	var digits []byte
	intDigits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		digits = append(digits, s[i])
		i++
		intDigits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			digits = append(digits, s[i])
			i++
		}
	}
	if len(digits) == 0 || len(digits) > MaxDigits {
		return Decimal{}, false
	}
	exp := -(len(digits) - intDigits)
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
			if n > MaxExponent {
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
	c, _ := new(big.Int).SetString(string(digits), 10)
	return Decimal{coef: c, exp: exp}, true
}

// Canonical reports whether s is a stored amount: the canonical rendering
// ([Decimal.String]) of a finite, non-negative decimal, that is
// ^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$. "0.50", "+1", "5E-2", " 1" are not.
// Upstream also accepts "-0" (it parses, is not below zero and renders as
// itself); obaudit refuses it, as no writer emits it.
func Canonical(s string) bool {
	i := 0
	switch {
	case s == "":
		return false
	case s[0] == '0':
		i = 1
	default:
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
	return s[i] == '.' && i+1 < len(s) && s[len(s)-1] != '0' && strings.Trim(s[i+1:], "0123456789") == ""
}

// ParseCanonical reads a stored amount: [Canonical] and within [Parse]'s
// bounds.
func ParseCanonical(s string) (Decimal, bool) {
	if !Canonical(s) {
		return Decimal{}, false
	}
	return Parse(s)
}

// Round returns d rounded to Precision significant digits, half to even.
func (d Decimal) Round() Decimal {
	c := d.c()
	if c.BitLen() < 196 { // below 2^196 < 10^59: at most 59 digits
		return d
	}
	a := new(big.Int).Abs(c)
	digits := len(a.String())
	if digits <= Precision {
		return d
	}
	drop := digits - Precision
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(drop)), nil)
	q, r := new(big.Int).QuoRem(a, p, new(big.Int))
	switch r.Lsh(r, 1).Cmp(p) {
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
	return Decimal{coef: q, exp: d.exp + drop}.Round() // a carry can add a digit
}

// Mul returns d×e rounded to Precision digits.
func (d Decimal) Mul(e Decimal) Decimal {
	return Decimal{coef: new(big.Int).Mul(d.c(), e.c()), exp: d.exp + e.exp}.Round()
}

// Add returns d+e rounded to Precision digits.
func (d Decimal) Add(e Decimal) Decimal {
	a, b, exp := aligned(d, e)
	return Decimal{coef: a.Add(a, b), exp: exp}.Round()
}

// Shift returns d × 10^n, exactly.
func (d Decimal) Shift(n int) Decimal { return Decimal{coef: d.c(), exp: d.exp + n} }

// Cmp compares d and e exactly.
func (d Decimal) Cmp(e Decimal) int {
	a, b, _ := aligned(d, e)
	return a.Cmp(b)
}

// aligned returns fresh copies of d's and e's coefficients scaled to their
// common (smaller) exponent, and that exponent.
func aligned(d, e Decimal) (a, b *big.Int, exp int) {
	exp = min(d.exp, e.exp)
	scale := func(x Decimal) *big.Int {
		if x.exp == exp {
			return new(big.Int).Set(x.c())
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.exp-exp)), nil)
		return p.Mul(p, x.c())
	}
	return scale(d), scale(e), exp
}

// String renders d in the one canonical amount form (upstream usd_text):
// positional, no exponent, trailing fractional zeros and a trailing point
// removed, "0" for zero.
func (d Decimal) String() string {
	c := d.c()
	digits := new(big.Int).Abs(c).String()
	s := "0"
	switch {
	case d.exp >= 0:
		if digits != "0" {
			s = digits + strings.Repeat("0", d.exp)
		}
	default:
		n := -d.exp
		if len(digits) <= n {
			digits = strings.Repeat("0", n-len(digits)+1) + digits
		}
		s = strings.TrimRight(digits[:len(digits)-n]+"."+digits[len(digits)-n:], "0")
		s = strings.TrimSuffix(s, ".")
	}
	if c.Sign() < 0 && s != "0" {
		s = "-" + s
	}
	return s
}
