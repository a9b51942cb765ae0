package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/preflight"
)

// TestPreflightCallBoundRefusedFirst is F2 and F13: a call bound outside
// 1..60 is refused (exit 1, class preflight/call-bound, nothing on
// stdout) before the preflight — and so any client, transport or file — is
// reached, and the output directory stays empty.
func TestPreflightCallBoundRefusedFirst(t *testing.T) {
	testOnlyPreflightRun = func(preflight.Config) (*preflight.Result, error) {
		t.Error("the preflight was reached with a refused call bound")
		return nil, nil
	}
	defer func() { testOnlyPreflightRun = nil }()
	for _, n := range []string{"61", "100", "0", "-1"} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"preflight", "--output-dir", dir, "--max-calls", n}, strings.NewReader(""), &stdout, &stderr)
		if code != exitRefused || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "refused: preflight/call-bound: ") {
			t.Errorf("--max-calls %s: exit %d, stdout %q, stderr %q", n, code, stdout.String(), stderr.String())
		}
		if es, _ := os.ReadDir(dir); len(es) != 0 {
			t.Errorf("--max-calls %s: the directory holds %d entries", n, len(es))
		}
	}
	// The positive control: a bound of 60 does reach the preflight.
	reached := 0
	testOnlyPreflightRun = func(cfg preflight.Config) (*preflight.Result, error) {
		reached++
		if cfg.MaxCalls != 60 || cfg.Environment == nil || cfg.Now == nil {
			t.Errorf("config %+v", cfg)
		}
		return nil, errors.New("stopped by the test")
	}
	var so, se bytes.Buffer
	if code := run(context.Background(), []string{"preflight", "--output-dir", t.TempDir(), "--max-calls", "60"}, strings.NewReader(""), &so, &se); code != exitFailure || reached != 1 {
		t.Errorf("--max-calls 60: exit %d, reached %d", code, reached)
	}
	// Even an unusable rest of the command line is not read first.
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"preflight", "--max-calls", "61", "--fault", "nonsense"}, strings.NewReader(""), &stdout, &stderr); code != exitRefused {
		t.Errorf("61 with a bad --fault: exit %d", code)
	}
}

// TestPreflightHasNoTokenOption is F4: there is no option that could move
// the token ceiling.
func TestPreflightHasNoTokenOption(t *testing.T) {
	var g globals
	c := newPreflightCmd(&g)
	names := regexp.MustCompile(`--([a-z0-9-]+)`).FindAllStringSubmatch(c.Flags().FlagUsages(), -1)
	if len(names) < 5 {
		t.Fatalf("found %d options", len(names))
	}
	for _, m := range names {
		if strings.Contains(m[1], "token") {
			t.Errorf("option --%s names tokens", m[1])
		}
	}
}

// TestPreflightLiveEnvironment is F14 through the CLI: a credential or a
// base URL in the environment refuses the run (exit 1) before anything is
// written.
func TestPreflightLiveEnvironment(t *testing.T) {
	for _, name := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "set-by-test")
			dir := t.TempDir()
			os.Chmod(dir, 0o700)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"preflight", "--output-dir", dir}, strings.NewReader(""), &stdout, &stderr)
			if code != exitRefused || !strings.HasPrefix(stderr.String(), "refused: preflight/live-environment: ") || strings.Contains(stderr.String(), "set-by-test") {
				t.Errorf("exit %d, stderr %q", code, stderr.String())
			}
			if es, _ := os.ReadDir(dir); len(es) != 0 {
				t.Errorf("the directory holds %d entries", len(es))
			}
		})
	}
}

func TestPreflightUsage(t *testing.T) {
	for _, args := range [][]string{
		{"preflight"},
		{"preflight", "--output-dir", "x", "--fault", "418"},
		{"preflight", "--output-dir", "x", "--operation-instance-id", "opinst_nothex"},
		{"preflight", "--output-dir", "x", "--max-calls", "many"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d (%s)", args, code, stderr.String())
		}
	}
}
