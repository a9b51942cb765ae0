package maintenance

import (
	"slices"

	"github.com/obaudit/obaudit/engine"
)

// Record mechanics published on every observation.
const (
	RecordIdentitySuffix   = "maintenance_case"
	RecordVersionContext   = "maintenance retrieval record"
	RecordVersionAlgorithm = "canonical-json-sha256-prefix-v1"
	RecordVersionLength    = 16
	schemaRevision         = "v1"
)

// Tool is one published read.
type Tool struct {
	Name, Source, Authority string
	Roots                   []string
}

// SchemaID is "maintenance.<tool>.v1" (engine 0.9.0 publishes v1 for all).
func (t Tool) SchemaID() string { return "maintenance." + t.Name + "." + schemaRevision }

// RecordID is "<source>:maintenance_case".
func (t Tool) RecordID() string { return t.Source + ":" + RecordIdentitySuffix }

// Tools is the published catalogue, sorted by name.
var Tools = []Tool{
	{"get_case_record", "case_service", engine.AuthoritySystemOfRecord, []string{"phase", "issue_id", "classification", "customer_resolution", "current_cycle_id", "cycles", "ownership_transferred_to", "transfer_notice_sent", "provisional_close", "reopen_count", "terminal", "replay_final"}},
	{"list_authoritative_records", "verification_service", engine.AuthorityAuthoritativeVerification, []string{"authoritative_records"}},
	{"list_billing", "billing_service", engine.AuthoritySystemOfRecord, []string{"invoices", "payment"}},
	{"list_checkpoints", "approval_service", engine.AuthoritySystemOfRecord, []string{"approvals", "exceptions"}},
	{"list_communications", "messaging_service", engine.AuthorityCommunication, []string{"communications"}},
	{"list_obligations", "obligation_service", engine.AuthoritySystemOfRecord, []string{"obligations"}},
	{"list_quotes", "quoting_service", engine.AuthoritySystemOfRecord, []string{"quotes"}},
	{"list_recent_events", "inbox_service", engine.AuthorityActorClaim, []string{"assertions"}},
}

// toolMeta is what Serve derives from each tool once, in [Tools] order.
type toolMeta struct {
	sorted             []string // Roots, sorted
	rootIdx            []int    // rootIndex of each of sorted
	schemaID, recordID string
}

var toolMetas = func() []toolMeta {
	out := make([]toolMeta, len(Tools))
	for i, t := range Tools {
		sorted := slices.Sorted(slices.Values(t.Roots))
		idx := make([]int, len(sorted))
		for k, root := range sorted {
			idx[k] = rootIndex[root]
		}
		out[i] = toolMeta{sorted, idx, t.SchemaID(), t.RecordID()}
	}
	return out
}()

// RootTool maps each observable root to the tool that serves it.
var RootTool = func() map[string]string {
	m := map[string]string{}
	for _, t := range Tools {
		for _, r := range t.Roots {
			m[r] = t.Name
		}
	}
	return m
}()

// RootShapes is the JSON shape each observable root is published in.
var RootShapes = map[string]engine.RootShape{
	"approvals": "object", "assertions": "list", "authoritative_records": "object", "classification": "optional_text",
	"communications": "list", "current_cycle_id": "optional_text", "customer_resolution": "text", "cycles": "object",
	"exceptions": "object", "invoices": "object", "issue_id": "optional_text", "obligations": "object",
	"ownership_transferred_to": "optional_text", "payment": "object", "phase": "text", "provisional_close": "object",
	"quotes": "object", "reopen_count": "counter", "replay_final": "flag", "terminal": "optional_object",
	"transfer_notice_sent": "flag",
}

// verifyCache, when set (tests set it: export_test.go), makes every Serve
// and every final-state encoding re-derive the records of every tool from
// scratch (trees built by root, encoded by the generic encoder) and panic
// unless the cached and directly encoded bytes equal them. No command sets
// it.
var verifyCache interface {
	root(r *runState, name string, rc *rootCache)
	served(r *runState, t *Tool, c *toolCache)
	final(r *runState, b []byte)
}

// rootCache is the last canonical encoding of one observable root and the
// tree built for it. The tree is rebuilt only when the directly encoded
// bytes change, so an unchanged root keeps serving the same read-only tree;
// a registry root rebuilds only the entries whose bytes changed.
type rootCache struct {
	json []byte
	tree any
	gen  uint32 // bumped whenever tree is replaced; 0 means never built
	ents map[string]*entryCache
}

type entryCache struct {
	json []byte
	tree map[string]any
}

// refreshRootAt brings the cache of one root, name, whose rootIndex is i,
// up to date with the state.
func (r *runState) refreshRootAt(i int, name string) *rootCache {
	rc := &r.roots[i]
	s := r.s
	if reg := s.registryOf(name); reg != nil {
		reg.refresh(r, rc)
	} else {
		enc := s.appendRoot(&r.enc, r.buf[:0], name)
		r.buf = enc
		if rc.gen == 0 || string(enc) != string(rc.json) {
			rc.json = append(rc.json[:0], enc...) // only this cache holds rc.json
			rc.tree = s.root(&r.enc, name)
			rc.gen++
		}
	}
	if verifyCache != nil {
		verifyCache.root(r, name, rc)
	}
	return rc
}

