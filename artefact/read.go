package artefact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/limits"
)

// Document is one artefact as read: its typed view, its JSON tree (the
// source of truth for every digest and every replay comparison) and facts
// about the bytes it was read from.
type Document struct {
	// Artefact is the typed view of Tree.
	Artefact *Artefact
	// Tree is the parsed document, exactly as read.
	Tree map[string]any
	// FileSHA256 is the SHA-256 of the bytes read, lowercase hex.
	FileSHA256 string
	// Canonical reports whether the bytes are exactly the upstream canonical
	// rendering of Tree followed by one newline: the form every upstream
	// writer and obaudit's writer produce. A document need not be canonical
	// to be read.
	Canonical bool
}

// Version returns the document's contract version.
func (d *Document) Version() int { return int(d.Artefact.ArtifactVersion) }

// Read parses and fully validates an artefact file's bytes. The parse is
// strict (package canon): invalid UTF-8, a byte order mark, duplicate keys,
// nesting deeper than 64, integers beyond ±(2^53−1) and non-finite numbers
// are refused with canon's classes; an input larger than
// limits.MaxArtefactBytes, or packing its values more densely than
// limits.CheckDensity allows, is refused as limits/exceeded before it is
// parsed. Everything else is [Validate].
func Read(b []byte, opts Options) (*Document, error) {
	if err := admit(b); err != nil {
		return nil, err
	}
	// Canonical bytes are checked as they are parsed, and the content
	// digests are then taken over spans of them; any other bytes are
	// re-encoded for the digests.
	tree, members, err := canon.ParseCanonical(b)
	if err != nil {
		return nil, err
	}
	a, enc, err := validate(tree, opts, members)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	d := &Document{Artefact: a, Tree: tree.(map[string]any), FileSHA256: hex.EncodeToString(sum[:])}
	d.Canonical = members != nil || len(enc)+1 == len(b) && b[len(b)-1] == '\n' && bytes.Equal(enc, b[:len(enc)])
	return d, nil
}

// Parse is Read's strict parse alone, with its bounds (the size limit and
// the density check before anything is parsed), for a caller that judges
// the tree otherwise (obaudit validate --schema).
func Parse(b []byte) (any, error) {
	if err := admit(b); err != nil {
		return nil, err
	}
	return canon.Parse(b)
}

// admit holds b to the artefact size and density limits, before any parse.
func admit(b []byte) error {
	if len(b) > limits.MaxArtefactBytes {
		return limits.Exceeded("MaxArtefactBytes", limits.MaxArtefactBytes, int64(len(b)))
	}
	return limits.CheckDensity("artefact", b)
}
