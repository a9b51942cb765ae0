package engine

import (
	"strconv"

	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/refusal"
)

// InstantLayout is the one instant format, input and output: UTC, whole
// seconds, literal "Z" (internal/instant).
const InstantLayout = instant.Layout

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
func FormatInstant(sec int64) string { return instant.Format(sec) }

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

// shift is c.nowText plus m minutes without parsing the current instant
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
