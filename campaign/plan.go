package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// PlanFormat names version 1 of the sealed plan.
const PlanFormat = "obaudit-campaign-plan/v1"

// Subject kinds.
const (
	KindAgent   = "agent"   // a registered deterministic agent
	KindProfile = "profile" // a model profile (provider lane + model)
)

// Plan is a sealed campaign plan: the campaign file, the log key, the
// identity-manifest digests and every assigned trial identity in
// assignment order. It is written as plan.json (RFC 8785) and its digest
// is the log's first entry; nothing about a trial is decided after it.
//
// Trials are independent of one another and their identities are fixed
// here, so a shard of the partition ([Partition], by expected cost)
// executes a subset without changing any identity.
type Plan struct {
	Format string `json:"format"`
	File   File   `json:"file"`
	// LogKey is the base64 PKIX DER of the ECDSA P-256 public key that signs
	// the log's checkpoints and every trial's run commitment.
	LogKey string `json:"log_key"`
	// Variants are the variants in file order with the Semantic Scenario
	// each belongs to and its spec digest.
	Variants []Variant `json:"variants"`
	// Manifests are identity-manifest digests by name (engine, oracle,
	// spec per variant, each model profile, rates, bounds).
	Manifests map[string]string `json:"manifests"`
	Trials    []Trial           `json:"trials"`
	// Ineligible are the variant × arm cells the arm's protocol refuses
	// (no identity is assigned to them; the report names each).
	Ineligible []Ineligible `json:"ineligible,omitempty"`
}

// Variant is one resolved scenario variant.
type Variant struct {
	ID               string `json:"id"`
	SemanticScenario string `json:"semantic_scenario"`
	SpecDigest       string `json:"spec_digest"`
}

// Trial is one assigned trial identity.
type Trial struct {
	Index            int    `json:"index"`
	ID               string `json:"id"`
	SemanticScenario string `json:"semantic_scenario"`
	Variant          string `json:"variant"`
	Arm              string `json:"arm"`
	Subject          string `json:"subject"`
	SubjectKind      string `json:"subject_kind"`
	// Repeat is the trial's number within its cell, 1..Trials.
	Repeat int `json:"repeat"`
	// Block is the randomization block (one per variant × repeat) and
	// Position the trial's place in it.
	Block    int    `json:"block"`
	Position int    `json:"position"`
	Seed     string `json:"seed"`
	// OperationInstanceID is the episode's instance id; ExecutionRunID the
	// execution ledger's run id (model profiles only, else empty).
	OperationInstanceID string `json:"operation_instance_id"`
	ExecutionRunID      string `json:"execution_run_id"`
}

// Catalog is what this build carries, as cmd wires it: the campaign
// package names no pack, agent or lane itself.
type Catalog struct {
	// Variant resolves a variant id to its Semantic Scenario and spec
	// digest (ok false: not carried).
	Variant func(id string) (Variant, bool)
	// Agent reports whether a deterministic agent id is registered.
	Agent func(id string) bool
	// Lanes, Arms and Engines list what the runner can execute.
	Lanes, Arms, Engines []string
	// Manifests are further identity-manifest digests to record (oracle,
	// engine build, …).
	Manifests map[string]string
	// Eligible is the arm protocol's verdict on a variant: "" when arm can
	// run it, else the refusal class of its compiler (nil: every cell is
	// eligible).
	Eligible func(variant, arm string) string
}

