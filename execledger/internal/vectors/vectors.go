// Package vectors generates the execution-ledger vectors under
// execledger/testdata/vectors/ledger: real journals written by this build's
// writer, then mutated by name (spec §11.1–11.6), each file opening with an
// age-style header that states the expected verdict and class:
//
//	expect: refused ledger/row-index
//	case: L3 rows 1 and 2 swapped
//	<blank line>
//	<the journal's bytes>
//
// "expect: ok <status>" marks a journal that must read with that status.
// Generation is deterministic (fixed fixtures, no randomness); the test
// TestVectorsUpToDate regenerates and diffs, so generator and files cannot
// drift. Regenerate with: go run ./execledger/internal/genvectors
package vectors

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
)

// Vector is one named case.
type Vector struct {
	Path   string // relative to testdata/vectors/ledger
	Expect string // "ok <status>" or "refused <class>"
	Case   string
	Data   []byte
}

// File renders the vector with its header.
func (v Vector) File() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "expect: %s\ncase: %s\n\n", v.Expect, v.Case)
	b.Write(v.Data)
	return b.Bytes()
}

type gen struct{ out []Vector }

func (g *gen) add(dir, name, expect, desc string, data []byte) {
	g.out = append(g.out, Vector{Path: dir + "/" + name + ".ndjson", Expect: expect, Case: desc, Data: data})
}

func refused(c string) string { return "refused " + c }

