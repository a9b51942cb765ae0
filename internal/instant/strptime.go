package instant

import (
	"regexp"
	"sync"
	"time"
	"unicode"
)

// StrptimeFormat is the format upstream's grader reads instants with.
const StrptimeFormat = "%Y-%m-%dT%H:%M:%SZ"

// Why Python's strptime refuses a string ([Strptime]).
const (
	StrptimeOK          = iota
	StrptimeNoMatch     // "time data ... does not match format ..."
	StrptimeRemains     // "unconverted data remains: <rest>"
	StrptimeYearRange   // "year 0 is out of range"
	StrptimeDayRange    // "day is out of range for month"
	StrptimeSecondRange // "second must be in 0..59"
)

// strptimeRE is the regular expression Python's _strptime builds for
// StrptimeFormat, compiled on first use.
var strptimeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\p{Nd}\p{Nd}\p{Nd}\p{Nd})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\p{Nd}|0[1-9]|[1-9]| [1-9])[Tt](2[0-3]|[0-1]\p{Nd}|\p{Nd}):([0-5]\p{Nd}|\p{Nd}):(6[0-1]|[0-5]\p{Nd}|\p{Nd})[Zz]`)
})

// Strptime reads s the way upstream's grader does, Python's
// datetime.strptime(s, StrptimeFormat): broader than [Parse] (fields need
// not be zero-padded, a day may be space-padded, 't' and 'z' may be
// lowercase, digits may be any Unicode decimal digits), into Unix seconds.
// It is the only reader of that broader form, and only the evaluator, which
// reproduces upstream's grading, uses it; vectors CPython writes
// (testdata/gen_strptime.py) hold it. why is StrptimeOK or the reason
// Python gives; rest is the unconverted tail for StrptimeRemains.
func Strptime(s string) (sec int64, why int, rest string) {
	if sec, ok := Parse(s); ok {
		return sec, StrptimeOK, ""
	}
	m := strptimeRE().FindStringSubmatchIndex(s)
	if m == nil {
		return 0, StrptimeNoMatch, ""
	}
	if m[1] != len(s) {
		return 0, StrptimeRemains, s[m[1]:]
	}
	field := func(i int) int {
		n := 0
		for _, r := range s[m[2*i]:m[2*i+1]] {
			if r != ' ' {
				n = n*10 + digitValue(r)
			}
		}
		return n
	}
	year, month, day := field(1), field(2), field(3)
	hour, minute, second := field(4), field(5), field(6)
	switch {
	case year < 1:
		return 0, StrptimeYearRange, ""
	case day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day():
		return 0, StrptimeDayRange, ""
	case second > 59:
		return 0, StrptimeSecondRange, ""
	}
	return DaysFromCivil(int64(year), int64(month), int64(day))*86400 + int64(hour*3600+minute*60+second), StrptimeOK, ""
}

// digitValue is the value of a Unicode decimal digit: its offset in its run
// of ten.
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	for d := r; d > r-10; d-- {
		if !unicode.IsDigit(d - 1) {
			return int(r - d)
		}
	}
	return 0
}
