#!/usr/bin/env bash
# Regenerates the expected outputs of the canon vectors with two independent
# implementations, neither of them obaudit's:
#   output/NAME.json   RFC 8785, by Node.js (JSON.parse, keys sorted by
#                      UTF-16 code units, JSON.stringify's ES number form)
#   upstream/NAME.json upstream OperateBench's form, by Python's json.dumps
#                      (sort_keys, compact, ensure_ascii=False, allow_nan=False)
# Inputs must keep integers within ±(2^53-1) so both readers agree.
# Review the diff before committing. Run from this directory.
set -euo pipefail
for f in input/*.json; do
  n=$(basename "$f")
  node -e '
    const fs = require("fs");
    function canon(v) {
      if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
      if (v !== null && typeof v === "object") {
        const ks = Object.keys(v).sort();   // default sort is by UTF-16 code units
        return "{" + ks.map(k => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
      }
      return JSON.stringify(v);
    }
    process.stdout.write(canon(JSON.parse(fs.readFileSync(process.argv[1], "utf8"))));
  ' "$f" > "output/$n"
  python3 -c '
import json, sys
with open(sys.argv[1], encoding="utf-8") as fh:
    v = json.load(fh)
sys.stdout.write(json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False))
' "$f" > "upstream/$n"
done
