package evaluator_test

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// Each case edits upstream's reliable V1 record in one way and states what
// the evaluator must then say. A case names the dimension that must fail
// and a code that must be among its findings; nothing is compared with the
// evaluator's own output.

func rowsOf(doc map[string]any) []any { return doc["trajectory"].([]any) }

func row(doc map[string]any, i int) map[string]any { return rowsOf(doc)[i].(map[string]any) }

// findRow returns the index of the first trajectory row of a record type
// whose fields match.
func findRow(t *testing.T, doc map[string]any, recordType string, match map[string]any) int {
	t.Helper()
	for i, r := range rowsOf(doc) {
		m := r.(map[string]any)
		if m["record_type"] != recordType {
			continue
		}
		ok := true
		for k, v := range match {
			if m[k] != v {
				ok = false
			}
		}
		if ok {
			return i
		}
	}
	t.Fatalf("no %s row matching %v", recordType, match)
	return -1
}

// insertRows inserts rows before position at and renumbers every index.
func insertRows(doc map[string]any, at int, rows ...map[string]any) {
	old := rowsOf(doc)
	out := make([]any, 0, len(old)+len(rows))
	out = append(out, old[:at]...)
	for _, r := range rows {
		out = append(out, r)
	}
	out = append(out, old[at:]...)
	for i, r := range out {
		if m, ok := r.(map[string]any); ok {
			m["index"] = int64(i)
		}
	}
	doc["trajectory"] = out
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func event(doc map[string]any, id string) map[string]any {
	for _, e := range doc["events"].([]any) {
		if m := e.(map[string]any); m["event_id"] == id {
			return m
		}
	}
	return nil
}

func finalState(doc map[string]any) map[string]any { return doc["final_state"].(map[string]any) }

// setRow is the edit that sets one field of trajectory row i.
func setRow(i int, field string, v any) func(*testing.T, map[string]any) {
	return func(_ *testing.T, doc map[string]any) { row(doc, i)[field] = v }
}

// setEvent is the edit that sets one field of the delivered event id.
func setEvent(id, field string, v any) func(*testing.T, map[string]any) {
	return func(_ *testing.T, doc map[string]any) { event(doc, id)[field] = v }
}

// findingsOf grades doc as a V1 run whose replay held and returns the
// findings of dimension dim with one of codes, in order.
func findingsOf(t *testing.T, doc map[string]any, dim string, codes ...string) []evaluator.Finding {
	t.Helper()
	ev, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), runOf(t, doc, yes()))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := ev.Dimension(dim)
	var out []evaluator.Finding
	for _, f := range d.Findings {
		if slices.Contains(codes, f.Code) {
			out = append(out, f)
		}
	}
	return out
}

