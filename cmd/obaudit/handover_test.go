//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/campaign/campaigntest"
)

// buildBinaries builds the default obaudit, and with sibling the
// obaudit_sigstore build beside it as obaudit-sigstore, into a new
// directory; it returns obaudit's path.
func buildBinaries(t *testing.T, sibling bool) string {
	t.Helper()
	dir := t.TempDir()
	ob := filepath.Join(dir, "obaudit")
	if out, err := exec.Command("go", "build", "-o", ob, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if sibling {
		if out, err := exec.Command("go", "build", "-tags", "obaudit_sigstore", "-o", filepath.Join(dir, sigstoreBinary), ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -tags obaudit_sigstore: %v\n%s", err, out)
		}
	}
	return ob
}

// execCode runs bin with args in dir and returns its exit code, stdout and
// stderr.
func execCode(t *testing.T, dir, bin string, args ...string) (int, string, string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// TestHandOver: the default build verifies nothing and runs no JSON Schema
// itself. Each command that verifies a bundle or runs a published schema
// runs in the obaudit-sigstore beside it (found
// through a symlink to obaudit too) with the same output and exit code as
// in one binary, accepted or refused; without one it fails (exit 70)
// naming what to install, before reading or writing anything; the other
// commands, and the help of these, never need it.
func TestHandOver(t *testing.T) {
	t.Parallel()
	work := campaigntest.TempDir(t) // commit writes a campaign log in-process
	at := func(name string) string { return filepath.Join(work, name) }
	mustRun(t, "run", "--scenario", "V1", "--agent", "reference", "--output", at("a.json"))
	mustRun(t, "keygen", "--output", at("k"))
	mustRun(t, "keygen", "--output", at("other"))
	mustRun(t, "sign", "--key", at("k.key"), at("a.json"))
	commit := []string{"commit", "--key", at("k.key"), "--origin", "obaudit.example/h", "--output", at("camp"), at("a.sigstore.json")}
	mustRun(t, commit...)
	mustRun(t, "export", "agent-run", "--output", work+string(filepath.Separator), at("a.json"))
	records, err := filepath.Glob(at("operatebench-*.json"))
	if err != nil || len(records) != 1 {
		t.Fatalf("exported records %v, %v", records, err)
	}
	cases := [][]string{
		{"verify", "--key", at("k.pub"), "--bundle", at("a.sigstore.json"), at("a.json")},
		// The JSON Schema library is obaudit-sigstore's too: whole
		// commands, and validate under a flag (handed over from its RunE).
		{"export", "agent-run", at("a.json")},
		{"validate", "--schema", at("a.json")},
		{"--json", "validate", "--agent-run", records[0]},
		{"--json", "verify", "--key", at("other.pub"), "--bundle", at("a.sigstore.json"), at("a.json")},
		commit, // refused after verifying: its outputs exist
		{"campaign", "verify", at("no-such-campaign")},
	}
	full := buildBinaries(t, true)
	link := filepath.Join(t.TempDir(), "obaudit")
	if err := os.Symlink(full, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range cases {
		wantCode, wantOut, wantErr := obaudit(args...)
		for _, bin := range []string{full, link} {
			code, out, errs := execCode(t, work, bin, args...)
			if code != wantCode || out != wantOut || errs != wantErr {
				t.Errorf("%s %v = %d %q %q, want (in one binary) %d %q %q", bin, args, code, out, errs, wantCode, wantOut, wantErr)
			}
		}
	}
	alone := buildBinaries(t, false)
	for bin, want := range map[string]string{alone: "missing", full: "beside", filepath.Join(filepath.Dir(full), sigstoreBinary): "linked"} {
		var v struct {
			State string `json:"sigstore_verification"`
		}
		if code, out, errs := execCode(t, work, bin, "--json", "version"); code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.State != want {
			t.Errorf("%s version = %d %q %q, want sigstore_verification %q", bin, code, out, errs, want)
		}
	}
	for _, args := range cases {
		code, out, errs := execCode(t, work, alone, args...)
		wantOut := out == "" // with --json, stdout is the outcome
		if args[0] == "--json" {
			var o struct{ Class string }
			wantOut = json.Unmarshal([]byte(out), &o) == nil && o.Class == classFailure
		}
		if code != exitFailure || !wantOut || !strings.HasPrefix(errs, "error: ") || !strings.Contains(errs, sigstoreBinary) {
			t.Errorf("%v without %s = %d %q %q, want exit %d and an error naming it", args, sigstoreBinary, code, out, errs, exitFailure)
		}
	}
	// A default build installed under obaudit-sigstore's name is refused,
	// not run in a loop.
	fake := filepath.Join(filepath.Dir(alone), sigstoreBinary)
	if out, err := exec.Command("cp", alone, fake).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if code, out, errs := execCode(t, work, alone, cases[0]...); code != exitFailure || out != "" || !strings.Contains(errs, "not obaudit-sigstore") {
		t.Errorf("verify with a default build as %s = %d %q %q, want exit %d naming it", sigstoreBinary, code, out, errs, exitFailure)
	}
	for _, args := range [][]string{{"validate", at("a.json")}, {"verify", "--help"}, {"campaign", "merge", "-h"}} {
		if code, _, errs := execCode(t, work, alone, args...); code != 0 {
			t.Errorf("%v without %s = %d %s, want 0", args, sigstoreBinary, code, errs)
		}
	}
}

// TestRunChild: the hand-over without exec (another host, or streams that
// are not the process's) passes stdin, stdout, stderr and the exit code
// through. The child is the test binary standing in for obaudit.
func TestRunChild(t *testing.T) {
	bin := selfAsObaudit(t)
	var out, errb bytes.Buffer
	code, err := runChild(context.Background(), bin, []string{"canon", "-"}, strings.NewReader(`{"b":1,"a":2}`), &out, &errb)
	if err != nil || code != 0 || out.String() != `{"a":2,"b":1}`+"\n" || errb.String() != "" {
		t.Errorf("runChild(canon -) = %d, %v, %q, %q; want 0, nil, the canonical form, no stderr", code, err, out.String(), errb.String())
	}
	out.Reset()
	code, err = runChild(context.Background(), bin, []string{"validate", "-"}, strings.NewReader("{}"), &out, &errb)
	if err != nil || code != exitRefused || out.String() != "" || !strings.HasPrefix(errb.String(), "refused: ") {
		t.Errorf("runChild(validate - of {}) = %d, %v, %q, %q; want exit %d and a refusal on stderr", code, err, out.String(), errb.String(), exitRefused)
	}
	if _, err := runChild(context.Background(), filepath.Join(t.TempDir(), "missing"), nil, nil, &out, &errb); err == nil {
		t.Error("runChild of a missing file: no error")
	}
}
