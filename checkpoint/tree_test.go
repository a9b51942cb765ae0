package checkpoint

import (
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// The in-memory tree below is test support: an RFC 6962 tree built apart
// from tessera's log, that the tests hold the log and the verifier to.

// Tree is an in-memory RFC 6962 Merkle tree that keeps every perfect
// subtree's hash, so that it can serve an inclusion proof for any leaf.
type Tree struct {
	size   uint64
	root   []byte
	levels [][][]byte // levels[l][i]: hash of perfect node (l, i)
}

// Build returns the tree over leafHashes, in order. It needs at least one
// leaf.
func Build(leafHashes [][]byte) (*Tree, error) {
	if len(leafHashes) == 0 {
		return nil, errors.New("checkpoint: a tree needs at least one leaf")
	}
	t := &Tree{size: uint64(len(leafHashes))}
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	visit := func(id compact.NodeID, hash []byte) {
		for uint(len(t.levels)) <= id.Level {
			t.levels = append(t.levels, nil)
		}
		if uint64(len(t.levels[id.Level])) != id.Index {
			panic(fmt.Sprintf("checkpoint: node %v visited out of order", id))
		}
		t.levels[id.Level] = append(t.levels[id.Level], hash)
	}
	for _, h := range leafHashes {
		if err := r.Append(h, visit); err != nil {
			return nil, err
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		return nil, err
	}
	t.root = root
	return t, nil
}

// Size returns the number of leaves.
func (t *Tree) Size() uint64 { return t.size }

// Root returns the tree's root hash.
func (t *Tree) Root() []byte { return t.root }

// InclusionProof returns the RFC 6962 inclusion proof of leaf i.
func (t *Tree) InclusionProof(i uint64) ([][]byte, error) {
	nodes, err := proof.Inclusion(i, t.size)
	if err != nil {
		return nil, err
	}
	hashes := make([][]byte, len(nodes.IDs))
	for j, id := range nodes.IDs {
		if id.Level >= uint(len(t.levels)) || id.Index >= uint64(len(t.levels[id.Level])) {
			return nil, fmt.Errorf("checkpoint: node %v not stored", id)
		}
		hashes[j] = t.levels[id.Level][id.Index]
	}
	return nodes.Rehash(hashes, rfc6962.DefaultHasher.HashChildren)
}
