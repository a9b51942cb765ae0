package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The published schema is written for readers: small named definitions
// ($defs/text, $defs/counter, ...) referenced from every field, and a
// discriminated union per record type and per decision kind as an allOf of
// if/then pairs. santhosh-tekuri/jsonschema/v5 pays for each $ref with a
// second evaluation of the value (a fresh scope, closures, an evaluation map
// for an object), and for each failed if with a built error. The compiler
// is therefore handed an equivalent form of the same document, derived
// mechanically from the embedded bytes at compile time (never stored):
//
//  1. a reference {"$ref": "#/$defs/X"} with no sibling keyword is
//     replaced by a copy of X when X is a leaf: it contains no reference and
//     no identifier ($ref, $dynamicRef, $id, $anchor, $dynamicAnchor), so
//     evaluating the copy in place is evaluating X (repeated to a fixed
//     point: text_list becomes a leaf once its items' text is inlined).
//     The row bodies (row_<type>) are left referenced: Check validates rows
//     against them directly, and a second compiled copy of each inside
//     $defs/row would only grow the heap every garbage collection marks;
//  2. an allOf whose every branch is {"if": {"properties": {K: {"const":
//     c}}}, "then": T} over one discriminator K with pairwise distinct
//     constants, in an object schema that requires K, becomes the chain
//     if K=c1 then T1 else (if K=c2 then T2 else ...), the commonest
//     decision kinds tested first (commonFirst). With K required the
//     two agree on every instance: K absent fails "required" either way; K
//     equal to some ci selects exactly Ti in both (the other conditions are
//     false); any other K constrains nothing in both. The conditions test
//     the constant as a one-value enum, which means the same and fails
//     without formatting a message.
//
// Definitions nothing references any more are dropped (pruneDefinitions).
// Annotations and keyword locations differ; verdicts and instance locations
// (the JSON pointers refusals carry) do not. TestFlattenedAgreesWithPublished
// holds the two forms to the same verdict on every mutation of the real
// artefacts the artefact test suite generates.
func flatten(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	defs, _ := root["$defs"].(map[string]any)
	for changed := true; changed; {
		changed = false
		leaves := map[string]any{}
		for name, d := range defs {
			if !hasReference(d) && !strings.HasPrefix(name, "row_") {
				leaves["#/$defs/"+name] = d
			}
		}
		out := inline(root, leaves, &changed)
		root = out.(map[string]any)
		defs, _ = root["$defs"].(map[string]any)
	}
	chainDiscriminators(root)
	pruneDefinitions(root)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("re-encode flattened schema: %w", err)
	}
	return buf.Bytes(), nil
}

// entryPoints are the definitions Check compiles on their own (see
// compile): they stay, whether or not anything references them.
func entryPoint(name string) bool {
	return name == "row" || name == "decision" || strings.HasPrefix(name, "row_")
}

// pruneDefinitions drops the definitions nothing references any more once
// the leaves are inlined (text, counter, instant, ...): they would only be
// compiled, checked against the meta-schema and kept in memory for nothing.
// A definition stays if it is an entry point or reachable by references
// from the document's own keywords or from a definition that stays.
func pruneDefinitions(root map[string]any) {
	defs, _ := root["$defs"].(map[string]any)
	keep := map[string]bool{}
	var queue []any
	for name := range defs {
		if entryPoint(name) {
			keep[name] = true
			queue = append(queue, defs[name])
		}
	}
	outside := map[string]any{}
	for k, v := range root {
		if k != "$defs" {
			outside[k] = v
		}
	}
	queue = append(queue, outside)
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, ref := range references(x) {
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			if ok && !keep[name] && defs[name] != nil {
				keep[name] = true
				queue = append(queue, defs[name])
			}
		}
	}
	for name := range defs {
		if !keep[name] {
			delete(defs, name)
		}
	}
}

// references lists the $ref values in a schema.
func references(x any) []string {
	var out []string
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			if dataKeywords[k] {
				continue
			}
			if s, ok := e.(string); ok && k == "$ref" {
				out = append(out, s)
			}
			out = append(out, references(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, references(e)...)
		}
	}
	return out
}

