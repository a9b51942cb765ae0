package evaluator_test

import (
	"bytes"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

const fixtureV1 = "artifact8-deterministic-reference-v1.json"

// loadArtefact parses an upstream artefact fixture.
func loadArtefact(t testing.TB, name string) map[string]any {
	t.Helper()
	v, err := canon.Parse(upstreamtest.Read(t, name))
	if err != nil {
		t.Fatalf("canon.Parse(%s) = %v", name, err)
	}
	return v.(map[string]any)
}

func runOf(t testing.TB, doc map[string]any, replayOK *bool) evaluator.Run {
	t.Helper()
	r, err := evaluator.RunFromArtefact(doc, replayOK)
	if err != nil {
		t.Fatalf("RunFromArtefact = %v", err)
	}
	return r
}

func yes() *bool { b := true; return &b }

// TestUpstreamV1EvaluationByteIdentical is the reproduction claim: under
// engine 0.9.0, grading the fixture's trajectory, events and final state
// yields the fixture's evaluation section byte for byte (upstream
// canonical form).
func TestUpstreamV1EvaluationByteIdentical(t *testing.T) {
	for _, name := range []string{fixtureV1, "artifact8-fake-openai-reference-v1.json"} {
		t.Run(name, func(t *testing.T) { testByteIdentical(t, name) })
	}
}

func testByteIdentical(t *testing.T, name string) {
	doc := loadArtefact(t, name)
	if doc["engine_version"] != schemas.EngineUpstream {
		t.Fatalf("fixture engine_version = %v", doc["engine_version"])
	}
	ev, err := evaluator.Evaluate(schemas.EngineUpstream, maintenanceContract("V1"), runOf(t, doc, yes()))
	if err != nil {
		t.Fatalf("Evaluate = %v", err)
	}
	got, err := canon.Upstream(ev.Tree())
	if err != nil {
		t.Fatal(err)
	}
	want, err := canon.Upstream(doc["evaluation"])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("evaluation differs from the fixture:\n got %s\nwant %s", got, want)
	}
	if !ev.Reliable() {
		t.Fatalf("Reliable() = false")
	}
}

// TestObauditEngineLeavesV1Unchanged: the later notification rule has
// nothing to say about V1 (no transfer, no failed notice), so the obaudit
// engine grades it exactly as 0.9.0 does.
func TestObauditEngineLeavesV1Unchanged(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	ev, err := evaluator.Evaluate(schemas.EngineObaudit, maintenanceContract("V1"), runOf(t, doc, yes()))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := canon.Upstream(ev.Tree())
	want, _ := canon.Upstream(doc["evaluation"])
	if !bytes.Equal(got, want) {
		t.Fatalf("obaudit engine changed V1's evaluation:\n got %s\nwant %s", got, want)
	}
}

func TestUnknownEngineRefused(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	for _, v := range []string{"", "0.13.0", "0.9.0+obaudit.2", "0.9"} {
		_, err := evaluator.Evaluate(v, maintenanceContract("V1"), runOf(t, doc, yes()))
		if refusal.Of(err) != engine.ErrUnknownEngineVersion.Class {
			t.Errorf("Evaluate(%q) = %v, want class %s", v, err, engine.ErrUnknownEngineVersion.Class)
		}
	}
}

func TestContractRefused(t *testing.T) {
	doc := loadArtefact(t, fixtureV1)
	r := runOf(t, doc, yes())
	bad := []struct {
		name   string
		mutate func(c *engine.GradingContract) *engine.GradingContract
	}{
		{"nil", func(*engine.GradingContract) *engine.GradingContract { return nil }},
		{"a rule with no type", func(c *engine.GradingContract) *engine.GradingContract { c.Types.Notification = ""; return c }},
		{"no scenario", func(c *engine.GradingContract) *engine.GradingContract { c.Scenario.ScenarioID = ""; return c }},
		{"unknown read", func(c *engine.GradingContract) *engine.GradingContract {
			o := c.Outcomes["complete"]
			o.RequiredReads = append(o.RequiredReads, "list_everything")
			c.Outcomes["complete"] = o
			return c
		}},
		{"shapeless root", func(c *engine.GradingContract) *engine.GradingContract { delete(c.RootShapes, "phase"); return c }},
		{"unknown selector", func(c *engine.GradingContract) *engine.GradingContract {
			o := c.Outcomes["request_payment"]
			o.Selectors = append(o.Selectors, engine.EvidenceSelector{Kind: "free_text"})
			c.Outcomes["request_payment"] = o
			return c
		}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := evaluator.Evaluate(schemas.EngineUpstream, tc.mutate(maintenanceContract("V1")), r)
			if class, _ := refusal.ClassOf(err); class != evaluator.ErrContract.Class {
				t.Fatalf("Evaluate = %v, want class %s", err, evaluator.ErrContract.Class)
			}
		})
	}
}

// TestFreshRootIsTheLatestServedValue: a root reads as the value in the
// latest body that carries it (a null included), as upstream's dict of fresh
// records updated with each body in serving order.
func TestFreshRootIsTheLatestServedValue(t *testing.T) {
	bodies := []map[string]any{{"a": int64(1), "b": int64(2), "n": int64(5)}, {"a": int64(3), "n": nil}, {}}
	for _, c := range []struct {
		root string
		want any
	}{{"a", int64(3)}, {"b", int64(2)}, {"n", nil}, {"missing", nil}} {
		if got := evaluator.FreshRoot(bodies, c.root); got != c.want {
			t.Errorf("%s = %v, want %v", c.root, got, c.want)
		}
	}
	if got := evaluator.FreshRoot(nil, "a"); got != nil {
		t.Errorf("no bodies: %v", got)
	}
}
