package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/export/agentrun"
	"github.com/obaudit/obaudit/export/agentrun/agentrunschema"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// agentRunValidateCmd stands in for the validate command's --agent-run hook
// (validate.go belongs to the artefact work): the flags and the mode are
// exactly what that command registers and calls.
func agentRunValidateCmd(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "validate", SilenceErrors: true, SilenceUsage: true}
	f := &agentRunFlags{}
	addAgentRunFlags(c, f)
	c.RunE = func(cmd *cobra.Command, args []string) error { return validateAgentRun(cmd, g, f) }
	return c
}

func runAgentRunValidate(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var g globals
	c := agentRunValidateCmd(&g)
	c.PersistentFlags().BoolVar(&g.json, "json", false, "")
	var out bytes.Buffer
	c.SetOut(&out)
	c.SetErr(&out)
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

func TestValidateAgentRunMode(t *testing.T) {
	raw := upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")
	_, rec := exportRecord(t, raw)
	dir := t.TempDir()
	good := filepath.Join(dir, rec.FileName())
	renamed := filepath.Join(dir, "renamed.json")
	tampered := filepath.Join(dir, "t", rec.FileName())
	os.MkdirAll(filepath.Dir(tampered), 0o755)
	for p, b := range map[string][]byte{
		good:     rec.Bytes,
		renamed:  rec.Bytes,
		tampered: bytes.Replace(rec.Bytes, []byte(`"verdict":"objective-achieved"`), []byte(`"verdict":"triumph"`), 1),
	} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	out, err := runAgentRunValidate(t, "--agent-run", good)
	if err != nil {
		t.Fatalf("validate --agent-run %s = %v", good, err)
	}
	if !strings.Contains(out, "agent-run OK: ") || !strings.Contains(out, "local stand-in") {
		t.Errorf("output = %q", out)
	}
	out, err = runAgentRunValidate(t, "--json", "--agent-run", good)
	if err != nil || !strings.Contains(out, `"ok":true`) || !strings.Contains(out, `"stand_ins_used":2`) {
		t.Errorf("--json: %v %q", err, out)
	}

	for name, c := range map[string]struct {
		file  string
		class refusal.Class
	}{
		"renamed":  {renamed, agentrun.ErrIDMismatch.Class},
		"tampered": {tampered, agentrunschema.ErrSchemaInvalid.Class},
	} {
		_, err := runAgentRunValidate(t, "--agent-run", c.file)
		if got, _ := refusal.ClassOf(err); got != c.class {
			t.Errorf("%s: validate --agent-run = %v, want class %s", name, err, c.class)
		}
	}
	if _, err := runAgentRunValidate(t, "--agent-run", good, "--schema-dir", filepath.Join(dir, "missing")); !errorIs(err, agentrunschema.ErrSchemaUnloadable) {
		t.Errorf("missing --schema-dir: %v, want %s", err, agentrunschema.ErrSchemaUnloadable.Class)
	}
}

func errorIs(err error, r *refusal.Refusal) bool {
	c, ok := refusal.ClassOf(err)
	return ok && c == r.Class
}
