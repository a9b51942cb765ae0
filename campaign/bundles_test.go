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

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/refusal"
)

// treeRoot is the RFC 6962 root over leaves by merkle's compact range, a
// tree built apart from tessera's log.
func treeRoot(t *testing.T, leaves [][]byte) []byte {
	t.Helper()
	r := (&compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}).NewEmptyRange(0)
	for _, l := range leaves {
		if err := r.Append(l, nil); err != nil {
			t.Fatal(err)
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestCommitBundlesAgainstTree holds the tessera log's root and tile-built
// proofs to an RFC 6962 tree built apart from the log (merkle's compact
// range) and to checkpoint's verifier.
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
		dir := campaigntest.TempDir(t)
		c, err := CommitBundles(context.Background(), dir, bundles, s, &k.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		if root := treeRoot(t, leaves); c.Checkpoint.Size != uint64(n) || !bytes.Equal(c.Checkpoint.Root, root) {
			t.Fatalf("n=%d: log root %x, tree root %x", n, c.Checkpoint.Root, root)
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
	_, err = CommitBundles(context.Background(), campaigntest.TempDir(t), [][]byte{[]byte("a"), []byte("a")}, s, &k.PublicKey)
	if got, _ := refusal.ClassOf(err); got != checkpoint.ErrDuplicateLeaf.Class {
		t.Errorf("CommitBundles(duplicate) = %v, want %s", err, checkpoint.ErrDuplicateLeaf.Class)
	}
}
