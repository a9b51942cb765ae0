// Package schemas holds obaudit's versions and JSON Schemas as data: the
// version identifiers every format and engine generation names itself by,
// and (as they arrive) the embedded draft 2020-12 schemas under this
// directory.
//
// # Compatibility
//
// A version string here is part of the wire contract. An incompatible change
// to a format gets a new identifier; the old reader stays.
package schemas

// Engine generations obaudit carries. Results graded under different engine
// versions are not comparable (upstream's rule): an artefact is always
// graded and replayed under the engine version it names.
const (
	// EngineUpstream is upstream OperateBench engine 0.9.0: its runtime and
	// its grading, byte for byte. Upstream's published artefacts name it.
	EngineUpstream = "0.9.0"
	// EngineObaudit is obaudit's own engine: the 0.9.0 runtime plus the
	// seeds' later notification rule (a committed but undelivered required
	// notification fails recovery and obligations). The "+obaudit.N" build
	// suffix means it can never be mistaken for an upstream release. It is
	// the default for new runs. See VERSIONING.md.
	EngineObaudit = "0.9.0+obaudit.1"
)

// Engines lists the engine versions obaudit can run, grade and replay.
func Engines() []string { return []string{EngineUpstream, EngineObaudit} }

// Upstream-compatible format versions.
const (
	// ArtefactContract is the episode artefact contract obaudit writes and
	// reproduces. Contracts 1..ArtefactContract are readable.
	ArtefactContract = 8
	// LedgerVersion is the execution-ledger version obaudit writes; versions
	// 2 and 3 are readable.
	LedgerVersion = 3
)
