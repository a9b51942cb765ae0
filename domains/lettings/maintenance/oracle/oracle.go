// Package oracle loads the maintenance negative-control oracle: the
// separately authored, versioned statement of what each negative-control
// agent must break, why, and what it must leave standing.
//
// The expectations live apart from the agents and the evaluator on purpose:
// this package imports neither the agent registry nor the evaluator, and no
// code writes the manifest. An agent's targets, expected findings and
// must-pass dimensions are read-only views onto a loaded [Manifest].
//
// # Format
//
// A YAML document (read with YAML 1.1 scalar rules, as upstream's PyYAML
// safe loader reads it) with exactly the top-level keys oracle_id,
// oracle_version, operation_id, semantic_scenario_id,
// authored_against_operation_version, provenance (authored_by,
// independence, evidence_class, review_status), result_vector_dimensions and
// controls; each control has exactly agent_id, scenario_id, intervention,
// guarantee_attacked, expected_failed_dimensions (the causal failure
// closure, an exact set), required_finding_codes (a required subset),
// must_pass_dimensions and rationale. The shipped manifest ([Default]) is
// obaudit's own file carrying the facts of upstream's v0_5 manifest.
//
// The oracle's content digest is the SHA-256 of upstream's canonical JSON
// of the whole parsed document, values as written (not trimmed): comments,
// layout and quoting do not move it. For the shipped manifest it is
// c3cc69543e8baa35f53a63916554be0fc5355b2ac6f003d03ad7dccfaa80b10e, the
// digest upstream 0.9.0's gate reports.
//
// # Refusals
//
// A manifest is refused, by class: unreadable ([ErrUnreadable]); unknown or
// missing fields ([ErrUnknownField], [ErrMissingField]); a field of the wrong
// kind, empty, or a name listed twice ([ErrMalformedField]); a
// result-vector vocabulary that is not the evaluator's eleven dimensions in
// report order ([ErrVocabularyMismatch]); a control naming a dimension
// outside it ([ErrUnknownDimension]), declaring one dimension both failing
// and passing ([ErrDimensionConflict]) or leaving one unjudged
// ([ErrDimensionUnjudged]); a finding code no dimension raises
// ([ErrUnknownFindingCode]); two controls for one agent
// ([ErrDuplicateControl]).
//
// # Compatibility
//
// The manifest format is upstream's, field for field. A new oracle version
// is a new file; the loader reads any version whose shape is this one.
package oracle

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// Refusals. Each is returned by [Load] (and so by [Default]) when a
// manifest has the stated problem.
var (
	// ErrUnreadable: not one YAML mapping (syntax error, several documents,
	// a duplicate key, an anchor, explicit tags, nesting too deep).
	ErrUnreadable = refusal.Sentinel("oracle/unreadable")
	// ErrUnknownField: a key the format does not have, at any level.
	ErrUnknownField = refusal.Sentinel("oracle/unknown-field")
	// ErrMissingField: a required key is absent.
	ErrMissingField = refusal.Sentinel("oracle/missing-field")
	// ErrMalformedField: a text field that is not a non-empty string, a list
	// that is not a non-empty list of non-empty strings, or a name listed
	// twice in one list.
	ErrMalformedField = refusal.Sentinel("oracle/malformed-field")
	// ErrVocabularyMismatch: result_vector_dimensions is not exactly the
	// evaluator's dimensions in report order.
	ErrVocabularyMismatch = refusal.Sentinel("oracle/vocabulary-mismatch")
	// ErrUnknownDimension: a control names a dimension that is not in
	// result_vector_dimensions.
	ErrUnknownDimension = refusal.Sentinel("oracle/unknown-dimension")
	// ErrDimensionConflict: a control declares a dimension both in its
	// closure and among its must-pass dimensions.
	ErrDimensionConflict = refusal.Sentinel("oracle/dimension-conflict")
	// ErrDimensionUnjudged: a control's closure and must-pass dimensions do
	// not cover every result-vector dimension.
	ErrDimensionUnjudged = refusal.Sentinel("oracle/dimension-unjudged")
	// ErrUnknownFindingCode: a required finding code that no dimension of
	// the evaluator raises.
	ErrUnknownFindingCode = refusal.Sentinel("oracle/unknown-finding-code")
	// ErrDuplicateControl: two controls for one agent.
	ErrDuplicateControl = refusal.Sentinel("oracle/duplicate-control")
)

//go:embed negative_controls_v0_5.yaml
var defaultManifest []byte

// DefaultSource names the shipped manifest in reports and refusals.
const DefaultSource = "negative_controls_v0_5.yaml"

// Vocabulary is what a manifest is checked against: the evaluator's
// dimensions in report order and its finding-code catalogue. The caller
// supplies it (this package does not import the evaluator).
type Vocabulary struct {
	Dimensions []string
	// KnownCode reports whether some dimension raises code.
	KnownCode func(code string) bool
}

