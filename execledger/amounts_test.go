package execledger

import "testing"

// TestAmountArithmetic pins spec §12.2.
func TestAmountArithmetic(t *testing.T) {
	in, _ := parseDecimal("1.25")
	out, _ := parseDecimal("10.00")
	r := Rates{In: in, Out: out}
	cases := []struct {
		name string
		got  Decimal
		want string
	}{
		{"reservation 14706", r.Reservation(14706, 4096), "0.0593425"},
		{"reservation 16779", r.Reservation(16779, 4096), "0.06193375"},
		{"measured 4211/118", r.Measured(4211, 118), "0.00644375"},
		{"worst case per call", r.Reservation(23409, 4096), "0.07022125"},
		{"two measured", r.Measured(4211, 118).Add(r.Measured(4211, 118)), "0.0128875"},
		{"two reserved", r.Reservation(14706, 4096).Add(r.Reservation(14706, 4096)), "0.118685"},
		{"worst case x60", r.Reservation(23409, 4096).Mul(DecimalFromInt(60)), "4.213275"},
		{"zero", DecimalFromInt(0), "0"},
	}
	for _, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
}

func TestAmountCanonical(t *testing.T) {
	for _, s := range []string{"0", "1", "0.0593425", "3.06789", "10", "100.5"} {
		if d, ok := ParseAmount(s); !ok || d.String() != s {
			t.Errorf("ParseAmount(%q) = %v %v, want it back", s, d, ok)
		}
	}
	for _, s := range []string{"0.05934250", "0.0593425000", "+0.0593425", "5.93425E-2", " 1", "1_000", "-0.01", "NaN", "Infinity", "", "one", "0x10", "1,5", "-0", "01", "1.", ".5"} {
		if _, ok := ParseAmount(s); ok {
			t.Errorf("ParseAmount(%q) accepted a non-canonical amount", s)
		}
	}
}

// TestRoundingHalfEven: a product beyond 60 significant digits rounds half
// to even, as Python's Decimal context does.
func TestRoundingHalfEven(t *testing.T) {
	a, _ := parseDecimal("1" + string(make([]byte, 0)) + "00000000000000000000000000000000000000000000000000000000000" + "5") // 61 digits ending in 5
	if got := a.round().String(); got != "100000000000000000000000000000000000000000000000000000000000"+"0" {
		t.Errorf("round(1e60+5) = %s", got)
	}
	b, _ := parseDecimal("1000000000000000000000000000000000000000000000000000000000015")
	if got := b.round().String(); got != "1000000000000000000000000000000000000000000000000000000000020" {
		t.Errorf("round(...15) = %s", got)
	}
}