// dataKeywords hold instance values, not subschemas: never rewritten.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// hasReference reports whether a schema (or any subschema) references or
// identifies anything.
func hasReference(x any) bool {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			if dataKeywords[k] {
				continue
			}
			switch k {
			case "$ref", "$dynamicRef", "$id", "$anchor", "$dynamicAnchor", "$recursiveRef":
				return true
			}
			if hasReference(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasReference(e) {
				return true
			}
		}
	}
	return false
}

// inline returns x with every sibling-free reference to a leaf definition
// replaced by a copy of it.
func inline(x any, leaves map[string]any, changed *bool) any {
	switch v := x.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok && len(v) == 1 {
			if d, ok := leaves[ref]; ok {
				*changed = true
				return deepCopy(d)
			}
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			if dataKeywords[k] {
				out[k] = e
				continue
			}
			out[k] = inline(e, leaves, changed)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = inline(e, leaves, changed)
		}
		return out
	}
	return x
}

func deepCopy(x any) any {
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return x
}

// chainDiscriminators rewrites, everywhere in the schema, each allOf of
// if-const/then pairs over one required discriminator into an if/then/else
// chain (see flatten).
func chainDiscriminators(x any) {
	switch v := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if !dataKeywords[k] {
				chainDiscriminators(v[k])
			}
		}
		branches, ok := v["allOf"].([]any)
		if !ok || len(branches) < 2 {
			return
		}
		if _, has := v["if"]; has {
			return
		}
		key, consts, thens, ok := discriminated(branches)
		if !ok || !requires(v, key) {
			return
		}
		consts, thens = commonFirst(consts, thens)
		var chain map[string]any
		for i := len(branches) - 1; i >= 0; i-- {
			link := map[string]any{
				"if":   map[string]any{"properties": map[string]any{key: map[string]any{"enum": []any{consts[i]}}}},
				"then": thens[i],
			}
			if chain != nil {
				link["else"] = chain
			}
			chain = link
		}
		delete(v, "allOf")
		maps.Copy(v, chain)
	case []any:
		for _, e := range v {
			chainDiscriminators(e)
		}
	}
}

// discriminated reports whether every branch is exactly
// {"if": {"properties": {key: {"const": c}}}, "then": T} over one key, with
// string constants that are pairwise distinct.
func discriminated(branches []any) (key string, consts []any, thens []any, ok bool) {
	seen := map[string]bool{}
	for _, b := range branches {
		br, isObj := b.(map[string]any)
		if !isObj || len(br) != 2 || br["then"] == nil {
			return "", nil, nil, false
		}
		cond, isObj := br["if"].(map[string]any)
		if !isObj || len(cond) != 1 {
			return "", nil, nil, false
		}
		props, isObj := cond["properties"].(map[string]any)
		if !isObj || len(props) != 1 {
			return "", nil, nil, false
		}
		var k string
		for k = range props {
		}
		test, isObj := props[k].(map[string]any)
		if !isObj || len(test) != 1 {
			return "", nil, nil, false
		}
		c, isStr := test["const"].(string)
		if !isStr || seen[c] || (key != "" && k != key) || strings.HasPrefix(k, "$") {
			return "", nil, nil, false
		}
		seen[c] = true
		key = k
		consts = append(consts, c)
		thens = append(thens, br["then"])
	}
	return key, consts, thens, true
}

// commonFirst is the order a chain tests its constants in: the decision
// kinds an episode's tape and trajectory are mostly made of first (a
// RETRIEVE is tested once instead of after five failed tests), the rest in
// the schema's order. Any order gives the same verdicts: at most one
// condition holds.
func commonFirst(consts, thens []any) ([]any, []any) {
	rank := func(c any) int {
		if i := slices.Index([]any{"RETRIEVE", "WAIT", "ACT", "COMPLETE"}, c); i >= 0 {
			return i
		}
		return 4
	}
	idx := make([]int, len(consts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return rank(consts[a]) - rank(consts[b]) })
	c2, t2 := make([]any, len(idx)), make([]any, len(idx))
	for k, i := range idx {
		c2[k], t2[k] = consts[i], thens[i]
	}
	return c2, t2
}

func requires(schema map[string]any, key string) bool {
	req, _ := schema["required"].([]any)
	return slices.Contains(req, any(key))
}
