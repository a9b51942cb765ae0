package instant_test

import (
	"testing"
	"time"

	"github.com/obaudit/obaudit/internal/instant"
)

const layout = "2006-01-02T15:04:05Z"

func TestParse(t *testing.T) {
	for s, want := range map[string]int64{
		"1970-01-01T00:00:00Z": 0,
		"2031-03-03T09:00:00Z": 1930294800,
		"2000-02-29T23:59:59Z": 951868799,
		"0001-01-01T00:00:00Z": instant.Year1,
		"1969-12-31T23:59:59Z": -1,
		"9999-12-31T23:59:59Z": 253402300799,
	} {
		if got, ok := instant.Parse(s); !ok || got != want {
			t.Errorf("Parse(%s) = %d, %v, want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{
		"", "0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z", "2031-03-03T09:00:00", "2031-03-03T09:00:00z", "2031-03-03t09:00:00Z", "2031-03-03 09:00:00Z",
		"2031-3-03T09:00:00Z", "2031-03-03T09:00:00.0Z", "+031-03-03T09:00:00Z", "2031-03-03T09:00:0٣Z",
		"2031-02-29T09:00:00Z", "1900-02-29T00:00:00Z", "2031-04-31T09:00:00Z", "2031-13-01T09:00:00Z", "2031-00-01T09:00:00Z",
		"2031-01-00T09:00:00Z", "2031-01-01T24:00:00Z", "2031-01-01T23:60:00Z", "2031-01-01T23:59:60Z",
	} {
		if got, ok := instant.Parse(s); ok {
			t.Errorf("Parse(%q) = %d, want refused", s, got)
		}
	}
}

// Parse agrees with package time on every string package time would
// format back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2031-03-03T09:00:00Z", "0000-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "9999-12-31T23:59:59Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := instant.Parse(s)
		tt, err := time.Parse(layout, s)
		want := err == nil && tt.Format(layout) == s && tt.Year() >= 1
		if ok != want || (ok && got != tt.Unix()) {
			t.Fatalf("Parse(%q) = %d, %v; package time: %v, %v", s, got, ok, tt.Unix(), want)
		}
	})
}

// TestFormat holds Format to package time at the edges of its range and
// past them, and Parse to Format's inverse there.
func TestFormat(t *testing.T) {
	for _, sec := range []int64{0, 1, 59, 86399, 86400, -1, -86400, 951782400, 951868800, 4107542399, 4107542400,
		instant.Year1, instant.Year1 - 1, instant.Max, instant.Max + 1, -62162121600, -62135596801} {
		checkFormat(t, sec)
	}
}

// FuzzFormat: Format is package time's rendering of the layout for any
// second, and Parse reads back every one it writes for years 0001-9999.
func FuzzFormat(f *testing.F) {
	for _, sec := range []int64{0, 951868799, instant.Year1, instant.Max, instant.Max + 1, instant.Year1 - 1} {
		f.Add(sec)
	}
	f.Fuzz(func(t *testing.T, sec int64) {
		checkFormat(t, sec%(1<<40))
	})
}

func checkFormat(t *testing.T, sec int64) {
	t.Helper()
	want := time.Unix(sec, 0).UTC().Format(layout)
	if got := instant.Format(sec); got != want {
		t.Fatalf("Format(%d) = %s, want %s", sec, got, want)
	}
	if got, ok := instant.Parse(want); ok != (sec >= instant.Year1 && sec <= instant.Max) || (ok && got != sec) {
		t.Fatalf("Parse(Format(%d)) = %d, %v", sec, got, ok)
	}
}