// Identity names the oracle a report was graded against.
type Identity struct {
	OracleID      string
	OracleVersion string
	// Digest is oracle_digest_sha256.
	Digest string
}

// Control is one oracle-declared negative control. A Control returned by a
// [Manifest] is a copy: editing it changes nothing the gate reads.
type Control struct {
	AgentID           string
	ScenarioID        string
	Intervention      string
	GuaranteeAttacked string
	// Closure is expected_failed_dimensions: the causal failure closure,
	// compared as an exact set.
	Closure []string
	// RequiredFindings is required_finding_codes: a required subset of the
	// run's finding codes.
	RequiredFindings []string
	// MustPass is must_pass_dimensions.
	MustPass  []string
	Rationale string
}

func (c Control) clone() Control {
	c.Closure = slices.Clone(c.Closure)
	c.RequiredFindings = slices.Clone(c.RequiredFindings)
	c.MustPass = slices.Clone(c.MustPass)
	return c
}

// Manifest is a loaded, validated oracle. It is immutable.
type Manifest struct {
	id, version, operationID string
	dimensions               []string
	controls                 []Control
	digest, source           string
}

// Identity returns the oracle id, version and content digest.
func (m *Manifest) Identity() Identity {
	return Identity{OracleID: m.id, OracleVersion: m.version, Digest: m.digest}
}

// Source is where the manifest was read from.
func (m *Manifest) Source() string { return m.source }

// OperationID is the operation the oracle was authored for.
func (m *Manifest) OperationID() string { return m.operationID }

// Control returns a copy of the control declared for agentID.
func (m *Manifest) Control(agentID string) (Control, bool) {
	for _, c := range m.controls {
		if c.AgentID == agentID {
			return c.clone(), true
		}
	}
	return Control{}, false
}

// defaultManifestJSON is defaultManifest's tree in upstream canonical JSON
// (its content digest's input), generated from the YAML by
// TestDefaultManifestJSON (-update) and held equal to it there; the shipped
// manifest is loaded from it without the strict YAML reader.
//
//go:embed negative_controls_v0_5.json
var defaultManifestJSON []byte

// Default loads the shipped manifest.
func Default(v Vocabulary) (*Manifest, error) {
	if err := needVocabulary(v); err != nil {
		return nil, err
	}
	tree, err := canon.Parse(defaultManifestJSON)
	if err != nil {
		return nil, err
	}
	return fromTree(tree.(map[string]any), DefaultSource, v)
}

var (
	topLevelFields   = []string{"oracle_id", "oracle_version", "operation_id", "semantic_scenario_id", "authored_against_operation_version", "provenance", "result_vector_dimensions", "controls"}
	provenanceFields = []string{"authored_by", "independence", "evidence_class", "review_status"}
	controlFields    = []string{"agent_id", "scenario_id", "intervention", "guarantee_attacked", "expected_failed_dimensions", "required_finding_codes", "must_pass_dimensions", "rationale"}
)

// Load parses and validates a manifest. source names it in refusals.
func Load(b []byte, source string, v Vocabulary) (*Manifest, error) {
	if err := needVocabulary(v); err != nil {
		return nil, err
	}
	raw, err := parseYAML(b, source)
	if err != nil {
		return nil, err
	}
	return fromTree(raw, source, v)
}

func needVocabulary(v Vocabulary) error {
	if len(v.Dimensions) == 0 || v.KnownCode == nil {
		return errors.New("oracle: Load needs the evaluator's vocabulary")
	}
	return nil
}

// fromTree validates a parsed manifest.
func fromTree(raw map[string]any, source string, v Vocabulary) (*Manifest, error) {
	digest, err := canon.UpstreamDigest(raw)
	if err != nil {
		return nil, refusal.Wrap(ErrMalformedField, err, "%s: this manifest cannot be given a content identity", source)
	}
	if err := fields(raw, topLevelFields, source); err != nil {
		return nil, err
	}
	top, err := texts(raw, source, "oracle_id", "oracle_version", "operation_id", "semantic_scenario_id", "authored_against_operation_version")
	if err != nil {
		return nil, err
	}
	m := &Manifest{id: top[0], version: top[1], operationID: top[2], digest: digest, source: source}
	prov, ok := raw["provenance"].(map[string]any)
	where := source + ": provenance"
	if !ok {
		return nil, refusal.New(ErrMalformedField, "%s: expected a mapping", where)
	}
	if err := fields(prov, provenanceFields, where); err != nil {
		return nil, err
	}
	if _, err := texts(prov, where, provenanceFields...); err != nil {
		return nil, err
	}
	if m.dimensions, err = names(raw, "result_vector_dimensions", source); err != nil {
		return nil, err
	}
	if !slices.Equal(m.dimensions, v.Dimensions) {
		return nil, refusal.New(ErrVocabularyMismatch,
			"%s: result_vector_dimensions is %v; the evaluator's result vector is %v, in that order", source, m.dimensions, v.Dimensions)
	}
	list, ok := raw["controls"].([]any)
	if !ok || len(list) == 0 {
		return nil, refusal.New(ErrMalformedField, "%s: controls must be a non-empty list of oracle-declared negative controls", source)
	}
	seen := map[string]bool{}
	for i, item := range list {
		c, err := parseControl(item, m.dimensions, v, fmt.Sprintf("%s: controls[%d]", source, i))
		if err != nil {
			return nil, err
		}
		if seen[c.AgentID] {
			return nil, refusal.New(ErrDuplicateControl,
				"%s: agent %q is oracle-declared twice; one control per agent, or the gate has two answers", source, c.AgentID)
		}
		seen[c.AgentID] = true
		m.controls = append(m.controls, c)
	}
	return m, nil
}

