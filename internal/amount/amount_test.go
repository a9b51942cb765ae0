package amount

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// stricter reports the inputs Parse refuses on purpose although Python's
// Decimal reads them: a sign other than '+', whitespace, underscores,
// non-ASCII digits, and more than MaxDigits digits.
func stricter(s string) bool {
	if strings.ContainsAny(s, " \t_-") || strings.IndexFunc(s, func(r rune) bool { return r > 0x7f }) >= 0 {
		return true
	}
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	return len(strings.ReplaceAll(strings.TrimPrefix(mant, "+"), ".", "")) > MaxDigits
}

func mustParse(t *testing.T, s string) Decimal {
	t.Helper()
	d, ok := Parse(s)
	if !ok {
		t.Fatalf("Parse(%q) refused a vector operand", s)
	}
	return d
}

// TestVectors holds Parse, Canonical, String and the arithmetic to what
// CPython's decimal module computes (testdata/vectors.tsv, written by
// testdata/gen_vectors.py).
func TestVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/vectors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		ops[f[0]]++
		switch f[0] {
		case "text":
			s, stored, value := f[1], f[2] == "1", f[3]
			// The one deliberate difference: upstream accepts "-0".
			if want := stored && s != "-0"; Canonical(s) != want {
				t.Errorf("Canonical(%q) = %v, want %v (Python: %v)", s, !want, want, stored)
			}
			if d, ok := ParseCanonical(s); ok && d.String() != s {
				t.Errorf("ParseCanonical(%q) renders as %q", s, d)
			}
			d, ok := Parse(s)
			switch {
			case ok && value == "-":
				t.Errorf("Parse(%q) accepted what Python refuses", s)
			case ok && d.String() != value:
				t.Errorf("Parse(%q) = %s, Python's usd_text %s", s, d, value)
			case !ok && value != "-" && !stricter(s):
				t.Errorf("Parse(%q) refused what Python reads as %s", s, value)
			}
		case "mul", "add", "cmp":
			a, b := mustParse(t, f[1]), mustParse(t, f[2])
			var got string
			switch f[0] {
			case "mul":
				got = a.Mul(b).String()
			case "add":
				got = a.Add(b).String()
			default:
				got = strconv.Itoa(a.Cmp(b))
			}
			if got != f[3] {
				t.Errorf("%s(%s, %s) = %s, Python %s", f[0], f[1], f[2], got, f[3])
			}
		case "reserve":
			bound, _ := strconv.ParseInt(f[1], 10, 64)
			ceiling, _ := strconv.ParseInt(f[2], 10, 64)
			in, out := mustParse(t, f[3]), mustParse(t, f[4])
			got := FromInt(bound).Mul(in).Add(FromInt(ceiling).Mul(out)).Shift(-6).Round().String()
			if got != f[5] {
				t.Errorf("reserve(%s) = %s, Python %s", strings.Join(f[1:5], ", "), got, f[5])
			}
		default:
			t.Fatalf("unknown vector %q", line)
		}
	}
	if ops["text"] < 50 || ops["mul"] < 100 || ops["reserve"] < 50 {
		t.Fatalf("too few vectors: %v", ops)
	}
}

// TestVectorsAreCPythons re-runs the generator and fails if its output is
// not the committed file (CI machines have python3).
func TestVectorsAreCPythons(t *testing.T) {
	upstreamtest.Generated(t, "gen_vectors.py", "vectors.tsv")
}

// TestZeroValue: the zero Decimal is 0 in every operation.
func TestZeroValue(t *testing.T) {
	var z Decimal
	if z.String() != "0" || !z.IsZero() || z.Add(FromInt(2)).String() != "2" || z.Mul(FromInt(2)).String() != "0" || z.Cmp(FromInt(0)) != 0 {
		t.Fatal("the zero Decimal is not 0")
	}
	if FromInt(-3).String() != "-3" || FromInt(-3).Shift(-2).String() != "-0.03" {
		t.Fatal("negative rendering")
	}
}
