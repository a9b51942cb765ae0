package checkpoint

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/obaudit/obaudit/internal/refusaltest"
	"github.com/obaudit/obaudit/refusal"
)

const origin = "obaudit.example/campaign/test"

func key(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func signer(t testing.TB, name string, k *ecdsa.PrivateKey) note.Signer {
	t.Helper()
	s, err := NewNoteSigner(name, k, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func bundles(n int, tag string) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"episode":%d,"campaign":%q}`, i, tag))
	}
	return out
}

// refRoot is RFC 6962's MTH, written directly from the RFC's recursive
// definition (largest power of two smaller than n), independent of the
// compact-range code under test.
func refRoot(leaves [][]byte) []byte {
	switch len(leaves) {
	case 0:
		h := sha256.Sum256(nil)
		return h[:]
	case 1:
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := refRoot(leaves[:k]), refRoot(leaves[k:])
	h := sha256.New()
	h.Write([]byte{1})
	h.Write(l)
	h.Write(r)
	return h.Sum(nil)
}

func TestLeafFraming(t *testing.T) {
	b := []byte("bundle")
	d := sha256.Sum256(b)
	want := fmt.Sprintf("obaudit-campaign/v1 leaf\n%x\n", d)
	if string(LeafData(b)) != want {
		t.Fatalf("LeafData = %q, want %q", LeafData(b), want)
	}
	h := sha256.Sum256(append([]byte{0}, want...))
	if !bytes.Equal(LeafHash(b), h[:]) {
		t.Fatal("LeafHash is not SHA-256(0x00 || leaf data)")
	}
}

func TestTreeAgainstReference(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1000} {
		var leaves [][]byte
		for _, b := range bundles(n, "ref") {
			leaves = append(leaves, LeafHash(b))
		}
		tr, err := Build(leaves)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tr.Root(), refRoot(leaves)) {
			t.Fatalf("n=%d: root differs from the RFC 6962 reference", n)
		}
		for i := 0; i < n; i++ {
			p, err := tr.InclusionProof(uint64(i))
			if err != nil {
				t.Fatal(err)
			}
			// Walk the proof by hand (RFC 9162 2.1.3.2).
			fn, sn := uint64(i), uint64(n-1)
			r := leaves[i]
			for _, p := range p {
				if sn == 0 {
					t.Fatalf("n=%d i=%d: proof too long", n, i)
				}
				if fn&1 == 1 || fn == sn {
					r = rfc6962.DefaultHasher.HashChildren(p, r)
					for fn&1 == 0 && fn != 0 {
						fn >>= 1
						sn >>= 1
					}
				} else {
					r = rfc6962.DefaultHasher.HashChildren(r, p)
				}
				fn >>= 1
				sn >>= 1
			}
			if sn != 0 || !bytes.Equal(r, tr.Root()) {
				t.Fatalf("n=%d i=%d: proof does not lead to the root", n, i)
			}
		}
	}
}

func TestCommitVerifyRoundTrip(t *testing.T) {
	k := key(t)
	bs := bundles(7, "a")
	camp, err := commitForTest(origin, bs, signer(t, origin, k))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(camp.Signed), origin+"\n7\n") || !strings.Contains(string(camp.Signed), "\n\n— "+origin+" ") {
		t.Fatalf("checkpoint is not a C2SP signed checkpoint:\n%s", camp.Signed)
	}
	for i, b := range bs {
		if !strings.HasPrefix(string(camp.Proofs[i]), fmt.Sprintf("c2sp.org/tlog-proof@v1\nindex %d\n", i)) {
			t.Fatalf("proof %d header:\n%s", i, camp.Proofs[i])
		}
		c, idx, err := VerifyInclusion(camp.Proofs[i], b, &k.PublicKey, VerifyOptions{Checkpoint: camp.Signed, Origin: origin})
		if err != nil || idx != uint64(i) || c.Size != 7 {
			t.Fatalf("VerifyInclusion(%d) = %v, %d, %v", i, c, idx, err)
		}
		// Without --checkpoint the proof's own checkpoint is trusted after
		// its signature.
		if _, _, err := VerifyInclusion(camp.Proofs[i], b, &k.PublicKey, VerifyOptions{}); err != nil {
			t.Fatalf("VerifyInclusion(%d, embedded checkpoint) = %v", i, err)
		}
	}
}

func TestVerifyInclusionRefusals(t *testing.T) {
	k, other := key(t), key(t)
	bs := bundles(6, "a")
	camp, err := commitForTest(origin, bs, signer(t, origin, k))
	if err != nil {
		t.Fatal(err)
	}
	// The same campaign one episode shorter: another tree size.
	smaller, err := commitForTest(origin, bs[:5], signer(t, origin, k))
	if err != nil {
		t.Fatal(err)
	}
	byOther, _ := commitForTest(origin, bs, signer(t, origin, other))
	otherOrigin, _ := commitForTest("obaudit.example/campaign/other", bs, signer(t, "obaudit.example/campaign/other", k))

	// Another tree size behind the same hashes: proof 2's hashes from the
	// 5-leaf tree, packed with the (validly signed) 6-leaf checkpoint.
	p5, _ := ParseProof(smaller.Proofs[2])
	repacked := FormatProof(2, p5.Hashes, camp.Signed)
	// The index moved: proof 2 claimed for position 3.
	p2, _ := ParseProof(camp.Proofs[2])
	moved := FormatProof(3, p2.Hashes, camp.Signed)
	beyond := FormatProof(6, p2.Hashes, camp.Signed)
	tamperedNote := bytes.Replace(camp.Proofs[0], []byte(origin+"\n6\n"), []byte(origin+"\n7\n"), 1)
	withExtra := bytes.Replace(camp.Proofs[1], []byte("index 1\n"), []byte("extra aGk=\nindex 1\n"), 1)

	for _, tc := range []struct {
		name   string
		proof  []byte
		bundle []byte
		pub    *ecdsa.PublicKey
		opts   VerifyOptions
		want   *refusal.Refusal
	}{
		{"another leaf", camp.Proofs[0], bs[1], &k.PublicKey, VerifyOptions{}, ErrInclusionInvalid},
		{"a byte of the bundle changed", camp.Proofs[0], append([]byte{' '}, bs[0]...), &k.PublicKey, VerifyOptions{}, ErrInclusionInvalid},
		{"bundle from outside the campaign", camp.Proofs[0], bundles(1, "b")[0], &k.PublicKey, VerifyOptions{}, ErrInclusionInvalid},
		{"proof for another tree size", smaller.Proofs[2], bs[2], &k.PublicKey, VerifyOptions{Checkpoint: camp.Signed}, ErrTreeMismatch},
		{"hashes of another tree size", repacked, bs[2], &k.PublicKey, VerifyOptions{}, ErrInclusionInvalid},
		{"index moved", moved, bs[2], &k.PublicKey, VerifyOptions{}, ErrInclusionInvalid},
		{"index beyond the tree", beyond, bs[2], &k.PublicKey, VerifyOptions{}, ErrInclusionInvalid},
		{"checkpoint by another key", byOther.Proofs[0], bs[0], &k.PublicKey, VerifyOptions{}, ErrSignatureInvalid},
		{"given checkpoint by another key", camp.Proofs[0], bs[0], &k.PublicKey, VerifyOptions{Checkpoint: byOther.Signed}, ErrSignatureInvalid},
		{"checkpoint text changed", tamperedNote, bs[0], &k.PublicKey, VerifyOptions{}, ErrSignatureInvalid},
		{"another origin", otherOrigin.Proofs[0], bs[0], &k.PublicKey, VerifyOptions{Origin: origin}, ErrOriginMismatch},
		{"no header", camp.Proofs[0][len(ProofHeader)+1:], bs[0], &k.PublicKey, VerifyOptions{}, ErrMalformed},
		{"no checkpoint", camp.Proofs[0][:bytes.Index(camp.Proofs[0], []byte("\n\n"))], bs[0], &k.PublicKey, VerifyOptions{}, ErrMalformed},
		{"bad hash line", bytes.Replace(camp.Proofs[0], []byte("index 0\n"), []byte("index 0\nAAAA\n"), 1), bs[0], &k.PublicKey, VerifyOptions{}, ErrMalformed},
		{"leading zero index", bytes.Replace(camp.Proofs[1], []byte("index 1\n"), []byte("index 01\n"), 1), bs[1], &k.PublicKey, VerifyOptions{}, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := VerifyInclusion(tc.proof, tc.bundle, tc.pub, tc.opts)
			refusaltest.Want(t, err, tc.want)
		})
	}
	t.Run("extra line is ignored", func(t *testing.T) {
		if _, _, err := VerifyInclusion(withExtra, bs[1], &k.PublicKey, VerifyOptions{}); err != nil {
			t.Fatalf("VerifyInclusion(proof with extra) = %v", err)
		}
	})
}

func TestCommitRefusals(t *testing.T) {
	k := key(t)
	bs := bundles(3, "a")
	_, err := commitForTest(origin, append(bs, bs[1]), signer(t, origin, k))
	refusaltest.Want(t, err, ErrDuplicateLeaf)
	if _, err := commitForTest(origin, nil, signer(t, origin, k)); err == nil {
		t.Fatal("Commit of no episodes succeeded")
	}
	if _, err := commitForTest("other.example/x", bs, signer(t, origin, k)); err == nil {
		t.Fatal("Commit with an origin that is not the signer's name succeeded")
	}
	for _, bad := range []string{"", "a b", "a+b", "DSSEv1-x", "x\ny"} {
		if ValidOrigin(bad) {
			t.Errorf("ValidOrigin(%q) = true", bad)
		}
	}
}

// TestNoteKeyID pins signature type 0x02's key ID: the first four bytes of
// SHA-256 of the PKIX DER public key.
func TestNoteKeyID(t *testing.T) {
	k := key(t)
	s := signer(t, origin, k)
	v, err := NewNoteVerifier(origin, &k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	d := sha256.Sum256(der)
	h := uint32(d[0])<<24 | uint32(d[1])<<16 | uint32(d[2])<<8 | uint32(d[3])
	if s.KeyHash() != h || v.KeyHash() != h {
		t.Fatal("signer and verifier key IDs differ")
	}
	msg := []byte("text\n")
	sig, _ := s.Sign(msg)
	if !v.Verify(msg, sig) || v.Verify([]byte("texT\n"), sig) {
		t.Fatal("note signature does not verify, or verifies another text")
	}
}

// testCampaign is what commitForTest produces: the signed checkpoint and, for each
// leaf in order, its tlog-proof file.
type testCampaign struct {
	Checkpoint Checkpoint
	Signed     []byte   // the signed note
	Proofs     [][]byte // Proofs[i] proves bundles[i]
}

// commitForTest is the in-memory reference commit (the tree of
// tree.go): it builds the tree over the bundles' leaves (in the order given),
// signs its checkpoint under origin with signer, and returns one proof per
// bundle. The same bundle twice is refused ([ErrDuplicateLeaf]).
func commitForTest(origin string, bundles [][]byte, signer note.Signer) (*testCampaign, error) {
	if !ValidOrigin(origin) || signer.Name() != origin {
		return nil, errors.New("checkpoint: the origin must be a valid name and the signer's key name")
	}
	if len(bundles) == 0 || len(bundles) > MaxLeaves {
		return nil, fmt.Errorf("checkpoint: a campaign has 1..%d episodes, not %d", MaxLeaves, len(bundles))
	}
	leaves := make([][]byte, len(bundles))
	seen := make(map[string]int, len(bundles))
	for i, b := range bundles {
		leaves[i] = LeafHash(b)
		if j, dup := seen[string(leaves[i])]; dup {
			return nil, refusal.New(ErrDuplicateLeaf, "episodes %d and %d are the same commitment bundle", j, i)
		}
		seen[string(leaves[i])] = i
	}
	t, err := Build(leaves)
	if err != nil {
		return nil, err
	}
	c := Checkpoint{Origin: origin, Size: t.Size(), Root: t.Root()}
	signed, err := note.Sign(&note.Note{Text: c.Text()}, signer)
	if err != nil {
		return nil, err
	}
	camp := &testCampaign{Checkpoint: c, Signed: signed, Proofs: make([][]byte, len(bundles))}
	for i := range bundles {
		hashes, err := t.InclusionProof(uint64(i))
		if err != nil {
			return nil, err
		}
		camp.Proofs[i] = FormatProof(uint64(i), hashes, signed)
	}
	return camp, nil
}
