package evaluator

import (
	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/internal/python"
)

// parseTimestamp reads an instant the way upstream's clock does
// (instant.Strptime: Python's strptime with "%Y-%m-%dT%H:%M:%SZ"), into
// whole seconds since the epoch. On failure it returns upstream's message.
func parseTimestamp(v any, context string) (int64, string, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, sprintf("%s: timestamp must be a string in %s form, got %s",
			context, python.Quote(instant.StrptimeFormat), python.TypeName(v)), false
	}
	sec, why, rest := instant.Strptime(s)
	var reason string
	switch why {
	case instant.StrptimeOK:
		return sec, "", true
	case instant.StrptimeNoMatch:
		reason = sprintf("time data %s does not match format %s", python.Quote(s), python.Quote(instant.StrptimeFormat))
	case instant.StrptimeRemains:
		reason = "unconverted data remains: " + rest
	case instant.StrptimeYearRange:
		reason = "year 0 is out of range"
	case instant.StrptimeDayRange:
		reason = "day is out of range for month"
	default:
		reason = "second must be in 0..59"
	}
	return 0, sprintf("%s: %s is not a canonical UTC instant of the form 2031-03-03T09:00:00Z (%s)",
		context, python.Quote(s), reason), false
}

// instant is parseTimestamp without the message, with a per-evaluation
// cache (rows share instants).
func (g *grader) instant(v any) (int64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	if sec, ok := g.instants[s]; ok {
		return sec, true
	}
	sec, why, _ := instant.Strptime(s)
	if why != instant.StrptimeOK {
		return 0, false
	}
	if g.instants == nil {
		g.instants = map[string]int64{}
	}
	g.instants[s] = sec
	return sec, true
}
