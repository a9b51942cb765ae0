package commitment

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/refusal"
)

// ArtefactFacts is the predicate's artefact section: what the episode
// artefact says about its run.
type ArtefactFacts struct {
	ArtifactVersion     int64
	EngineVersion       string
	OperationID         string
	OperationVersion    string
	SpecDigest          string
	OperationInstanceID string // "" for contracts before 4 (null in JSON)
	ScenarioID          string
	SemanticScenarioID  string
	AgentID             string
	AgentKind           string
	TrajectoryDigest    string
	FinalStateDigest    string
	DecisionsDigest     string // "" for contract 1 (null in JSON)
	EvaluationDigest    string
	Reliable            bool
	TerminalOutcome     *string
	BoundLedgerDigest   string // "" when provider_execution is null or absent (null in JSON)
	boundRunID          string
}

// LedgerFacts is the predicate's ledger section: what the execution ledger
// says about itself.
type LedgerFacts struct {
	LedgerVersion  int64
	ExecutionRunID string
	Rows           int64
	ChainHead      string
	TerminalKind   string // "" when the ledger has no terminal row (null in JSON)
}

// Inputs are the files a commitment covers. Ledger is nil when there is
// none.
type Inputs struct {
	ArtefactName string
	Artefact     []byte
	LedgerName   string
	Ledger       []byte
	// Document, when set, is Artefact as read and fully validated
	// (artefact.Read, or artefact.EncodeDocument of the writer that made
	// the bytes). Derive uses it only when its FileSHA256 is the SHA-256 of
	// Artefact: then its tree is the parse of exactly these bytes and its
	// trajectory, final-state and decisions digests were recomputed from
	// their content by that validation, so they are not parsed and
	// recomputed again. Otherwise the bytes are parsed and digested here.
	Document *artefact.Document
	// artefactSum caches canon.SHA256Hex(Artefact) within one New or Verify.
	artefactSum string
}

// artefactSHA256 is canon.SHA256Hex(in.Artefact), computed once per New/Verify.
func (in *Inputs) artefactSHA256() string {
	if in.artefactSum == "" {
		in.artefactSum = canon.SHA256Hex(in.Artefact)
	}
	return in.artefactSum
}

// Derive reads the predicate's artefact and ledger sections from the files:
// field values, and digests recomputed from content (the trajectory, final
// state and decisions digests must match the values the artefact states;
// the evaluation digest is computed). With a ledger, it walks the hash chain
// to its head and checks that the artefact's provider_execution binding
// names this ledger. It does not validate the artefact or audit the pair;
// those are the checks in [Options].
func Derive(in Inputs) (ArtefactFacts, *LedgerFacts, error) {
	a, err := deriveArtefact(in.Artefact, in.Document, in.artefactSHA256())
	if err != nil {
		return ArtefactFacts{}, nil, err
	}
	if in.Ledger == nil {
		return a, nil, nil
	}
	l, err := deriveLedger(in.Ledger)
	if err != nil {
		return ArtefactFacts{}, nil, err
	}
	switch {
	case a.BoundLedgerDigest == "":
		return ArtefactFacts{}, nil, refusal.New(ErrLedgerUnbound, "the artefact binds no execution ledger (provider_execution is null)")
	case a.boundRunID != l.ExecutionRunID:
		return ArtefactFacts{}, nil, refusal.New(ErrLedgerUnbound, "the artefact binds run %s, the ledger records run %s", a.boundRunID, l.ExecutionRunID)
	case a.BoundLedgerDigest != l.ChainHead:
		return ArtefactFacts{}, nil, refusal.New(ErrLedgerUnbound, "the artefact binds ledger digest %s, the ledger's chain head is %s", a.BoundLedgerDigest, l.ChainHead)
	}
	return a, l, nil
}

type fields struct {
	m    map[string]any
	path string
	err  error
	// verified: the content digests were recomputed by artefact
	// validation of this very tree (see Inputs.Document).
	verified bool
}

func (f *fields) fail(format string, args ...any) {
	f.keep(refusal.New(ErrArtefactInvalid, "%s: %s", f.path, fmt.Sprintf(format, args...)))
}

