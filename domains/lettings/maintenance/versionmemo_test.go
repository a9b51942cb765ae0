package maintenance

import (
	"fmt"
	"sync"
	"testing"

	"github.com/obaudit/obaudit/engine"
)

// TestVersionMemo holds the memo to the hash and the bytes it remembers,
// from concurrent episodes, and shows it stops growing at its bound while
// still answering with a copy and the hash.
func TestVersionMemo(t *testing.T) {
	var vm versionMemo
	check := func(vm *versionMemo, b []byte) bool {
		t.Helper()
		json, version := vm.of(b)
		if want := engine.VersionOf(b, RecordVersionLength); version != want || string(json) != string(b) {
			t.Errorf("of(%s) = %s, %s, want the same bytes and %s", b, json, version, want)
			return false
		}
		return true
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				if !check(&vm, []byte(fmt.Sprintf(`{"records":%d}`, (i*7+w)%200))) {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(vm.m) != 200 {
		t.Fatalf("memo holds %d versions after 200 distinct records", len(vm.m))
	}
	for i := range maxMemoVersions + 10 {
		if !check(&vm, []byte(fmt.Sprintf(`{"bound":%d}`, i))) {
			t.FailNow()
		}
	}
	if len(vm.m) != maxMemoVersions {
		t.Fatalf("memo holds %d versions, bound %d", len(vm.m), maxMemoVersions)
	}
	// The memo answers with its own copy of the bytes: the caller's buffer
	// may be overwritten afterwards (Serve's is) without changing what is
	// answered, before or past the bound.
	for _, m := range []*versionMemo{{}, &vm} {
		b := []byte(`{"records":1}`)
		want := engine.VersionOf(b, RecordVersionLength)
		first, _ := m.of(b)
		b[2] = 'R'
		if string(first) != `{"records":1}` {
			t.Fatalf("answered bytes changed with the caller's buffer: %s", first)
		}
		if json, version := m.of([]byte(`{"records":1}`)); version != want || string(json) != `{"records":1}` {
			t.Fatalf("remembered %s, %s, want %s", json, version, want)
		}
		check(m, b)
	}
}
