package execledger

import (
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// The writer's path for call rows works on the typed Call: validateCall is
// decodeCall's rules in decodeCall's order with decodeCall's refusals,
// scanCall is Scan over the row's strings, and appendCallJSON is the
// upstream canonical encoding of Call.Map. None builds the map tree, and a
// location is spelled only when a check fails. The map path stays the
// reader's; tests and a fuzz target hold the two equal (refusal classes and
// details, bytes, totals).

// tcheck is check for typed values: the first refusal wins.
type tcheck struct {
	err     error
	amounts *amountMemo // ParseAmount, remembered
}

func (c *tcheck) fail(class *refusal.Refusal, format string, args ...any) {
	if c.err == nil {
		c.err = refusal.New(class, format, args...)
	}
}

func (c *tcheck) count(n int64, at, field string, min int64) {
	if n < min && c.err == nil {
		c.fail(ErrSchema, "%s: expected an integer of at least %d", at+field, min)
	}
}

func (c *tcheck) optCount(p *int64, at, field string, min int64) {
	if p != nil {
		c.count(*p, at, field, min)
	}
}

func (c *tcheck) seconds(v any, at, field string) {
	switch x := v.(type) {
	case nil:
	case int64:
		if x < 0 {
			c.fail(ErrSchema, "%s: a duration is never negative", at+field)
		}
	case float64:
		if x < 0 {
			c.fail(ErrSchema, "%s: a duration is never negative", at+field)
		}
	default:
		c.fail(ErrSchema, "%s: expected a number of seconds or null", at+field)
	}
}

func (c *tcheck) token(s string, at, field string) {
	if !isToken(s) {
		c.fail(ErrSchema, "%s: expected a bounded identifier with no whitespace", at+field)
	}
}

func (c *tcheck) optToken(p *string, at, field string) {
	if p != nil {
		c.token(*p, at, field)
	}
}

func (c *tcheck) digest(s string, at, field string) {
	if !IsDigest(s) {
		c.fail(ErrSchema, "%s: expected a 64-character lowercase SHA-256 digest", at+field)
	}
}

func (c *tcheck) optDigest(p *string, at, field string) {
	if p != nil {
		c.digest(*p, at, field)
	}
}

func (c *tcheck) optMember(p *string, allowed []string, at, field string) {
	if p != nil && !slices.Contains(allowed, *p) {
		c.fail(ErrVocabulary, "%s: not a value this build writes; allowed: %s", at+field, strings.Join(allowed, ", "))
	}
}

func (c *tcheck) member(s string, allowed []string, at, field string) {
	c.optMember(&s, allowed, at, field)
}

func (c *tcheck) optAmount(p *string, at, field string) {
	if p != nil {
		if _, ok := c.amounts.parse(*p); !ok {
			c.fail(ErrSchema, "%s: not the canonical rendering of a finite, non-negative decimal amount", at+field)
		}
	}
}

func (c *tcheck) instant(s string, at, field string) int64 {
	t, ok := parseInstant(s)
	if !ok {
		c.fail(ErrSchema, "%s: not a real instant in the form YYYY-MM-DDTHH:MM:SSZ", at+field)
	}
	return t
}

// validateCall is decodeCall(call.Map(), version) for a call whose seconds
// are normalised (nil, int64 or float64): the same refusal, or nil.
func validateCall(call *Call, version int, amounts *amountMemo) error {
	vc := vocabs[version]
	c := tcheck{amounts: amounts}
	c.count(call.CallIndex, "call", ".call_index", 0)
	where := "call " + itoa(int(call.CallIndex))
	c.count(call.InvocationIndex, where, ".invocation_index", 0)
	c.count(call.TurnIndex, where, ".turn_index", 0)
	c.digest(call.RequestDigest, where, ".request_digest_sha256")
	c.digest(call.PromptDigest, where, ".prompt_digest_sha256")
	c.digest(call.ObservationDigest, where, ".observation_digest_sha256")
	c.digest(call.PayloadDigest, where, ".payload_digest_sha256")
	c.optDigest(call.WireRequestDigest, where, ".wire_request_digest_sha256")
	c.optCount(call.WireRequestBytes, where, ".wire_request_bytes", 0)
	c.optMember(call.WireRequestMethod, []string{"POST"}, where, ".wire_request_method")
	if u := call.WireRequestURL; u != nil && c.err == nil && !isLedgerURL(*u) {
		c.fail(ErrSchema, "%s.wire_request_url: a recorded endpoint is a bare https scheme, host and path", where)
	}
	c.count(call.InputTokenUpperBound, where, ".input_token_upper_bound", 0)
	t0 := c.instant(call.StartedAt, where, ".started_at")
	t1 := c.instant(call.EndedAt, where, ".ended_at")
	c.seconds(call.TurnLatencySeconds, where, ".turn_latency_seconds")
	if tr := call.TerminalReason; tr != nil {
		c.token(*tr, where, ".terminal_reason")
		if c.err == nil && !slices.Contains(vc.turnReasons, *tr) {
			c.fail(ErrVocabulary, "%s.terminal_reason: not owned by execution ledger version %d", where, version)
		}
	}
	if c.err == nil && t1 < t0 {
		c.fail(ErrSchema, "%s: a call ended before it started", where)
	}
	if c.err == nil && len(call.Attempts) == 0 {
		c.fail(ErrSchema, "%s: a recorded call made at least one attempt", where)
	}
	if c.err != nil {
		return c.err
	}
	for i := range call.Attempts {
		a := &call.Attempts[i]
		if err := validateAttempt(a, where, i, vc, amounts); err != nil {
			return err
		}
		if a.AttemptIndex != int64(i+1) {
			return refusal.New(ErrSchema, "%s: attempt indexes are contiguous from 1", where)
		}
	}
	wire := []bool{call.WireRequestDigest == nil, call.WireRequestBytes == nil, call.WireRequestMethod == nil, call.WireRequestURL == nil}
	if slices.Contains(wire, true) && slices.Contains(wire, false) {
		return refusal.New(ErrSchema, "%s: the exact wire request is stated in full or not at all", where)
	}
	if d := call.Decision; d != nil {
		c.token(d.Kind, where, ".decision.kind")
		c.digest(d.DecisionDigest, where, ".decision.decision_digest_sha256")
		c.optToken(d.ClassificationCode, where, ".decision.classification_code")
		if c.err != nil {
			return c.err
		}
	}
	return call.rules(where, vc)
}

// validateAttempt is decodeAttempt for attempt i of the call at where.
func validateAttempt(a *Attempt, where string, i int, vc *vocab, amounts *amountMemo) error {
	at := where + ".attempts[" + itoa(i) + "]"
	c := tcheck{amounts: amounts}
	c.count(a.AttemptIndex, at, ".attempt_index", 1)
	c.member(a.Outcome, vc.outcomes, at, ".outcome")
	c.optMember(a.Fault, vc.faults, at, ".fault")
	c.optCount(a.HTTPStatus, at, ".http_status", 100)
	c.seconds(a.LatencySeconds, at, ".latency_seconds")
	c.optAmount(a.CostReservationUSD, at, ".cost_reservation_usd")
	c.optMember(a.CostSettlement, vc.settlements, at, ".cost_settlement")
	c.optAmount(a.CostMeasuredUSD, at, ".cost_measured_usd")
	c.optAmount(a.CostForfeitedUSD, at, ".cost_forfeited_usd")
	c.optCount(a.InputTokens, at, ".input_tokens", 0)
	c.optCount(a.OutputTokens, at, ".output_tokens", 0)
	c.optToken(a.ResponseModel, at, ".response_model")
	c.optDigest(a.ResponseIDDigest, at, ".response_id_digest_sha256")
	c.optMember(a.ResponseStopClassification, stopClasses, at, ".response_stop_classification")
	c.optDigest(a.ResponseNormalizedDigest, at, ".response_normalized_digest_sha256")
	if c.err != nil {
		return c.err
	}
	return a.rules(at, vc)
}

// scanCall is Scan(call.Map(), where) for a call validateCall accepted: the
// forbidden-content rules over every string of the row, in key order. The
// field names are constants no rule matches (a test holds them to Scan),
// and digests, instants and amounts are skipped: once validated they hold
// only lowercase hex, or digits with '-', ':', '.', 'T' and 'Z', and no rule
// can match them (their letters begin none of the patterns).
func scanCall(call *Call, where string) error {
	check := func(s string, path ...string) error {
		if label := forbidden(s); label != "" {
			return refusal.New(ErrForbiddenContent, "%s: %s; no credential, header or provider prose reaches an execution ledger (the value is not quoted)", where+strings.Join(path, ""), label)
		}
		return nil
	}
	opt := func(p *string, path ...string) error {
		if p == nil {
			return nil
		}
		return check(*p, path...)
	}
	for i := range call.Attempts {
		a := &call.Attempts[i]
		at := ".attempts[" + itoa(i) + "]"
		for _, f := range []struct {
			p    *string
			name string
		}{
			{a.CostSettlement, ".cost_settlement"}, {a.Fault, ".fault"}, {&a.Outcome, ".outcome"},
			{a.ResponseModel, ".response_model"}, {a.ResponseStopClassification, ".response_stop_classification"},
		} {
			if err := opt(f.p, at, f.name); err != nil {
				return err
			}
		}
	}
	if d := call.Decision; d != nil {
		if err := opt(d.ClassificationCode, ".decision.classification_code"); err != nil {
			return err
		}
		if err := check(d.Kind, ".decision.kind"); err != nil {
			return err
		}
	}
	if err := opt(call.TerminalReason, ".terminal_reason"); err != nil {
		return err
	}
	if err := opt(call.WireRequestMethod, ".wire_request_method"); err != nil {
		return err
	}
	return opt(call.WireRequestURL, ".wire_request_url")
}

// jsonWriter appends the upstream canonical encoding of typed values in
// both separator forms at once: compact to c, spaced (", " and ": ") to s.
// Scalars are the same bytes in both. The first error (an integer outside
// ±(2^53−1), a float with no JSON form, a string that is not UTF-8) sticks,
// as canon reports it.
type jsonWriter struct {
	c, s []byte
	err  error
	more bool // a member or element precedes in the current container
}

func (j *jsonWriter) sep() {
	if j.more {
		j.c = append(j.c, ',')
		j.s = append(j.s, ',', ' ')
	}
	j.more = true
}

// key opens a member (its name needs no escape).
func (j *jsonWriter) key(k string) {
	j.sep()
	j.c = append(j.c, '"')
	j.c = append(j.c, k...)
	j.c = append(j.c, '"', ':')
	j.s = append(j.s, '"')
	j.s = append(j.s, k...)
	j.s = append(j.s, '"', ':', ' ')
}

// raw appends the same bytes to both forms.
func (j *jsonWriter) raw(b []byte) {
	j.c = append(j.c, b...)
	j.s = append(j.s, b...)
}

func (j *jsonWriter) rawString(b string) {
	j.c = append(j.c, b...)
	j.s = append(j.s, b...)
}

func (j *jsonWriter) open(c byte) {
	j.c = append(j.c, c)
	j.s = append(j.s, c)
	j.more = false
}

func (j *jsonWriter) close(c byte) {
	j.c = append(j.c, c)
	j.s = append(j.s, c)
	j.more = true
}

func (j *jsonWriter) null() { j.rawString("null") }

func (j *jsonWriter) bool(v bool) {
	if v {
		j.rawString("true")
	} else {
		j.rawString("false")
	}
}

func (j *jsonWriter) int(n int64) {
	if n > canon.MaxSafeInteger || n < -canon.MaxSafeInteger {
		j.generic(n)
		return
	}
	var b [20]byte
	j.raw(strconv.AppendInt(b[:0], n, 10))
}

func (j *jsonWriter) optInt(p *int64) {
	if p == nil {
		j.null()
		return
	}
	j.int(*p)
}

func (j *jsonWriter) str(s string) {
	var esc byte
	for i := 0; i < len(s); i++ {
		esc |= needsCanon[s[i]]
	}
	if esc != 0 {
		j.generic(s)
		return
	}
	j.c = append(j.c, '"')
	j.c = append(j.c, s...)
	j.c = append(j.c, '"')
	j.s = append(j.s, '"')
	j.s = append(j.s, s...)
	j.s = append(j.s, '"')
}

func (j *jsonWriter) optStr(p *string) {
	if p == nil {
		j.null()
		return
	}
	j.str(*p)
}

// needsCanon is 1 for the bytes a string is not written raw with here:
// those canon escapes, and any byte of a multi-byte or invalid sequence
// (canon checks the encoding).
var needsCanon = func() (t [256]byte) {
	for c := range t {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			t[c] = 1
		}
	}
	return t
}()

