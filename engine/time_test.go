package engine

import (
	"testing"

	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/refusal"
)

// TestClockShiftMatchesShiftMinutes holds the clock's parse-free shift to
// ShiftMinutes. (Parsing and formatting are internal/instant's, held to
// package time by its tests and fuzz targets.)
func TestClockShiftMatchesShiftMinutes(t *testing.T) {
	for _, sec := range []int64{0, 1930208400, instant.Max - 3600} {
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

// ShiftMinutes is the reference shift the clock is held to: the instant m
// minutes after s, parsed and formatted again. A negative m is refused as
// [ErrClockRewind]: offsets are delays, never rewinds.
func ShiftMinutes(s string, m int64) (string, error) {
	sec, err := ParseInstant(s)
	if err != nil {
		return "", err
	}
	if m < 0 {
		return "", refusal.New(ErrClockRewind, "a shift of %d minutes would move %s backwards", m, s)
	}
	return FormatInstant(sec + m*60), nil
}
