package commitment

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// The predicate's named checks: readPredicate is the validator of the v1
// predicate, one rule per field, every refusal of class predicate-invalid
// naming the RFC 6901 pointer (within the predicate) of the value it is
// about. The published JSON Schema (schemas.CommitmentV1) states the same
// rules and is held to these by TestPredicateOracle.

// What each rule wants, for a refusal's detail.
const (
	wantText      = "a string of 1 to 256 characters"
	wantDigest    = "64 lowercase hex digits"
	wantInstance  = `"opinst_" and 32 lowercase hex digits`
	wantRunID     = `"exec_" and 32 lowercase hex digits`
	wantKind      = `one of "scored", "excluded", "aborted"`
	maxTextLength = 256
	// maxRows is the schema's bound on a ledger's row count (2^53-1).
	maxRows = 1<<53 - 1
)

// Whether a member may be null (read as the zero value).
const (
	notNull = false
	orNull  = true
)

// pointerErr carries the JSON pointer of the value a refusal is about.
type pointerErr struct{ pointer string }

func (e *pointerErr) Error() string { return "at " + e.pointer }

// predicateReader reads a predicate tree and keeps the first refusal; the
// values it returns mean nothing once it has refused.
type predicateReader struct{ err error }

func (r *predicateReader) fail(p, format string, args ...any) {
	if r.err != nil {
		return
	}
	shown := p
	if p == "" {
		shown = "the predicate"
	}
	r.err = &refusal.Refusal{
		Class:  ErrPredicateInvalid.Class,
		Detail: "predicate: " + shown + " " + fmt.Sprintf(format, args...),
		Err:    &pointerErr{pointer: p},
	}
}

// section is one JSON object of the predicate being read: each read names a
// required member, and close refuses a member no read named.
type section struct {
	r    *predicateReader
	m    map[string]any
	p    string
	read []string
}

func (r *predicateReader) object(x any, p string) *section {
	m, ok := x.(map[string]any)
	if !ok {
		r.fail(p, "must be a JSON object, got %s", jsonfield.Kind(x))
	}
	return &section{r: r, m: m, p: p}
}

func (f *section) fail(key, format string, args ...any) {
	if f.r.err == nil {
		f.r.fail(jsonfield.Key(f.p, key), format, args...)
	}
}

// get returns the member key, refusing it when it is missing.
func (f *section) get(key string) (v any, present bool) {
	f.read = append(f.read, key)
	v, present = f.m[key]
	if !present {
		f.fail(key, "is missing")
	}
	return v, present
}

// close refuses the first member (in key order) no read named.
func (f *section) close() {
	if unknown := jsonfield.Unknown(f.m, f.read); unknown != nil {
		f.fail(unknown[0], "is not a field here (this object has exactly %q)", f.read)
	}
}

// str reads a string member held by ok (want says what that is); a
// nullable member may also be null, read as "".
func (f *section) str(key string, null bool, ok func(string) bool, want string) string {
	v, present := f.get(key)
	s, isString := v.(string)
	if present && !(isString && ok(s)) && !(null && v == nil) {
		if null {
			want = "null or " + want
		}
		f.fail(key, "must be %s, got %s", want, show(v))
	}
	return s
}

// integer reads an integer member from lo to hi. A float is refused even
// when integral (8.0): the predicate is written with integers.
func (f *section) integer(key string, lo, hi int64) int64 {
	v, present := f.get(key)
	n, isInt := v.(int64)
	if present && !(isInt && lo <= n && n <= hi) {
		f.fail(key, "must be an integer from %d to %d, got %s", lo, hi, show(v))
	}
	return n
}

func (f *section) flag(key string) bool {
	v, present := f.get(key)
	b, isBool := v.(bool)
	if present && !isBool {
		f.fail(key, "must be true or false, got %s", show(v))
	}
	return b
}