// rootTree is root(name), shared with the served-record cache while the
// root's bytes hold.
func (r *runState) rootTree(name string) any { return r.refreshRootAt(rootIndex[name], name).tree }

// refreshRegistry encodes a registry root entry by entry (keys sorted, as
// appendRegistry does), keeping each entry's bytes; when the root's bytes
// changed it rebuilds the registry map, building trees only for entries
// whose bytes changed.
func refreshRegistry[T any, P record[T]](r *runState, rc *rootCache, o *ordered[T]) {
	if rc.ents == nil {
		rc.ents = map[string]*entryCache{}
	}
	var stack [16]string
	keys := append(stack[:0], o.keys...)
	slices.Sort(keys)
	b := append(r.buf[:0], '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = engine.AppendString(b, k)
		b = append(b, ':')
		start := len(b)
		r.enc.Begin(b, false)
		P(o.m[k]).members(&r.enc)
		b = r.enc.End()
		ec := rc.ents[k]
		if ec == nil {
			ec = &entryCache{}
			rc.ents[k] = ec
		}
		if ec.tree == nil || string(ec.json) != string(b[start:]) {
			ec.json = append(ec.json[:0], b[start:]...)
			ec.tree = nil // built below, when the registry is rebuilt
		}
	}
	b = append(b, '}')
	r.buf = b
	if rc.gen != 0 && string(b) == string(rc.json) {
		return // no entry changed (an entry's bytes are part of the root's)
	}
	rc.json = append(rc.json[:0], b...)
	out := make(map[string]any, len(keys))
	for _, k := range o.keys {
		ec := rc.ents[k]
		if ec.tree == nil {
			ec.tree = entryTree[T, P](&r.enc, o.m[k])
		}
		out[k] = ec.tree
	}
	rc.tree = out
	rc.gen++
}

// Serve implements [engine.State]. A tool's records are re-encoded only when
// a reducer or handler that may change them ran since they were last served;
// a root whose encoding did not change keeps its tree, and a tool whose
// encoding did not change keeps its records, bytes and version.
func (r *runState) Serve(tools []string, asOf string) []*engine.ToolResult {
	out := make([]*engine.ToolResult, 0, len(tools))
	for _, name := range tools {
		ti, ok := toolIndex[name]
		if !ok {
			panic("maintenance: Serve of a tool outside the catalogue: " + name)
		}
		t := &Tools[ti]
		bit := uint8(1) << ti
		c := r.cache[ti]
		if c == nil || r.dirty&bit != 0 {
			meta := &toolMetas[ti]
			changed := c == nil
			for i, root := range meta.sorted {
				if rc := r.refreshRootAt(meta.rootIdx[i], root); c != nil && rc.gen != c.gens[i] {
					changed = true
				}
			}
			if changed {
				js := append(r.jsBuf[:0], '{')
				for i, root := range meta.sorted {
					if i > 0 {
						js = append(js, ',')
					}
					js = engine.AppendString(js, root)
					js = append(js, ':')
					js = append(js, r.roots[meta.rootIdx[i]].json...)
				}
				js = append(js, '}')
				r.jsBuf = js
				if c == nil || string(js) != string(c.json) {
					records := make(map[string]any, len(t.Roots))
					for i, root := range meta.sorted {
						records[root] = r.roots[meta.rootIdx[i]].tree
					}
					json, version := r.op.versions.of(js)
					c = &toolCache{records: records, json: json, version: version, gens: make([]uint32, len(meta.sorted))}
					r.cache[ti] = c
				}
				for i := range meta.sorted {
					c.gens[i] = r.roots[meta.rootIdx[i]].gen
				}
			}
			r.dirty &^= bit
		}
		if verifyCache != nil {
			verifyCache.served(r, t, c)
		}
		switch {
		case c.last != nil && c.last.AsOf == asOf:
		case c.last != nil:
			// c's records served at a later instant (a cache whose records
			// change is replaced, c.last with it).
			c.last = c.last.At(asOf)
		default:
			c.last = &engine.ToolResult{
				Tool: t.Name, Source: t.Source, Authority: t.Authority, RecordID: toolMetas[ti].recordID,
				RecordVersion: c.version, AsOf: asOf, SchemaID: toolMetas[ti].schemaID, Records: c.records, RecordsJSON: c.json, OK: true,
			}
		}
		out = append(out, c.last)
	}
	return out
}

// rootIndex numbers the observable roots (the index into runState.roots).
var rootIndex = func() map[string]int {
	m := map[string]int{}
	for i, r := range ObservableRoots {
		m[r] = i
	}
	return m
}()

var toolIndex = func() map[string]int {
	m := map[string]int{}
	for i, t := range Tools {
		m[t.Name] = i
	}
	return m
}()