func parseControl(item any, vocabulary []string, v Vocabulary, where string) (Control, error) {
	var c Control
	raw, ok := item.(map[string]any)
	if !ok {
		return c, refusal.New(ErrMalformedField, "%s: expected a mapping", where)
	}
	if err := fields(raw, controlFields, where); err != nil {
		return c, err
	}
	var err error
	if c.AgentID, err = text(raw, "agent_id", where); err != nil {
		return c, err
	}
	named := where + " (" + c.AgentID + ")"
	if c.Closure, err = names(raw, "expected_failed_dimensions", named); err != nil {
		return c, err
	}
	if c.MustPass, err = names(raw, "must_pass_dimensions", named); err != nil {
		return c, err
	}
	unknown := slices.DeleteFunc(slices.Concat(c.Closure, c.MustPass), func(d string) bool { return slices.Contains(vocabulary, d) })
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return c, refusal.New(ErrUnknownDimension, "%s: names %v, which are not in the declared result_vector_dimensions", named, unknown)
	}
	both := slices.DeleteFunc(slices.Clone(c.Closure), func(d string) bool { return !slices.Contains(c.MustPass, d) })
	if len(both) > 0 {
		slices.Sort(both)
		return c, refusal.New(ErrDimensionConflict, "%s: %v are declared as both failing and passing", named, both)
	}
	unjudged := slices.DeleteFunc(slices.Clone(vocabulary), func(d string) bool { return slices.Contains(c.Closure, d) || slices.Contains(c.MustPass, d) })
	if len(unjudged) > 0 {
		return c, refusal.New(ErrDimensionUnjudged, "%s: %v are left unjudged; every control states an expectation for every dimension", named, unjudged)
	}
	t, err := texts(raw, named, "scenario_id", "intervention", "guarantee_attacked")
	if err != nil {
		return c, err
	}
	c.ScenarioID, c.Intervention, c.GuaranteeAttacked = t[0], t[1], t[2]
	if c.RequiredFindings, err = names(raw, "required_finding_codes", named); err != nil {
		return c, err
	}
	for _, code := range c.RequiredFindings {
		if !v.KnownCode(code) {
			return c, refusal.New(ErrUnknownFindingCode, "%s: requires finding code %q, which no dimension of the evaluator raises", named, code)
		}
	}
	if c.Rationale, err = text(raw, "rationale", named); err != nil {
		return c, err
	}
	return c, nil
}

func fields(m map[string]any, allowed []string, where string) error {
	if unknown := jsonfield.Unknown(m, allowed); unknown != nil {
		return refusal.New(ErrUnknownField, "%s: unknown field(s) %v; this build knows %v", where, unknown, slices.Sorted(slices.Values(allowed)))
	}
	if missing := jsonfield.Missing(m, allowed); missing != nil {
		return refusal.New(ErrMissingField, "%s: missing required field(s) %v", where, missing)
	}
	return nil
}

// text is a non-empty string field, stored trimmed.
func text(m map[string]any, key, where string) (string, error) {
	s, ok := m[key].(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", refusal.New(ErrMalformedField, "%s: %s must be a non-empty string", where, key)
	}
	return strings.TrimSpace(s), nil
}

// texts is the text field of each of keys, in order: the first refusal wins.
func texts(m map[string]any, where string, keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		var err error
		if out[i], err = text(m, k, where); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// names is a non-empty list of distinct non-empty strings.
func names(m map[string]any, key, where string) ([]string, error) {
	list, ok := m[key].([]any)
	if !ok || len(list) == 0 {
		return nil, refusal.New(ErrMalformedField, "%s: %s must be a non-empty list of names", where, key)
	}
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, refusal.New(ErrMalformedField, "%s: %s carries a non-string or empty entry", where, key)
		}
		if slices.Contains(out, s) {
			return nil, refusal.New(ErrMalformedField, "%s: %s names %q twice", where, key, s)
		}
		out = append(out, s)
	}
	return out, nil
}
