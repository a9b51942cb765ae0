package engine

import (
	"testing"

	"github.com/obaudit/obaudit/internal/instant"
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
