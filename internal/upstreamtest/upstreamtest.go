// Package upstreamtest locates upstream OperateBench fixture files for
// tests. The fixtures live outside the repository, in ../shared/upstream
// (relative to the module root); they are never committed.
//
// A test that needs one calls [Path] (or [Read]). When the directory is
// absent the test is skipped with a clear message, as on a user's fresh
// clone; when the environment variable OBAUDIT_REQUIRE_UPSTREAM=1 is set
// (as .ci/run sets it) the test fails instead, so CI never skips them.
//
// It also holds committed test data to where it comes from: [Golden]
// writes or compares a golden file, [Generated] re-runs a committed CPython
// vector generator, [CanonicalCopy] holds a generated canonical copy of an
// embedded upstream-derived document.
//
// This package is imported only by tests.
package upstreamtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// RequireEnv is the environment variable that turns a missing fixture from
// a skip into a failure.
const RequireEnv = "OBAUDIT_REQUIRE_UPSTREAM"

// Dir returns the absolute path of the upstream fixture directory
// (../shared/upstream relative to the module root), whether or not it exists.
func Dir() string {
	return filepath.Clean(filepath.Join(moduleRoot(), "..", "shared", "upstream"))
}

// moduleRoot is the module's root directory (two above this file's).
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Path returns the path of the named upstream fixture, skipping (or, with
// OBAUDIT_REQUIRE_UPSTREAM=1, failing) the test when it is absent.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(), name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			tb.Fatalf("upstream fixture %s is required (%s=1) but unavailable: %v", name, RequireEnv, err)
		}
		tb.Skipf("upstream fixture %s not present (%v); set %s=1 to require it", name, err, RequireEnv)
	}
	return p
}

// Read returns the bytes of the named upstream fixture (see [Path]).
func Read(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, name))
	if err != nil {
		tb.Fatalf("read upstream fixture %s: %v", name, err)
	}
	return b
}

// Reseal recomputes the content digests of an artefact tree a test has
// edited (final_state, trajectory and decisions; a section the tree lacks is
// left alone), so that the check under test is the one reached, not the
// digest check.
func Reseal(tb testing.TB, d map[string]any) {
	tb.Helper()
	for _, name := range []string{"final_state", "trajectory", "decisions"} {
		if _, ok := d[name]; !ok {
			continue
		}
		sum, err := canon.UpstreamDigest(d[name])
		if err != nil {
			tb.Fatalf("digest %s: %v", name, err)
		}
		d[name+"_digest_sha256"] = sum
	}
}

// Edited returns the named upstream artefact fixture with one consistent
// edit: edit is applied to its parsed tree, the content digests are
// resealed, and the result is written as an artefact file is (upstream
// canonical JSON and a newline).
func Edited(tb testing.TB, name string, edit func(d map[string]any)) []byte {
	tb.Helper()
	v, err := canon.Parse(Read(tb, name))
	if err != nil {
		tb.Fatalf("parse upstream fixture %s: %v", name, err)
	}
	d := v.(map[string]any)
	edit(d)
	Reseal(tb, d)
	b, err := canon.Upstream(d)
	if err != nil {
		tb.Fatalf("encode edited %s: %v", name, err)
	}
	return append(b, '\n')
}

// CanonicalCopy holds embedded, a JSON file a package embeds beside the
// YAML it is generated from (an upstream format the binary loads from the
// JSON), to tree, that YAML's parsed tree: embedded must be exactly the
// tree in upstream canonical JSON and a newline, and must read back
// ([canon.Parse]) to the same tree, kinds included. With update it rewrites
// path (relative to the test's package directory) from the tree instead.
func CanonicalCopy(tb testing.TB, path string, embedded []byte, tree any, update bool) {
	tb.Helper()
	want, err := canon.Upstream(tree)
	if err != nil {
		tb.Fatal(err)
	}
	want = append(want, '\n')
	if update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	if !bytes.Equal(embedded, want) {
		tb.Fatalf("%s is not the YAML's tree in upstream canonical JSON; regenerate it with go test -run %s -update", path, tb.Name())
	}
	fromJSON, err := canon.Parse(embedded)
	if err != nil {
		tb.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, tree) {
		tb.Fatalf("%s reads back to a different tree than the YAML", path)
	}
}

// Golden returns the bytes of the committed golden file at path (relative
// to the test's package directory), first rewriting it with got when update
// is set. The caller holds got to what it returns (its own message names
// the file), and checks anything else of the golden on those bytes.
func Golden(tb testing.TB, path string, got []byte, update bool) []byte {
	tb.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return want
}

// Generated holds the committed vector file testdata/committed to what
// testdata/generator (a Python script run by python3 in testdata) writes
// now, so vectors held to CPython are re-derived from CPython wherever it
// is installed; without python3 on PATH the test is skipped.
func Generated(tb testing.TB, generator, committed string) {
	tb.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		tb.Skip("python3 is not on PATH: the committed vectors are not re-derived from CPython here")
	}
	cmd := exec.Command(py, generator)
	cmd.Dir = "testdata"
	got, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s: %v", generator, err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", committed))
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		wd, _ := os.Getwd()
		dir, _ := filepath.Rel(moduleRoot(), wd)
		tb.Fatalf("testdata/%s is not what %s writes with this python3; regenerate it: cd %s && python3 %s > %s",
			committed, generator, filepath.ToSlash(filepath.Join(dir, "testdata")), generator, committed)
	}
}
