package instant_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

var whyNames = map[int]string{
	instant.StrptimeNoMatch: "nomatch", instant.StrptimeYearRange: "year",
	instant.StrptimeDayRange: "day", instant.StrptimeSecondRange: "second",
}

// TestReadersAgree reads every CPython vector (testdata/strptime.tsv, by
// testdata/gen_strptime.py) with every instant reader: Strptime gives
// CPython's verdict; the strict readers (Parse, and engine.ParseInstant,
// artefact's and execledger's field checks, which call it) accept a subset
// of it with the same seconds, and only the zero-padded upper-case form;
// so year 0000, offsets and fractional seconds are refused by all.
func TestReadersAgree(t *testing.T) {
	data, err := os.ReadFile("testdata/strptime.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 30 {
		t.Fatalf("%d vectors", len(lines))
	}
	for _, line := range lines {
		q, want, _ := strings.Cut(line, "\t")
		var s string
		if err := json.Unmarshal([]byte(q), &s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		sec, why, rest := instant.Strptime(s)
		got := strconv.FormatInt(sec, 10)
		if why == instant.StrptimeRemains {
			r, _ := json.Marshal(rest)
			got = "remains:" + string(r)
		} else if why != instant.StrptimeOK {
			got = whyNames[why]
		}
		if got != want {
			t.Errorf("Strptime(%q) = %s, CPython %s", s, got, want)
		}
		psec, ok := instant.Parse(s)
		esec, eerr := engine.ParseInstant(s)
		if ok != (eerr == nil) || psec != esec {
			t.Errorf("%q: Parse %d %v, engine.ParseInstant %d %v", s, psec, ok, esec, eerr)
		}
		strict := len(s) == 20 && !strings.ContainsAny(s, "tz ") && strings.Count(s, "-") == 2
		for _, r := range s {
			strict = strict && r < 0x80
		}
		if ok && (why != instant.StrptimeOK || psec != sec || !strict) {
			t.Errorf("Parse(%q) = %d where CPython reads %s", s, psec, want)
		}
		if !ok && why == instant.StrptimeOK && strict {
			t.Errorf("Parse(%q) refuses the zero-padded form CPython reads", s)
		}
	}
}

// TestStrptimeVectorsAreCPythons re-runs the generator and fails if its
// output is not the committed file (CI machines have python3).
func TestStrptimeVectorsAreCPythons(t *testing.T) {
	upstreamtest.Generated(t, "gen_strptime.py", "strptime.tsv")
}
