//go:build unix

package execledger_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
)

// ledgerDir returns a fresh mode-0700 directory.
func ledgerDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "evidence")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o700)
	return d
}

func readFile(t *testing.T, p string) (*execledger.Audit, []byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := execledger.Read(bytes.NewReader(b), execledger.Options{})
	if err != nil {
		t.Fatalf("Read(%s) = %v", p, err)
	}
	return a, b
}

// faults counts calls and fails the n-th write or fsync with errno.
type faults struct {
	failWrite, failSync int // 1-based call number to fail (0: never)
	writes, syncs       int
	errno               syscall.Errno
	short               bool // accept half of every write
	eintr               int  // fail this write call with EINTR once
}

func (f *faults) ops() safefs.Ops {
	return safefs.Ops{
		Write: func(fd int, p []byte) (int, error) {
			f.writes++
			if f.writes == f.eintr {
				return 0, syscall.EINTR
			}
			if f.writes == f.failWrite {
				// half the bytes land, then the device refuses
				n, _ := syscall.Write(fd, p[:len(p)/2])
				return n, f.errno
			}
			if f.short && len(p) > 1 {
				return syscall.Write(fd, p[:len(p)/2])
			}
			return syscall.Write(fd, p)
		},
		Fsync: func(fd int) error {
			f.syncs++
			if f.syncs == f.failSync {
				return f.errno
			}
			return syscall.Fsync(fd)
		},
	}
}

func TestCreateLocation(t *testing.T) {
	d := ledgerDir(t)
	p := filepath.Join(d, "execution_ledger.ndjson")
	w, err := execledger.Create(p, lt.Header(), execledger.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 (D8)", fi.Mode().Perm())
	}
	// D7: the file exists (even as written by this run).
	if _, err := execledger.Create(p, lt.Header(), execledger.WriterOptions{}); refusal.Of(err) != safefs.ErrExists.Class {
		t.Errorf("Create(existing) = %v, want fs/exists", err)
	}
	// D6: directory mode 0755.
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755) // whatever the umask
	if _, err := execledger.Create(filepath.Join(open, "l.ndjson"), lt.Header(), execledger.WriterOptions{}); refusal.Of(err) != execledger.ErrLocation.Class {
		t.Errorf("Create(0755 dir) = %v, want ledger/location", err)
	}
	// D3: the directory is reached through a symbolic link.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(d, link)
	if _, err := execledger.Create(filepath.Join(link, "l2.ndjson"), lt.Header(), execledger.WriterOptions{}); err == nil {
		t.Error("Create through a symlinked directory succeeded")
	} else if c, _ := refusal.ClassOf(err); c != execledger.ErrLocation.Class && c != safefs.ErrSymlink.Class {
		t.Errorf("Create(symlinked dir) = %v, want ledger/location or fs/symlink", err)
	}
	// D4: an ancestor is a symbolic link.
	anc := filepath.Join(t.TempDir(), "anc")
	os.Symlink(filepath.Dir(d), anc)
	if _, err := execledger.Create(filepath.Join(anc, "evidence", "l3.ndjson"), lt.Header(), execledger.WriterOptions{}); refusal.Of(err) != safefs.ErrSymlink.Class {
		t.Errorf("Create(symlinked ancestor) = %v, want fs/symlink", err)
	}
	// D5: the ledger name is a (dangling) symbolic link.
	os.Symlink(filepath.Join(d, "nowhere"), filepath.Join(d, "dangling.ndjson"))
	if _, err := execledger.Create(filepath.Join(d, "dangling.ndjson"), lt.Header(), execledger.WriterOptions{}); refusal.Of(err) != safefs.ErrSymlink.Class && refusal.Of(err) != safefs.ErrExists.Class {
		t.Errorf("Create(dangling symlink name) = %v, want fs/symlink or fs/exists", err)
	}
	if _, err := os.Stat(filepath.Join(d, "nowhere")); err == nil {
		t.Error("the dangling link was followed")
	}
}

