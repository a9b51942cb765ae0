package checkpoint_test

import (
	"fmt"

	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/obaudit/obaudit/checkpoint"
)

// The leaf for a commitment bundle is its tagged SHA-256; the tree over a
// campaign's leaves has an RFC 6962 root, which the signed checkpoint
// carries with the campaign's origin and size.
func Example() {
	bundles := [][]byte{[]byte("bundle 0"), []byte("bundle 1"), []byte("bundle 2")}
	fmt.Printf("%q\n", checkpoint.LeafData(bundles[0]))
	var leaves [][]byte
	for _, b := range bundles {
		leaves = append(leaves, checkpoint.LeafHash(b))
	}
	// Three leaves: the root is node(node(leaf 0, leaf 1), leaf 2).
	h := rfc6962.DefaultHasher
	root := h.HashChildren(h.HashChildren(leaves[0], leaves[1]), leaves[2])
	fmt.Print(checkpoint.Checkpoint{Origin: "example.com/campaign/1", Size: uint64(len(leaves)), Root: root}.Text())
	// Output:
	// "obaudit-campaign/v1 leaf\n63a0cd1667ad64e327c7c52e0919e8cea7083ea923e58df30f45caa6baf2b2d0\n"
	// example.com/campaign/1
	// 3
	// fgdh44kGZAFmumn+jRSDwn27M5okupNKKF8hYNDtVtQ=
}
