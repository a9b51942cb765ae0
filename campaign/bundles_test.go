package campaign

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/refusal"
)

// TestCommitBundlesAgainstTree holds the tessera log's root and tile-built
// proofs to checkpoint's own in-memory RFC 6962 tree and verifier.
func TestCommitBundlesAgainstTree(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const origin = "obaudit.example/campaign/commit"
	s, err := checkpoint.NewNoteSigner(origin, k, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 7, 256, 300} {
		var bundles, leaves [][]byte
		for i := range n {
			b := []byte(fmt.Sprintf("bundle %d of %d", i, n))
			bundles = append(bundles, b)
			leaves = append(leaves, checkpoint.LeafHash(b))
		}
		dir := t.TempDir()
		c, err := CommitBundles(context.Background(), dir, bundles, s, &k.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		tree, _ := checkpoint.Build(leaves)
		if c.Checkpoint.Size != uint64(n) || !bytes.Equal(c.Checkpoint.Root, tree.Root()) {
			t.Fatalf("n=%d: log root %x, tree root %x", n, c.Checkpoint.Root, tree.Root())
		}
		for i, b := range bundles {
			if _, idx, err := checkpoint.VerifyInclusion(c.Proofs[i], b, &k.PublicKey, checkpoint.VerifyOptions{Checkpoint: c.Signed, Origin: origin}); err != nil || idx != uint64(i) {
				t.Fatalf("n=%d: proof %d: %v (index %d)", n, i, err, idx)
			}
		}
		if _, err := CommitBundles(context.Background(), dir, bundles, s, &k.PublicKey); err == nil {
			t.Fatalf("n=%d: a second commit into %s succeeded", n, filepath.Join(dir, LogDir))
		}
	}
	_, err = CommitBundles(context.Background(), t.TempDir(), [][]byte{[]byte("a"), []byte("a")}, s, &k.PublicKey)
	if got, _ := refusal.ClassOf(err); got != checkpoint.ErrDuplicateLeaf.Class {
		t.Errorf("CommitBundles(duplicate) = %v, want %s", err, checkpoint.ErrDuplicateLeaf.Class)
	}
}