// TestWriteFaults is D9–D14 and D16: ENOSPC and EIO on write and on fsync
// each truncate back and poison; nothing is appended afterwards.
func TestWriteFaults(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EIO} {
		for _, where := range []string{"write", "fsync"} {
			for _, row := range []string{"call", "terminal"} {
				t.Run(errno.Error()+"/"+where+"/"+row, func(t *testing.T) {
					d := ledgerDir(t)
					p := filepath.Join(d, "l.ndjson")
					f := &faults{errno: errno}
					w, err := execledger.Create(p, lt.Header(), execledger.WriterOptions{Ops: f.ops()})
					if err != nil {
						t.Fatal(err)
					}
					defer w.Close()
					if row == "terminal" {
						if err := w.RecordCall(lt.Answered(0, 1, 0)); err != nil {
							t.Fatal(err)
						}
					}
					before, _ := os.Stat(p)
					// the next row's write (or fsync) fails
					if where == "write" {
						f.failWrite = f.writes + 1
					} else {
						f.failSync = f.syncs + 1
					}
					if row == "call" {
						err = w.RecordCall(lt.Answered(0, 1, 0))
					} else {
						err = w.Finalize("scored", "2031-03-03T09:05:00Z", nil)
					}
					var we *execledger.WriteError
					if !errors.As(err, &we) || !errors.Is(err, errno) || !we.RolledBack {
						t.Fatalf("%s = %v, want a rolled-back WriteError wrapping %v", row, err, errno)
					}
					if _, c := refusal.ClassOf(err); c {
						t.Errorf("a write failure carries a refusal class: %v", err)
					}
					after, _ := os.Stat(p)
					if after.Size() != before.Size() {
						t.Errorf("size %d after the failed row, want %d (truncated back)", after.Size(), before.Size())
					}
					if !w.Poisoned() || w.Finalized() {
						t.Errorf("poisoned=%v finalized=%v", w.Poisoned(), w.Finalized())
					}
					for i := 0; i < 2; i++ {
						if err := w.RecordCall(lt.Answered(w.Calls(), 1, 5)); refusal.Of(err) != execledger.ErrWriterState.Class {
							t.Errorf("RecordCall after poison = %v, want ledger/writer-state", err)
						}
						if err := w.Finalize("aborted", "2031-03-03T09:05:00Z", lt.Str("execution_aborted")); refusal.Of(err) != execledger.ErrWriterState.Class {
							t.Errorf("Finalize after poison = %v, want ledger/writer-state", err)
						}
					}
					if _, err := w.Binding(); refusal.Of(err) != execledger.ErrNoBinding.Class {
						t.Errorf("Binding after poison = %v, want ledger/no-binding", err)
					}
					last, _ := os.Stat(p)
					if last.Size() != before.Size() {
						t.Errorf("something was appended after the poison")
					}
					a, _ := readFile(t, p)
					if a.Status() != execledger.StatusIncomplete || a.TruncatedTail {
						t.Errorf("status %s truncated %v, want a clean incomplete prefix", a.Status(), a.TruncatedTail)
					}
				})
			}
		}
	}
}