// Expand checks a campaign file against the catalog and expands it into
// the plan's assigned trial identities:
//
//	semantic scenario → variant → block (one per repeat) → cells of the
//	block (arm × subject) in a seeded, counterbalanced order
//
// The order within a block is a ChaCha8 permutation seeded from the
// campaign seed and the variant, rotated by the repeat number (a Latin
// square: over as many repeats as there are cells, every cell takes every
// position once). logKey is recorded as given.
func Expand(f *File, cat Catalog, logKey string) (*Plan, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if !slices.Contains(cat.Engines, f.EngineVersion) {
		return nil, refusal.New(ErrUnknownName, "engine_version %q is not one of %v", f.EngineVersion, cat.Engines)
	}
	p := &Plan{Format: PlanFormat, File: *f, LogKey: logKey, Manifests: map[string]string{}}
	maps.Copy(p.Manifests, cat.Manifests)
	p.Manifests["engine_version"] = f.EngineVersion
	for _, id := range f.Variants {
		v, ok := cat.Variant(id)
		if !ok {
			return nil, refusal.New(ErrUnknownName, "variant %q is not carried", id)
		}
		p.Variants = append(p.Variants, v)
		p.Manifests["spec/"+id] = v.SpecDigest
	}
	for _, a := range f.Arms {
		if !slices.Contains(cat.Arms, a) {
			return nil, refusal.New(ErrUnknownName, "arm %q is not one this build runs (%v)", a, cat.Arms)
		}
	}
	if cat.Eligible != nil {
		p.Ineligible = ineligibleCells(f, cat.Eligible)
	}
	type subject struct{ id, kind string }
	var subjects []subject
	for _, a := range f.Agents {
		if !cat.Agent(a) {
			return nil, refusal.New(ErrUnknownName, "agent %q is not registered", a)
		}
		subjects = append(subjects, subject{a, KindAgent})
	}
	for _, m := range f.ModelProfiles {
		if !slices.Contains(cat.Lanes, m.Lane) {
			return nil, refusal.New(ErrUnknownName, "model profile %q: lane %q is not one of %v", m.ID, m.Lane, cat.Lanes)
		}
		d, err := digestJSON(m)
		if err != nil {
			return nil, err
		}
		p.Manifests["profile/"+m.ID] = d
		subjects = append(subjects, subject{m.ID, KindProfile})
	}
	if err := checkAggregate(f); err != nil {
		return nil, err
	}
	for name, v := range map[string]any{"rates": f.Rates, "bounds": f.Bounds} {
		d, err := digestJSON(v)
		if err != nil {
			return nil, err
		}
		p.Manifests[name] = d
	}
	type cell struct {
		arm string
		subject
	}
	var cells []cell
	for _, a := range f.Arms {
		for _, s := range subjects {
			cells = append(cells, cell{a, s})
		}
	}
	// Semantic scenarios in order of first appearance, then their variants.
	block := 0
	for _, s := range semanticScenarios(p.Variants) {
		for _, v := range p.Variants {
			if v.SemanticScenario != s {
				continue
			}
			vcells := slices.DeleteFunc(slices.Clone(cells), func(c cell) bool { return !p.eligible(v.ID, c.arm) })
			if len(vcells) == 0 {
				continue
			}
			order := make([]int, len(vcells))
			for i := range order {
				order[i] = i
			}
			rng := rand.New(rand.NewChaCha8(derive("order", f.Seed, v.ID)))
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for r := 1; r <= f.Trials; r++ {
				for pos := range vcells {
					c := vcells[order[(pos+r-1)%len(vcells)]]
					key := strings.Join([]string{s, v.ID, c.arm, c.kind, c.id, strconv.Itoa(r)}, "/")
					seed := derive("trial-seed", f.Seed, key)
					// A treatment-arm trial runs the operation instance of its
					// full_lifecycle twin (same variant × subject × repeat):
					// the pair identity, fixed before dispatch.
					iseed := seed
					if c.arm != ArmFullLifecycle {
						iseed = derive("trial-seed", f.Seed, strings.Join([]string{s, v.ID, ArmFullLifecycle, c.kind, c.id, strconv.Itoa(r)}, "/"))
					}
					t := Trial{
						Index: len(p.Trials), SemanticScenario: s, Variant: v.ID, Arm: c.arm,
						Subject: c.id, SubjectKind: c.kind, Repeat: r, Block: block, Position: pos,
						Seed:                hex.EncodeToString(seed[:]),
						OperationInstanceID: "opinst_" + hex.EncodeToString(sub("instance", iseed)),
					}
					t.ID = trialID(t.Index)
					if c.kind == KindProfile {
						t.ExecutionRunID = "exec_" + hex.EncodeToString(sub("execution", seed))
					}
					p.Trials = append(p.Trials, t)
				}
				block++
			}
		}
	}
	return p, nil
}

// semanticScenarios are the Semantic Scenarios of vs in order of first
// appearance.
func semanticScenarios(vs []Variant) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.SemanticScenario) {
			out = append(out, v.SemanticScenario)
		}
	}
	return out
}

