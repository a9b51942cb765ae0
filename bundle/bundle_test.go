package bundle_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

const (
	modelArtefact = "artifact8-fake-openai-reference-v1.json"
	detArtefact   = "artifact8-deterministic-reference-v1.json"
	ledgerFile    = "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson"
)

func artefactTree(t *testing.T, name string) map[string]any {
	t.Helper()
	v, err := canon.Parse(upstreamtest.Read(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

func writeLedger(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "execution_ledger.ndjson")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func binding(tree map[string]any) map[string]any { return tree["provider_execution"].(map[string]any) }

func callRow(rows []map[string]any, i int) map[string]any { return rows[i]["call"].(map[string]any) }

// TestUpstreamBundle is B1/B2: the upstream fake-provider artefact and its
// v2 ledger agree, and the report says what a pass does not establish.
func TestUpstreamBundle(t *testing.T) {
	art := upstreamtest.Path(t, modelArtefact)
	led := upstreamtest.Path(t, ledgerFile)
	before := upstreamtest.Read(t, ledgerFile)
	r, err := bundle.AuditFiles(art, led, bundle.Options{})
	if err != nil {
		t.Fatalf("AuditFiles(upstream) = %v", err)
	}
	if r.Provider != "openai" || r.Model != "gpt-5.6-luna" || r.ProviderCalls != 46 || r.Attempts != 46 ||
		r.ExecutionLedgerVersion != 2 || r.ExecutionLedgerDigest != "73f0c6b77ff6e774ded0c325ee007fe62f62999627ffcd8ae915474809f41b2f" ||
		r.MeasuredCostUSD != "0.2964125" || r.Ledger != ledgerFile {
		t.Errorf("Result = %+v", r)
	}
	for i, n := range r.DecisionCallIndex {
		if n != int64(i) {
			t.Fatalf("decision_call_index[%d] = %d", i, n)
		}
	}
	s := r.Summary()
	if s["provider_attested"] != false || s["note"] != bundle.Note || !strings.Contains(s["does_not_establish"].(string), "provider answered") {
		t.Errorf("summary does not say what a pass does not establish: %v", s)
	}
	// B20: no side effects.
	if after, _ := os.ReadFile(led); !bytes.Equal(before, after) {
		t.Error("the audit changed the ledger")
	}
}

// TestBundleRefusals is spec §11.9: each case its own class.
func TestBundleRefusals(t *testing.T) {
	ledger := upstreamtest.Read(t, ledgerFile)
	rows := func() []map[string]any { return lt.Rows(ledger) }
	type tc struct {
		name   string
		class  *refusal.Refusal
		art    func(map[string]any) map[string]any // mutate the artefact tree
		ledger func() []byte
	}
	same := func(m map[string]any) map[string]any { return m }
	genuine := func() []byte { return ledger }
	lines := bytes.SplitAfter(ledger, []byte("\n"))
	cases := []tc{
		{"B3 last line removed", bundle.ErrLedgerState, same, func() []byte { return bytes.Join(lines[:len(lines)-2], nil) }},
		{"B4 scored artefact, excluded ledger", bundle.ErrLedgerState, same, func() []byte {
			r := rows()[:6] // header + calls 0..4
			c := callRow(r, 5)
			a := c["attempts"].([]any)[0].(map[string]any)
			a["outcome"], a["fault"], a["http_status"], a["usage_reported"] = "fault", "provider_server_error", int64(500), false
			a["cost_settlement"], a["cost_measured_usd"], a["cost_forfeited_usd"] = "forfeited", nil, a["cost_reservation_usd"]
			a["input_tokens"], a["output_tokens"], a["response_model"], a["response_id_digest_sha256"] = nil, nil, nil, nil
			a["response_stop_classification"], a["response_normalized_digest_sha256"] = nil, nil
			c["terminal_reason"], c["decision"] = "retries_exhausted", nil
			a2, _ := execledger.Read(bytes.NewReader(lt.Rechain(r)), execledger.Options{})
			term := map[string]any{"kind": "excluded", "ended_at": "2035-01-02T03:04:05Z", "exclusion_code": "provider_server_error",
				"exclusion_detail": execledger.TerminalDetail("excluded"), "totals": a2.Totals.Map()}
			r = append(r, map[string]any{"ledger_version": int64(2), "row_kind": "terminal", "terminal": term})
			return lt.Rechain(r)
		}},
		{"B5 deterministic artefact", bundle.ErrContract, func(map[string]any) map[string]any { return artefactTree(t, detArtefact) }, genuine},
		{"B6 binding v2 against a genuine v3 ledger", bundle.ErrLedgerVersionMismatch, same, func() []byte {
			r := rows()
			for _, row := range r {
				row["ledger_version"] = int64(3)
			}
			return lt.Rechain(r)
		}},
		{"B7 binding v3 against the genuine v2 ledger", bundle.ErrLedgerVersionMismatch, func(m map[string]any) map[string]any {
			binding(m)["execution_ledger_version"] = int64(3)
			return m
		}, genuine},
		{"B8 binding digest f×64", bundle.ErrDigestMismatch, func(m map[string]any) map[string]any {
			binding(m)["execution_ledger_digest_sha256"] = strings.Repeat("f", 64)
			return m
		}, genuine},
		{"B9 re-chained bound+1", bundle.ErrLedgerState, same, func() []byte {
			r := rows()
			callRow(r, 1)["input_token_upper_bound"] = callRow(r, 1)["input_token_upper_bound"].(int64) + 1
			return lt.Rechain(r)
		}},
		{"B10 binding run id", bundle.ErrRunIDMismatch, func(m map[string]any) map[string]any {
			binding(m)["execution_run_id"] = "exec_" + strings.Repeat("0", 32)
			return m
		}, genuine},
		{"B11 settings digest", bundle.ErrSettingsDigestMismatch, func(m map[string]any) map[string]any {
			binding(m)["settings_digest_sha256"] = strings.Repeat("a", 64)
			return m
		}, genuine},
		{"B11 pricing digest", bundle.ErrPricingDigestMismatch, func(m map[string]any) map[string]any {
			binding(m)["pricing_digest_sha256"] = strings.Repeat("b", 64)
			return m
		}, genuine},
		{"B12 output ceiling halved", bundle.ErrOutputCeilingMismatch, func(m map[string]any) map[string]any {
			ae := m["agent_execution"].(map[string]any)
			ae["max_output_tokens"] = ae["max_output_tokens"].(int64) / 2
			return m
		}, genuine},
		{"B13 input_tokens", bundle.ErrTotalsMismatch, func(m map[string]any) map[string]any { binding(m)["input_tokens"] = int64(1); return m }, genuine},
		{"B13 output_tokens", bundle.ErrTotalsMismatch, func(m map[string]any) map[string]any { binding(m)["output_tokens"] = int64(1); return m }, genuine},
		{"B13 measured", bundle.ErrTotalsMismatch, func(m map[string]any) map[string]any { binding(m)["measured_cost_usd"] = "0.01"; return m }, genuine},
		{"B13 forfeited", bundle.ErrTotalsMismatch, func(m map[string]any) map[string]any {
			binding(m)["forfeited_reservation_usd"] = "0.01"
			return m
		}, genuine},
		{"B14 indexes 5 and 6 swapped", bundle.ErrCallBinding, func(m map[string]any) map[string]any {
			idx := binding(m)["decision_call_index"].([]any)
			idx[5], idx[6] = idx[6], idx[5]
			return m
		}, genuine},
		{"B15 re-chained request digest", bundle.ErrCallBinding, same, func() []byte {
			r := rows()
			callRow(r, 4)["request_digest_sha256"] = strings.Repeat("c", 64)
			return lt.Rechain(r)
		}},
		{"re-chained observation digest", bundle.ErrCallBinding, same, func() []byte {
			r := rows()
			callRow(r, 4)["observation_digest_sha256"] = strings.Repeat("e", 64)
			return lt.Rechain(r)
		}},
		{"B16 re-chained decision digest", bundle.ErrCallBinding, same, func() []byte {
			r := rows()
			callRow(r, 4)["decision"].(map[string]any)["decision_digest_sha256"] = strings.Repeat("d", 64)
			return lt.Rechain(r)
		}},
		{"B17 re-chained normalized digest null", bundle.ErrLedgerState, same, func() []byte {
			r := rows()
			callRow(r, 5)["attempts"].([]any)[0].(map[string]any)["response_normalized_digest_sha256"] = nil
			return lt.Rechain(r)
		}},
		// Upstream expects an identity mismatch; here the ledger itself is
		// refused first: its answers name another model than the pinned one.
		{"B18 re-chained header model", bundle.ErrLedgerState, same, func() []byte {
			r := rows()
			r[0]["header"].(map[string]any)["provider"].(map[string]any)["model"] = "gpt-not-the-pinned-model"
			return lt.Rechain(r)
		}},
		{"B19 another run's scored ledger", bundle.ErrRunIDMismatch, same, func() []byte {
			r := rows()
			r[0]["header"].(map[string]any)["execution_run_id"] = "exec_" + strings.Repeat("b", 32)
			return lt.Rechain(r)
		}},
		{"agent id relabelled", bundle.ErrAgentIDMismatch, func(m map[string]any) map[string]any { m["agent_id"] = "anthropic-claude-9"; return m }, genuine},
		{"agent kind relabelled", bundle.ErrAgentKindMismatch, func(m map[string]any) map[string]any { m["agent_kind"] = "reference"; return m }, genuine},
		{"scenario relabelled", bundle.ErrScenarioMismatch, func(m map[string]any) map[string]any { m["scenario_id"] = "V2"; return m }, genuine},
		{"engine relabelled", bundle.ErrEngineMismatch, func(m map[string]any) map[string]any { m["engine_version"] = "0.9.0+obaudit.1"; return m }, genuine},
		{"instance relabelled", bundle.ErrInstanceMismatch, func(m map[string]any) map[string]any {
			m["operation_instance_id"] = "opinst_" + strings.Repeat("e", 32)
			return m
		}, genuine},
		{"operation relabelled", bundle.ErrOperationMismatch, func(m map[string]any) map[string]any {
			m["operation"].(map[string]any)["operation_id"] = "another_operation"
			return m
		}, genuine},
		{"spec digest relabelled", bundle.ErrSpecDigestMismatch, func(m map[string]any) map[string]any {
			m["operation"].(map[string]any)["spec_digest_sha256"] = strings.Repeat("e", 64)
			return m
		}, genuine},
		{"record model relabelled", bundle.ErrModelMismatch, func(m map[string]any) map[string]any {
			m["agent_execution"].(map[string]any)["model"] = "gpt-other"
			return m
		}, genuine},
		{"protocol relabelled", bundle.ErrProtocolMismatch, func(m map[string]any) map[string]any {
			m["agent_execution"].(map[string]any)["protocol_version"] = "operatebench.model.v3"
			return m
		}, genuine},
		{"binding provider", bundle.ErrProviderMismatch, func(m map[string]any) map[string]any { binding(m)["provider"] = "anthropic"; return m }, genuine},
		{"binding api", bundle.ErrAPIMismatch, func(m map[string]any) map[string]any { binding(m)["api"] = "chat_completions"; return m }, genuine},
		{"binding model", bundle.ErrModelMismatch, func(m map[string]any) map[string]any { binding(m)["model"] = "gpt-other"; return m }, genuine},
		{"re-chained turn index", bundle.ErrCallBinding, func(m map[string]any) map[string]any {
			a := m["agent_execution"].(map[string]any)["attempts"].([]any)[3].(map[string]any)
			a["turn_index"] = a["turn_index"].(int64) + 100
			return m
		}, genuine},
		{"a tape entry changed", bundle.ErrCallBinding, func(m map[string]any) map[string]any {
			d := m["decisions"].([]any)[2].(map[string]any)["outcome"].(map[string]any)
			d["extra"] = "x"
			return m
		}, genuine},
		{"one decision dropped", bundle.ErrCallBinding, func(m map[string]any) map[string]any {
			m["decisions"] = m["decisions"].([]any)[1:]
			return m
		}, genuine},
		{"contract 9", bundle.ErrArtefactVersionMismatch, func(m map[string]any) map[string]any { m["artifact_version"] = int64(9); return m }, genuine},
		{"contract 7", bundle.ErrContract, func(m map[string]any) map[string]any { m["artifact_version"] = int64(7); return m }, genuine},
		{"binding missing a key", bundle.ErrContract, func(m map[string]any) map[string]any {
			delete(binding(m), "pricing_digest_sha256")
			return m
		}, genuine},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := c.art(artefactTree(t, modelArtefact))
			p := writeLedger(t, c.ledger())
			_, err := bundle.Audit(tree, p, bundle.Options{})
			if refusal.Of(err) != c.class.Class {
				t.Fatalf("Audit = %v, want %s", err, c.class.Class)
			}
		})
	}
}

// TestVersionMismatchIsIdentity: the version refusal is also an identity
// mismatch (upstream's subclass).
func TestVersionMismatchIsIdentity(t *testing.T) {
	tree := artefactTree(t, modelArtefact)
	binding(tree)["execution_ledger_version"] = int64(3)
	_, err := bundle.Audit(tree, upstreamtest.Path(t, ledgerFile), bundle.Options{})
	if refusal.Of(err) != bundle.ErrLedgerVersionMismatch.Class || refusal.Of(errors.Unwrap(err)) != bundle.ErrIdentityMismatch.Class {
		t.Errorf("Audit = %v", err)
	}
}

// TestLedgerClassKept: the ledger's own refusal stays in the chain.
func TestLedgerClassKept(t *testing.T) {
	r := lt.Rows(upstreamtest.Read(t, ledgerFile))
	r[1]["call"].(map[string]any)["input_token_upper_bound"] = int64(1)
	_, err := bundle.Audit(artefactTree(t, modelArtefact), writeLedger(t, lt.Rechain(r)), bundle.Options{})
	if refusal.Of(err) != bundle.ErrLedgerState.Class || !errors.Is(err, execledger.ErrArithmetic) {
		t.Errorf("Audit = %v, want bundle/ledger-state carrying ledger/arithmetic", err)
	}
	_, err = bundle.Audit(artefactTree(t, modelArtefact), filepath.Join(t.TempDir(), "absent.ndjson"), bundle.Options{})
	if refusal.Of(err) != bundle.ErrLedgerState.Class {
		t.Errorf("Audit(absent ledger) = %v", err)
	}
}

// TestValidateArtefactInjected: step 1 refusals become bundle/contract.
func TestValidateArtefactInjected(t *testing.T) {
	boom := refusal.New(execledger.ErrSchema, "stand-in artefact refusal")
	_, err := bundle.Audit(artefactTree(t, modelArtefact), upstreamtest.Path(t, ledgerFile),
		bundle.Options{ValidateArtefact: func(map[string]any) error { return boom }})
	if refusal.Of(err) != bundle.ErrContract.Class {
		t.Errorf("Audit = %v", err)
	}
}
