package execledger

import "testing"

// TestAmountArithmetic pins spec §12.2.
func TestAmountArithmetic(t *testing.T) {
	in, _ := ParseDecimal("1.25")
	out, _ := ParseDecimal("10.00")
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
