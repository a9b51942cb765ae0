package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/obaudit/obaudit/campaign/campaigntest"
)

// TestEveryCommandJSONRefusal walks EVERY runnable command of the tree with
// --json and a refused input (most of them a file of the wrong kind) and
// parses stdout as exactly one JSON document saying ok=false with the
// refusal's class and the exit code. A command added without a case here
// fails the test.
func TestEveryCommandJSONRefusal(t *testing.T) {
	dir := campaigntest.TempDir(t)
	t.Chdir(dir)
	must := func(args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("setup %v: exit %d: %s", args, code, errb.String())
		}
	}
	must("run", "--scenario", "V1", "--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--output", "art.json")
	must("keygen", "--output", "k")
	must("sign", "--key", "k.key", "--output", "art.sigstore.json", "art.json")
	os.WriteFile("dup.json", []byte(`{"a":1,"a":2}`), 0o644)
	os.WriteFile("ledger.ndjson", []byte("{\"header\": {\"ledger_version\": 3}}\n{\"index\": 1}\n"), 0o644)
	os.Mkdir("pf", 0o700)
	os.Mkdir("badcamp", 0o755)
	os.WriteFile("badcamp/plan.json", []byte(`{"a":1,"a":2}`), 0o644)

	const wrongKind = "input/wrong-kind"
	cases := map[string]struct {
		args  []string
		class string
		exit  int
	}{
		"version":          {[]string{"version", "extra"}, classUsage, exitUsage}, // it reads no input
		"run":              {[]string{"run", "--scenario", "V1", "--agent", "nobody"}, "agent/unknown", exitRefused},
		"check":            {[]string{"check", "--oracle", "ledger.ndjson"}, wrongKind, exitRefused},
		"canon":            {[]string{"canon", "dup.json"}, "canon/duplicate-key", exitRefused},
		"digest":           {[]string{"digest", "dup.json"}, "canon/duplicate-key", exitRefused},
		"ledger verify":    {[]string{"ledger", "verify", "art.json"}, wrongKind, exitRefused},
		"bundle":           {[]string{"bundle", "ledger.ndjson", "art.json"}, wrongKind, exitRefused},
		"keygen":           {[]string{"keygen", "--output", "k"}, "fs/exists", exitRefused},
		"sign":             {[]string{"sign", "--key", "k.pub", "art.json"}, wrongKind, exitRefused},
		"verify":           {[]string{"verify", "--bundle", "art.json", "--key", "k.pub", "art.json"}, wrongKind, exitRefused},
		"commit":           {[]string{"commit", "--key", "k.key", "--origin", "obaudit.example/c", "--output", "camp", "art.sigstore.json", "art.sigstore.json"}, "checkpoint/duplicate-leaf", exitRefused},
		"verify-inclusion": {[]string{"verify-inclusion", "--key", "k.pub", "--proof", "art.json", "art.sigstore.json"}, wrongKind, exitRefused},
		"export agent-run": {[]string{"export", "agent-run", "ledger.ndjson"}, wrongKind, exitRefused},
		"report":           {[]string{"report", "ledger.ndjson"}, wrongKind, exitRefused},
		"validate":         {[]string{"validate", "ledger.ndjson"}, wrongKind, exitRefused},
		"replay":           {[]string{"replay", "k.key"}, wrongKind, exitRefused},
		"preflight":        {[]string{"preflight", "--output-dir", "pf", "--max-calls", "61"}, "preflight/call-bound", exitRefused},
		"arms validate":    {[]string{"arms", "validate", "ledger.ndjson"}, "input/wrong-kind", exitRefused},
		"arms replay":      {[]string{"arms", "replay", "art.json"}, "input/wrong-kind", exitRefused},
		"arms verify":      {[]string{"arms", "verify", "art.json", "ledger.ndjson"}, "input/wrong-kind", exitRefused},
		"campaign plan":    {[]string{"campaign", "plan", "dup.json", "--output", "c1", "--key", "k.key"}, "campaign/file-invalid", exitRefused},
		"campaign run":     {[]string{"campaign", "run", "badcamp", "--key", "k.key"}, "campaign/plan-invalid", exitRefused},
		"campaign report":  {[]string{"campaign", "report", "badcamp"}, "campaign/plan-invalid", exitRefused},
		"campaign verify":  {[]string{"campaign", "verify", "badcamp"}, "campaign/plan-invalid", exitRefused},
		"campaign merge":   {[]string{"campaign", "merge", "badcamp", "--key", "k.key"}, "campaign/plan-invalid", exitRefused},
		// Completion reads no input: an extra argument is its usage error.
		"completion bash":       {[]string{"completion", "bash", "x"}, classUsage, exitUsage},
		"completion zsh":        {[]string{"completion", "zsh", "x"}, classUsage, exitUsage},
		"completion fish":       {[]string{"completion", "fish", "x"}, classUsage, exitUsage},
		"completion powershell": {[]string{"completion", "powershell", "x"}, classUsage, exitUsage},
	}
	var walked []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.TrimPrefix(c.CommandPath(), "obaudit")
		path = strings.TrimSpace(path)
		if !c.Runnable() || c.HasSubCommands() || c.Hidden || path == "help" {
			return // grouping commands are usage errors (usage.txtar); help is help
		}
		walked = append(walked, path)
		tc, ok := cases[path]
		if !ok {
			t.Errorf("command %q has no --json refusal case here", path)
			return
		}
		// --json first, last, and in the middle: a global flag anywhere.
		for _, args := range [][]string{append([]string{"--json"}, tc.args...), append(slices.Clone(tc.args), "--json")} {
			var out, errb bytes.Buffer
			code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
			if code != tc.exit {
				t.Errorf("%v: exit %d, want %d; stderr %q", args, code, tc.exit, errb.String())
				continue
			}
			doc := oneJSON(t, out.Bytes())
			if doc["ok"] != false {
				t.Errorf("%v: ok = %v", args, doc["ok"])
			}
			class, _ := doc["class"].(string)
			if r, ok := doc["refusal"].(map[string]any); ok && class == "" { // validate's own report
				class, _ = r["class"].(string)
			} else if doc["exit"] != float64(tc.exit) {
				t.Errorf("%v: exit field %v, want %d", args, doc["exit"], tc.exit)
			}
			if class != tc.class {
				t.Errorf("%v: class %q, want %q (%s)", args, class, tc.class, out.String())
			}
		}
	}
	walk(commandTree())
	for path := range cases {
		if !slices.Contains(walked, path) {
			t.Errorf("case %q names no command", path)
		}
	}
}

