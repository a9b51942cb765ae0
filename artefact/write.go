package artefact

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
)

// FileMode is the permission an artefact file is created with.
const FileMode = 0o600

// Encode returns the bytes a contract-8 artefact is written as: upstream
// canonical JSON (sorted keys, compact, raw UTF-8) followed by exactly one
// newline. An artefact this build would refuse to read is one it will not
// write: the bytes are parsed back and held to [Validate] with opts before
// they are returned, so a run that cannot be represented is refused before
// any file exists.
func Encode(a *Artefact, opts Options) ([]byte, error) {
	if a.ArtifactVersion != Version {
		return nil, refusal.New(ErrUnsupportedVersion, "/artifact_version: this build writes contract %d only, not %d", Version, a.ArtifactVersion)
	}
	b, err := canon.Upstream(a.Tree())
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	tree, err := canon.Parse(b)
	if err != nil {
		return nil, err
	}
	if _, err := Validate(tree, opts); err != nil {
		return nil, err
	}
	return b, nil
}

// WriteFile creates path and writes b to it exactly once, mode 0600, never
// following a link: every directory component is opened with no-follow
// semantics beneath the root ("/" for an absolute path, "." otherwise), the
// file is created with O_EXCL|O_NOFOLLOW against the checked directory,
// written whole, fsynced, and its directory fsynced. An existing file or a
// symbolic link anywhere on the path is refused (fs/exists, fs/symlink); on
// any failure nothing is left at path. Missing directories are not created.
func WriteFile(path string, b []byte) error {
	return writeFile(path, b, safefs.Ops{})
}

func writeFile(path string, b []byte, ops safefs.Ops) error {
	return safefs.WriteFileOps(path, b, FileMode, ops)
}

// Write encodes a (see [Encode]) and writes it to path (see [WriteFile]).
func Write(path string, a *Artefact, opts Options) ([]byte, error) {
	b, err := Encode(a, opts)
	if err != nil {
		return nil, err
	}
	if err := WriteFile(path, b); err != nil {
		return nil, err
	}
	return b, nil
}
