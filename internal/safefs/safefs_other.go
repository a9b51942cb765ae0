//go:build !unix

package safefs

import "github.com/obaudit/obaudit/refusal"

// Supported reports whether this host has the no-follow primitives.
const Supported = false

// Dir is unavailable on this host.
type Dir struct{ ops Ops }

// File is unavailable on this host.
type File struct{ dir *Dir }

func unsupported() error {
	return refusal.New(ErrUnsupportedHost, "no no-follow directory primitives on this host")
}

func openDir(string, []string, Ops) (*Dir, error) { return nil, unsupported() }

// Close does nothing on this host.
func (d *Dir) Close() error { return nil }

// CreateFile fails closed on this host.
func (d *Dir) CreateFile(name string, data []byte, perm uint32) error { return unsupported() }

// Dir returns nil on this host.
func (f *File) Dir() *Dir { return nil }

// CreateAppend fails closed on this host.
func (d *Dir) CreateAppend(name string, perm uint32) (*File, error) { return nil, unsupported() }

// WriteAll fails closed on this host.
func (f *File) WriteAll(p []byte) error { return unsupported() }

// Sync fails closed on this host.
func (f *File) Sync() error { return unsupported() }

// Truncate fails closed on this host.
func (f *File) Truncate(size int64) error { return unsupported() }

// Size is 0 on this host.
func (f *File) Size() int64 { return 0 }

// Close does nothing on this host.
func (f *File) Close() error { return nil }

func (d *Dir) absent(string) error { return unsupported() }

func (d *Dir) remove(string) error { return unsupported() }
