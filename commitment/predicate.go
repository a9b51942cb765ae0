package commitment

import (
	"sync"

	"github.com/obaudit/obaudit/internal/jsonfield"
)

// The predicate's named checks: readPredicate is the validator of the v1
// predicate, its shape declared once ([predicateRule]), every refusal of
// class predicate-invalid naming the RFC 6901 pointer (within the
// predicate) of the value it is about ([jsonfield.PointerOf]). The
// published JSON Schema (schemas.CommitmentV1) states the same rules and is
// held to these by TestPredicateOracle. They are stricter in one way only:
// an integer is an integer literal, never a float (8.0), as the predicate
// is written.

const (
	// maxTextLength is the schema's bound on a text's length, in code
	// points.
	maxTextLength = 256
	// maxRows is the schema's bound on a ledger's row count (2^53-1).
	maxRows = 1<<53 - 1
)

// predicateRules holds a predicate's values to the tree rules
// (internal/jsonfield) with this package's class.
var predicateRules = &jsonfield.Reader{
	Bad: ErrPredicateInvalid, Unknown: ErrPredicateInvalid, UnknownField: ErrPredicateInvalid, MissingField: ErrPredicateInvalid,
	Prefix: "predicate: ", Whole: "the predicate",
}

// predicateRule is the v1 predicate, built on first use (nothing at init).
var predicateRule = sync.OnceValue(func() jsonfield.Rule {
	r, f := predicateRules, jsonfield.Field
	text, digest := r.Chars(1, maxTextLength), r.Hex("", 64)
	return r.Closed(
		f("artefact", r.Closed(
			f("artifact_version", r.Integer(1, 8)),
			f("engine_version", text),
			f("operation_id", text),
			f("operation_version", text),
			f("spec_digest_sha256", digest),
			f("operation_instance_id", jsonfield.OrNull(r.Hex("opinst_", 32))),
			f("scenario_id", text),
			f("semantic_scenario_id", text),
			f("agent_id", text),
			f("agent_kind", text),
			f("trajectory_digest_sha256", digest),
			f("final_state_digest_sha256", digest),
			f("decisions_digest_sha256", jsonfield.OrNull(digest)),
			f("evaluation_digest_sha256", digest),
			f("reliable", r.Flag),
			f("terminal_outcome", jsonfield.OrNull(text)),
			f("bound_ledger_digest_sha256", jsonfield.OrNull(digest)))),
		f("ledger", jsonfield.OrNull(r.Closed(
			f("ledger_version", r.Integer(2, 3)),
			f("execution_run_id", r.Hex("exec_", 32)),
			f("rows", r.Integer(1, maxRows)),
			f("chain_head_sha256", digest),
			f("terminal_kind", jsonfield.OrNull(r.Enum("scored", "excluded", "aborted")))))),
		f("checks", r.Closed(f("validate", r.Flag), f("replay", r.Flag), f("bundle", r.Flag))),
		f("obaudit_version", text))
})

// readPredicate holds a predicate tree (canon's value types) to the v1
// rules and reads it; every refusal is [ErrPredicateInvalid].
func readPredicate(tree any) (Predicate, error) {
	if err := predicateRule()(tree, ""); err != nil {
		return Predicate{}, err
	}
	// predicateRule has established every assertion below: each member is
	// present and of its kind; a nullable one that is null reads as "" (or
	// a nil pointer).
	m := tree.(map[string]any)
	a := m["artefact"].(map[string]any)
	orEmpty := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	p := Predicate{
		Artefact: ArtefactFacts{
			ArtifactVersion:     a["artifact_version"].(int64),
			EngineVersion:       a["engine_version"].(string),
			OperationID:         a["operation_id"].(string),
			OperationVersion:    a["operation_version"].(string),
			SpecDigest:          a["spec_digest_sha256"].(string),
			OperationInstanceID: orEmpty(a, "operation_instance_id"),
			ScenarioID:          a["scenario_id"].(string),
			SemanticScenarioID:  a["semantic_scenario_id"].(string),
			AgentID:             a["agent_id"].(string),
			AgentKind:           a["agent_kind"].(string),
			TrajectoryDigest:    a["trajectory_digest_sha256"].(string),
			FinalStateDigest:    a["final_state_digest_sha256"].(string),
			DecisionsDigest:     orEmpty(a, "decisions_digest_sha256"),
			EvaluationDigest:    a["evaluation_digest_sha256"].(string),
			Reliable:            a["reliable"].(bool),
			BoundLedgerDigest:   orEmpty(a, "bound_ledger_digest_sha256"),
		},
		ObauditVersion: m["obaudit_version"].(string),
	}
	if t, ok := a["terminal_outcome"].(string); ok {
		p.Artefact.TerminalOutcome = &t
	}
	if l, ok := m["ledger"].(map[string]any); ok {
		p.Ledger = &LedgerFacts{
			LedgerVersion:  l["ledger_version"].(int64),
			ExecutionRunID: l["execution_run_id"].(string),
			Rows:           l["rows"].(int64),
			ChainHead:      l["chain_head_sha256"].(string),
			TerminalKind:   orEmpty(l, "terminal_kind"),
		}
	}
	c := m["checks"].(map[string]any)
	p.Checks = Checks{Validate: c["validate"].(bool), Replay: c["replay"].(bool), Bundle: c["bundle"].(bool)}
	return p, nil
}
