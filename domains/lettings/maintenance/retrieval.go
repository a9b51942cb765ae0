package maintenance

import (
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

var toolsByName = func() map[string]*Tool {
	m := map[string]*Tool{}
	for i := range Tools {
		m[Tools[i].Name] = &Tools[i]
	}
	return m
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
var RootShapes = map[string]string{
	"approvals": "object", "assertions": "list", "authoritative_records": "object", "classification": "optional_text",
	"communications": "list", "current_cycle_id": "optional_text", "customer_resolution": "text", "cycles": "object",
	"exceptions": "object", "invoices": "object", "issue_id": "optional_text", "obligations": "object",
	"ownership_transferred_to": "optional_text", "payment": "object", "phase": "text", "provisional_close": "object",
	"quotes": "object", "reopen_count": "counter", "replay_final": "flag", "terminal": "optional_object",
	"transfer_notice_sent": "flag",
}

// verifyServeCache makes every Serve re-derive the records of every tool
// from scratch and compare them with the cache (tests set it).
var verifyServeCache = false

// Serve implements [engine.State]. A tool's records are rebuilt only when a
// reducer or handler that may change them ran since they were last served;
// otherwise the same read-only tree, bytes and version are served again.
func (r *runState) Serve(tools []string, asOf string) []*engine.ToolResult {
	out := make([]*engine.ToolResult, 0, len(tools))
	for _, name := range tools {
		t := toolsByName[name]
		bit := uint8(1) << toolIndex[name]
		c := r.cache[toolIndex[name]]
		if c == nil || r.dirty&bit != 0 || verifyServeCache {
			records := make(map[string]any, len(t.Roots))
			for _, root := range t.Roots {
				records[root] = r.s.root(root)
			}
			enc := engine.AppendCanonical(r.buf[:0], records)
			r.buf = enc
			if verifyServeCache && c != nil && r.dirty&bit == 0 && string(enc) != string(c.json) {
				panic("maintenance: stale served-record cache for " + name)
			}
			if c == nil || string(enc) != string(c.json) {
				js := append([]byte(nil), enc...)
				c = &toolCache{records: records, json: js, version: engine.VersionOf(js, RecordVersionLength)}
				r.cache[toolIndex[name]] = c
			}
			r.dirty &^= bit
		}
		if c.last == nil || c.last.AsOf != asOf {
			c.last = &engine.ToolResult{
				Tool: t.Name, Source: t.Source, Authority: t.Authority, RecordID: t.RecordID(),
				RecordVersion: c.version, AsOf: asOf, SchemaID: t.SchemaID(), Records: c.records, RecordsJSON: c.json, OK: true,
			}
		}
		out = append(out, c.last)
	}
	return out
}

var toolIndex = func() map[string]int {
	m := map[string]int{}
	for i, t := range Tools {
		m[t.Name] = i
	}
	return m
}()