// keep records err unless a refusal is recorded already.
func (f *fields) keep(err error) {
	if f.err == nil {
		f.err = err
	}
}

// factRules holds the artefact's values to the field rules
// (internal/jsonfield), every refusal of class artefact-invalid, its detail
// led by the value's pointer.
var factRules = &jsonfield.Reader{
	Bad: ErrArtefactInvalid, Unknown: ErrArtefactInvalid,
	UnknownField: ErrArtefactInvalid, MissingField: ErrArtefactInvalid,
	At: func(class *refusal.Refusal, pointer, format string, args ...any) error {
		return refusal.New(class, "%s: %s", pointer, fmt.Sprintf(format, args...))
	},
}

// read holds the value under key to rule and returns it as a T (the zero
// T when it is not one).
func read[T any](f *fields, key string, rule jsonfield.Rule) T {
	v, _ := f.m[key].(T)
	f.keep(rule(f.m[key], jsonfield.Key(f.path, key)))
	return v
}

func (f *fields) text(key string) string { return read[string](f, key, factRules.Text) }

// optText returns "" for an absent or null key.
func (f *fields) optText(key string) string { return read[string](f, key, factRules.OptText) }

func (f *fields) flag(key string) bool { return read[bool](f, key, factRules.Flag) }

func (f *fields) object(key string) *fields {
	p := jsonfield.Key(f.path, key)
	m, err := factRules.Object(f.m[key], p)
	f.keep(err)
	if m == nil {
		m = map[string]any{}
	}
	return &fields{m: m, path: p, err: f.err}
}

// digestOf checks that the digest stated under key is the upstream content
// digest of the value under contentKey, and returns it.
func (f *fields) digestOf(key, contentKey string) string {
	stated := f.text(key)
	content, ok := f.m[contentKey]
	if !ok {
		f.fail("%s is missing", contentKey)
		return stated
	}
	if f.err != nil || f.verified {
		return stated
	}
	got, err := canon.UpstreamDigest(content)
	if err != nil {
		f.fail("%s: %v", contentKey, err)
	} else if got != stated {
		f.fail("%s is %s but %s digests to %s", key, stated, contentKey, got)
	}
	return stated
}

func deriveArtefact(b []byte, doc *artefact.Document, sum string) (ArtefactFacts, error) {
	if len(b) > limits.MaxArtefactBytes {
		return ArtefactFacts{}, limits.Exceeded("MaxArtefactBytes", limits.MaxArtefactBytes, int64(len(b)))
	}
	var m map[string]any
	verified := doc != nil && doc.Tree != nil && doc.FileSHA256 == sum
	if verified {
		m = doc.Tree
	} else {
		tree, err := canon.Parse(b)
		if err != nil {
			return ArtefactFacts{}, refusal.Wrap(ErrArtefactInvalid, err, "artefact")
		}
		var ok bool
		if m, ok = tree.(map[string]any); !ok {
			return ArtefactFacts{}, refusal.New(ErrArtefactInvalid, "artefact: not a JSON object")
		}
	}
	f := &fields{m: m, path: "", verified: verified}
	var a ArtefactFacts
	v, ok := m["artifact_version"].(int64)
	if !ok || v < 1 || v > 8 {
		f.fail("artifact_version is not an integer 1..8")
	}
	a.ArtifactVersion = v
	a.EngineVersion = f.text("engine_version")
	op := f.object("operation")
	a.OperationID = op.text("operation_id")
	a.OperationVersion = op.text("operation_version")
	a.SpecDigest = op.text("spec_digest_sha256")
	f.err = op.err
	if v >= 4 {
		a.OperationInstanceID = f.text("operation_instance_id")
	}
	a.ScenarioID = f.text("scenario_id")
	a.SemanticScenarioID = f.text("semantic_scenario_id")
	a.AgentID = f.text("agent_id")
	a.AgentKind = f.text("agent_kind")
	a.TrajectoryDigest = f.digestOf("trajectory_digest_sha256", "trajectory")
	a.FinalStateDigest = f.digestOf("final_state_digest_sha256", "final_state")
	if v >= 2 {
		a.DecisionsDigest = f.digestOf("decisions_digest_sha256", "decisions")
	}
	ev := f.object("evaluation")
	if f.err == nil {
		d, err := canon.UpstreamDigest(ev.m)
		if err != nil {
			f.fail("evaluation: %v", err)
		}
		a.EvaluationDigest = d
	}
	a.Reliable = ev.flag("reliable")
	if t := ev.optText("terminal_outcome"); t != "" {
		a.TerminalOutcome = &t
	}
	f.err = cmp.Or(f.err, ev.err)
	if pe, present := m["provider_execution"]; present && pe != nil {
		b := f.object("provider_execution")
		a.BoundLedgerDigest = b.text("execution_ledger_digest_sha256")
		a.boundRunID = b.text("execution_run_id")
		f.err = cmp.Or(f.err, b.err)
	}
	if f.err != nil {
		return ArtefactFacts{}, f.err
	}
	return a, nil
}

