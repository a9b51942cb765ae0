package checkpoint

import (
	"crypto/rand"
	"testing"
)

// BenchmarkCommit10000 commits a 10,000-episode campaign: leaf hashes over
// 10,000 bundle-sized inputs (2 KiB each, the size of an obaudit
// commitment bundle), the tree, the signed checkpoint and 10,000 proofs.
func BenchmarkCommit10000(b *testing.B) {
	const n = 10000
	bs := make([][]byte, n)
	for i := range bs {
		bs[i] = make([]byte, 2048)
		rand.Read(bs[i])
	}
	s := signer(b, origin, key(b))
	for b.Loop() {
		c, err := Commit(origin, bs, s)
		if err != nil || len(c.Proofs) != n {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyInclusion10000 checks one proof of a 10,000-leaf campaign
// (checkpoint signature included).
func BenchmarkVerifyInclusion10000(b *testing.B) {
	const n = 10000
	bs := make([][]byte, n)
	for i := range bs {
		bs[i] = make([]byte, 2048)
		rand.Read(bs[i])
	}
	k := key(b)
	c, err := Commit(origin, bs, signer(b, origin, k))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := VerifyInclusion(c.Proofs[4321], bs[4321], &k.PublicKey, VerifyOptions{Checkpoint: c.Signed}); err != nil {
			b.Fatal(err)
		}
	}
}
