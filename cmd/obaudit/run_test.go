package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// filesUnder lists every non-directory entry beneath dir, slash-separated
// and relative to it, sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// TestR19DeterministicRunWritesNoLedger is spec §11.8 R19: a deterministic
// run writes no execution ledger, and running without a recorder changes
// nothing. `obaudit run --output` for the reference agent leaves exactly the
// artefact in its (0700) directory and the working directory; the artefact's
// provider_execution is present and null; and its bytes are upstream's
// deterministic V1 reference, which upstream wrote with no recorder. The
// positive control: a model run (preflight) into a like directory does leave
// its ledger there, which the same listing sees.
func TestR19DeterministicRunWritesNoLedger(t *testing.T) {
	want := upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")
	work := t.TempDir()
	t.Chdir(work)
	if err := os.Mkdir("out", 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod("out", 0o700)
	code, _, stderr := obaudit("run", "--engine", "0.9.0", "--scenario", "V1", "--agent", "reference",
		"--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--output", "out/episode_artifact.json")
	if code != exitOK {
		t.Fatalf("run: exit %d, stderr %q", code, stderr)
	}
	if got := filesUnder(t, work); !slices.Equal(got, []string{"out/episode_artifact.json"}) {
		t.Fatalf("a deterministic run left %q, want the artefact alone", got)
	}
	b, err := os.ReadFile("out/episode_artifact.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := v.(map[string]any)
	if pe, present := doc["provider_execution"]; !present || pe != nil {
		t.Fatalf("provider_execution = %v (present %v), want present and null", pe, present)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("the deterministic artefact (%d bytes) is not upstream's recorder-less V1 reference (%d bytes)", len(b), len(want))
	}

	// Positive control: a model-backed run does write a ledger beside its
	// artefact, and the listing above would have seen it.
	model := filepath.Join(work, "model")
	if err := os.Mkdir(model, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(model, 0o700)
	code, _, stderr = obaudit("preflight", "--output-dir", model,
		"--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--execution-run-id", "exec_0123456789abcdef0123456789abcdef")
	if code != exitOK {
		t.Fatalf("preflight: exit %d, stderr %q", code, stderr)
	}
	if got := filesUnder(t, model); !slices.Contains(got, "opinst_0123456789abcdef0123456789abcdef.execution_ledger.ndjson") {
		t.Fatalf("the model run left %q: the control does not show a ledger", got)
	}
}