func hasCode(d *evaluator.Dimension, code string) bool {
	for _, f := range d.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

func TestMutationsAreFound(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(t *testing.T, doc map[string]any)
		dim     string
		code    string
		passing []string // dimensions that must still hold
	}{
		{
			name: "second payment on the same cycle",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "effect_accepted", map[string]any{"action_type": "request_payment"})
				dup := clone(row(doc, p))
				inv := clone(row(doc, p+1))
				insertRows(doc, p+2, dup, inv)
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_DUPLICATE_IRREVERSIBLE_ACTION",
		},
		{
			name: "an event mutates after the terminal",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "event_after_terminal", map[string]any{"event_id": "v1_e18"})
				r := row(doc, p)
				delete(r, "mutating")
				r["record_type"] = "event_observed"
				r["code"] = "ACCEPTED"
				r["observational"] = false
				e := event(doc, "v1_e18")
				e["disposition"] = "accepted"
				e["verdict_code"] = "ACCEPTED"
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_MUTATION_AFTER_TERMINAL",
		},
		{
			name: "a supplier claim becomes an authoritative record",
			mutate: func(t *testing.T, doc map[string]any) {
				finalState(doc)["authoritative_records"].(map[string]any)["assertion_1"] = map[string]any{"kind": "work_evidence"}
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_CLAIM_BECAME_FACT",
		},
		{
			name: "settlement names another amount",
			mutate: func(t *testing.T, doc map[string]any) {
				finalState(doc)["authoritative_records"].(map[string]any)["settlement_1"].(map[string]any)["amount_minor"] = int64(1)
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_SETTLEMENT_BINDING_MISMATCH",
		},
		{
			name: "work authorised on an approval for another cycle",
			mutate: func(t *testing.T, doc map[string]any) {
				finalState(doc)["approvals"].(map[string]any)["checkpoint_1"].(map[string]any)["cycle_id"] = "work_cycle_1"
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_WORK_AUTHORISED_WITHOUT_PRIOR_APPROVAL",
		},
		{
			name: "work authorised citing a checkpoint nobody opened",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "action_proposed", map[string]any{"action_type": "authorise_supplier_work"})
				row(doc, p)["payload"].(map[string]any)["approval_checkpoint_id"] = "checkpoint_9"
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_WORK_AUTHORISED_WITHOUT_PRIOR_APPROVAL",
		},
		{
			name: "payment proposal names another amount than the committed invoice",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "action_proposed", map[string]any{"action_type": "request_payment"})
				row(doc, p)["payload"].(map[string]any)["amount_minor"] = int64(99)
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_PAYMENT_WITHOUT_PRIOR_EVIDENCE",
		},
		{
			name: "an effect answers a proposal that is not in the record",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "effect_accepted", map[string]any{"action_type": "request_approval"})
				row(doc, p)["proposal_id"] = "proposal_99"
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_PROPOSAL_BINDING_MISMATCH",
		},
		{
			name: "effect bindings unreadable",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "effect_accepted", map[string]any{"action_type": "request_invoice_validation"})
				row(doc, p)["bindings"] = []any{"invoice_1"}
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_EFFECT_BINDINGS_UNREADABLE",
		},
		{name: "delivery and ledger disagree about the actor", mutate: setEvent("v1_e01", "actor_id", "supplier_1"),
			dim: evaluator.CriticalInvariants, code: "CRITICAL_EVENT_LEDGER_BINDING_MISMATCH"},
		{
			name: "completed with an obligation still open",
			mutate: func(t *testing.T, doc map[string]any) {
				obs := finalState(doc)["obligations"].(map[string]any)
				for _, k := range []string{"visit_progress:work_cycle_1"} {
					obs[k].(map[string]any)["status"] = "OPEN"
				}
			},
			dim: evaluator.CriticalInvariants, code: "CRITICAL_COMPLETION_WITH_OPEN_WORK",
		},
		{name: "index gap", mutate: setRow(5, "index", int64(500)),
			dim: evaluator.TemporalCorrectness, code: "TRAJECTORY_INDICES_NOT_CONTIGUOUS"},
		{name: "time runs backwards", mutate: setRow(40, "at", "2031-03-01T00:00:00Z"),
			dim: evaluator.TemporalCorrectness, code: "TRAJECTORY_TIMESTAMPS_NOT_MONOTONIC"},
		{name: "instant with an offset", mutate: setRow(40, "at", "2031-03-05T10:00:00+00:00"),
			dim: evaluator.TemporalCorrectness, code: "TRAJECTORY_TIMESTAMP_NOT_CANONICAL"},
		{name: "record type this build does not write", mutate: setRow(0, "record_type", "episode_started"),
			dim: evaluator.TemporalCorrectness, code: "TRAJECTORY_UNKNOWN_RECORD_TYPE"},
		{name: "record type that is a number", mutate: setRow(7, "record_type", int64(7)),
			dim: evaluator.TemporalCorrectness, code: "TRAJECTORY_UNKNOWN_RECORD_TYPE"},
		{name: "record type that is empty", mutate: setRow(7, "record_type", ""),
			dim: evaluator.TemporalCorrectness, code: "TRAJECTORY_UNKNOWN_RECORD_TYPE"},
		{name: "served record version tampered", mutate: setRow(4, "record_version", "0000000000000000"),
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_RECORD_VERSION_MISMATCH", passing: []string{evaluator.CriticalInvariants}},
		{
			name: "served records body edited without re-versioning",
			mutate: func(t *testing.T, doc map[string]any) {
				p := findRow(t, doc, "retrieval_served", map[string]any{"tool": "list_quotes", "invocation_index": int64(7)})
				row(doc, p)["records"].(map[string]any)["quotes"] = map[string]any{}
			},
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_RECORD_VERSION_MISMATCH",
		},
		{
			name: "served body projects a root of another read",
			mutate: func(t *testing.T, doc map[string]any) {
				row(doc, 5)["records"].(map[string]any)["payment"] = map[string]any{}
			},
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_RECORDS_NOT_THE_PUBLISHED_PROJECTION",
		},
		{
			name: "served body omits a root",
			mutate: func(t *testing.T, doc map[string]any) {
				delete(row(doc, 6)["records"].(map[string]any), "payment")
			},
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_RECORDS_NOT_THE_PUBLISHED_PROJECTION",
		},
		{
			name: "served root of another shape",
			mutate: func(t *testing.T, doc map[string]any) {
				row(doc, 4)["records"].(map[string]any)["phase"] = int64(3)
			},
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_RECORDS_NOT_THE_PUBLISHED_PROJECTION",
		},
		{name: "wake invalidation with an unknown cause", mutate: setRow(3, "cause", "nap"),
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_INVALIDATION_NOT_BOUND_TO_ITS_CAUSE"},
		{name: "read attributed to another invocation", mutate: setRow(6, "invocation_index", int64(2)),
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_INVOCATION_BINDING_BROKEN"},
		{name: "served row with an unknown authority", mutate: setRow(4, "authority", "authoritative_verification"),
			dim: evaluator.TemporalCorrectness, code: "RETRIEVAL_RESULT_VOCABULARY_UNKNOWN"},
		{
			name: "a trajectory row that is not a record",
			mutate: func(t *testing.T, doc map[string]any) {
				doc["trajectory"] = append(rowsOf(doc), "not a row")
			},
			dim: evaluator.RetrievalDiscipline, code: "MALFORMED_TRAJECTORY_ROW",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := loadArtefact(t, fixtureV1)
			tc.mutate(t, doc)
			ev, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), runOf(t, doc, yes()))
			if err != nil {
				t.Fatalf("Evaluate = %v", err)
			}
			if ev.Reliable() {
				t.Fatalf("the edited record is still graded reliable")
			}
			d, _ := ev.Dimension(tc.dim)
			if d.OK || !hasCode(d, tc.code) {
				t.Fatalf("%s: ok=%v findings=%v, want %s", tc.dim, d.OK, d.Findings, tc.code)
			}
			for _, name := range tc.passing {
				if p, _ := ev.Dimension(name); !p.OK {
					t.Errorf("%s failed too: %v", name, p.Findings)
				}
			}
		})
	}
}

