package checkpoint

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/refusal"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
)

// Bounds.
const (
	// MaxLeaves bounds a campaign.
	MaxLeaves = 1 << 24
	// MaxCheckpointBytes bounds a signed checkpoint.
	MaxCheckpointBytes = 16 << 10
	// MaxProofBytes bounds a proof file (64 hashes and a checkpoint).
	MaxProofBytes = 32 << 10
)

// ProofHeader is the first line of a C2SP tlog-proof.
const ProofHeader = "c2sp.org/tlog-proof@v1"

// Checkpoint is a tree head: origin, size and root hash.
type Checkpoint struct {
	Origin string
	Size   uint64
	Root   []byte
}

// Text returns the checkpoint's note text.
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Root))
}

// parseText reads "origin\nsize\nbase64(root)\n". Extension lines are not
// written by obaudit and are refused.
func parseText(text string) (Checkpoint, error) {
	lines := strings.Split(text, "\n")
	if len(lines) != 4 || lines[3] != "" {
		return Checkpoint{}, refusal.New(ErrMalformed, "checkpoint text is not three lines (origin, size, root)")
	}
	if !ValidOrigin(lines[0]) {
		return Checkpoint{}, refusal.New(ErrMalformed, "checkpoint origin %q is not a valid name", lines[0])
	}
	size, err := strconv.ParseUint(lines[1], 10, 64)
	if err != nil || strconv.FormatUint(size, 10) != lines[1] {
		return Checkpoint{}, refusal.New(ErrMalformed, "checkpoint size %q is not a decimal without leading zeros", lines[1])
	}
	root, err := base64.StdEncoding.Strict().DecodeString(lines[2])
	if err != nil || len(root) != 32 {
		return Checkpoint{}, refusal.New(ErrMalformed, "checkpoint root is not 32 bytes of base64")
	}
	return Checkpoint{Origin: lines[0], Size: size, Root: root}, nil
}

// FormatProof writes a C2SP tlog-proof@v1: the header, the index, the
// inclusion proof hashes in base64 one per line, an empty line and the
// signed checkpoint verbatim.
func FormatProof(index uint64, hashes [][]byte, signed []byte) []byte {
	var b bytes.Buffer
	b.WriteString(ProofHeader + "\n")
	fmt.Fprintf(&b, "index %d\n", index)
	for _, h := range hashes {
		b.WriteString(base64.StdEncoding.EncodeToString(h) + "\n")
	}
	b.WriteString("\n")
	b.Write(signed)
	return b.Bytes()
}

// Proof is a parsed tlog-proof.
type Proof struct {
	Index  uint64
	Hashes [][]byte
	Signed []byte // the checkpoint note, verbatim
}

// ParseProof reads a C2SP tlog-proof@v1 file. An "extra" line is accepted
// and ignored (the format says it is unauthenticated).
func ParseProof(b []byte) (*Proof, error) {
	if len(b) > MaxProofBytes {
		return nil, refusal.New(ErrMalformed, "proof: %d bytes is more than %d", len(b), MaxProofBytes)
	}
	head, signed, ok := bytes.Cut(b, []byte("\n\n"))
	if !ok {
		return nil, refusal.New(ErrMalformed, "proof: no empty line before the checkpoint")
	}
	lines := strings.Split(string(head), "\n")
	if lines[0] != ProofHeader {
		return nil, refusal.New(ErrMalformed, "proof: first line is not %s", ProofHeader)
	}
	lines = lines[1:]
	if len(lines) > 0 && strings.HasPrefix(lines[0], "extra ") {
		lines = lines[1:]
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "index ") {
		return nil, refusal.New(ErrMalformed, "proof: no index line")
	}
	idxText := strings.TrimPrefix(lines[0], "index ")
	idx, err := strconv.ParseUint(idxText, 10, 64)
	if err != nil || strconv.FormatUint(idx, 10) != idxText {
		return nil, refusal.New(ErrMalformed, "proof: index %q is not a decimal without leading zeros", idxText)
	}
	p := &Proof{Index: idx, Signed: signed}
	for _, l := range lines[1:] {
		h, err := base64.StdEncoding.Strict().DecodeString(l)
		if err != nil || len(h) != 32 {
			return nil, refusal.New(ErrMalformed, "proof: hash line %q is not 32 bytes of base64", l)
		}
		p.Hashes = append(p.Hashes, h)
	}
	if len(p.Hashes) > 64 {
		return nil, refusal.New(ErrMalformed, "proof: %d hashes", len(p.Hashes))
	}
	return p, nil
}

