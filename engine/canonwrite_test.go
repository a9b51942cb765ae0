package engine

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
)

func TestAppendCanonicalMatchesCanon(t *testing.T) {
	strs := []string{"", "a", "plain ascii text of some length", "quote\"inside", "back\\slash", "tab\there",
		"ctl\x01x", "newline\nend", "caf\u00e9 \u2014 dash", "\u2028\u2029", "<>&/", "exactly8", "sixteen-bytes-xx",
		strings.Repeat("z", 63) + "\"", "\x7f del"}
	trees := []any{
		nil, true, false, int64(0), int64(-42), int64(9007199254740991), 3, 1.5, 1e21,
		[]any{}, []string{"b", "a"}, map[string]any{},
		map[string]any{"b": int64(1), "a": []any{"x", nil, map[string]any{"é": "ü", "e": "f"}}, "\u00e9": false},
	}
	for _, s := range strs {
		trees = append(trees, s, map[string]any{s: s})
	}
	for _, v := range trees {
		want, err := canon.Upstream(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendCanonical(nil, v); string(got) != string(want) {
			t.Errorf("AppendCanonical(%#v) = %s, want %s", v, got, want)
		}
	}
}

func TestParseInstant(t *testing.T) {
	for _, ok := range []string{"2031-03-03T09:00:00Z", "2000-02-29T23:59:59Z"} {
		if _, err := ParseInstant(ok); err != nil {
			t.Errorf("ParseInstant(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"2031-3-3T9:0:0Z", "2031-03-03T09:00:00+00:00", "2031-03-03 09:00:00Z", "2031-02-30T09:00:00Z", "2031-03-03T09:00:00.5Z", ""} {
		if _, err := ParseInstant(bad); !isClass(err, ErrMalformedInstant) {
			t.Errorf("ParseInstant(%q) = %v, want %s", bad, err, ErrMalformedInstant.Class)
		}
	}
	if _, err := ShiftMinutes("2031-03-03T09:00:00Z", -1); !isClass(err, ErrClockRewind) {
		t.Errorf("ShiftMinutes(-1) = %v, want %s", err, ErrClockRewind.Class)
	}
	if s, _ := ShiftMinutes("2031-03-09T12:30:00Z", 720); s != "2031-03-10T00:30:00Z" {
		t.Errorf("ShiftMinutes(+720) = %s", s)
	}
	c := clock{}
	c.now, c.nowText = 100, FormatInstant(100)
	if err := c.advanceTo(40); !isClass(err, ErrClockRewind) {
		t.Errorf("advanceTo(past) = %v, want %s", err, ErrClockRewind.Class)
	}
}

func TestDecisionContract(t *testing.T) {
	for name, tc := range map[string]struct {
		d    Decision
		want bool // acceptable
	}{
		"wait with neither":       {&Wait{Reason: "x"}, false},
		"wait with zero fallback": {&Wait{Reason: "x", FallbackAfterMinutes: Minutes(0)}, false},
		"wait with wake":          {&Wait{Reason: "x", WakeOn: []string{"a"}}, true},
		"wait with fallback":      {&Wait{Reason: "x", FallbackAfterMinutes: Minutes(5)}, true},
		"act without type":        {&Act{}, false},
		"act with empty evidence": {&Act{ActionType: "a", EvidenceRefs: []string{""}}, false},
		"escalate without ids":    {&Escalate{DeadlineAfterMinutes: 1}, false},
		"escalate zero deadline":  {&Escalate{CheckpointID: "c", ExceptionType: "e"}, false},
		"ask without wait":        {&Ask{RecipientActorID: "r", MessageFixtureID: "m"}, false},
		"complete":                {&Complete{}, true},
		"malformed":               {&Malformed{Code: "X"}, false},
	} {
		if got := contractProblem(tc.d) == ""; got != tc.want {
			t.Errorf("%s: acceptable = %v, want %v (%s)", name, got, tc.want, contractProblem(tc.d))
		}
	}
}

func TestDecisionRecordRoundTrip(t *testing.T) {
	c := "work_cycle_1"
	for _, d := range []Decision{
		&Act{ActionType: "send_message", Payload: map[string]any{"a": int64(1)}, EvidenceRefs: []string{"e"}, Rationale: "r"},
		&Wait{Reason: "w", WakeOn: []string{"x"}, FallbackAfterMinutes: Minutes(9)},
		&Ask{RecipientActorID: "r", MessageFixtureID: "m", CorrelationID: &c, Wait: &Wait{Reason: "w", WakeOn: []string{"x"}}},
		&Escalate{CheckpointID: "c", ExceptionType: "e", EvidenceRefs: []string{}, DeadlineAfterMinutes: 1440, Rationale: "r"},
		&Complete{Reason: "done", EvidenceRefs: []string{"e"}},
		&Retrieve{Requests: []Request{{Tool: "b"}, {Tool: "a"}, {Tool: "b"}}},
		&Malformed{Code: "MODEL_OUTPUT_UNCLASSIFIED"},
	} {
		rec := d.Record()
		b1, _ := canon.Upstream(rec)
		parsed, _ := canon.Parse(b1)
		back, err := DecisionFromRecord(parsed.(map[string]any))
		if err != nil {
			t.Fatalf("DecisionFromRecord(%s): %v", b1, err)
		}
		b2, _ := canon.Upstream(back.Record())
		if string(b1) != string(b2) {
			t.Errorf("round trip %s -> %s", b1, b2)
		}
	}
	if _, err := DecisionFromRecord(map[string]any{"kind": "SHOUT"}); !isClass(err, ErrMalformedDecision) {
		t.Errorf("unknown kind: %v, want %s", err, ErrMalformedDecision.Class)
	}
}

// FuzzAppendString holds appendString and plainASCII to canon on any
// string; the seeds mix plain ASCII with every byte class the fast scan
// must catch, around the 8-byte word boundaries (it was a 200,000-iteration
// random loop; CI fuzzes it briefly, .ci/steps/10-canon-fuzz.sh).
func FuzzAppendString(f *testing.F) {
	pieces := []string{"a", "Z", "0", " ", "~", "\x00", "\x1f", "\x7f", "\"", "\\", "\u00e9", "\u2028", "\U0001F600", "/", "<", "bad\xff", "\xc3"}
	for i, p := range pieces {
		for _, n := range []int{0, 7, 8, 15} {
			f.Add(strings.Repeat("a", n) + p + strings.Repeat("b", i%3))
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		plain := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				plain = false
			}
		}
		if plainASCII(s) != plain {
			t.Fatalf("plainASCII(%q) = %v", s, !plain)
		}
		want, err := canon.Upstream(s)
		if err != nil {
			return // not UTF-8: canon refuses, and the engine hands appendString only text canon accepts
		}
		if got := appendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

// TestAppendCanonicalChecked holds the checked encoder to canon.Append over
// random trees: the same bytes where canon encodes, canon's own error where
// it refuses (too deep, invalid UTF-8 in a key or a value, integers out of
// range, non-finite floats, unsupported types).
func TestAppendCanonicalChecked(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	leaves := []any{nil, true, false, "", "plain", "caf\u00e9", "q\"\\\n", "bad\xff", int64(0), int64(-9007199254740991),
		int64(9007199254740992), 3, 1.5, 1e300, math.Inf(1), math.NaN(), []string{"a", "b\xfe"}, []string{}, struct{}{}}
	keys := []string{"a", "b", "", "k\xff", "\u00e9", "zz"}
	var gen func(depth int) any
	gen = func(depth int) any {
		if depth > 4 || r.IntN(3) == 0 {
			return leaves[r.IntN(len(leaves))]
		}
		if r.IntN(2) == 0 {
			l := make([]any, r.IntN(4))
			for i := range l {
				l[i] = gen(depth + 1)
			}
			return l
		}
		m := map[string]any{}
		for i := r.IntN(4); i > 0; i-- {
			m[keys[r.IntN(len(keys))]] = gen(depth + 1)
		}
		return m
	}
	nest := func(n int) any {
		var v any = "x"
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				v = []any{v}
			} else {
				v = map[string]any{"k": v}
			}
		}
		return v
	}
	trees := []any{nest(canon.MaxDepth - 1), nest(canon.MaxDepth), nest(canon.MaxDepth + 1), nest(canon.MaxDepth + 5),
		[]any{nest(canon.MaxDepth)}, map[string]any{"a": []string{"x"}, "b": nest(canon.MaxDepth - 1)}}
	for i := 0; i < 20000; i++ {
		trees = append(trees, gen(0))
	}
	for _, v := range trees {
		want, werr := canon.Append([]byte("p"), v, canon.UpstreamForm)
		got, gerr := AppendCanonicalChecked([]byte("p"), v)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) || (werr == nil && string(got) != string(want)) {
			t.Fatalf("%#v:\n got %s, %v\nwant %s, %v", v, got, gerr, want, werr)
		}
	}
}
