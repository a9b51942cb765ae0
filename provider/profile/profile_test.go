package profile_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
)

// TestEmbeddedProfiles: every embedded profile reads, decides each of its
// lane's optional fields, and its digest is the canonical digest of its
// JSON value.
func TestEmbeddedProfiles(t *testing.T) {
	names := profile.Names()
	if len(names) != 4 {
		t.Fatalf("embedded %v", names)
	}
	lanes := map[string]bool{}
	for _, n := range names {
		p, err := profile.Embedded(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		lanes[p.Lane.ID()] = true
		if p.Run.Digest == "" || p.Run.Model == "" || !p.Run.ModelStated {
			t.Errorf("%s: %+v", n, p.Run)
		}
	}
	if len(lanes) != 3 {
		t.Errorf("the examples cover lanes %v", lanes)
	}
	for _, id := range profile.LaneIDs() {
		if _, err := profile.ForLane(id); err != nil {
			t.Errorf("lane %s has no preflight profile: %v", id, err)
		}
	}
	if _, err := profile.Embedded("claude-haiku"); refusalClass(err) != "profile/not-found" {
		t.Errorf("an alias: %v", err)
	}
	if g, _ := profile.Embedded("xai-grok-4.5"); g.Run.IdentifierLimitation == "" {
		t.Error("grok-4.5's identifier limitation is not recorded")
	}
}

func refusalClass(err error) string {
	c, _ := refusal.ClassOf(err)
	return string(c)
}

const good = `{"profile_version": 1, "lane": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-5",
 "max_output_tokens": 1024, "send": {"thinking": {"type": "disabled"}}, "omit": ["temperature", "top_k", "top_p"],
 "request_mapping": "obaudit_anthropic_messages_request_v1", "retry": "none",
 "turn_deadline_seconds": 30, "wall_clock_deadline_seconds": 1800, "credential_env": "ANTHROPIC_API_KEY",
 "default_base_url": "https://api.anthropic.com/v1", "model_stated_in_response": true, "identifier_limitation": null}`

func TestParseRefusals(t *testing.T) {
	p, err := profile.Parse([]byte(good), "good")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := canon.Parse([]byte(good))
	if d, _ := canon.UpstreamDigest(v); d != p.Run.Digest || p.Run.MaxOutputTokens != 1024 || p.CredentialEnv != "ANTHROPIC_API_KEY" {
		t.Errorf("%+v", p)
	}
	for name, edit := range map[string][2]string{
		"not json":           {`"identifier_limitation": null}`, `"identifier_limitation": null`},
		"duplicate key":      {`"retry": "none",`, `"retry": "none", "retry": "none",`},
		"unknown field":      {`"retry": "none",`, `"retry": "none", "temperature": 0,`},
		"a retry":            {`"retry": "none"`, `"retry": "3"`},
		"a lane":             {`"lane": "anthropic-messages"`, `"lane": "bedrock"`},
		"another provider":   {`"provider": "anthropic"`, `"provider": "openai"`},
		"another mapping":    {`_request_v1"`, `_request_v2"`},
		"undecided field":    {`"omit": ["temperature", "top_k", "top_p"]`, `"omit": ["temperature", "top_k"]`},
		"unknown field sent": {`"send": {"thinking": {"type": "disabled"}}`, `"send": {"thinking": {"type": "disabled"}, "seed": 1}`},
		"sent and omitted":   {`"omit": ["temperature", "top_k", "top_p"]`, `"omit": ["temperature", "thinking", "top_k", "top_p"]`},
		"ceiling":            {`"max_output_tokens": 1024`, `"max_output_tokens": 8192`},
		"credential":         {`"credential_env": "ANTHROPIC_API_KEY"`, `"credential_env": "CLAUDE_KEY"`},
		"model check waived": {`"model_stated_in_response": true`, `"model_stated_in_response": false`},
		"http endpoint":      {`"https://api.anthropic.com/v1"`, `"http://api.anthropic.com/v1"`},
		"a model with space": {`"claude-sonnet-5"`, `"claude sonnet"`},
	} {
		b := bytes.Replace([]byte(good), []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(b, []byte(good)) {
			t.Fatalf("%s: the edit does not apply", name)
		}
		if _, err := profile.Parse(b, name); refusalClass(err) != "profile/invalid" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !slices.Equal(profile.LaneIDs(), []string{"openai-responses", "anthropic-messages", "chat-completions"}) {
		t.Errorf("lanes %v", profile.LaneIDs())
	}
}

// TestSchemaIsTheEmbeddedOne: the schema file is what SchemaJSON returns.
func TestSchemaIsTheEmbeddedOne(t *testing.T) {
	if v, err := canon.Parse(profile.SchemaJSON()); err != nil || v.(map[string]any)["$id"] != profile.SchemaID {
		t.Errorf("schema: %v", err)
	}
}