// generic hands one scalar to canon (escapes, floats, refusals).
func (j *jsonWriter) generic(v any) {
	n := len(j.c)
	b, err := canon.Append(j.c, v, canon.UpstreamForm)
	if err != nil {
		if j.err == nil {
			j.err = err
		}
		return
	}
	j.c = b
	j.s = append(j.s, b[n:]...)
}

// seconds writes a normalised duration: nil, int64 or float64 (canon
// renders floats, and refuses NaN and infinities).
func (j *jsonWriter) seconds(v any) {
	switch x := v.(type) {
	case nil:
		j.null()
	case int64:
		j.int(x)
	default:
		j.generic(v)
	}
}

// The encoder's member writers are kept out of line: appendCallJSON is
// called once per row, after the writer has slept in fsync, so its code is
// usually cold, and a few kilobytes of calls load faster than tens of
// kilobytes of inlined appends.

//go:noinline
func (j *jsonWriter) kInt(k string, n int64) { j.key(k); j.int(n) }

//go:noinline
func (j *jsonWriter) kOptInt(k string, p *int64) { j.key(k); j.optInt(p) }

//go:noinline
func (j *jsonWriter) kStr(k string, s string) { j.key(k); j.str(s) }

//go:noinline
func (j *jsonWriter) kOptStr(k string, p *string) { j.key(k); j.optStr(p) }