// derive is SHA-256 over a tagged, framed input.
func derive(purpose string, parts ...string) [32]byte {
	h := sha256.New()
	h.Write([]byte("obaudit-campaign/v1 " + purpose + "\n"))
	for _, p := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func sub(purpose string, seed [32]byte) []byte {
	d := derive(purpose, string(seed[:]))
	return d[:16]
}

func digestJSON(v any) (string, error) {
	c, err := jcs(v)
	if err != nil {
		return "", err
	}
	return canon.SHA256Hex(c), nil
}

// jcs is v's RFC 8785 bytes (encoding/json, then canon.Transform): the form
// of every campaign file and log entry.
func jcs(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return canon.Transform(b)
}

// decodeStrict decodes the JSON value b opens into v, refusing a field v
// does not have (the caller wraps the error in its own class).
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// encodeFile is a campaign file's bytes: v's RFC 8785 form and a newline.
func encodeFile(v any) ([]byte, error) {
	c, err := jcs(v)
	if err != nil {
		return nil, err
	}
	return append(c, '\n'), nil
}

// microUSD parses an exact decimal string (checked by the file schema).
func microUSD(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	frac = (frac + "000000")[:6]
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*1_000_000 + f
}

// checkAggregate refuses a plan whose model-backed trials could, at their
// per-trial bounds, exceed an aggregate bound.
func checkAggregate(f *File) error {
	n := int64(len(f.ModelProfiles) * len(f.Variants) * len(f.Arms) * f.Trials)
	if n == 0 {
		return nil
	}
	pt, ag := f.Bounds.PerTrial, f.Bounds.Aggregate
	for _, c := range []struct {
		name     string
		per, agg int64
	}{
		{"calls", pt.Calls, ag.Calls},
		{"tokens", pt.Tokens, ag.Tokens},
		{"cost_usd (micro-USD)", microUSD(pt.CostUSD), microUSD(ag.CostUSD)},
	} {
		if c.per*n > c.agg {
			return refusal.New(ErrBoundsExceeded, "%d model-backed trials × %d %s per trial = %d, above the aggregate %d", n, c.per, c.name, c.per*n, c.agg)
		}
	}
	return nil
}

// Encode returns the plan file: its RFC 8785 bytes and a newline.
func (p *Plan) Encode() ([]byte, error) { return encodeFile(p) }

// PlanDigest is the plan's seal: the SHA-256 of its RFC 8785 bytes (the
// plan file without its final newline).
func PlanDigest(planFile []byte) string {
	return canon.SHA256Hex(bytes.TrimSuffix(planFile, []byte("\n")))
}

// DecodePlan reads a plan file strictly: canonical bytes, no unknown
// field, the v1 format, trial indices and ids in order.
func DecodePlan(b []byte) (*Plan, error) {
	var p Plan
	if err := decodeStrict(b, &p); err != nil {
		return nil, refusal.Wrap(ErrPlanInvalid, err, "plan.json")
	}
	if p.Format != PlanFormat {
		return nil, refusal.New(ErrPlanInvalid, "format %q, want %q", p.Format, PlanFormat)
	}
	again, err := p.Encode()
	if err != nil || !bytes.Equal(again, b) {
		return nil, refusal.New(ErrPlanInvalid, "plan.json is not its own canonical encoding")
	}
	if err := p.File.check(); err != nil {
		return nil, refusal.Wrap(ErrPlanInvalid, err, "the plan's campaign file")
	}
	for i, t := range p.Trials {
		if t.Index != i || t.ID != trialID(i) {
			return nil, refusal.New(ErrPlanInvalid, "trial %d is listed as index %d id %q", i, t.Index, t.ID)
		}
	}
	return &p, nil
}

// trialID is the identity of the plan's i-th trial: "t" and at least five
// decimal digits (t00000 … t99999, then t100000 on, up to MaxTrials).
func trialID(i int) string { return fmt.Sprintf("t%05d", i) }

// trialOf is the index of the trial whose identity is name, if the plan
// assigns one: the name is read whole, so t100000 is not t10000.
func (p *Plan) trialOf(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "t")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || i >= len(p.Trials) || p.Trials[i].ID != name {
		return 0, false
	}
	return i, true
}
