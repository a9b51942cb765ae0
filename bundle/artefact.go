package bundle

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/format/provexec"
	"github.com/obaudit/obaudit/refusal"
)

// view is what the audit reads out of an artefact.
type view struct {
	binding         provexec.Binding
	maxOutputTokens *int64
	// identity fields the ledger header also states
	model, protocol                               string
	operationID, specDigest, instanceID           string
	scenarioID, agentID, agentKind, engineVersion string
	version                                       int64
	attempts                                      []attemptView
	decisions                                     []decisionView
}

type attemptView struct {
	request   string
	inv, turn int64
}

type decisionView struct{ kind, digest, observation string }

// as is x as a T, clearing *ok when it is not one.
func as[T any](x any, ok *bool) T {
	v, is := x.(T)
	*ok = *ok && is
	return v
}

// readArtefact is steps 1–3, then reads the fields steps 6–8 compare.
func readArtefact(tree map[string]any, opts Options) (*view, error) {
	bad := func(format string, args ...any) error {
		return refusal.New(ErrContract, "this artefact does not read as a run artefact, so there is no bundle to audit: "+format, args...)
	}
	// Step 1.
	if opts.ValidateArtefact != nil {
		if err := opts.ValidateArtefact(tree); err != nil {
			return nil, refusal.Wrap(ErrContract, err, "this artefact does not read as a run artefact, so there is no bundle to audit")
		}
	}
	// Step 2.
	v, ok := tree["artifact_version"].(int64)
	if !ok {
		return nil, bad("artifact_version is not an integer")
	}
	if v < MinContract {
		return nil, refusal.New(ErrContract, "this artefact was written under contract %d, which carries no provider execution binding; a bundle is audited at contract %d and above", v, MinContract)
	}
	// Step 3.
	pe, present := tree["provider_execution"]
	if !present {
		return nil, bad("provider_execution is missing")
	}
	if pe == nil {
		return nil, refusal.New(ErrContract, "this artefact's run reached no provider (provider_execution is null) and there is no bundle to audit")
	}
	bm, ok := pe.(map[string]any)
	keys := (&provexec.Binding{}).Tree() // the binding's fields, as provexec declares them
	if !ok || len(bm) != len(keys) {
		return nil, bad("provider_execution is not the 15-field binding")
	}
	out := &view{}
	b := &out.binding
	// Every one of the binding's fields is read below: a missing one is
	// not of its type either.
	str := func(k string) string { return as[string](bm[k], &ok) }
	num := func(k string) int64 { return as[int64](bm[k], &ok) }
	ok = true
	b.ExecutionRunID, b.ExecutionLedgerDigest = str("execution_run_id"), str("execution_ledger_digest_sha256")
	b.ExecutionLedgerVersion = num("execution_ledger_version")
	b.Provider, b.API, b.Model = str("provider"), str("api"), str("model")
	b.SettingsDigest, b.PricingDigest = str("settings_digest_sha256"), str("pricing_digest_sha256")
	b.ProviderCalls, b.Attempts = num("provider_calls"), num("attempts")
	b.MeasuredCostUSD, b.ForfeitedReservationUSD = str("measured_cost_usd"), str("forfeited_reservation_usd")
	b.InputTokens, b.OutputTokens = num("input_tokens"), num("output_tokens")
	idx, isList := bm["decision_call_index"].([]any)
	if !ok || !isList {
		return nil, bad("provider_execution fields have the wrong types")
	}
	for _, x := range idx {
		n, isInt := x.(int64)
		if !isInt {
			return nil, bad("decision_call_index holds a non-integer")
		}
		b.DecisionCallIndex = append(b.DecisionCallIndex, n)
	}
	ae, ok := tree["agent_execution"].(map[string]any)
	if !ok {
		return nil, bad("agent_execution is not an object")
	}
	if n, isInt := ae["max_output_tokens"].(int64); isInt {
		out.maxOutputTokens = &n
	} else if ae["max_output_tokens"] != nil {
		return nil, bad("agent_execution.max_output_tokens is not an integer")
	}
	out.model, _ = ae["model"].(string)
	out.protocol, _ = ae["protocol_version"].(string)
	out.version = v
	op, _ := tree["operation"].(map[string]any)
	out.operationID, _ = op["operation_id"].(string)
	out.specDigest, _ = op["spec_digest_sha256"].(string)
	for k, dst := range map[string]*string{
		"operation_instance_id": &out.instanceID, "scenario_id": &out.scenarioID, "agent_id": &out.agentID,
		"agent_kind": &out.agentKind, "engine_version": &out.engineVersion,
	} {
		*dst, _ = tree[k].(string)
	}
	atts, ok := ae["attempts"].([]any)
	if !ok {
		return nil, bad("agent_execution.attempts is not a list")
	}
	for _, a := range atts {
		am, isObj := a.(map[string]any)
		r, ok1 := am["request_digest_sha256"].(string)
		inv, ok2 := am["invocation_index"].(int64)
		turn, ok3 := am["turn_index"].(int64)
		if !isObj || !ok1 || !ok2 || !ok3 {
			return nil, bad("an agent_execution attempt lacks its request digest or turn")
		}
		out.attempts = append(out.attempts, attemptView{request: r, inv: inv, turn: turn})
	}
	decs, ok := tree["decisions"].([]any)
	if !ok {
		return nil, bad("decisions is not a list")
	}
	for _, d := range decs {
		dm, isObj := d.(map[string]any)
		oc, ok1 := dm["outcome"].(map[string]any)
		kind, ok2 := oc["kind"].(string)
		if !isObj || !ok1 || !ok2 {
			return nil, bad("a decision lacks its outcome kind")
		}
		dg, err := canon.UpstreamDigest(oc)
		if err != nil {
			return nil, refusal.Wrap(ErrContract, err, "a decision outcome cannot be canonically encoded")
		}
		obs, _ := dm["observation_digest_sha256"].(string)
		out.decisions = append(out.decisions, decisionView{kind: kind, digest: dg, observation: obs})
	}
	return out, nil
}
