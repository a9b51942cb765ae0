// Package canon turns JSON into canonical bytes and digests, in two named
// forms, behind one strict reader.
//
// # Forms
//
//   - [JCS]: RFC 8785, the JSON Canonicalization Scheme. Keys sorted by UTF-16
//     code units, ECMAScript number rendering. obaudit's own formats and
//     everything it signs use this form; [Digest] hashes it.
//   - [Upstream]: the canonical JSON of upstream OperateBench (Python's
//     json.dumps with sort_keys, compact separators, ensure_ascii=False,
//     allow_nan=False). Keys sorted by code point, integers as written,
//     floats in Python's repr form ("30.0" stays "30.0", where JCS writes
//     "30"). Every digest that must agree with an upstream artefact or
//     ledger uses this form; [UpstreamDigest] hashes it.
//   - [UpstreamSpacedForm]: the upstream form with ", " and ": " separators, as
//     upstream writes execution-ledger lines.
//
// String escaping is the same in every form: '"' and '\' escaped, the five
// short escapes \b \f \n \r \t, other code points below U+0020 as \u00xx, and
// every other code point written literally.
//
// # Values
//
// [Parse] returns a tree of nil, bool, string, int64, float64, []any and
// map[string]any. A number's lexical kind survives: a literal with a fraction
// or exponent is a float64, any other is an int64, so "30.0" re-renders as
// "30.0" in the upstream form. The encoders also accept int.
//
// # Refusals
//
// The reader refuses, each with its own class (the Err variables): a byte order
// mark, invalid UTF-8, lone surrogates, duplicate object keys (after
// unescaping), nesting deeper than [MaxDepth] containers, integers outside
// ±(2^53−1) ([MaxSafeInteger]), NaN, Infinity and numbers that overflow to
// them, data after the value, and anything else that is not JSON.
// Errors are of type [*Error]; errors.Is matches them against the exported
// sentinels (ErrDuplicateKey, …).
//
// # Compatibility
//
// The bytes of each form are fixed: gowebpki/jcs is the oracle for [JCS]
// (a differential test and fuzz target require identical output), and the
// upstream fixtures are the oracle for [Upstream]. The oracle is imported by
// canon's tests only.
//
// # Dependencies
//
// canon is a leaf: it imports the standard library only, and nothing of the
// project. Its only work at package initialisation fills one 256-entry byte
// table (no allocation, nothing parsed).
package canon
