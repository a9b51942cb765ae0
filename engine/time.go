package engine

import (
	"strconv"
	"time"

	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/refusal"
)

// InstantLayout is the one instant format, input and output: UTC, whole
// seconds, literal "Z".
const InstantLayout = "2006-01-02T15:04:05Z"

// ParseInstant returns the Unix seconds of a canonical instant. Anything but
// "YYYY-MM-DDTHH:MM:SSZ" (zero-padded, valid calendar date) is refused as
// [ErrMalformedInstant].
func ParseInstant(s string) (int64, error) {
	if sec, ok := instant.Parse(s); ok {
		return sec, nil
	}
	return 0, refusal.New(ErrMalformedInstant, "%q is not YYYY-MM-DDTHH:MM:SSZ", s)
}

// FormatInstant renders Unix seconds as a canonical instant.
func FormatInstant(sec int64) string {
	if sec >= 0 && sec <= maxFastSec {
		var buf [20]byte
		return string(appendInstant(buf[:0], sec))
	}
	return time.Unix(sec, 0).UTC().Format(InstantLayout)
}

// The fast formatting path covers 1970-01-01T00:00:00Z to
// 9999-12-31T23:59:59Z; anything else goes through package time.
// TestInstantFastPaths holds it, and ParseInstant, equal to package time.
const maxFastSec = 253402300799

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