// TestJSONFailureOutcomes: a usage error (even one cobra cannot parse) and
// an I/O failure are one JSON document too.
func TestJSONFailureOutcomes(t *testing.T) {
	t.Chdir(campaigntest.TempDir(t))
	for _, tc := range []struct {
		args  []string
		class string
		exit  int
	}{
		{[]string{"ledger", "verfy", "L", "--json"}, classUsage, exitUsage},
		{[]string{"canon", "--nosuch", "--json", "x"}, classUsage, exitUsage},
		{[]string{"--json", "nosuch"}, classUsage, exitUsage},
		{[]string{"--json=true", "canon", "missing.json"}, classFailure, exitFailure},
		{[]string{"report", "--json", "missing.json"}, classFailure, exitFailure},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
		doc := oneJSON(t, out.Bytes())
		if code != tc.exit || doc["class"] != tc.class || doc["exit"] != float64(tc.exit) || doc["ok"] != false {
			t.Errorf("%v: exit %d, document %v", tc.args, code, doc)
		}
	}
	// --json=false, or after "--", is not --json.
	for _, args := range [][]string{{"--json=false", "nosuch"}, {"canon", "--", "--json"}} {
		var out, errb bytes.Buffer
		run(context.Background(), args, strings.NewReader(""), &out, &errb)
		if out.Len() != 0 {
			t.Errorf("%v wrote %q to stdout", args, out.String())
		}
	}
}

// commandTree is a fresh command tree, for walking.
func commandTree() *cobra.Command {
	var g globals
	return newRootCmd(&g, nil, io.Discard, io.Discard)
}

