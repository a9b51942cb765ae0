package sigstore

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
)

// TestDeterministicKeySigner: the same statement signed twice by the
// deterministic signer is the same bundle; the randomized signer's differ.
func TestDeterministicKeySigner(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	stmt := []byte(`{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"x","subject":[{"digest":{"sha256":"00"},"name":"a"}]}`)
	d, err := NewDeterministicKeySigner(k)
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.SignStatement(context.Background(), stmt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.SignStatement(context.Background(), stmt)
	if !bytes.Equal(a, b) {
		t.Error("the deterministic signer gave two bundles for one statement")
	}
	r, _ := NewKeySigner(k, rand.Reader)
	x, _ := r.SignStatement(context.Background(), stmt)
	y, _ := r.SignStatement(context.Background(), stmt)
	if bytes.Equal(x, y) {
		t.Error("the randomized signer gave one bundle twice")
	}
}
