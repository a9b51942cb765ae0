package artefact

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
)

// FileMode is the permission an artefact file is created with.
const FileMode = 0o600

// Encode returns the bytes a contract-8 artefact is written as: upstream
// canonical JSON (sorted keys, compact, raw UTF-8) followed by exactly one
// newline. An artefact this build would refuse to read is one it will not
// write: the document is held to [Validate] with opts before the bytes are
// returned, so a run that cannot be represented is refused before any file
// exists. See [EncodeDocument].
func Encode(a *Artefact, opts Options) ([]byte, error) {
	_, b, err := EncodeDocument(a, opts)
	return b, err
}

// EncodeDocument is [Encode] that also returns the written bytes as
// [Read] would return them: the validated tree, its typed view and the
// bytes' SHA-256, so a caller that goes on to derive facts from the bytes
// (a run commitment) need not parse them again.
//
// The bytes are the canonical encoding validation computes of a.Tree() for
// its content digests (one encoding, not two), and validation runs on that
// tree itself rather than on a parse of the bytes: the tree holds only the
// types the strict parser yields (int64, float64, string, bool, nil, []any,
// map[string]any), so parsing the bytes back gives the same tree and the
// same verdict (TestEncodeTreeIsItsParse holds every registered agent's
// V1–V3 artefact to that). Should validation of the tree refuse, the
// bytes are parsed back and the parse validated as before, so a tree of
// other Go types is never refused that the reader would accept.
func EncodeDocument(a *Artefact, opts Options) (*Document, []byte, error) {
	if a.ArtifactVersion != Version {
		return nil, nil, refusal.New(ErrUnsupportedVersion, "/artifact_version: this build writes contract %d only, not %d", Version, a.ArtifactVersion)
	}
	tree := a.Tree()
	typed, enc, err := validate(tree, opts, nil)
	if err != nil {
		// The reader's verdict on these bytes is the one that counts.
		b, err := canon.Upstream(tree)
		if err != nil {
			return nil, nil, err
		}
		b = append(b, '\n')
		parsed, err := canon.Parse(b)
		if err != nil {
			return nil, nil, err
		}
		if typed, enc, err = validate(parsed, opts, nil); err != nil {
			return nil, nil, err
		}
		tree = parsed.(map[string]any)
	}
	b := append(enc, '\n')
	sum := sha256.Sum256(b)
	return &Document{Artefact: typed, Tree: tree, FileSHA256: hex.EncodeToString(sum[:]), Canonical: true}, b, nil
}

// WriteFile creates path and writes b to it exactly once, mode 0600, never
// following a link: every directory component is opened with no-follow
// semantics beneath the root ("/" for an absolute path, "." otherwise), the
// file is created with O_EXCL|O_NOFOLLOW against the checked directory,
// written whole, fsynced, and its directory fsynced. An existing file or a
// symbolic link anywhere on the path is refused (fs/exists, fs/symlink); on
// any failure nothing is left at path. Missing directories are not created.
func WriteFile(path string, b []byte) error {
	return safefs.WriteFile(path, b, FileMode)
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