// object reads an object member; a nullable one that is null reads as nil.
func (f *section) object(key string, null bool) *section {
	v, present := f.get(key)
	if null && present && v == nil {
		return nil
	}
	if !present {
		return &section{r: f.r} // refused already
	}
	return f.r.object(v, jsonfield.Key(f.p, key))
}

func isText(s string) bool {
	n := utf8.RuneCountInString(s)
	return 1 <= n && n <= maxTextLength
}

// isLowerHex reports whether s is exactly n lowercase hex digits.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isHexDigest(s string) bool { return isLowerHex(s, 64) }

func isInstanceID(s string) bool {
	rest, ok := strings.CutPrefix(s, "opinst_")
	return ok && isLowerHex(rest, 32)
}

func isRunID(s string) bool {
	rest, ok := strings.CutPrefix(s, "exec_")
	return ok && isLowerHex(rest, 32)
}

func isTerminalKind(s string) bool { return s == "scored" || s == "excluded" || s == "aborted" }

// show renders a value for a refusal detail; a float keeps its point (8.0).
func show(v any) string {
	if f, ok := v.(float64); ok {
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return "the float " + s
	}
	return jsonfield.Show(v)
}

// readPredicate holds a predicate tree (canon's value types) to the v1
// rules and reads it; every refusal is [ErrPredicateInvalid].
func readPredicate(tree any) (Predicate, error) {
	r := &predicateReader{}
	root := r.object(tree, "")
	var p Predicate
	a := root.object("artefact", notNull)
	p.Artefact = ArtefactFacts{
		ArtifactVersion:     a.integer("artifact_version", 1, 8),
		EngineVersion:       a.str("engine_version", notNull, isText, wantText),
		OperationID:         a.str("operation_id", notNull, isText, wantText),
		OperationVersion:    a.str("operation_version", notNull, isText, wantText),
		SpecDigest:          a.str("spec_digest_sha256", notNull, isHexDigest, wantDigest),
		OperationInstanceID: a.str("operation_instance_id", orNull, isInstanceID, wantInstance),
		ScenarioID:          a.str("scenario_id", notNull, isText, wantText),
		SemanticScenarioID:  a.str("semantic_scenario_id", notNull, isText, wantText),
		AgentID:             a.str("agent_id", notNull, isText, wantText),
		AgentKind:           a.str("agent_kind", notNull, isText, wantText),
		TrajectoryDigest:    a.str("trajectory_digest_sha256", notNull, isHexDigest, wantDigest),
		FinalStateDigest:    a.str("final_state_digest_sha256", notNull, isHexDigest, wantDigest),
		DecisionsDigest:     a.str("decisions_digest_sha256", orNull, isHexDigest, wantDigest),
		EvaluationDigest:    a.str("evaluation_digest_sha256", notNull, isHexDigest, wantDigest),
		Reliable:            a.flag("reliable"),
		BoundLedgerDigest:   a.str("bound_ledger_digest_sha256", orNull, isHexDigest, wantDigest),
	}
	if t := a.str("terminal_outcome", orNull, isText, wantText); t != "" {
		p.Artefact.TerminalOutcome = &t
	}
	a.close()
	if l := root.object("ledger", orNull); l != nil {
		p.Ledger = &LedgerFacts{
			LedgerVersion:  l.integer("ledger_version", 2, 3),
			ExecutionRunID: l.str("execution_run_id", notNull, isRunID, wantRunID),
			Rows:           l.integer("rows", 1, maxRows),
			ChainHead:      l.str("chain_head_sha256", notNull, isHexDigest, wantDigest),
			TerminalKind:   l.str("terminal_kind", orNull, isTerminalKind, wantKind),
		}
		l.close()
	}
	c := root.object("checks", notNull)
	p.Checks = Checks{Validate: c.flag("validate"), Replay: c.flag("replay"), Bundle: c.flag("bundle")}
	c.close()
	p.ObauditVersion = root.str("obaudit_version", notNull, isText, wantText)
	root.close()
	if r.err != nil {
		return Predicate{}, r.err
	}
	return p, nil
}