// TestEveryCommandJSONSuccess runs EVERY runnable command once with --json
// on an input it accepts, in an order where each finds what an earlier one
// wrote, and parses stdout as exactly one JSON document.
func TestEveryCommandJSONSuccess(t *testing.T) {
	t.Chdir(campaigntest.TempDir(t))
	os.Mkdir("pf", 0o700)
	// The smallest campaign: one agent, one variant, one trial.
	os.WriteFile("camp.json", []byte(`{"format":"obaudit-campaign/v1","name":"json-walk","origin":"obaudit.example/campaign/json-walk",
"seed":"json-walk","engine_version":"0.9.0+obaudit.1","variants":["V1"],"agents":["reference"],"model_profiles":[],
"arms":["full_lifecycle"],"trials":1,"stability_k":1,"comparisons":[],
"bounds":{"per_trial":{"calls":0,"tokens":0,"cost_usd":"0","wall_seconds":0},"aggregate":{"calls":0,"tokens":0,"cost_usd":"0","wall_seconds":0}},
"rates":{"input_usd_per_mtok":"0","output_usd_per_mtok":"0","pricing_policy_id":"none"}}`), 0o644)
	steps := []struct {
		path string
		args []string
	}{
		{"version", []string{"version"}},
		{"run", []string{"run", "--scenario", "V1", "--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--output", "./art.json"}},
		{"check", []string{"check"}},
		{"canon", []string{"canon", "art.json"}},
		{"digest", []string{"digest", "art.json"}},
		{"preflight", []string{"preflight", "--output-dir", "./pf", "--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef"}},
		{"ledger verify", []string{"ledger", "verify", "pf/opinst_0123456789abcdef0123456789abcdef.execution_ledger.ndjson"}},
		{"bundle", []string{"bundle", "pf/opinst_0123456789abcdef0123456789abcdef.episode_artifact.json", "pf/opinst_0123456789abcdef0123456789abcdef.execution_ledger.ndjson"}},
		{"keygen", []string{"keygen", "--output", "./k"}},
		{"sign", []string{"sign", "--key", "k.key", "--output", "./art.sigstore.json", "art.json"}},
		{"verify", []string{"verify", "--bundle", "art.sigstore.json", "--key", "k.pub", "art.json"}},
		{"commit", []string{"commit", "--key", "k.key", "--origin", "obaudit.example/c", "--output", "camp", "art.sigstore.json"}},
		{"verify-inclusion", []string{"verify-inclusion", "--key", "k.pub", "--proof", "camp/art.tlog-proof", "--checkpoint", "camp/checkpoint", "art.sigstore.json"}},
		{"export agent-run", []string{"export", "agent-run", "art.json"}},
		{"report", []string{"report", "art.json", "--html", "./art.html"}},
		{"validate", []string{"validate", "art.json"}},
		{"replay", []string{"replay", "art.json"}},
		{"run", []string{"run", "--arm", "stateful_time_removed", "--scenario", "V1", "--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--output", "./nt.json"}},
		{"arms validate", []string{"arms", "validate", "nt.json"}},
		{"arms replay", []string{"arms", "replay", "nt.json"}},
		{"arms verify", []string{"arms", "verify", "art.json", "nt.json"}},
		{"campaign plan", []string{"campaign", "plan", "camp.json", "--output", "./c", "--key", "k.key"}},
		{"campaign run", []string{"campaign", "run", "c", "--key", "k.key"}},
		{"campaign report", []string{"campaign", "report", "c"}},
		{"campaign verify", []string{"campaign", "verify", "c", "--checkpoint", "c/pre-dispatch.checkpoint"}},
		{"campaign plan", []string{"campaign", "plan", "camp.json", "--output", "./s", "--key", "k.key"}},
		{"campaign run", []string{"campaign", "run", "s", "--key", "k.key", "--shard", "0/1"}},
		{"campaign merge", []string{"campaign", "merge", "s", "--key", "k.key"}},
		{"completion bash", []string{"completion", "bash"}},
		{"completion zsh", []string{"completion", "zsh"}},
		{"completion fish", []string{"completion", "fish"}},
		{"completion powershell", []string{"completion", "powershell"}},
	}
	done := map[string]bool{}
	for _, st := range steps {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"--json"}, st.args...), strings.NewReader(""), &out, &errb)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", st.args, code, errb.String())
		}
		oneJSON(t, out.Bytes())
		done[st.path] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "obaudit"))
		if c.Runnable() && !c.HasSubCommands() && !c.Hidden && path != "help" && !done[path] {
			t.Errorf("command %q has no --json success step here", path)
		}
	}
	walk(commandTree())
}

// oneJSON parses b as exactly one JSON object (and nothing after it).
func oneJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, b)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON document:\n%s", b)
	}
	return doc
}
