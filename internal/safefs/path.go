package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/obaudit/obaudit/refusal"
)

// split turns a path into its anchor, its directory components and the
// final name, resolving only what cannot involve a symbolic link:
//
//   - the anchor is "/" for an absolute path, else "." (the working
//     directory) followed by the path's leading ".." components
//     ("../../x.json" is anchored at "../.."): ".." from a directory is
//     its physical parent, never a link;
//   - empty and "." components ("./x.json", "a//b", "a/./b") are dropped;
//   - a ".." after a directory name ("a/../x.json") is refused: it would
//     climb out of a, which is a different directory when a is a link, and
//     the no-follow walk never resolves a name to learn that;
//   - a path that names a directory ("d/", ".", "..") is refused.
//
// Every directory component is then opened no-follow beneath the anchor.
func split(path string) (root string, dirs []string, name string, err error) {
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return "", nil, "", refusal.New(ErrBadPath, "%q: empty path or NUL byte", path)
	}
	root = "."
	rest := path
	if filepath.IsAbs(path) {
		root = "/"
		rest = strings.TrimLeft(path, "/")
	}
	var parts []string
	named := false
	for _, p := range strings.Split(rest, "/") {
		switch {
		case p == "" || p == ".":
		case p == ".." && !named:
			if root == "/" {
				continue // "/.." is "/"
			}
			if root == "." {
				root = ".."
			} else {
				root += "/.."
			}
		case p == "..":
			return "", nil, "", refusal.New(ErrBadPath, "%s: a \"..\" after a directory name is not resolved (it depends on whether that directory is a link); write the path without it", path)
		default:
			named = true
			parts = append(parts, p)
		}
	}
	last := path[strings.LastIndexByte(path, '/')+1:]
	if len(parts) == 0 || last == "" || last == "." || last == ".." {
		return "", nil, "", refusal.New(ErrBadPath, "%s names a directory, not a file", path)
	}
	return root, parts[:len(parts)-1], parts[len(parts)-1], nil
}

// prefixOf is how paths beneath root are shown in messages: "/tmp/x" from
// "/", "x" from ".", "../x" from "..". Messages name paths as the user
// would write them, never "//tmp" or a root-less "tmp/x".
func prefixOf(root string) string {
	switch root {
	case "/":
		return "/"
	case ".":
		return ""
	}
	return root + "/"
}

// missingDirError is a directory component that does not exist.
type missingDirError struct {
	dir  string // as shown
	hint string // how to make it
	err  error
}

func (e *missingDirError) Error() string {
	return fmt.Sprintf("directory %s does not exist; make it first (%s)", e.dir, e.hint)
}

func (e *missingDirError) Unwrap() error { return e.err }

// WithMkdirHint says how to make a missing directory: "mkdir -m 0700 DIR"
// when the file to be created is private (perm grants nothing to group or
// others), else "mkdir -p DIR". Other errors pass unchanged. Callers that
// check targets before they know how the file is written ([CheckTargets])
// but know its mode use it too.
func WithMkdirHint(err error, perm uint32) error {
	var m *missingDirError
	if !errors.As(err, &m) {
		return err
	}
	if perm&0o077 == 0 {
		m.hint = "mkdir -m 0700 " + m.dir
	} else {
		m.hint = "mkdir -p " + m.dir
	}
	return err
}

// missingDir wraps a no-such-file error on directory component shown.
func missingDir(shown string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &missingDirError{dir: shown, hint: "mkdir -p " + shown, err: err}
	}
	return err
}
