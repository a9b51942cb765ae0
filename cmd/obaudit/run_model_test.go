package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/rogpeppe/go-internal/testscript"
)

const modelInstance = "opinst_0123456789abcdef0123456789abcdef"

// loopbackProvider serves the scripted provider of the lane of the
// embedded profile name, answering the reference decisions of V1 under
// modelInstance and accepting credential, on a loopback TLS listener. It
// returns the base URL, the server's certificate (PEM) and the script.
func loopbackProvider(name, credential string, fault preflight.Fault) (string, []byte, *preflight.Script, func(), error) {
	p, err := profile.Embedded(name)
	if err != nil {
		return "", nil, nil, nil, err
	}
	pack := domains.Default()
	dom, err := pack.Operation(nil, "", "V1")
	if err != nil {
		return "", nil, nil, nil, err
	}
	ref, _ := pack.Agent("reference")
	ep, err := engine.Execute(dom, ref.New(), modelInstance)
	if err != nil {
		return "", nil, nil, nil, err
	}
	v, _ := preflight.VendorFor(p.Lane.ID())
	s := &preflight.Script{Vendor: v, Model: p.Run.Model, Credential: credential, Tape: ep.Decisions, Fault: fault, FaultAt: preflight.DefaultFaultAt, MaxRequests: 60}
	lb := preflight.Serve(s)
	return lb.BaseURL, lb.CertificatePEM(), s, lb.Close, nil
}

// TestModelScript runs testdata/model/*.txtar: live model runs against a
// loopback provider started by `loopback-provider PROFILE CREDENTIAL
// [FAULT]` (a preflight fault cell on request 4),
// which sets $BASE_URL and writes $WORK/ca.pem.
func TestModelScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/model",
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"loopback-provider": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 || len(args) > 3 {
					ts.Fatalf("usage: loopback-provider PROFILE CREDENTIAL [FAULT]")
				}
				fault := preflight.FaultNone
				if len(args) == 3 {
					fault = preflight.Fault(args[2])
				}
				base, cert, _, stop, err := loopbackProvider(args[0], args[1], fault)
				if err != nil {
					ts.Fatalf("%v", err)
				}
				ts.Defer(stop)
				ts.Setenv("BASE_URL", base)
				if err := os.WriteFile(ts.MkAbs("ca.pem"), cert, 0o600); err != nil {
					ts.Fatalf("%v", err)
				}
			},
		},
	})
}

// TestLiveRunLeavesNoSecret is the evidence check: a live run of
// each lane against a loopback provider, a dummy credential in the
// profile's variable, completes scored; then every file it wrote is read
// and holds no credential, no auth header name, and no provider prose (the
// ledger's recursive scanner over every JSON value, plus a byte search),
// and neither does anything it printed.
func TestLiveRunLeavesNoSecret(t *testing.T) {
	for _, name := range []string{"openai-gpt-5.6-luna", "anthropic-claude-haiku-4-5-20251001", "mistral-small-2603", "xai-grok-4.5"} {
		t.Run(name, func(t *testing.T) {
			p, _ := profile.Embedded(name)
			const credential = "dummy-credential-7f3a9c"
			base, cert, script, stop, err := loopbackProvider(name, credential, preflight.FaultNone)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o700); err != nil {
				t.Fatal(err)
			}
			ca := filepath.Join(dir, "ca.pem")
			os.WriteFile(ca, cert, 0o600)
			looked := []string{}
			lookupEnv = func(k string) (string, bool) {
				looked = append(looked, k)
				return credential, k == p.CredentialEnv
			}
			defer func() { lookupEnv = os.LookupEnv }()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--json", "run", "--model", name, "--live", "--scenario", "V1",
				"--operation-instance-id", modelInstance, "--base-url", base, "--ca-file", ca, "--output-dir", out,
				"--input-usd-per-mtok", "2", "--output-usd-per-mtok", "10", "--cost-cap-usd", "6"}, strings.NewReader(""), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s %s", code, stdout.String(), stderr.String())
			}
			if len(looked) != 1 || looked[0] != p.CredentialEnv {
				t.Errorf("looked up %v; want only %s", looked, p.CredentialEnv)
			}
			if script.Requests() != 46 || script.Refused() != 0 {
				t.Errorf("the provider received %d requests, refused %d", script.Requests(), script.Refused())
			}
			forbidden := []string{credential, "x-api-key", "Bearer", "uthoriz", preflight.ProseMarker}
			check := func(what string, b []byte) {
				for _, f := range forbidden {
					if bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(f))) {
						t.Errorf("%s holds %q", what, f)
					}
				}
			}
			check("stdout", stdout.Bytes())
			check("stderr", stderr.Bytes())
			files := 0
			filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				files++
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				check(d.Name(), b)
				for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
					v, err := canon.Parse(line)
					if err != nil {
						if v, err = canon.Parse(b); err != nil {
							t.Fatalf("%s is not JSON: %v", d.Name(), err)
						}
					}
					if strings.HasSuffix(d.Name(), preflight.ArtefactSuffix) {
						// The scanner's length bound is the ledger's own rule;
						// its content rules are asked of every artefact string
						// in overlapping windows short enough to pass it.
						if err := scanWindows(v); err != nil {
							t.Errorf("%s: %v", d.Name(), err)
						}
						break
					}
					if err := execledger.Scan(v, d.Name()); err != nil {
						t.Errorf("%s row %d: %v", d.Name(), i, err)
					}
				}
				return nil
			})
			if files != 2 {
				t.Errorf("%d files written; want the ledger and the artefact", files)
			}
		})
	}
}

// TestModelRunWithoutLiveRefusedFirst: --model without --live is refused
// (exit 1, run/live-required) before a profile, a CA file, the output
// directory or the environment is touched.
func TestModelRunWithoutLiveRefusedFirst(t *testing.T) {
	lookupEnv = func(k string) (string, bool) {
		t.Errorf("the environment was read (%s)", k)
		return "", false
	}
	defer func() { lookupEnv = os.LookupEnv }()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"run", "--model", filepath.Join(dir, "absent.json"), "--scenario", "V1",
		"--ca-file", filepath.Join(dir, "absent.pem"), "--output-dir", filepath.Join(dir, "absent"), "--base-url", "https://127.0.0.1:1/v1"},
		strings.NewReader(""), &stdout, &stderr)
	if code != exitRefused || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "refused: run/live-required: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("the directory holds %d entries", len(es))
	}
}

// scanWindows runs the ledger's forbidden-content scanner over every key
// and string of v, each cut into overlapping 200-character windows.
func scanWindows(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if err := scanWindows(k); err != nil {
				return err
			}
			if err := scanWindows(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := scanWindows(e); err != nil {
				return err
			}
		}
	case string:
		r := []rune(x)
		for i := 0; i == 0 || i < len(r); i += 150 {
			if err := execledger.Scan(string(r[i:min(len(r), i+200)]), "artefact"); err != nil {
				return err
			}
		}
	}
	return nil
}
