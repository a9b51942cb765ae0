package engine

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/obaudit/obaudit/refusal"
)

// TestInstantFastPaths holds FormatInstant and ParseInstant to package time
// (the straightforward paths) over the whole fast range and past its edges.
func TestInstantFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	secs := []int64{0, 1, 59, 86399, 86400, 951782400, 951868800, 4107542399, 4107542400, maxFastSec, maxFastSec + 1, -1, -86400}
	for i := 0; i < 200000; i++ {
		secs = append(secs, r.Int64N(maxFastSec+1))
	}
	for _, sec := range secs {
		want := time.Unix(sec, 0).UTC().Format(InstantLayout)
		if got := FormatInstant(sec); got != want {
			t.Fatalf("FormatInstant(%d) = %s, want %s", sec, got, want)
		}
		got, err := ParseInstant(want)
		wantSec, wantErr := parseInstantSlow(want)
		if got != wantSec || (err == nil) != (wantErr == nil) {
			t.Fatalf("ParseInstant(%s) = %d, %v; slow path %d, %v", want, got, err, wantSec, wantErr)
		}
	}
	bad := []string{"", "2031-02-29T00:00:00Z", "2000-02-30T00:00:00Z", "1900-02-29T00:00:00Z", "2031-13-01T00:00:00Z",
		"2031-00-01T00:00:00Z", "2031-01-00T00:00:00Z", "2031-04-31T00:00:00Z", "2031-01-01T24:00:00Z", "2031-01-01T23:60:00Z",
		"2031-01-01T23:59:60Z", "2031-01-01 23:59:59Z", "2031-01-01T23:59:59z", "2031-1-01T23:59:59Z", "+031-01-01T23:59:59Z",
		"2031-01-01T23:59:5 Z", "1969-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2400-02-29T00:00:00Z",
		"2100-02-29T00:00:00Z", "9999-12-31T23:59:59Z", "2031-03-03T09:00:00+00:00", "2031-03-03T09:00:00.5Z"}
	for i := 0; i < 100000; i++ {
		b := []byte(FormatInstant(r.Int64N(maxFastSec + 1)))
		b[r.IntN(len(b))] = "0123456789-:TZ "[r.IntN(15)]
		bad = append(bad, string(b))
	}
	for _, s := range bad {
		got, err := ParseInstant(s)
		want, wantErr := parseInstantSlow(s)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("ParseInstant(%q) = %d, %v; slow path %d, %v", s, got, err, want, wantErr)
		}
	}
}

// TestClockShiftMatchesShiftMinutes holds the clock's parse-free shift to
// ShiftMinutes.
func TestClockShiftMatchesShiftMinutes(t *testing.T) {
	for _, sec := range []int64{0, 1930208400, maxFastSec - 3600} {
		c := clock{now: sec, nowText: FormatInstant(sec)}
		for _, m := range []int64{-1, 0, 1, 720, 4320, 60} {
			got, gotSec, err := c.shift(m)
			want, wantErr := ShiftMinutes(c.nowText, m)
			if got != want || (err == nil) != (wantErr == nil) || (err == nil && gotSec != sec+m*60) {
				t.Errorf("shift(%d) at %s = %s, %v; ShiftMinutes %s, %v", m, c.nowText, got, err, want, wantErr)
			}
			if err != nil && !isClass(err, ErrClockRewind) {
				t.Errorf("shift(%d) = %v, want %s", m, err, ErrClockRewind.Class)
			}
		}
	}
}

// parseInstantSlow is package time's reading of a canonical instant, the
// reference ParseInstant is held to.
func parseInstantSlow(s string) (int64, error) {
	if len(s) != len(InstantLayout) {
		return 0, refusal.New(ErrMalformedInstant, "%q is not YYYY-MM-DDTHH:MM:SSZ", s)
	}
	t, err := time.Parse(InstantLayout, s)
	if err != nil || t.Format(InstantLayout) != s {
		return 0, refusal.New(ErrMalformedInstant, "%q is not YYYY-MM-DDTHH:MM:SSZ", s)
	}
	return t.Unix(), nil
}
