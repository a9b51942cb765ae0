#!/usr/bin/env python3
"""Writes vectors.tsv: what CPython's decimal module says about amounts.

Standard library only. Run from this directory:
    python3 gen_vectors.py > vectors.tsv
internal/amount's tests read the output and, when python3 is on PATH,
re-run this script and fail if its output differs from the committed file.

Lines (tab-separated; "-" for "no value"):
    text  <input> <stored> <value>
        stored: 1 if upstream's stored-amount check accepts the string
        (it parses, is finite, is not below zero and usd_text renders it
        back to itself), else 0; value: usd_text of the parsed decimal
        when it parses and is finite, else "-".
    mul|add|cmp <a> <b> <result>
        a*b and a+b at 60 significant digits, half to even, as usd_text;
        cmp is -1, 0 or 1.
    reserve <bound> <ceiling> <in> <out> <result>
        (bound*in + ceiling*out) / 1000000 at the same precision.
"""
import decimal
from decimal import Decimal

CTX = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_EVEN,
                      Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def usd_text(d):
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s or "0"


def parse(s):
    try:
        d = Decimal(s)
    except decimal.InvalidOperation:
        return None
    return d if d.is_finite() else None


def stored(s):
    d = parse(s)
    return d is not None and not d < 0 and usd_text(d) == s


class LCG:
    """A fixed generator, so the output never depends on random's version."""

    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.x >> 33) % n


def random_decimal(r):
    digits = "".join("0123456789"[r.below(10)] for _ in range(1 + r.below(70)))
    digits = digits.lstrip("0") or "0"
    exp = r.below(41) - 30
    return digits + ("e%d" % exp if exp else "")


TEXT = [
    # the canonical forms upstream writes for USD amounts
    "0", "1", "10", "100.5", "0.0593425", "0.00644375", "0.2964125", "3.06789",
    "0.06193375", "0.07022125", "4.213275", "0.118685", "0.0128875",
    # trailing zeros, points, signs, leading zeros
    "0.05934250", "0.0593425000", "1.0", "1.", ".5", "0.50", "00", "01", "0.0",
    "+0.0593425", "+1", "+0", "-1", "-0.01",
    # negative zero
    "-0", "-0.0", "-0.00", "-0e3", "+0e-3", "0e5", "0.000",
    # exponents
    "5.93425E-2", "5.93425e-2", "1e3", "1E+3", "1e-3", "1e0", "12.5e1", "1e", "1e+", "e5",
    "1e1000", "1e-1000", "1.5e-1000", "25e999",
    # huge and small
    "123456789012345678901234567890123456789012345678901234567890123456789",
    "0.000000000000000000000000000000000000000000000000000000000000000000001",
    "1" + "0" * 239, "1" + "0" * 240,
    # refusals
    "", " 1", "1 ", "1_000", "NaN", "nan", "sNaN", "Infinity", "-Infinity", "inf",
    "one", "0x10", "1,5", "1.2.3", "--1", "١", "1e1e1",
]


def main():
    out = []
    for s in TEXT:
        d = parse(s)
        out.append("text\t%s\t%d\t%s" % (s, stored(s), "-" if d is None else usd_text(d)))
    pairs = [("1.25", "10.00"), ("0.1", "0.2"), ("1e30", "1e-30"), ("0", "5"),
             ("1" + "0" * 59 + "5", "1"), ("1" + "0" * 59 + "15", "1"),
             ("999999999999999999999999999999999999999999999999999999999999", "1"),
             ("25", "0.02"), ("0.5", "0.5")]
    r = LCG(11)
    for _ in range(120):
        pairs.append((random_decimal(r), random_decimal(r)))
    for a, b in pairs:
        x, y = Decimal(a), Decimal(b)
        out.append("mul\t%s\t%s\t%s" % (a, b, usd_text(CTX.multiply(x, y))))
        out.append("add\t%s\t%s\t%s" % (a, b, usd_text(CTX.add(x, y))))
        out.append("cmp\t%s\t%s\t%d" % (a, b, (x > y) - (x < y)))
    rates = [("1.25", "10.00"), ("3", "15"), ("0.15", "0.6"), ("0.000001", "1e-9"),
             ("2.5", "7.123456789012345678901234567890123456789012345678901234567")]
    for i in range(60):
        rin, rout = rates[i % len(rates)]
        bound, ceiling = r.below(200000), r.below(65536)
        if i < 4:
            bound, ceiling = [(14706, 4096), (16779, 4096), (4211, 118), (23409, 4096)][i]
        v = CTX.divide(CTX.add(CTX.multiply(Decimal(bound), Decimal(rin)),
                               CTX.multiply(Decimal(ceiling), Decimal(rout))), Decimal(1000000))
        out.append("reserve\t%d\t%d\t%s\t%s\t%s" % (bound, ceiling, rin, rout, usd_text(v)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