// OpenCheckpoint verifies a signed checkpoint with pub (the note key named
// by the checkpoint's own origin line) and returns it. With a non-empty
// origin, the checkpoint must name it.
func OpenCheckpoint(signed []byte, pub *ecdsa.PublicKey, origin string) (Checkpoint, error) {
	if len(signed) > MaxCheckpointBytes {
		return Checkpoint{}, refusal.New(ErrMalformed, "checkpoint: %d bytes is more than %d", len(signed), MaxCheckpointBytes)
	}
	first, _, _ := bytes.Cut(signed, []byte("\n"))
	name := string(first)
	if !ValidOrigin(name) {
		return Checkpoint{}, refusal.New(ErrMalformed, "checkpoint origin %q is not a valid name", name)
	}
	v, err := NewNoteVerifier(name, pub)
	if err != nil {
		return Checkpoint{}, err
	}
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		if errors.As(err, &unverified) || errors.As(err, &invalid) {
			return Checkpoint{}, refusal.Because(ErrSignatureInvalid, err, "checkpoint: no signature by this key and origin verifies it (check --key and --origin name the campaign's)")
		}
		return Checkpoint{}, refusal.Because(ErrMalformed, err, "checkpoint: not a C2SP signed note (text, a blank line, signature lines): cut short or edited; get it again")
	}
	c, err := parseText(n.Text)
	if err != nil {
		return Checkpoint{}, err
	}
	if origin != "" && c.Origin != origin {
		return Checkpoint{}, refusal.New(ErrOriginMismatch, "checkpoint origin is %q, expected %q", c.Origin, origin)
	}
	return c, nil
}

// VerifyOptions configure [VerifyInclusion]. The zero value trusts the
// checkpoint inside the proof (after checking its signature) under any
// origin.
type VerifyOptions struct {
	// Checkpoint, if set, is the signed checkpoint the proof must be for; a
	// proof carrying another (another size or root) is refused
	// ([ErrTreeMismatch]).
	Checkpoint []byte
	// Origin, if set, is the origin the checkpoint must name.
	Origin string
}

// VerifyInclusion checks that bundle is a leaf of the campaign: the
// checkpoint is signed by pub, the proof is for that checkpoint, and its
// hashes lead from the bundle's leaf hash at the proof's index to the
// checkpoint's root. It returns the checkpoint and the leaf index.
func VerifyInclusion(proofFile, bundle []byte, pub *ecdsa.PublicKey, opts VerifyOptions) (Checkpoint, uint64, error) {
	p, err := ParseProof(proofFile)
	if err != nil {
		return Checkpoint{}, 0, err
	}
	inProof, err := OpenCheckpoint(p.Signed, pub, opts.Origin)
	if err != nil {
		return Checkpoint{}, 0, err
	}
	c := inProof
	if opts.Checkpoint != nil {
		given, err := OpenCheckpoint(opts.Checkpoint, pub, opts.Origin)
		if err != nil {
			return Checkpoint{}, 0, err
		}
		if given.Text() != inProof.Text() {
			return Checkpoint{}, 0, refusal.New(ErrTreeMismatch, "the proof is for %s size %d, the checkpoint is %s size %d (another tree)",
				inProof.Origin, inProof.Size, given.Origin, given.Size)
		}
		c = given
	}
	if p.Index >= c.Size {
		return Checkpoint{}, 0, refusal.New(ErrInclusionInvalid, "index %d is beyond tree size %d", p.Index, c.Size)
	}
	got, err := proof.RootFromInclusionProof(rfc6962.DefaultHasher, p.Index, c.Size, LeafHash(bundle), p.Hashes)
	if err != nil {
		return Checkpoint{}, 0, refusal.Because(ErrInclusionInvalid, err, "leaf %d of %d: the proof's hashes do not form an inclusion proof for a tree of this size (cut short or edited?)", p.Index, c.Size)
	}
	if !bytes.Equal(got, c.Root) {
		return Checkpoint{}, 0, refusal.New(ErrInclusionInvalid, "leaf %d of %d: the proof leads from this bundle to root %x, the checkpoint's root is %x", p.Index, c.Size, got, c.Root)
	}
	return c, p.Index, nil
}