// TestUndeclaredRejection: the same post-terminal delivery is expected in
// V1 (declared) and a desync when the scenario does not declare it.
func TestUndeclaredRejection(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	c := maintenanceContract("V1")
	c.Scenario.ExpectedEventRejections = map[string]string{}
	ev, err := evaluator.Evaluate(schemas.EngineUpstream, c, runOf(t, doc, yes()))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := ev.Dimension(evaluator.EnvironmentIntegrity)
	if d.OK || !hasCode(d, "UNEXPECTED_EVENT_REJECTION") {
		t.Fatalf("environment_integrity = %+v, want UNEXPECTED_EVENT_REJECTION", d)
	}
	if n, _ := d.Count("unexpected_post_terminal"); n != 1 {
		t.Fatalf("unexpected_post_terminal = %d, want 1", n)
	}
	if got := ev.FailedDimensions(); !slices.Equal(got, []string{evaluator.EnvironmentIntegrity}) {
		t.Fatalf("FailedDimensions = %v", got)
	}
}

func TestReplayDimension(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	no := false
	for _, tc := range []struct {
		replay *bool
		code   string
	}{{nil, "REPLAY_NOT_CHECKED"}, {&no, "REPLAY_DIVERGED"}} {
		ev, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), runOf(t, doc, tc.replay))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := ev.Dimension(evaluator.DeterministicReplay)
		if d.OK || !hasCode(d, tc.code) || ev.Reliable() {
			t.Errorf("replay %v: %+v reliable=%v, want %s", tc.replay, d, ev.Reliable(), tc.code)
		}
		if got := ev.FailedDimensions(); !slices.Equal(got, []string{evaluator.DeterministicReplay}) {
			t.Errorf("FailedDimensions = %v", got)
		}
	}
}

func TestWrongScenarioTerminal(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	ev, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V2"), runOf(t, doc, yes()))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := ev.Dimension(evaluator.TerminalOutcome)
	if d.OK || !hasCode(d, "WRONG_TERMINAL") || ev.LegitimateCompletion {
		t.Fatalf("terminal_outcome = %+v legit=%v, want WRONG_TERMINAL", d, ev.LegitimateCompletion)
	}
}