// TestShortWritesAndEINTR is D9, D14 and D17.
func TestShortWritesAndEINTR(t *testing.T) {
	d := ledgerDir(t)
	p := filepath.Join(d, "l.ndjson")
	f := &faults{short: true, eintr: 3}
	w, err := execledger.Create(p, lt.Header(), execledger.WriterOptions{Ops: f.ops()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RecordCall(lt.Answered(0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := w.Finalize("scored", "2031-03-03T09:05:00Z", nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	a, b := readFile(t, p)
	if a.Status() != "scored" || bytes.Count(b, []byte("\n")) != 3 {
		t.Errorf("status %s lines %d", a.Status(), bytes.Count(b, []byte("\n")))
	}
	if f.syncs < 3 {
		t.Errorf("%d fsyncs, want at least one per row (3)", f.syncs)
	}
	if a.LedgerDigest() != w.LedgerDigest() || w.ChainTip() != a.ChainTip {
		t.Errorf("writer and reader disagree on the chain head")
	}
}

// failTruncate is an in-memory file whose fsync and truncate both fail (D13).
type failTruncate struct {
	lt.MemFile
	failing bool
}

func (f *failTruncate) Sync() error {
	if f.failing {
		return syscall.EIO
	}
	return nil
}
func (f *failTruncate) Truncate(int64) error { return syscall.EIO }

func TestRollbackFails(t *testing.T) {
	f := &failTruncate{}
	w, err := execledger.NewWriter(f, lt.Header())
	if err != nil {
		t.Fatal(err)
	}
	f.failing = true
	err = w.RecordCall(lt.Answered(0, 1, 0))
	var we *execledger.WriteError
	if !errors.As(err, &we) || we.RolledBack {
		t.Fatalf("RecordCall = %v, want WriteError with RolledBack false", err)
	}
	if !w.Poisoned() {
		t.Error("not poisoned")
	}
	// What is left is a full, unsynced row: it reads, but never as scored.
	a, err := execledger.Read(bytes.NewReader(f.Bytes()), execledger.Options{})
	if err != nil || a.Scored() {
		t.Errorf("Read = %v, %v; want a non-scored prefix", a, err)
	}
}

// TestWriterRefusals is §11.4 and L11/L12 at the writer: a refused row
// writes nothing.
func TestWriterRefusals(t *testing.T) {
	newW := func() (*execledger.Writer, *lt.MemFile) {
		f := &lt.MemFile{}
		w, err := execledger.NewWriter(f, lt.Header())
		if err != nil {
			t.Fatal(err)
		}
		return w, f
	}
	answered := func() execledger.Call { return lt.Answered(0, 1, 0) }
	faulted := func() execledger.Call { return lt.Faulted(0, 1, 0) }
	edit := func(base func() execledger.Call, change func(*execledger.Call)) func() execledger.Call {
		return func() execledger.Call { c := base(); change(&c); return c }
	}
	cases := []struct {
		name  string
		class *refusal.Refusal
		call  func() execledger.Call
	}{
		{"O1 decision on a forfeited fault", execledger.ErrSchema, edit(faulted, func(c *execledger.Call) { c.Decision = lt.Answered(0, 1, 0).Decision })},
		{"O2 usage without counts", execledger.ErrSchema, edit(answered, func(c *execledger.Call) { c.Attempts[0].InputTokens = nil })},
		{"O3 measured without amount", execledger.ErrSchema, edit(answered, func(c *execledger.Call) { c.Attempts[0].CostMeasuredUSD = nil })},
		{"O4 measured and forfeited", execledger.ErrSchema, edit(answered, func(c *execledger.Call) { c.Attempts[0].CostForfeitedUSD = lt.Str("0.02") })},
		{"O5 response evidence on a timeout", execledger.ErrSchema, edit(faulted, func(c *execledger.Call) {
			c.Attempts[0].Fault, c.Attempts[0].HTTPStatus, c.Attempts[0].ResponseReceived = lt.Str("provider_timeout"), nil, false
			c.Attempts[0].ResponseModel = lt.Str("gpt-5.6-luna")
		})},
		{"V2 v3 HTTP status without response", execledger.ErrSchema, edit(faulted, func(c *execledger.Call) {
			c.Attempts[0].Fault, c.Attempts[0].HTTPStatus, c.Attempts[0].ResponseReceived = lt.Str("provider_request_rejected"), lt.Int(400), false
			c.TerminalReason = lt.Str("fault_not_retryable")
		})},
		{"S9 prose terminal reason", execledger.ErrSchema, edit(answered, func(c *execledger.Call) { c.TerminalReason = lt.Str("the provider says it is busy right now") })},
		{"A8 reservation 0.01", execledger.ErrArithmetic, edit(answered, func(c *execledger.Call) { c.Attempts[0].CostReservationUSD = lt.Str("0.01") })},
		{"A9 measured 0.0001", execledger.ErrArithmetic, edit(answered, func(c *execledger.Call) { c.Attempts[0].CostMeasuredUSD = lt.Str("0.0001") })},
		{"A10 measured without usage", execledger.ErrSchema, edit(answered, func(c *execledger.Call) {
			c.Attempts[0].UsageReported = false
			c.Attempts[0].InputTokens, c.Attempts[0].OutputTokens = nil, nil
		})},
		{"A11 partial forfeit", execledger.ErrArithmetic, edit(faulted, func(c *execledger.Call) { c.Attempts[0].CostForfeitedUSD = lt.Str("0.01") })},
		{"L11 call_index 7 after none", execledger.ErrWriterState, func() execledger.Call { return lt.Answered(7, 1, 0) }},
		{"secret in a digest field", execledger.ErrForbiddenContent, edit(answered, func(c *execledger.Call) { c.Attempts[0].ResponseModel = lt.Str("sk-abcdefghijklmnop") })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, f := newW()
			size := f.Size()
			if err := w.RecordCall(tc.call()); refusal.Of(err) != tc.class.Class {
				t.Errorf("RecordCall = %v, want %s", err, tc.class.Class)
			}
			if f.Size() != size || w.Poisoned() {
				t.Errorf("a refused call wrote %d bytes (poisoned %v)", f.Size()-size, w.Poisoned())
			}
		})
	}
	// O6, O7 and terminal admissibility at Finalize.
	w, _ := newW()
	if err := w.Finalize("scored", "2031-03-03T09:05:00Z", lt.Str("provider_server_error")); refusal.Of(err) != execledger.ErrSchema.Class {
		t.Errorf("O6 Finalize(scored, code) = %v", err)
	}
	if err := w.Finalize("excluded", "2031-03-03T09:05:00Z", nil); refusal.Of(err) != execledger.ErrInadmissible.Class && refusal.Of(err) != execledger.ErrSchema.Class {
		t.Errorf("O7 Finalize(excluded, nil) = %v", err)
	}
	w.RecordCall(lt.Faulted(0, 1, 0))
	if err := w.Finalize("scored", "2031-03-03T09:05:00Z", nil); refusal.Of(err) != execledger.ErrInadmissible.Class {
		t.Errorf("Finalize(scored) over a fault = %v, want ledger/inadmissible", err)
	}
	// L12: nothing after finalise.
	if err := w.Finalize("excluded", "2031-03-03T09:05:00Z", lt.Str("provider_server_error")); err != nil {
		t.Fatal(err)
	}
	if err := w.RecordCall(lt.Answered(1, 1, 1)); refusal.Of(err) != execledger.ErrWriterState.Class {
		t.Errorf("RecordCall after Finalize = %v", err)
	}
	if err := w.Finalize("aborted", "2031-03-03T09:05:00Z", lt.Str("execution_aborted")); refusal.Of(err) != execledger.ErrWriterState.Class {
		t.Errorf("Finalize after Finalize = %v", err)
	}
	if _, err := w.Binding(); refusal.Of(err) != execledger.ErrNoBinding.Class {
		t.Errorf("Binding of an excluded run = %v, want ledger/no-binding", err)
	}
	// O8: header intended_artifact_version 6.
	h := lt.Header()
	h.IntendedArtefactVersion = 6
	if _, err := execledger.NewWriter(&lt.MemFile{}, h); refusal.Of(err) != execledger.ErrSchema.Class {
		t.Errorf("O8 NewWriter(intended 6) = %v", err)
	}
	h = lt.Header()
	h.Provider.Settings["headers"] = map[string]any{"Authorization": "Bearer x"}
	if _, err := execledger.NewWriter(&lt.MemFile{}, h); refusal.Of(err) != execledger.ErrForbiddenContent.Class {
		t.Errorf("NewWriter(secret settings) = %v", err)
	}
}

// TestAbortedAndPreDispatch is O10/O11/O12.
func TestAbortedAndPreDispatch(t *testing.T) {
	h := lt.Header()
	h.Controls.MaxAttemptsPerCall = 2
	f := &lt.MemFile{}
	w, err := execledger.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	c := lt.Faulted(0, 1, 0)
	c.TerminalReason = lt.Str("pre_dispatch_refused")
	if err := w.RecordCall(c); err != nil {
		t.Fatal(err)
	}
	if err := w.Finalize("aborted", "2031-03-03T09:05:00Z", lt.Str("execution_aborted")); err != nil {
		t.Fatal(err)
	}
	a, err := execledger.Read(bytes.NewReader(f.Bytes()), execledger.Options{RequireComplete: true})
	if err != nil || a.Status() != "aborted" || a.Scored() || !a.Complete() || *a.Calls[0].TerminalReason != "pre_dispatch_refused" {
		t.Fatalf("Read = %v %v", a, err)
	}
	for _, word := range []string{"final_state", "terminal_outcome", "evaluation", "reliable", "failed_dimensions", "trajectory"} {
		if bytes.Contains(f.Bytes(), []byte(word)) || bytes.Contains(lt.Excluded(), []byte(word)) {
			t.Errorf("a ledger carries %q", word)
		}
	}
}
