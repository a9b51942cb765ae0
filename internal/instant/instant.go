// Package instant is the one instant form obaudit's and upstream's formats
// write: "YYYY-MM-DDTHH:MM:SSZ", UTC, whole seconds, every field zero-padded
// ASCII digits ([Layout]). [Parse] reads it, [Format] and [Append] write it;
// every reader and writer of instants in the tree uses them.
package instant

import "time"

// Layout is the one instant form as a package time layout.
const Layout = "2006-01-02T15:04:05Z"

// Year1 and Max are the Unix seconds of 0001-01-01T00:00:00Z and
// 9999-12-31T23:59:59Z, the range Parse reads and Append writes itself
// (Python's datetime, which upstream parses with, has no year 0).
const (
	Year1 = -62135596800
	Max   = 253402300799
)

// Parse returns the Unix seconds of s when s is exactly such an instant of
// a real calendar day (years 0001 to 9999, proleptic Gregorian, no leap
// second); ok is false for anything else. It does not allocate.
func Parse(s string) (sec int64, ok bool) {
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
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	dim := [13]int64{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mo]
	if mo == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		dim = 29
	}
	if d > dim {
		return 0, false
	}
	return DaysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + se, true
}

// DaysFromCivil is the number of days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (negative before it).
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// Format renders Unix seconds in the one instant form.
func Format(sec int64) string {
	var buf [20]byte
	return string(Append(buf[:0], sec))
}

// Append appends Format(sec) to b without allocating for years 0001 to
// 9999; outside them it is package time's rendering of the layout.
func Append(b []byte, sec int64) []byte {
	if sec < Year1 || sec > Max {
		return time.Unix(sec, 0).UTC().AppendFormat(b, Layout)
	}
	days, rem := (sec-Year1)/86400, (sec-Year1)%86400
	y, m, d := civilFromDays(days + Year1/86400)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	h, mi, s := rem/3600, rem/60%60, rem%60
	return append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10), 'Z')
}

// civilFromDays is the proleptic Gregorian date z days after 1970-01-01
// (the inverse of DaysFromCivil).
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
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
