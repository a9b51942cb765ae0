package campaign

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"os"
	"path/filepath"

	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/refusal"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
)

// Committed is what [CommitBundles] produces: the log's signed checkpoint
// and, for each bundle in order, its C2SP tlog-proof.
type Committed struct {
	Checkpoint checkpoint.Checkpoint
	Signed     []byte
	Proofs     [][]byte
}

// CommitBundles commits to a set of run commitment bundles on the same
// kind of log a campaign keeps: a new tessera POSIX log beneath dir/log
// (which must not exist) whose entries are the bundles' leaves
// (checkpoint.LeafData), in order, with a checkpoint signed by signer; each
// bundle's inclusion proof is built from the log's tiles. The same bundle
// twice is refused (checkpoint.ErrDuplicateLeaf).
func CommitBundles(ctx context.Context, dir string, bundles [][]byte, signer note.Signer, pub *ecdsa.PublicKey) (*Committed, error) {
	if len(bundles) == 0 || len(bundles) > checkpoint.MaxLeaves {
		return nil, errors.New("campaign: commit 1..MaxLeaves bundles")
	}
	seen := make(map[string]int, len(bundles))
	leaves := make([][]byte, len(bundles))
	for i, b := range bundles {
		h := string(checkpoint.LeafHash(b))
		if j, dup := seen[h]; dup {
			return nil, refusal.New(checkpoint.ErrDuplicateLeaf, "episodes %d and %d are the same commitment bundle", j, i)
		}
		seen[h], leaves[i] = i, checkpoint.LeafData(b)
	}
	if _, err := os.Lstat(filepath.Join(dir, LogDir)); !errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("campaign: " + filepath.Join(dir, LogDir) + " already exists; a log is never appended to by commit")
	}
	a, err := openAppender(ctx, dir, signer)
	if err != nil {
		return nil, err
	}
	if err := a.addAll(ctx, leaves, 0, errors.New("campaign: the log sequenced a bundle out of order")); err != nil {
		return nil, err
	}
	signed, err := a.close(ctx)
	if err != nil {
		return nil, err
	}
	cp, err := checkpoint.OpenCheckpoint(signed, pub, signer.Name())
	if err != nil {
		return nil, err
	}
	if cp.Size != uint64(len(bundles)) {
		return nil, errors.New("campaign: the published checkpoint does not cover every bundle")
	}
	ff := client.FileFetcher{Root: filepath.Join(dir, LogDir)}
	pb, err := client.NewProofBuilder(ctx, cp.Size, ff.ReadTile)
	if err != nil {
		return nil, err
	}
	out := &Committed{Checkpoint: cp, Signed: signed, Proofs: make([][]byte, len(bundles))}
	for i := range bundles {
		hashes, err := pb.InclusionProof(ctx, uint64(i))
		if err != nil {
			return nil, err
		}
		out.Proofs[i] = checkpoint.FormatProof(uint64(i), hashes, signed)
	}
	return out, nil
}
