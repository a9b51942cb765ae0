package evaluator

import (
	"regexp"
	"sync"
	"time"
	"unicode"

	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/internal/python"
)

// parseTimestamp reads an instant the way upstream's clock does: Python's
// strptime with "%Y-%m-%dT%H:%M:%SZ" (case-insensitive literals, fields
// that need not be zero-padded, Unicode digits), into whole seconds since
// the epoch. On failure it returns upstream's message.
func parseTimestamp(v any, context string) (int64, string, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, sprintf("%s: timestamp must be a string in %s form, got %s",
			context, python.Quote(timestampFormat), python.TypeName(v)), false
	}
	sec, why := strptime(s)
	if why != "" {
		return 0, sprintf("%s: %s is not a canonical UTC instant of the form 2031-03-03T09:00:00Z (%s)",
			context, python.Quote(s), why), false
	}
	return sec, "", true
}

// instant is parseTimestamp without the message, with a fast path for the
// canonical zero-padded form and a per-evaluation cache (rows share
// instants).
func (g *grader) instant(v any) (int64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	if sec, ok := g.instants[s]; ok {
		return sec, true
	}
	sec, ok := instant.Parse(s)
	ok = ok && sec >= instant.Year1 // strptime reads no year 0
	if !ok {
		var why string
		if sec, why = strptime(s); why != "" {
			return 0, false
		}
	}
	if g.instants == nil {
		g.instants = map[string]int64{}
	}
	g.instants[s] = sec
	return sec, true
}

const timestampFormat = "%Y-%m-%dT%H:%M:%SZ"

// strptimeRE is the regular expression Python's _strptime builds for
// timestampFormat, compiled on first use.
var strptimeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\p{Nd}\p{Nd}\p{Nd}\p{Nd})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\p{Nd}|0[1-9]|[1-9]| [1-9])[Tt](2[0-3]|[0-1]\p{Nd}|\p{Nd}):([0-5]\p{Nd}|\p{Nd}):(6[0-1]|[0-5]\p{Nd}|\p{Nd})[Zz]`)
})

func strptime(s string) (int64, string) {
	m := strptimeRE().FindStringSubmatchIndex(s)
	if m == nil {
		return 0, sprintf("time data %s does not match format %s", python.Quote(s), python.Quote(timestampFormat))
	}
	if m[1] != len(s) {
		return 0, "unconverted data remains: " + s[m[1]:]
	}
	field := func(i int) int {
		n := 0
		for _, r := range s[m[2*i]:m[2*i+1]] {
			if r == ' ' {
				continue
			}
			n = n*10 + digitValue(r)
		}
		return n
	}
	year, month, day := field(1), field(2), field(3)
	hour, minute, second := field(4), field(5), field(6)
	if year < 1 {
		return 0, sprintf("year %d is out of range", year)
	}
	if day > daysIn(year, month) {
		return 0, "day is out of range for month"
	}
	if second > 59 {
		return 0, "second must be in 0..59"
	}
	return time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC).Unix(), ""
}

func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	// A Unicode decimal digit: its value is its offset in its run of ten.
	for d := r; d > r-10; d-- {
		if !unicode.IsDigit(d - 1) {
			return int(r - d)
		}
	}
	return 0
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
