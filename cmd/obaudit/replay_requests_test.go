package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// preflightArtefact runs obaudit preflight (the reference cell) into a
// fresh 0700 directory and returns the artefact's bytes.
func preflightArtefact(t *testing.T) []byte {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	const id = "opinst_0123456789abcdef0123456789abcdef"
	if code, _, stderr := obaudit("preflight", "--output-dir", dir, "--operation-instance-id", id); code != exitOK {
		t.Fatalf("preflight: exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, id+".episode_artifact.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editedArtefact writes b with edit applied to its tree (content digests
// resealed) and returns the path.
func editedArtefact(t *testing.T, b []byte, edit func(d map[string]any)) string {
	t.Helper()
	v, err := canon.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	d := v.(map[string]any)
	edit(d)
	upstreamtest.Reseal(t, d)
	out, err := canon.Upstream(d)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "edited.json")
	if err := os.WriteFile(p, append(out, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func attemptsOf(d map[string]any) []any {
	return d["agent_execution"].(map[string]any)["attempts"].([]any)
}

var unverifiedRequests = regexp.MustCompile(`(?m)^unverified +agent_execution\.attempts\[\]\.request_digest_sha256: not rebuilt`)

// TestReplayRebuildsRequestDigests: obaudit replay rebuilds the request
// digests of an artefact obaudit preflight wrote (its binding names this
// build's request mapping) from the observations the replay offers, under
// the recorded model and ceiling, and refuses (replay/request-digest-
// mismatch) a record whose digests were edited or whose model or ceiling
// label was edited consistently in record and binding (spec X26); obaudit
// sign's replay check refuses the same. Upstream's fake-provider artefact,
// whose requests another mapping built, and a record whose settings digest
// names no mapping this build speaks, still replay with their request
// digests listed as unverified.
func TestReplayRebuildsRequestDigests(t *testing.T) {
	t.Parallel()
	b := preflightArtefact(t)
	own := editedArtefact(t, b, func(map[string]any) {})
	code, stdout, stderr := obaudit("replay", own)
	if code != exitOK {
		t.Fatalf("replay of the preflight's artefact: exit %d, stderr %q", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^request digests +46 rebuilt `).MatchString(stdout) || unverifiedRequests.MatchString(stdout) {
		t.Fatalf("the preflight's request digests were not rebuilt:\n%s", stdout)
	}
	if code, stdout, _ := obaudit("--json", "replay", own); code != exitOK || !strings.Contains(stdout, `"request_digests_rebuilt":46`) || !strings.Contains(stdout, `"unverified":[]`) {
		t.Fatalf("replay --json: exit %d\n%s", code, stdout)
	}

	mismatch := "refused: " + string(episode.ErrRequestDigestMismatch.Class) + ": "
	for name, edit := range map[string]func(d map[string]any){
		"one request digest edited": func(d map[string]any) {
			attemptsOf(d)[9].(map[string]any)["request_digest_sha256"] = strings.Repeat("a", 64)
		},
		"X26 model relabelled in record and binding": func(d map[string]any) {
			d["agent_execution"].(map[string]any)["model"] = "a-different-model"
			d["provider_execution"].(map[string]any)["model"] = "a-different-model"
			// and the agent id the binding now names (else replay/agent-unbound)
			d["agent_id"] = "openai-a-different-model"
		},
		"X26 ceiling relabelled": func(d map[string]any) {
			d["agent_execution"].(map[string]any)["max_output_tokens"] = int64(512)
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := editedArtefact(t, b, edit)
			if code, _, stderr := obaudit("validate", p); code != exitOK {
				t.Fatalf("the edited record does not validate (exit %d, %q): the check under test is not reached", code, stderr)
			}
			if code, stdout, stderr := obaudit("replay", p); code != exitRefused || stdout != "" || !strings.HasPrefix(stderr, mismatch) {
				t.Fatalf("replay: exit %d, stdout %q, stderr %q; want refused as %s", code, stdout, stderr, episode.ErrRequestDigestMismatch.Class)
			}
			in, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := newCommitmentFiles(p, parseArtefact(in, true)).replay(context.Background(), commitment.Inputs{}); refusal.Of(err) != episode.ErrRequestDigestMismatch.Class {
				t.Fatalf("obaudit sign's replay check = %v, want %s", err, episode.ErrRequestDigestMismatch.Class)
			}
		})
	}

	for name, p := range map[string]string{
		"upstream's fake-provider artefact": upstreamtest.Path(t, "artifact8-fake-openai-reference-v1.json"),
		"settings digest naming no mapping this build speaks": editedArtefact(t, b, func(d map[string]any) {
			d["provider_execution"].(map[string]any)["settings_digest_sha256"] = strings.Repeat("1", 64)
			attemptsOf(d)[9].(map[string]any)["request_digest_sha256"] = strings.Repeat("a", 64)
		}),
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := obaudit("replay", p)
			if code != exitOK || !unverifiedRequests.MatchString(stdout) || strings.Contains(stdout, "rebuilt from") {
				t.Fatalf("replay: exit %d, stderr %q, stdout:\n%s\nwant OK with the request digests unverified", code, stderr, stdout)
			}
		})
	}
}
