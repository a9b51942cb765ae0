package lane_test

import (
	"bytes"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	lanes "github.com/obaudit/obaudit/provider/profile"
)

// TestRequestIdentity: the request identity moves with what it pins (model,
// ceiling, observation, turn) and the wire body carries the observation's
// exact projection bytes.
func TestRequestIdentity(t *testing.T) {
	steps := referenceSteps(t)
	obs := steps[0].obs
	r, err := lane.BuildRequest(openai.Lane, obs, profile)
	if err != nil {
		t.Fatal(err)
	}
	if r.PayloadDigest != canon.SHA256Hex(r.Body) || r.InputTokenUpperBound != int64(len(r.Body))+provider.RequestOverheadTokenAllowance {
		t.Error("payload digest or bound is not taken over the body")
	}
	if r.RequestDigest == r.PayloadDigest || r.ObservationDigest != obs.Digest() {
		t.Error("identity digests")
	}
	v, err := canon.Parse(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := v.(map[string]any)
	content := body["input"].([]any)[0].(map[string]any)["content"].(string)
	if !bytes.Equal([]byte(content), obs.ProjectionJSON()) {
		t.Error("the user message is not the observation's projection")
	}
	if body["model"] != model || body["max_output_tokens"] != int64(provider.MaxOutputTokens) || body["tool_choice"] != "required" || body["store"] != false {
		t.Errorf("body fields %v", body)
	}
	again, _ := lane.BuildRequest(openai.Lane, obs, profile)
	if !bytes.Equal(again.Body, r.Body) || again.RequestDigest != r.RequestDigest {
		t.Error("building the same request twice differs")
	}
	other := map[string]lane.Profile{
		"model":   {Model: "a-different-model", MaxOutputTokens: provider.MaxOutputTokens},
		"ceiling": {Model: model, MaxOutputTokens: 512},
	}
	for name, p := range other {
		o, _ := lane.BuildRequest(openai.Lane, obs, p)
		if o.RequestDigest == r.RequestDigest {
			t.Errorf("another %s keeps the request identity", name)
		}
	}
	if next, _ := lane.BuildRequest(openai.Lane, steps[1].obs, profile); next.RequestDigest == r.RequestDigest || next.PromptDigest == r.PromptDigest {
		t.Error("another observation keeps the request identity")
	}
	if d, _ := lane.RequestDigest(profile, r.ObservationDigest, r.PromptDigest, r.InvocationIndex, r.TurnIndex+1); d == r.RequestDigest {
		t.Error("another turn keeps the request identity")
	}
}

// TestRequestsFitTheMeasuredBound: every request of every reference
// scenario, on every lane under its example profile, stays under the
// largest request the build's token ceiling was computed from, so the
// up-front worst case is a real bound.
func TestRequestsFitTheMeasuredBound(t *testing.T) {
	for _, sc := range []string{"V1", "V2", "V3"} {
		dom, ref := artefacttest.Cell(t, sc, "reference")
		r := &recorder{inner: ref.New()}
		if _, err := engine.Execute(dom, r, instance); err != nil {
			t.Fatal(err)
		}
		for _, id := range lanes.LaneIDs() {
			p, _ := lanes.ForLane(id)
			var largest int64
			for _, s := range r.steps {
				req, err := lane.BuildRequest(p.Lane, s.obs, p.Run)
				if err != nil {
					t.Fatal(err)
				}
				largest = max(largest, req.InputTokenUpperBound)
			}
			if largest > provider.LargestRequestTokenBound {
				t.Errorf("%s on %s: a request bounded at %d tokens passes the measured largest %d", sc, id, largest, provider.LargestRequestTokenBound)
			}
			t.Logf("%s on %s: %d turns, largest request bound %d", sc, id, len(r.steps), largest)
		}
	}
}

// TestArgumentsRoundTrip: every decision the reference agent makes in every
// scenario, stated as a function call, reads back as the same tape outcome.
func TestArgumentsRoundTrip(t *testing.T) {
	kinds := map[string]bool{}
	for _, sc := range []string{"V1", "V2", "V3"} {
		dom, ref := artefacttest.Cell(t, sc, "reference")
		r := &recorder{inner: ref.New()}
		if _, err := engine.Execute(dom, r, instance); err != nil {
			t.Fatal(err)
		}
		for i, s := range r.steps {
			name, args, ok := lane.Arguments(s.rec)
			if !ok {
				t.Fatalf("%s step %d: %v has no function-call form", sc, i, s.rec)
			}
			text, _ := canon.Upstream(args)
			a, err := openai.Lane.ParseAnswer(body(t, map[string]any{"output": []any{map[string]any{"type": "function_call", "name": name, "arguments": string(text)}}}), model)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Decision().Record(); !canonEqual(got, s.rec) {
				t.Errorf("%s step %d: %v read back as %v", sc, i, s.rec, got)
			}
			kinds[s.rec["kind"].(string)] = true
		}
	}
	// The reference never asks; an ASK with and without a correlation id.
	for _, corr := range []any{nil, "cycle_1"} {
		ask := (&engine.Ask{RecipientActorID: "customer_1", MessageFixtureID: "msg_x",
			Wait: &engine.Wait{Reason: "r", WakeOn: []string{"e"}, FallbackAfterMinutes: engine.Minutes(60)}}).Record()
		ask["correlation_id"] = corr
		name, args, ok := lane.Arguments(ask)
		if !ok || name != "ask" {
			t.Fatalf("ASK has no function-call form: %v", args)
		}
		text, _ := canon.Upstream(args)
		a, _ := openai.Lane.ParseAnswer(body(t, map[string]any{"output": []any{map[string]any{"type": "function_call", "name": name, "arguments": string(text)}}}), model)
		if got := a.Decision().Record(); !canonEqual(got, ask) {
			t.Errorf("%v read back as %v", ask, got)
		}
	}
	t.Logf("kinds covered: %v", kinds)
}

// TestToolSchemasHaveObjectRoots: every tool's parameter schema (the
// Anthropic lane's input_schema) has an object root with no root oneOf,
// anyOf or allOf, and requires exactly the arguments the decision reads.
func TestToolSchemasHaveObjectRoots(t *testing.T) {
	for _, s := range lane.ToolSpecs() {
		p := s.Parameters
		if p["type"] != "object" || p["additionalProperties"] != false {
			t.Errorf("%s: root %v", s.Name, p["type"])
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if _, ok := p[k]; ok {
				t.Errorf("%s: a root %s", s.Name, k)
			}
		}
		props := p["properties"].(map[string]any)
		if len(p["required"].([]any)) != len(props) {
			t.Errorf("%s: %d required of %d properties", s.Name, len(p["required"].([]any)), len(props))
		}
	}
}
