package safefs

import "github.com/obaudit/obaudit/refusal"

// Targets is a set of output files written all or nothing, for a command
// that writes several (commit, export, run --output, preflight). Every
// target is checked when the set is made — its path form, every directory
// component opened without following links and held open, the file name
// absent — before the command's first write and before it calls any
// provider. Files are then created through the held directories; on any
// failure [Targets.Abandon] removes every file this set created, so the
// command leaves nothing new behind.
//
// Refusals are the package's: [ErrBadPath] (also for a path named twice),
// [ErrSymlink], [ErrNotDir], [ErrExists], [ErrUnsupportedHost].
type Targets struct {
	dirs    []*Dir
	names   []string
	created []bool
}

// CheckTargets checks every path (see [Targets]) and holds its directory.
// Nothing is created.
func CheckTargets(paths ...string) (*Targets, error) {
	return CheckTargetsOps(Ops{}, paths...)
}

// CheckTargetsOps is CheckTargets with an injected syscall seam.
func CheckTargetsOps(ops Ops, paths ...string) (*Targets, error) {
	if !Supported {
		return nil, refusal.New(ErrUnsupportedHost, "no no-follow directory primitives on this host")
	}
	t := &Targets{}
	for i, p := range paths {
		for _, q := range paths[:i] {
			if q == p {
				t.Close()
				return nil, refusal.New(ErrBadPath, "%q is named as two outputs", p)
			}
		}
		root, dirs, name, err := split(p)
		if err != nil {
			t.Close()
			return nil, err
		}
		d, err := openDir(root, dirs, ops)
		if err != nil {
			t.Close()
			return nil, err
		}
		t.dirs, t.names, t.created = append(t.dirs, d), append(t.names, name), append(t.created, false)
		if err := d.absent(name); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// WriteFile creates target i whole (as [Dir.CreateFile]); a failure leaves
// target i absent, and the files written before it in place until Abandon.
func (t *Targets) WriteFile(i int, data []byte, perm uint32) error {
	if err := t.dirs[i].CreateFile(t.names[i], data, perm); err != nil {
		return err
	}
	t.created[i] = true
	return nil
}

// WriteAll writes data[i] to target i for every target, in order, all or
// nothing: on the first failure every file this set created is removed
// and the failure returned.
func (t *Targets) WriteAll(data [][]byte, perm uint32) error {
	if len(data) != len(t.names) {
		return refusal.New(ErrBadPath, "%d outputs for %d targets", len(data), len(t.names))
	}
	for i := range data {
		if err := t.WriteFile(i, data[i], perm); err != nil {
			t.Abandon()
			return err
		}
	}
	return nil
}

// Abandon removes every file this set created (and fsyncs its directory).
func (t *Targets) Abandon() error {
	var first error
	for i, d := range t.dirs {
		if !t.created[i] {
			continue
		}
		if err := d.remove(t.names[i]); err != nil && first == nil {
			first = err
		}
		t.created[i] = false
	}
	return first
}

// Close releases the held directories (files written stay).
func (t *Targets) Close() error {
	var first error
	for _, d := range t.dirs {
		if err := d.Close(); err != nil && first == nil {
			first = err
		}
	}
	t.dirs = nil
	return first
}
