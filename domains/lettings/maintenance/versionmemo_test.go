package maintenance

import (
	"fmt"
	"sync"
	"testing"

	"github.com/obaudit/obaudit/engine"
)

// TestVersionMemo holds the memo to the hash it remembers, from concurrent
// episodes, and shows it stops growing at its bound while still answering
// with the hash.
func TestVersionMemo(t *testing.T) {
	var vm versionMemo
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				b := []byte(fmt.Sprintf(`{"records":%d}`, (i*7+w)%200))
				if got, want := vm.of(b), engine.VersionOf(b, RecordVersionLength); got != want {
					t.Errorf("of(%s) = %s, want %s", b, got, want)
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
		b := []byte(fmt.Sprintf(`{"bound":%d}`, i))
		if got, want := vm.of(b), engine.VersionOf(b, RecordVersionLength); got != want {
			t.Fatalf("of(%s) = %s, want %s", b, got, want)
		}
	}
	if len(vm.m) != maxMemoVersions {
		t.Fatalf("memo holds %d versions, bound %d", len(vm.m), maxMemoVersions)
	}
	// The memo keeps its own copy of the bytes: the caller's buffer may be
	// overwritten afterwards (Serve's is) without changing what is answered.
	var fresh versionMemo
	b := []byte(`{"records":1}`)
	want := engine.VersionOf(b, RecordVersionLength)
	fresh.of(b)
	b[2] = 'R'
	if got := fresh.of([]byte(`{"records":1}`)); got != want {
		t.Fatalf("remembered version %s, want %s", got, want)
	}
	if got, want := fresh.of(b), engine.VersionOf(b, RecordVersionLength); got != want {
		t.Fatalf("of(%s) = %s, want %s", b, got, want)
	}
}
