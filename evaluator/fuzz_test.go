package evaluator_test

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// FuzzEvaluateEdit replaces one field of one record of upstream's V1 run
// (a trajectory row, a delivered event, or the final state) with an
// arbitrary JSON value and grades the result under both engines. Whatever
// the edit, Evaluate must return an evaluation or a refusal with a class —
// never panic, never a classless error.
func FuzzEvaluateEdit(f *testing.F) {
	base := upstreamtest.Read(f, fixtureV1)
	f.Add(uint8(0), uint16(4), "record_version", []byte(`"0000000000000000"`))
	f.Add(uint8(0), uint16(2), "invocation_index", []byte(`true`))
	f.Add(uint8(0), uint16(11), "record_type", []byte(`["x"]`))
	f.Add(uint8(0), uint16(300), "at", []byte(`"2031-3-3t9:0:0z"`))
	f.Add(uint8(0), uint16(150), "index", []byte(`150.0`))
	f.Add(uint8(1), uint16(0), "event_id", []byte(`null`))
	f.Add(uint8(1), uint16(3), "payload", []byte(`{"cycle_id":[1]}`))
	f.Add(uint8(2), uint16(0), "payment", []byte(`{"status":"SETTLED","settlement_id":{}}`))
	f.Add(uint8(2), uint16(0), "cycles", []byte(`{"work_cycle_3":"x"}`))
	f.Add(uint8(0), uint16(100), "payload", []byte(`{"invoice_id":"invoice_1","cycle_id":{"a":1}}`))
	f.Fuzz(func(t *testing.T, where uint8, at uint16, field string, value []byte) {
		v, err := canon.Parse(value)
		if err != nil {
			return
		}
		docAny, err := canon.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		doc := docAny.(map[string]any)
		switch where % 3 {
		case 0:
			rows := doc["trajectory"].([]any)
			rows[int(at)%len(rows)].(map[string]any)[field] = v
		case 1:
			evs := doc["events"].([]any)
			evs[int(at)%len(evs)].(map[string]any)[field] = v
		case 2:
			doc["final_state"].(map[string]any)[field] = v
		}
		r, err := evaluator.RunFromArtefact(doc, yes())
		if err != nil {
			return
		}
		for _, e := range schemas.Engines() {
			ev, err := evaluator.Evaluate(e, maintenanceContract("V1"), r)
			if err != nil {
				if _, ok := refusal.ClassOf(err); !ok {
					t.Fatalf("Evaluate(%s) = classless error %v", e, err)
				}
				continue
			}
			if _, err := canon.Upstream(ev.Tree()); err != nil {
				t.Fatalf("evaluation does not encode: %v", err)
			}
		}
	})
}

// FuzzEvaluateRun grades an arbitrary JSON document read as an artefact.
func FuzzEvaluateRun(f *testing.F) {
	f.Add([]byte(`{"status":"operation_deadlock","replay_final":false,"simulated_minutes":0,"agent_invocations":0,"final_state":{},"trajectory":[],"events":[]}`))
	f.Add([]byte(`{"status":"completed_successfully","replay_final":true,"simulated_minutes":1,"agent_invocations":1,"final_state":{"approvals":{},"quotes":{},"invoices":{},"cycles":{},"payment":{},"assertions":[],"authoritative_records":{},"exceptions":{},"obligations":{}},"trajectory":[{"index":0,"at":"2031-03-03T09:00:00Z","record_type":"agent_invoked","invocation_index":1},"x",{"index":2,"at":"2031-03-03T09:00:00Z","record_type":"retrieval_served","tool":"list_quotes","records":{"quotes":{}},"batch_index":0}],"events":[{"event_id":"a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Parse(data)
		if err != nil {
			return
		}
		doc, ok := v.(map[string]any)
		if !ok {
			return
		}
		r, err := evaluator.RunFromArtefact(doc, nil)
		if err != nil {
			return
		}
		for _, e := range schemas.Engines() {
			if _, err := evaluator.Evaluate(e, maintenanceContract("V2"), r); err != nil {
				if _, ok := refusal.ClassOf(err); !ok {
					t.Fatalf("classless error %v", err)
				}
			}
		}
	})
}
