// Package fieldkind is the vocabulary of the field tables (the artefact's
// and the execution ledger's, both in SECURITY.md): the kind of evidence a
// field is, to one reader. artefact and execledger declare their tables in
// these words; both use this one definition. It is a leaf: it imports
// nothing of the project.
package fieldkind

// Kinds of evidence a field is, to one reader.
const (
	// Covered: the field is content a digest covers, and the reader
	// recomputes the digest.
	Covered = "covered"
	// Derived: the reader re-derives the field from covered content (or
	// from the other document it holds the field to) and refuses a
	// difference by name.
	Derived = "derived"
	// Carried: the reader checks the field's form only (and, where stated,
	// holds it to rules that bound it) and reports it by name as carried
	// (unverified).
	Carried = "carried"
)
