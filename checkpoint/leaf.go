package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/transparency-dev/merkle/rfc6962"
)

// LeafTag opens every leaf's data (version 1 of the leaf framing).
const LeafTag = "obaudit-campaign/v1 leaf\n"

// LeafData returns the Merkle leaf data for a commitment bundle's bytes.
func LeafData(bundle []byte) []byte {
	h := sha256.Sum256(bundle)
	out := make([]byte, 0, len(LeafTag)+65)
	out = append(out, LeafTag...)
	out = hex.AppendEncode(out, h[:])
	return append(out, '\n')
}

// LeafHash returns the RFC 6962 leaf hash of a commitment bundle:
// SHA-256(0x00 || LeafData(bundle)).
func LeafHash(bundle []byte) []byte {
	return rfc6962.DefaultHasher.HashLeaf(LeafData(bundle))
}