func TestUnreadableRecordsRefused(t *testing.T) {
	cases := map[string]func(doc map[string]any){
		"record type is a list": func(doc map[string]any) { row(doc, 7)["record_type"] = []any{"retrieval_served"} },
		"record type is an object": func(doc map[string]any) {
			row(doc, 40)["record_type"] = map[string]any{"agent_invoked": true}
		},
		"final state lacks cycles": func(doc map[string]any) {
			delete(finalState(doc), "cycles")
		},
		"an approval that is not a mapping": func(doc map[string]any) {
			finalState(doc)["approvals"].(map[string]any)["checkpoint_1"] = "granted"
		},
		"a delivered event that is not a mapping": func(doc map[string]any) {
			doc["events"] = append(doc["events"].([]any), int64(3))
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			doc := loadArtefact(t, fixtureV1)
			mutate(doc)
			r := runOf(t, doc, yes())
			_, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), r)
			if refusal.Of(err) != evaluator.ErrUnreadableRecord.Class {
				t.Fatalf("Evaluate = %v, want %s", err, evaluator.ErrUnreadableRecord.Class)
			}
		})
	}
}

// TestRecordVersionPerRow: each served row's version is held to its own
// body, also where the same tool served the same body just before (the
// evaluator digests such a repeat once): a tampered version or an edited
// body in a repeat is found at that row and no other, and the row after an
// edited body is held to its own body again.
func TestRecordVersionPerRow(t *testing.T) {
	// served returns the positions of three served rows of one tool whose
	// bodies are equal.
	served := func(doc map[string]any) []int {
		byTool := map[any][]int{}
		for i, r := range rowsOf(doc) {
			m := r.(map[string]any)
			if m["record_type"] != "retrieval_served" {
				continue
			}
			ps := byTool[m["tool"]]
			if len(ps) > 0 && !reflect.DeepEqual(row(doc, ps[len(ps)-1])["records"], m["records"]) {
				ps = ps[:0]
			}
			if ps = append(ps, i); len(ps) == 3 {
				return ps
			}
			byTool[m["tool"]] = ps
		}
		t.Fatal("no tool serves one body three times running")
		return nil
	}
	mismatches := func(t *testing.T, doc map[string]any) []string {
		var at []string
		for _, f := range findingsOf(t, doc, evaluator.TemporalCorrectness, "RETRIEVAL_RECORD_VERSION_MISMATCH") {
			at = append(at, strings.Fields(f.Detail)[1])
		}
		return at
	}
	for name, tc := range map[string]func(t *testing.T, doc map[string]any, p []int){
		"version tampered in a repeat": func(t *testing.T, doc map[string]any, p []int) {
			row(doc, p[1])["record_version"] = "0000000000000000"
		},
		"body edited in a repeat": func(t *testing.T, doc map[string]any, p []int) {
			body := clone(row(doc, p[1])["records"].(map[string]any))
			edited := false
			for _, k := range slices.Sorted(maps.Keys(body)) {
				switch x := body[k].(type) {
				case string:
					body[k], edited = x+" (edited)", true
				case map[string]any:
					body[k], edited = map[string]any{"edited": true}, true
				case []any:
					body[k], edited = append(slices.Clone(x), "edited"), true
				}
				if edited {
					break
				}
			}
			if !edited {
				t.Fatal("the repeated body has no text, object or list root to edit")
			}
			row(doc, p[1])["records"] = body
		},
	} {
		t.Run(name, func(t *testing.T) {
			doc := loadArtefact(t, fixtureV1)
			p := served(doc)
			if got := mismatches(t, doc); len(got) != 0 {
				t.Fatalf("unedited record: mismatches at rows %v", got)
			}
			tc(t, doc, p)
			if got, want := mismatches(t, doc), []string{strconv.Itoa(p[1])}; !slices.Equal(got, want) {
				t.Fatalf("mismatches at rows %v, want %v", got, want)
			}
		})
	}
}