const genesisDigest = "0000000000000000000000000000000000000000000000000000000000000000"

// deriveLedger walks an execution ledger's hash chain (each row's
// row_digest_sha256 is the upstream digest of the row without that key, and
// each row links its predecessor's digest) and returns its head. The full
// row grammar is the bundle check's.
func deriveLedger(b []byte) (*LedgerFacts, error) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return nil, refusal.New(ErrLedgerInvalid, "the ledger is empty or its last row is not newline-terminated")
	}
	l := &LedgerFacts{}
	prev := genesisDigest
	var kind string
	for i, line := range bytes.Split(b[:len(b)-1], []byte("\n")) {
		if len(line) > limits.MaxLedgerLineBytes {
			return nil, limits.Exceeded("MaxLedgerLineBytes", limits.MaxLedgerLineBytes, int64(len(line)))
		}
		if kind == "terminal" {
			return nil, refusal.New(ErrLedgerInvalid, "row %d follows the terminal row", i)
		}
		tree, err := canon.Parse(line)
		if err != nil {
			return nil, refusal.Wrap(ErrLedgerInvalid, err, "row %d", i)
		}
		row, ok := tree.(map[string]any)
		if !ok {
			return nil, refusal.New(ErrLedgerInvalid, "row %d is not a JSON object", i)
		}
		if idx, ok := row["row_index"].(int64); !ok || idx != int64(i) {
			return nil, refusal.New(ErrLedgerInvalid, "row %d: row_index is not %d", i, i)
		}
		ver, ok := row["ledger_version"].(int64)
		if !ok || (i > 0 && ver != l.LedgerVersion) {
			return nil, refusal.New(ErrLedgerInvalid, "row %d: ledger_version is missing or changes", i)
		}
		l.LedgerVersion = ver
		if p, _ := row["previous_row_digest_sha256"].(string); p != prev {
			return nil, refusal.New(ErrLedgerInvalid, "row %d: previous_row_digest_sha256 does not link row %d", i, i-1)
		}
		stated, _ := row["row_digest_sha256"].(string)
		delete(row, "row_digest_sha256")
		got, err := canon.UpstreamDigest(row)
		if err != nil {
			return nil, refusal.Wrap(ErrLedgerInvalid, err, "row %d", i)
		}
		if got != stated {
			return nil, refusal.New(ErrLedgerInvalid, "row %d: row_digest_sha256 is %q, the row digests to %s", i, stated, got)
		}
		prev = got
		kind, _ = row["row_kind"].(string)
		switch {
		case i == 0:
			h, _ := row["header"].(map[string]any)
			run, _ := h["execution_run_id"].(string)
			if kind != "header" || run == "" {
				return nil, refusal.New(ErrLedgerInvalid, "row 0 is not a header naming an execution_run_id")
			}
			l.ExecutionRunID = run
		case kind == "terminal":
			t, _ := row["terminal"].(map[string]any)
			tk, _ := t["kind"].(string)
			if tk == "" {
				return nil, refusal.New(ErrLedgerInvalid, "row %d: the terminal row has no kind", i)
			}
			l.TerminalKind = tk
		case kind != "call":
			return nil, refusal.New(ErrLedgerInvalid, "row %d: row_kind %q", i, kind)
		}
		l.Rows = int64(i) + 1
	}
	l.ChainHead = prev
	return l, nil
}
