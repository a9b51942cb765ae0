#!/usr/bin/env bash
# Regenerates floats.txt: 3000 IEEE-754 doubles (fixed-seed random bit
# patterns plus edge cases) with Python's repr() and Node.js's String() of
# each — two independent formatters for the upstream and RFC 8785 forms.
# Columns: hex bits, Python repr, ECMAScript String. Run from this directory.
set -euo pipefail
python3 - > floats.tmp <<'PY'
import random, struct, math
r = random.Random(8785)
vals = [0.0, -0.0, 1.0, 30.0, 0.5, 1e-05, 1e-07, 1e16, 1e15, 9007199254740992.0,
        5e-324, 1.7976931348623157e308, 123456789012345678.0, 0.1, 1e21, 1e22, 1e-6, 1e-7]
for _ in range(1000):
    vals.append(struct.unpack('<d', struct.pack('<Q', r.getrandbits(64)))[0])
for _ in range(1000):
    vals.append(r.uniform(-1e6, 1e6))
for _ in range(982):
    vals.append(r.randint(-10**18, 10**18) / 10 ** r.randint(0, 25))
for v in vals:
    if math.isnan(v) or math.isinf(v):
        continue
    print('%016x %s' % (struct.unpack('<Q', struct.pack('<d', v))[0], repr(v)))
PY
node -e '
const lines = require("fs").readFileSync("floats.tmp","utf8").trim().split("\n");
const buf = new DataView(new ArrayBuffer(8));
for (const l of lines) {
  const [hex, py] = l.split(" ");
  buf.setBigUint64(0, BigInt("0x" + hex));
  console.log(hex + " " + py + " " + String(buf.getFloat64(0)));
}' > floats.txt
rm floats.tmp