//go:noinline
func (j *jsonWriter) kBool(k string, v bool) { j.key(k); j.bool(v) }

//go:noinline
func (j *jsonWriter) kSeconds(k string, v any) { j.key(k); j.seconds(v) }

//go:noinline
func (j *jsonWriter) kOpen(k string, c byte) { j.key(k); j.open(c) }

// appendCallJSON appends canon's upstream encodings of call.Map(), compact
// to dst and spaced (", " and ": ") to sdst; its keys in code-point order.
func appendCallJSON(dst, sdst []byte, call *Call) ([]byte, []byte, error) {
	j := &jsonWriter{c: dst, s: sdst}
	j.open('{')
	j.kOpen("attempts", '[')
	for i := range call.Attempts {
		a := &call.Attempts[i]
		j.sep()
		j.open('{')
		j.kInt("attempt_index", a.AttemptIndex)
		j.kOptStr("cost_forfeited_usd", a.CostForfeitedUSD)
		j.kOptStr("cost_measured_usd", a.CostMeasuredUSD)
		j.kOptStr("cost_reservation_usd", a.CostReservationUSD)
		j.kOptStr("cost_settlement", a.CostSettlement)
		j.kOptStr("fault", a.Fault)
		j.kOptInt("http_status", a.HTTPStatus)
		j.kOptInt("input_tokens", a.InputTokens)
		j.kSeconds("latency_seconds", a.LatencySeconds)
		j.kStr("outcome", a.Outcome)
		j.kOptInt("output_tokens", a.OutputTokens)
		j.kOptStr("response_id_digest_sha256", a.ResponseIDDigest)
		j.kOptStr("response_model", a.ResponseModel)
		j.kOptStr("response_normalized_digest_sha256", a.ResponseNormalizedDigest)
		j.kBool("response_received", a.ResponseReceived)
		j.kOptStr("response_stop_classification", a.ResponseStopClassification)
		j.kBool("usage_reported", a.UsageReported)
		j.close('}')
	}
	j.close(']')
	j.kInt("call_index", call.CallIndex)
	if d := call.Decision; d == nil {
		j.kOptStr("decision", nil)
	} else {
		j.kOpen("decision", '{')
		j.kOptStr("classification_code", d.ClassificationCode)
		j.kStr("decision_digest_sha256", d.DecisionDigest)
		j.kStr("kind", d.Kind)
		j.close('}')
	}
	j.kStr("ended_at", call.EndedAt)
	j.kInt("input_token_upper_bound", call.InputTokenUpperBound)
	j.kInt("invocation_index", call.InvocationIndex)
	j.kStr("observation_digest_sha256", call.ObservationDigest)
	j.kStr("payload_digest_sha256", call.PayloadDigest)
	j.kStr("prompt_digest_sha256", call.PromptDigest)
	j.kStr("request_digest_sha256", call.RequestDigest)
	j.kStr("started_at", call.StartedAt)
	j.kOptStr("terminal_reason", call.TerminalReason)
	j.kInt("turn_index", call.TurnIndex)
	j.kSeconds("turn_latency_seconds", call.TurnLatencySeconds)
	j.kOptInt("wire_request_bytes", call.WireRequestBytes)
	j.kOptStr("wire_request_digest_sha256", call.WireRequestDigest)
	j.kOptStr("wire_request_method", call.WireRequestMethod)
	j.kOptStr("wire_request_url", call.WireRequestURL)
	j.close('}')
	if j.err != nil {
		return dst, sdst, j.err
	}
	return j.c, j.s, nil
}
