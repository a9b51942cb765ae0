package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A No-Time record naming another spec than the embedded one is refused by
// name (arm/spec-mismatch) by every arms subcommand that binds it.
func TestArmsRefuseAnotherSpec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nt := filepath.Join(dir, "nt.json")
	mustRun(t, "run", "--arm", "stateful_time_removed", "--scenario", "V1",
		"--operation-instance-id", "opinst_0123456789abcdef0123456789abcdef", "--output", nt)
	b, err := os.ReadFile(nt)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`"spec_digest_sha256":"`))
	if i < 0 {
		t.Fatal("no spec digest")
	}
	i += len(`"spec_digest_sha256":"`)
	m := append([]byte(nil), b...)
	copy(m[i:i+64], strings.Repeat("0", 64))
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, m, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"arms", "validate", other}, {"arms", "replay", other}} {
		if code, _, errs := obaudit(args...); code != exitRefused || !strings.HasPrefix(errs, "refused: arm/spec-mismatch: ") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}
