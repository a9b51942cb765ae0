package safefs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNameAppearsOnlyWhole holds CreateFile's Linux form: while the bytes
// are written and the file is synced, name does not exist; when the
// directory is synced, name holds every byte.
func TestNameAppearsOnlyWhole(t *testing.T) {
	chdir(t)
	data := bytes.Repeat([]byte("0123456789"), 1000)
	absent := func(when string) {
		t.Helper()
		if _, err := os.Lstat("x.json"); !os.IsNotExist(err) {
			t.Fatalf("x.json exists %s (lstat: %v)", when, err)
		}
	}
	writes, syncs := 0, 0
	ops := Ops{
		Write: func(fd int, p []byte) (int, error) {
			writes++
			absent("while its bytes are written")
			return unix.Write(fd, p[:min(len(p), 1000)]) // short writes: several calls
		},
		Fsync: func(fd int) error {
			syncs++
			if syncs == 1 {
				absent("before the file is synced")
			} else if got, err := os.ReadFile("x.json"); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("at the directory sync x.json holds %d bytes (err %v), want %d", len(got), err, len(data))
			}
			return unix.Fsync(fd)
		},
	}
	if err := WriteFileOps("x.json", data, 0o644, ops); err != nil {
		t.Fatal(err)
	}
	if writes < 2 || syncs != 2 {
		t.Fatalf("%d writes and %d syncs passed the seam, want several and 2", writes, syncs)
	}
	st, err := os.Lstat("x.json")
	if err != nil || st.Mode().Perm() != 0o644&^umask() || !st.Mode().IsRegular() {
		t.Fatalf("x.json: %v, %v", st, err)
	}
}

func umask() os.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return os.FileMode(m)
}

// TestKilledWriterLeavesNothing kills a process in the middle of writing a
// file: nothing is left at the name, so a rerun can create it.
func TestKilledWriterLeavesNothing(t *testing.T) {
	if dir := os.Getenv("SAFEFS_KILLED_WRITER"); dir != "" {
		ops := Ops{Write: func(fd int, p []byte) (int, error) {
			n, err := unix.Write(fd, p[:len(p)/2])
			os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
			time.Sleep(time.Hour) // killed here, half written
			return n, err
		}}
		WriteFileOps(filepath.Join(dir, "x.json"), bytes.Repeat([]byte("x"), 1<<16), 0o644, ops)
		os.Exit(3)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledWriterLeavesNothing$")
	cmd.Env = append(os.Environ(), "SAFEFS_KILLED_WRITER="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the writer never began writing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Lstat(filepath.Join(dir, "x.json")); !os.IsNotExist(err) {
		t.Fatalf("a killed writer left x.json (lstat: %v)", err)
	}
	if err := WriteFile(filepath.Join(dir, "x.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatalf("the rerun cannot create x.json: %v", err)
	}
}
