package checkpoint

import (
	"crypto/rand"
	"testing"
)

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
	c, err := commitForTest(origin, bs, signer(b, origin, k))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := VerifyInclusion(c.Proofs[4321], bs[4321], &k.PublicKey, VerifyOptions{Checkpoint: c.Signed}); err != nil {
			b.Fatal(err)
		}
	}
}
