package execledger_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/execledger/internal/vectors"
	"github.com/obaudit/obaudit/refusal"
)

const vectorDir = "testdata/vectors/ledger"

// split separates a vector file into its expect line and its data.
func split(file []byte) (expect string, data []byte, ok bool) {
	head, data, found := bytes.Cut(file, []byte("\n\n"))
	if !found {
		return "", nil, false
	}
	for _, l := range bytes.Split(head, []byte("\n")) {
		if e, has := bytes.CutPrefix(l, []byte("expect: ")); has {
			expect = string(e)
		}
	}
	return expect, data, expect != ""
}

// TestVectorsUpToDate regenerates the vectors and requires the committed
// files to be exactly what the generator writes (and nothing else).
func TestVectorsUpToDate(t *testing.T) {
	want := map[string][]byte{}
	for _, v := range vectors.Generate() {
		want[v.Path] = v.File()
	}
	got := map[string][]byte{}
	filepath.WalkDir(vectorDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(vectorDir, p)
			got[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	for p, b := range want {
		if !bytes.Equal(got[p], b) {
			t.Errorf("%s is stale or missing; regenerate with: go run ./execledger/internal/genvectors", p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is not produced by the generator", p)
		}
	}
}

// TestVectors reads every vector and requires the verdict its expect:
// header states: a status for "ok", the class for "refused".
func TestVectors(t *testing.T) {
	n := 0
	filepath.WalkDir(vectorDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		t.Run(strings.TrimPrefix(filepath.ToSlash(p), vectorDir+"/"), func(t *testing.T) {
			file, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			expect, data, ok := split(file)
			if !ok {
				t.Fatalf("no expect: header")
			}
			verdict, arg, _ := strings.Cut(expect, " ")
			a, err := execledger.Read(bytes.NewReader(data), execledger.Options{})
			switch verdict {
			case "ok":
				if err != nil {
					t.Fatalf("Read = %v, want status %s", err, arg)
				}
				if a.Status() != arg {
					t.Errorf("Status = %s, want %s", a.Status(), arg)
				}
			case "refused":
				if err == nil {
					t.Fatalf("Read accepted it (status %s), want refusal %s", a.Status(), arg)
				}
				if c, _ := refusal.ClassOf(err); string(c) != arg {
					t.Errorf("Read = %v, want class %s", err, arg)
				}
				if len(data) > 0 && bytes.Contains(data, []byte("credential-secret-fragment")) && strings.Contains(err.Error(), "credential-secret-fragment") {
					t.Errorf("refusal echoes the input: %v", err)
				}
			default:
				t.Fatalf("bad expect: %q", expect)
			}
			// A strict read never accepts a prefix.
			if verdict == "ok" && arg == execledger.StatusIncomplete {
				_, err := execledger.Read(bytes.NewReader(data), execledger.Options{RequireComplete: true})
				var ie *execledger.IncompleteError
				if refusal.Of(err) != execledger.ErrIncomplete.Class || !errors.As(err, &ie) || ie.Audit.Complete() {
					t.Errorf("strict Read = %v, want ledger/incomplete with the prefix audit", err)
				}
			}
		})
		return nil
	})
	if n < 50 {
		t.Errorf("only %d vectors", n)
	}
}
