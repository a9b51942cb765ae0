package engine

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"hash"
	"maps"
	"slices"

	"github.com/obaudit/obaudit/canon"
)

// fragments are the static parts of every observation, each encoded once
// per Static from its tree.
type fragments struct {
	actions []actionFrag // by key
	// The members every observation shows as they are.
	actors, fixtures, policy, wake, catalogue, contract *encodedTree
}

// actionFrag is one action schema: as published, as projected once its
// required reads are served, and its reads.
type actionFrag struct {
	key       string
	published map[string]any
	full      *encodedTree
	reads     []schemaRead // by tool
}

type schemaRead struct {
	tool     string
	strength any
	optional bool
}

func (s *Static) fragments() *fragments {
	s.fragOnce.Do(func() {
		f := &fragments{actions: make([]actionFrag, 0, len(s.ActionSchemas))}
		for _, k := range slices.Sorted(maps.Keys(s.ActionSchemas)) {
			sch := s.ActionSchemas[k]
			a := actionFrag{key: plainKey(k), published: sch}
			reads, _ := sch["reads"].(map[string]any)
			optional := map[string]any{}
			for _, t := range slices.Sorted(maps.Keys(reads)) {
				strength := reads[t]
				a.reads = append(a.reads, schemaRead{plainKey(t), strength, strength == "optional"})
				if strength == "optional" {
					optional[t] = strength
				}
			}
			a.full = encodeTree(fullSchema(sch, optional))
			f.actions = append(f.actions, a)
		}
		cat := make(map[string]any, len(s.Catalogue))
		for t, e := range s.Catalogue {
			cat[plainKey(t)] = e.Tree()
		}
		f.actors = encodeTree(s.Actors)
		f.fixtures = encodeTree(canon.StringList(s.MessageFixtureIDs))
		f.policy = encodeTree(s.Policy)
		f.wake = encodeTree(canon.StringList(s.WakeEventTypes))
		f.catalogue = encodeTree(cat)
		f.contract = encodeTree(s.RecordContract)
		s.frag = f
	})
	return s.frag
}

// fullSchema is an action schema as projected once its required reads are
// met: its required, optional and evidence_refs fields, and its optional
// reads (when it has any).
func fullSchema(s, optional map[string]any) map[string]any {
	p := map[string]any{}
	for _, name := range []string{"required", "optional", "evidence_refs"} {
		if v, ok := s[name]; ok {
			p[name] = v
		}
	}
	if len(optional) > 0 {
		p["reads"] = optional
	}
	return p
}

// plainKey is k, an action key or a tool name the observation declares as a
// member key (Members writes keys unescaped); it panics on a key whose
// canonical JSON string is not k quoted.
func plainKey(k string) string {
	if q := appendString(nil, k); string(q[1:len(q)-1]) != k {
		panic("engine: the pack's key " + string(q) + " needs escaping")
	}
	return k
}

// projectionCut is the first key of the projection's tail: the members
// before it (the action schemas and the actors) depend only on the static
// vocabulary and on which tools are served ok (servedKey).
const projectionCut = "event"

// midstates digests observations for one execution. The projection's head
// (its members before projectionCut) repeats whenever the same tools are
// served ok, so the SHA-256 state after it is kept per served set and each
// digest hashes only the tail. The cache belongs to one execution and is
// keyed by everything the head depends on; TestServeCacheIsExact holds
// every digest to the hash of the whole canonical projection.
type midstates struct {
	states  map[string][]byte // servedKey → marshalled SHA-256 state after the head
	h       hash.Hash
	enc     Members
	key     []byte
	scratch []byte
	sum     [sha256.Size]byte
}

func (m *midstates) digest(o *Observation) string {
	if m.h == nil {
		m.h = sha256.New()
		m.states = map[string][]byte{}
	}
	m.key = o.servedKey(m.key[:0])
	st, ok := m.states[string(m.key)]
	if !ok {
		m.h.Reset()
		m.h.Write(m.part(o, true))
		var err error
		if st, err = m.h.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
			panic("engine: sha256 state: " + err.Error())
		}
		m.states[string(m.key)] = st
	} else if err := m.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic("engine: sha256 state: " + err.Error())
	}
	// m.h now holds the state after the head.
	m.h.Write(m.part(o, false))
	return hex.EncodeToString(m.h.Sum(m.sum[:0]))
}

// part writes the head of o's projection, or its tail.
func (m *midstates) part(o *Observation, head bool) []byte {
	m.enc.BeginPart(m.scratch[:0], projectionCut, head)
	o.projection(&m.enc)
	m.scratch = m.enc.End()
	return m.scratch
}

// servedKey identifies what the projection's head depends on besides the
// static vocabulary: the sorted names of the tools served ok.
func (o *Observation) servedKey(b []byte) []byte {
	var stack [16]string
	tools := stack[:0]
	for t, r := range o.Served {
		if r.OK {
			tools = append(tools, t)
		}
	}
	sortStrings(tools)
	for _, t := range tools {
		b = append(b, t...)
		b = append(b, 0)
	}
	return b
}
