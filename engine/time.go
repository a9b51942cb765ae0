package engine

import (
	"strconv"
	"time"

	"github.com/obaudit/obaudit/refusal"
)

// InstantLayout is the one instant format, input and output: UTC, whole
// seconds, literal "Z".
const InstantLayout = "2006-01-02T15:04:05Z"

// ParseInstant returns the Unix seconds of a canonical instant. Anything but
// "YYYY-MM-DDTHH:MM:SSZ" (zero-padded, valid calendar date) is refused as
// [ErrMalformedInstant].
func ParseInstant(s string) (int64, error) {
	if sec, ok := parseInstantFast(s); ok {
		return sec, nil
	}
	return parseInstantSlow(s)
}

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

// FormatInstant renders Unix seconds as a canonical instant.
func FormatInstant(sec int64) string {
	if sec >= 0 && sec <= maxFastSec {
		var buf [20]byte
		return string(appendInstant(buf[:0], sec))
	}
	return time.Unix(sec, 0).UTC().Format(InstantLayout)
}

// The fast instant paths cover 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z;
// anything else goes through package time. TestInstantFastPaths holds them
// equal to package time.
const maxFastSec = 253402300799

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian; Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func appendInstant(b []byte, sec int64) []byte {
	days, rem := sec/86400, sec%86400
	y, m, d := civilFromDays(days)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	h, mi, s := rem/3600, rem/60%60, rem%60
	return append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10), 'Z')
}

// parseInstantFast accepts exactly the well-formed instants of 1970–9999.
func parseInstantFast(s string) (int64, bool) {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return 0, false
	}
	num := func(i, n int) (int64, bool) {
		var v int64
		for j := i; j < i+n; j++ {
			c := s[j]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	se, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	dim := [13]int64{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mo]
	if mo == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		dim = 29
	}
	if d > dim {
		return 0, false
	}
	return daysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + se, true
}

// ShiftMinutes returns the instant m minutes after s. A negative m is refused
// as [ErrClockRewind]: offsets are delays, never rewinds.
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

// clock is the simulated clock: it starts at the scenario's start and only
// moves forward, by jumps.
type clock struct {
	start, now int64
	nowText    string
}

func (c *clock) advanceTo(sec int64) error {
	if sec < c.now {
		return refusal.New(ErrClockRewind, "the clock is at %s and cannot move back to %s", c.nowText, FormatInstant(sec))
	}
	if sec != c.now {
		c.now = sec
		c.nowText = FormatInstant(sec)
	}
	return nil
}

// shift is ShiftMinutes(c.nowText, m) without parsing the current instant
// (c.nowText is always FormatInstant(c.now)); it also returns the seconds.
func (c *clock) shift(m int64) (string, int64, error) {
	if m < 0 {
		return "", 0, refusal.New(ErrClockRewind, "a shift of %d minutes would move %s backwards", m, c.nowText)
	}
	sec := c.now + m*60
	return FormatInstant(sec), sec, nil
}

func (c *clock) elapsedMinutes() int64 {
	d := c.now - c.start
	if d < 0 {
		return -((-d + 59) / 60)
	}
	return d / 60
}

// FormatInt renders n in decimal.
func FormatInt(n int64) string { return strconv.FormatInt(n, 10) }