// TestReadMovedInsideAWindow: a read the next proposal rests on, served again
// at another version before it inside one uninvalidated window, is a stale
// record; served again at the same version, it is not.
func TestReadMovedInsideAWindow(t *testing.T) {
	const moved = "served more than once at more than one version"
	c := maintenanceContract("V1")
	for _, tc := range []struct {
		name    string
		version func(was any) any
		want    bool
	}{
		{"another version", func(any) any { return "0000000000000000" }, true},
		{"the same version", func(was any) any { return was }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := loadArtefact(t, fixtureV1)
			// The first proposal that rests on a read, and the last serve
			// of that read before it.
			p, served := -1, -1
			for i, r := range rowsOf(doc) {
				m := r.(map[string]any)
				if m["record_type"] != "action_proposed" {
					continue
				}
				reads := c.Outcomes[m["action_type"].(string)].RequiredReads
				for j := i - 1; j >= 0 && len(reads) > 0 && served < 0; j-- {
					if s := row(doc, j); s["record_type"] == "retrieval_served" && s["tool"] == reads[0] {
						served = j
					}
				}
				if served >= 0 {
					p = i
					break
				}
			}
			if p < 0 {
				t.Fatal("no proposal rests on a read served before it")
			}
			again := clone(row(doc, served))
			again["record_version"] = tc.version(again["record_version"])
			insertRows(doc, served+1, again)
			found := false
			for _, f := range findingsOf(t, doc, evaluator.RetrievalDiscipline, "STALE_RETRIEVED_RECORD") {
				if strings.Contains(f.Detail, moved) {
					found = true
				}
			}
			if found != tc.want {
				t.Fatalf("a read served again at %s: moved-record finding %v, want %v", tc.name, found, tc.want)
			}
		})
	}
}

// TestBatchGrammar edits V1's first batch (rows 4 to 10: seven reads of
// invocation 1, batch 0, one instant) and states the batch findings that
// must follow, by the start of their detail, in order.
func TestBatchGrammar(t *testing.T) {
	const (
		notCanonical = "batch 0 of invocation 1 served 7 result(s) that are not the canonical, duplicate-free request order"
		twoInstants  = "a batch's results state 2 different instants"
	)
	setAll := func(field string, v func(i int) any) func(*testing.T, map[string]any) {
		return func(_ *testing.T, doc map[string]any) {
			for i := 4; i <= 10; i++ {
				row(doc, i)[field] = v(i)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*testing.T, map[string]any)
		want   []string
	}{
		{"unedited", func(*testing.T, map[string]any) {}, nil},
		{"two reads out of order", func(_ *testing.T, doc map[string]any) {
			row(doc, 5)["tool"], row(doc, 6)["tool"] = row(doc, 6)["tool"], row(doc, 5)["tool"]
		}, []string{notCanonical}},
		{"one read twice in a row", setRow(5, "tool", "get_case_record"), []string{notCanonical}},
		{"one read twice apart", setRow(10, "tool", "get_case_record"), []string{notCanonical}},
		{"a request index out of place", setRow(6, "request_index", int64(7)),
			[]string{"a batch's results are indexed [0, 1, 7, 3, 4, 5, 6], not contiguously from zero"}},
		{"an instant of its own", setRow(8, "as_of", "2031-03-03T09:00:01Z"), []string{twoInstants}},
		{"one instant, not text", setAll("as_of", func(i int) any {
			if i == 10 {
				return 1.0 // Python: 1 == 1.0, one set member
			}
			return int64(1)
		}), nil},
		{"text and a number", setRow(8, "as_of", int64(1)), []string{twoInstants}},
		{"all out of order, indexed wrong, two instants", func(t *testing.T, doc map[string]any) {
			setRow(4, "tool", "zzz")(t, doc)
			setRow(4, "request_index", int64(9))(t, doc)
			setRow(10, "as_of", "2031-03-03T09:00:01Z")(t, doc)
		}, []string{notCanonical, "a batch's results are indexed [9, 1, 2, 3, 4, 5, 6]", twoInstants}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := loadArtefact(t, fixtureV1)
			tc.mutate(t, doc)
			var got []string
			for _, f := range findingsOf(t, doc, evaluator.TemporalCorrectness,
				"RETRIEVAL_BATCH_NOT_CANONICAL", "RETRIEVAL_BATCH_ORDER_BROKEN", "RETRIEVAL_AS_OF_NOT_ONE_INSTANT") {
				got = append(got, f.Detail)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("batch findings %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Fatalf("batch finding %d is %q, want it to start %q", i, got[i], tc.want[i])
				}
			}
		})
	}
	t.Run("an instant that cannot be a set member", func(t *testing.T) {
		doc := loadArtefact(t, fixtureV1)
		row(doc, 8)["as_of"] = []any{}
		_, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), runOf(t, doc, yes()))
		if c, _ := refusal.ClassOf(err); c != evaluator.ErrUnreadableRecord.Class {
			t.Fatalf("Evaluate = %v, want %s", err, evaluator.ErrUnreadableRecord.Class)
		}
	})
}
