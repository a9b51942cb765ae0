package execledger

import (
	"fmt"
	"testing"
	"time"
)

// parseInstantTime is the former parseInstant, by time.Parse: the reference.
func parseInstantTime(s string) (int64, bool) {
	if len(s) != 20 {
		return 0, false
	}
	for i := 0; i < 20; i++ {
		c := s[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return 0, false
			}
		case 10:
			if c != 'T' {
				return 0, false
			}
		case 13, 16:
			if c != ':' {
				return 0, false
			}
		case 19:
			if c != 'Z' {
				return 0, false
			}
		default:
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	if s[:4] == "0000" {
		return 0, false
	}
	t, err := time.Parse(InstantLayout, s)
	if err != nil {
		return 0, false
	}
	return t.Unix(), true
}

func sameInstant(t *testing.T, s string) {
	t.Helper()
	got, gok := parseInstant(s)
	want, wok := parseInstantTime(s)
	if gok != wok || got != want {
		t.Fatalf("parseInstant(%q) = %d, %v; time.Parse gives %d, %v", s, got, gok, want, wok)
	}
}

// TestParseInstantIsTimeParse: every day-of-month 0–32 of every month 0–13
// over leap and common years (centuries too) from 1 to 9999, and the clock
// fields' edges.
func TestParseInstantIsTimeParse(t *testing.T) {
	years := []int{0, 1, 2, 3, 4, 99, 100, 400, 1600, 1700, 1899, 1900, 1969, 1970, 1971, 1999, 2000, 2001, 2024, 2031, 2100, 2400, 9996, 9999}
	for y := 1960; y <= 2110; y++ {
		years = append(years, y)
	}
	for _, y := range years {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				sameInstant(t, fmt.Sprintf("%04d-%02d-%02dT12:34:56Z", y, m, d))
			}
		}
	}
	for _, hms := range []string{"00:00:00", "23:59:59", "24:00:00", "23:60:00", "23:59:60", "99:99:99", "09:05:07"} {
		for _, date := range []string{"2031-03-03", "0001-01-01", "9999-12-31", "2024-02-29", "2023-02-29"} {
			sameInstant(t, date+"T"+hms+"Z")
		}
	}
}

func FuzzParseInstant(f *testing.F) {
	f.Add("2031-03-03T09:00:00Z")
	f.Add("2024-02-29T23:59:59Z")
	f.Add("0000-01-01T00:00:00Z")
	f.Fuzz(func(t *testing.T, s string) { sameInstant(t, s) })
}
