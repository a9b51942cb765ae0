package gate

import (
	"fmt"
	"strings"

	"github.com/obaudit/obaudit/canon"
)

var sprintf = fmt.Sprintf

// ScopeNote states what a passing gate does and does not establish.
const ScopeNote = "construct evidence for one synthetic operation: the evaluator separates the shipped controls " +
	"under one versioned oracle; not a model result, not a ranking, not independent validation"

// Passed counts the passing checks.
func (r *Report) Passed() int {
	n := 0
	for _, c := range r.Checks {
		if c.OK {
			n++
		}
	}
	return n
}

// Tree is the report's JSON form (a canon tree; the CLI writes it as RFC
// 8785 canonical JSON).
func (r *Report) Tree() map[string]any {
	checks := make([]any, len(r.Checks))
	for i, c := range r.Checks {
		var exp any
		if c.ReferenceExpectationID != "" {
			exp = c.ReferenceExpectationID
		}
		checks[i] = map[string]any{
			"agent_id": c.AgentID, "scenario_id": c.ScenarioID, "kind": c.Kind, "ok": c.OK,
			"reliable": c.Reliable, "status": c.Status,
			"failed_dimensions": canon.StringList(c.FailedDimensions), "passed_dimensions": canon.StringList(c.PassedDimensions),
			"finding_codes":    canon.StringList(c.FindingCodes),
			"expected_targets": canon.StringList(c.ExpectedTargets), "expected_findings": canon.StringList(c.ExpectedFindings),
			"required_passing":         canon.StringList(c.RequiredPassing),
			"reference_expectation_id": exp,
			"problems":                 canon.StringList(c.Problems),
		}
	}
	return map[string]any{
		"mediaType":          MediaType,
		"engine_version":     r.EngineVersion,
		"operation_id":       r.OperationID,
		"spec_digest_sha256": r.SpecDigest,
		"oracle": map[string]any{
			"oracle_id": r.Oracle.OracleID, "oracle_version": r.Oracle.OracleVersion,
			"oracle_digest_sha256": r.Oracle.Digest, "source": r.OracleSource,
		},
		"ok":     r.OK,
		"passed": int64(r.Passed()),
		"checks": checks,
		"scope":  ScopeNote,
	}
}

// Text is the human-readable report.
func (r *Report) Text() string {
	var b strings.Builder
	verdict := func(ok bool) string {
		if ok {
			return "OK"
		}
		return "FAILED"
	}
	fmt.Fprintf(&b, "%s: causal acceptance gate\n", r.OperationID)
	fmt.Fprintf(&b, "  engine             %s\n", r.EngineVersion)
	fmt.Fprintf(&b, "  spec               %s\n", r.SpecDigest)
	fmt.Fprintf(&b, "  oracle             %s %s (%s)\n", r.Oracle.OracleID, r.Oracle.OracleVersion, r.Oracle.Digest)
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %-20s %-3s %-9s reliable=%-5t %s\n", c.AgentID, c.ScenarioID, c.Kind, c.Reliable, verdict(c.OK))
		if c.ReferenceExpectationID != "" {
			fmt.Fprintf(&b, "      expectation %s\n", c.ReferenceExpectationID)
		}
		if len(c.FailedDimensions) > 0 {
			fmt.Fprintf(&b, "      ended     %s\n", c.Status)
			fmt.Fprintf(&b, "      failed    %s\n", strings.Join(c.FailedDimensions, ", "))
			fmt.Fprintf(&b, "      findings  %s\n", strings.Join(c.FindingCodes, ", "))
		}
		for _, p := range c.Problems {
			fmt.Fprintf(&b, "      ! %s\n", p)
		}
	}
	fmt.Fprintf(&b, "causal acceptance: %s (%d/%d checks passed)\n", verdict(r.OK), r.Passed(), len(r.Checks))
	fmt.Fprintf(&b, "scope: %s\n", ScopeNote)
	return b.String()
}