func noNL(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

func lines(b []byte) [][]byte { return bytes.SplitAfter(b, []byte("\n")) }

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func plainDigest(v any) string {
	d, err := canon.UpstreamDigest(v)
	if err != nil {
		panic(err)
	}
	return d
}

// Generate returns every vector, sorted by path.
func Generate() []Vector {
	var g gen
	scored := lt.Scored()
	excluded := lt.Excluded()
	base := func() []map[string]any { return lt.Rows(scored) }
	call := func(rows []map[string]any, i int) map[string]any { return rows[i]["call"].(map[string]any) }
	att := func(rows []map[string]any, i int) map[string]any {
		return call(rows, i)["attempts"].([]any)[0].(map[string]any)
	}
	term := func(rows []map[string]any) map[string]any { return rows[len(rows)-1]["terminal"].(map[string]any) }
	totals := func(rows []map[string]any) map[string]any { return term(rows)["totals"].(map[string]any) }
	hdr := func(rows []map[string]any) map[string]any { return rows[0]["header"].(map[string]any) }
	const v3 = "v3"

	// Genuine journals.
	g.add(v3, "ok-scored", "ok scored", "header, two answered calls, scored terminal", scored)
	g.add(v3, "ok-excluded", "ok excluded", "an answered and a faulted call, excluded provider_server_error (A13)", excluded)
	g.add(v3, "ok-no-newline@terminal", "ok scored", "L25 a valid final row simply lacking its newline", noNL(scored))
	g.add(v3, "ok-never-finalised", "ok incomplete", "T2 a journal never finalised", join(lines(scored)[:3]...))
	g.add(v3, "ok-torn-40@terminal", "ok incomplete", "T3 the last 40 bytes cut", scored[:len(scored)-41])
	g.add(v3, "ok-torn-3@terminal", "ok incomplete", "T5 the terminal row cut by 3 bytes", scored[:len(scored)-4])
	g.add(v3, "ok-torn-utf8@row2", "ok incomplete", "T4 header and call, then a cut inside a UTF-8 character inside a string",
		join(join(lines(scored)[:2]...), []byte("{\"terminal\":\"\xe2")))

	// §11.1 chain and row structure.
	r := base()
	call(r, 1)["wire_request_bytes"] = int64(1)
	g.add(v3, "edit-wire-bytes@row1", refused("ledger/row-digest"), "L1 call.wire_request_bytes=1 in row 1, rewritten", lt.Rewrite(r))
	r = base()
	call(r, 1)["wire_request_bytes"] = int64(1)
	lt.Redigest(r[1])
	g.add(v3, "edit-wire-bytes-redigest@row1", refused("ledger/back-link"), "L2 the same edit with row 1's own digest recomputed", lt.Rewrite(r))
	r = base()
	r[1], r[2] = r[2], r[1]
	g.add(v3, "swap@rows1-2", refused("ledger/row-index"), "L3 rows 1 and 2 (two calls) swapped", lt.Rewrite(r))
	r = base()
	r = append(r[:2], r[1:]...)
	g.add(v3, "duplicate@row1", refused("ledger/row-index"), "L4 row 1 duplicated", lt.Rewrite(r))
	g.add(v3, "append-copy@row1-after-terminal", refused("ledger/after-terminal"), "L5 a copy of row 1 appended after the terminal", join(scored, lines(scored)[1]))
	r = base()
	call(r, 1)["provider_note"] = "the provider said hello"
	lt.Redigest(r[1])
	g.add(v3, "unknown-field-redigest@row1", refused("ledger/schema"), "L6 call.provider_note prose field added, re-digested", lt.Rewrite(r))
	l := lines(scored)
	dup := append(bytes.TrimSuffix(noNL(l[1]), []byte("}")), []byte(", \"row_index\": 9}\n")...)
	g.add(v3, "duplicate-key@row1", refused("ledger/duplicate-key"), "L7 a duplicate row_index key in row 1", join(l[0], dup, l[2], l[3]))
	r = base()
	r[1]["row_kind"] = "note"
	g.add(v3, "row-kind-note@row1", refused("ledger/vocabulary"), "L8 row_kind note, rewritten", lt.Rewrite(r))
	r = base()
	r[0]["ledger_version"] = int64(4)
	g.add(v3, "ledger-version-4@row0", refused("ledger/version"), "L9 header ledger_version 4", lt.Rewrite(r))
	r = base()
	totals(r)["input_tokens"] = int64(1)
	g.add(v3, "edit-totals-rewritten@terminal", refused("ledger/row-digest"), "L10 terminal totals.input_tokens=1, rewritten", lt.Rewrite(r))
	for i, tail := range []string{"}{", "\xff", "{\"row_kind\":", "{}"} {
		g.add(v3, fmt.Sprintf("after-terminal-%d@row4", i), refused("ledger/after-terminal"),
			fmt.Sprintf("L13 non-empty bytes %q after a newline-terminated terminal", tail), join(scored, []byte(tail)))
		g.add(v3, fmt.Sprintf("glued-after-terminal-%d@row3", i), refused("ledger/not-json"),
			fmt.Sprintf("L14 bytes %q glued to the terminal row", tail), join(noNL(scored), []byte(tail)))
	}
	r = base()
	term(r)["unknown_field"] = "x"
	lt.Redigest(r[3])
	g.add(v3, "final-unknown-field@terminal", refused("ledger/schema"), "L15 final row (no newline) with an extra key, re-digested", noNL(lt.Rewrite(r)))
	r = base()
	delete(term(r), "ended_at")
	lt.Redigest(r[3])
	g.add(v3, "final-missing-field@terminal", refused("ledger/schema"), "L16 final row (no newline) missing a payload key, re-digested", noNL(lt.Rewrite(r)))
	g.add(v3, "final-non-object@row3", refused("ledger/schema"), "L17 final row is []", join(join(lines(scored)[:3]...), []byte("[]")))
	r = base()
	r[3]["row_kind"] = "note"
	r[3]["note"] = r[3]["terminal"]
	delete(r[3], "terminal")
	lt.Redigest(r[3])
	g.add(v3, "final-invalid-row-kind@terminal", refused("ledger/vocabulary"), "L18 final row kind note with its payload renamed, re-digested", noNL(lt.Rewrite(r)))
	r = base()
	r[3]["previous_row_digest_sha256"] = string(bytes.Repeat([]byte("f"), 64))
	lt.Redigest(r[3])
	g.add(v3, "final-back-link@terminal", refused("ledger/back-link"), "L19 final row back-link f×64, re-digested", noNL(lt.Rewrite(r)))
	r = base()
	r[3]["row_digest_sha256"] = string(bytes.Repeat([]byte("f"), 64))
	g.add(v3, "final-row-digest@terminal", refused("ledger/row-digest"), "L20 final row digest f×64", noNL(lt.Rewrite(r)))
	r = base()
	totals(r)["provider_calls"] = int64(3)
	lt.Redigest(r[3])
	g.add(v3, "final-totals@terminal", refused("ledger/totals"), "L21 terminal totals.provider_calls+1, re-digested", noNL(lt.Rewrite(r)))
	r = base()
	r[3]["ledger_version"] = int64(2)
	lt.Redigest(r[3])
	g.add(v3, "final-version-2@terminal", refused("ledger/version"), "L22/L24 the last row alone states version 2, re-digested", noNL(lt.Rewrite(r)))
	fin := noNL(lines(scored)[3])
	fdup := append(bytes.TrimSuffix(fin, []byte("}")), []byte(", \"row_kind\": \"terminal\"}")...)
	g.add(v3, "final-duplicate-key@terminal", refused("ledger/duplicate-key"), "L23 final row without newline carries a duplicate key", join(join(lines(scored)[:3]...), fdup))

	// §11.2 irrecoverable tails after header and a call.
	prefix := join(lines(scored)[:2]...)
	for i, frag := range []string{"}{", "{}garbage", "\xff", "\x80", "\xc0", "\xe2(", "\xed\xa0\x80", "\xf0\x80\x80\x80",
		"{\"x\":\"\\q", "{\"x\":\"\\u12x", "{\"x\":\"\x01", "{\"x\":]", "{\"x\" 1", "{\"x\"::", "{\"x\":1 \"y\"",
		"{\"x\":1,,", "{\"x\":01", "{\"x\":1.e", "{\"x\":truX", "{\"x\":True", "{}{}", "{\"x\":1}}", "{\"x\":1,}", "   ", "\"scalar", "["} {
		g.add(v3, fmt.Sprintf("tail-irrecoverable-%02d@row2", i), refused("ledger/not-json"), fmt.Sprintf("T9 irrecoverable final fragment %q", frag), join(prefix, []byte(frag)))
	}
	g.add(v3, "secret-tail@row2", refused("ledger/not-json"), "T10 a secret-shaped malformed tail is refused without echo",
		join(prefix, []byte("{\"private\":\"credential-secret-fragment-91c2\xff\"}")))
	g.add(v3, "empty", refused("ledger/row-order"), "an empty file has no verified header", nil)

	// §11.3 vocabulary and versions.
	// notRetryable is the excluded ledger at version with its second
	// attempt's fault made fault (not retryable), re-chained.
	notRetryable := func(version int64, fault string) []map[string]any {
		r := lt.Rows(excluded)
		att(r, 2)["fault"] = fault
		call(r, 2)["terminal_reason"] = "fault_not_retryable"
		totals(r)["fault_counts"] = map[string]any{fault: int64(1)}
		term(r)["exclusion_code"] = fault
		for _, row := range r {
			row["ledger_version"] = version
		}
		return r
	}
	rejected := func(version int64) []byte {
		r := notRetryable(version, "provider_request_rejected")
		a := att(r, 2)
		a["http_status"] = int64(400)
		a["response_received"] = false
		return lt.Rechain(r)
	}
	g.add(v3, "http-status-without-response@row2", refused("ledger/schema"), "V3 v3 attempt states HTTP 400 with response_received false, re-chained", rejected(3))
	g.add("v2", "ok-http-status-without-response", "ok excluded", "V4 the same attempt at version 2 is accepted", rejected(2))
	spend := func(version int64) []byte { return lt.Rechain(notRetryable(version, "provider_spend_limit")) }
	g.add("v2", "v3-only-fault@row2", refused("ledger/vocabulary"), "V10 a v3-only fault re-chained as version 2", spend(2))
	g.add(v3, "ok-v3-only-fault", "ok excluded", "V11 the same fault at version 3 reads", spend(3))
	r = lt.Rows(excluded)
	for _, row := range r {
		row["ledger_version"] = int64(2)
	}
	g.add("v2", "ok-excluded", "ok excluded", "V12 a v2 ledger with provider_server_error reads", lt.Rechain(r))
	r = base()
	call(r, 1)["terminal_reason"] = "future_terminal_reason"
	g.add(v3, "terminal-reason-future@row1", refused("ledger/vocabulary"), "V7 call terminal_reason future_terminal_reason, re-chained", lt.Rechain(r))
	r = lt.Rows(excluded)
	att(r, 2)["fault"] = "provider_transport"
	g.add(v3, "lifecycle-fault-on-attempt@row2", refused("ledger/vocabulary"), "V13 attempt fault provider_transport (a lifecycle fault), re-chained", lt.Rechain(r))
	r = base()
	att(r, 1)["response_stop_classification"] = "the model finished politely"
	g.add(v3, "stop-classification-prose@row1", refused("ledger/vocabulary"), "V14 stop classification prose, re-chained", lt.Rechain(r))
	r = lt.Rows(excluded)
	term(r)["exclusion_code"] = "the provider was unhappy"
	g.add(v3, "exclusion-code-prose@terminal", refused("ledger/vocabulary"), "V15 terminal exclusion code prose, re-chained", lt.Rechain(r))
	r = base()
	totals(r)["fault_counts"] = map[string]any{"provider_future_fault": int64(1)}
	g.add(v3, "fault-counts-unknown@terminal", refused("ledger/vocabulary"), "V9 fault_counts naming a fault the version does not own, re-chained", lt.Rechain(r))

	// §11.4 row-level refusals, re-chained past the writer.
	r = lt.Rows(excluded)
	call(r, 2)["decision"] = call(r, 1)["decision"]
	g.add(v3, "decision-on-fault@row2", refused("ledger/schema"), "O1 a decision on a call whose only attempt is a forfeited fault", lt.Rechain(r))
	r = base()
	att(r, 1)["input_tokens"] = nil
	att(r, 1)["output_tokens"] = nil
	g.add(v3, "usage-without-counts@row1", refused("ledger/schema"), "O2 usage_reported true with null token counts", lt.Rechain(r))
	r = base()
	att(r, 1)["cost_measured_usd"] = nil
	g.add(v3, "measured-without-amount@row1", refused("ledger/schema"), "O3 a measured settlement with a null measured cost", lt.Rechain(r))
	r = base()
	att(r, 1)["cost_measured_usd"] = "0.01"
	att(r, 1)["cost_forfeited_usd"] = "0.02"
	g.add(v3, "measured-and-forfeited@row1", refused("ledger/schema"), "O4 both measured and forfeited amounts", lt.Rechain(r))
	r = lt.Rows(excluded)
	a := att(r, 2)
	a["fault"], a["http_status"], a["response_received"] = "provider_timeout", nil, false
	a["response_model"], a["response_stop_classification"] = "gpt-5.6-luna", "completed"
	a["response_id_digest_sha256"] = string(bytes.Repeat([]byte("1"), 64))
	a["response_normalized_digest_sha256"] = string(bytes.Repeat([]byte("2"), 64))
	totals(r)["fault_counts"] = map[string]any{"provider_timeout": int64(1)}
	term(r)["exclusion_code"] = "provider_timeout"
	g.add(v3, "response-evidence-on-timeout@row2", refused("ledger/schema"), "O5 provider_timeout without a response carries response evidence", lt.Rechain(r))
	r = base()
	term(r)["exclusion_code"] = "provider_server_error"
	g.add(v3, "scored-with-code@terminal", refused("ledger/schema"), "O6 a scored terminal with an exclusion code", lt.Rechain(r))
	r = lt.Rows(excluded)
	term(r)["exclusion_code"] = nil
	g.add(v3, "excluded-without-code@terminal", refused("ledger/schema"), "O7 an excluded terminal without a code", lt.Rechain(r))
	r = base()
	hdr(r)["intended_artifact_version"] = int64(6)
	g.add(v3, "intended-artefact-6@row0", refused("ledger/schema"), "O8 header intended_artifact_version 6", lt.Rechain(r))

	// §11.5 forbidden content, in the header settings (digest re-derived).
	for i, bad := range lt.ForbiddenSettings() {
		r = base()
		settings := hdr(r)["provider"].(map[string]any)["settings"].(map[string]any)
		for k, v := range bad {
			settings[k] = v
		}
		g.add(v3, fmt.Sprintf("forbidden-S%d@row0", i+1), refused("ledger/forbidden-content"), fmt.Sprintf("S%d credential-shaped or unbounded text in header settings", i+1), lt.Rechain(r))
	}

	// §11.6 accounting, re-chained money edits.
	r = base()
	att(r, 1)["cost_measured_usd"], att(r, 2)["cost_measured_usd"] = "0.0001", "0.0001"
	totals(r)["measured_cost_usd"] = "0.0002"
	g.add(v3, "cheaper-measured@rows1-3", refused("ledger/arithmetic"), "A1 every measured cost 0.0001, terminal 0.0002", lt.Rechain(r))
	r = base()
	att(r, 1)["cost_reservation_usd"], att(r, 2)["cost_reservation_usd"] = "0.01", "0.01"
	totals(r)["reserved_usd"] = "0.02"
	g.add(v3, "smaller-reservation@rows1-3", refused("ledger/arithmetic"), "A2 every reservation 0.01, terminal 0.02", lt.Rechain(r))
	r = base()
	att(r, 1)["input_tokens"], att(r, 2)["input_tokens"] = int64(41), int64(41)
	totals(r)["input_tokens"] = int64(82)
	g.add(v3, "fewer-tokens@rows1-3", refused("ledger/arithmetic"), "A3 every input_tokens 41, terminal 82", lt.Rechain(r))
	r = base()
	call(r, 1)["input_token_upper_bound"], call(r, 2)["input_token_upper_bound"] = int64(100), int64(100)
	g.add(v3, "smaller-bound@rows1-2", refused("ledger/arithmetic"), "A4 every input_token_upper_bound 100", lt.Rechain(r))
	r = base()
	pricing := hdr(r)["controls"].(map[string]any)["pricing"].(map[string]any)
	pricing["input_usd_per_mtok"], pricing["output_usd_per_mtok"] = "0.01", "0.02"
	hdr(r)["controls"].(map[string]any)["pricing_digest_sha256"] = plainDigest(pricing)
	g.add(v3, "other-rate-table@row0", refused("ledger/arithmetic"), "A5 pricing 0.01/0.02 with a matching pricing digest", lt.Rechain(r))
	r = base()
	hdr(r)["controls"].(map[string]any)["max_output_tokens"] = int64(16)
	g.add(v3, "smaller-ceiling@row0", refused("ledger/arithmetic"), "A6 header max_output_tokens 16", lt.Rechain(r))
	r = lt.Rows(excluded)
	a = att(r, 2)
	a["cost_settlement"], a["cost_measured_usd"], a["cost_forfeited_usd"] = "measured", "0.0593425", nil
	totals(r)["forfeited_reservation_usd"], totals(r)["measured_cost_usd"] = "0", "0.06578625"
	g.add(v3, "measured-without-usage@row2", refused("ledger/schema"), "A7 a faulted attempt relabelled measured (no usage)", lt.Rechain(r))
	r = lt.Rows(excluded)
	att(r, 2)["cost_forfeited_usd"] = "0.01"
	totals(r)["forfeited_reservation_usd"] = "0.01"
	g.add(v3, "partial-forfeit@row2", refused("ledger/arithmetic"), "A11 a forfeited amount that is not the whole reservation", lt.Rechain(r))

	// Derived digests, admissibility and journal shape.
	r = base()
	hdr(r)["provider"].(map[string]any)["settings"].(map[string]any)["tool_choice"] = "auto"
	g.add(v3, "settings-digest@row0", refused("ledger/derived-digest"), "O9 settings edited, stated settings digest kept", lt.Rechain(r))
	r = base()
	hdr(r)["controls"].(map[string]any)["pricing"].(map[string]any)["policy_id"] = "another_policy"
	g.add(v3, "pricing-digest@row0", refused("ledger/derived-digest"), "pricing edited, stated pricing digest kept", lt.Rechain(r))
	r = base()
	hdr(r)["controls"].(map[string]any)["max_provider_calls"] = int64(1)
	hdr(r)["controls"].(map[string]any)["expected_provider_calls"] = int64(1)
	g.add(v3, "over-call-bound@row2", refused("ledger/inadmissible"), "a second call where max_provider_calls is 1", lt.Rechain(r))
	r = base()
	call(r, 2)["turn_index"] = int64(0)
	g.add(v3, "repeated-turn@row2", refused("ledger/inadmissible"), "a call repeating the previous (invocation, turn)", lt.Rechain(r))
	r = lt.Rows(excluded)
	term(r)["kind"], term(r)["exclusion_code"], term(r)["exclusion_detail"] = "scored", nil, ""
	g.add(v3, "scored-over-fault@terminal", refused("ledger/inadmissible"), "a scored terminal over a faulted call", lt.Rechain(r))
	r = base()
	term(r)["kind"], term(r)["exclusion_code"] = "excluded", "provider_server_error"
	term(r)["exclusion_detail"] = execledger.TerminalDetail("excluded")
	g.add(v3, "exclusion-without-cause@terminal", refused("ledger/inadmissible"), "an excluded terminal with nothing behind it", lt.Rechain(r))
	r = base()
	call(r, 2)["call_index"] = int64(5)
	g.add(v3, "call-index-gap@row2", refused("ledger/row-order"), "call_index 5 where one call precedes it", lt.Rechain(r))
	r = base()
	r = r[1:]
	g.add(v3, "call-before-header@row0", refused("ledger/row-order"), "a journal whose first row is a call", lt.Rechain(r))
	r = base()
	r = append(r[:1], append([]map[string]any{base()[0]}, r[1:]...)...)
	g.add(v3, "second-header@row1", refused("ledger/row-order"), "a second header row, re-chained", lt.Rechain(r))

	sort.Slice(g.out, func(i, j int) bool { return g.out[i].Path < g.out[j].Path })
	return g.out
}
