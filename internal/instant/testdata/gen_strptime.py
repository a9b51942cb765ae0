#!/usr/bin/env python3
"""Writes strptime.tsv: what CPython's datetime.strptime says about instants.

Standard library only. Run from this directory:
    python3 gen_strptime.py > strptime.tsv
internal/instant's tests read the output and, when python3 is on PATH,
re-run this script and fail if its output differs from the committed file.

Each line: <input as a JSON string> TAB <verdict>, the verdict being the
Unix seconds, or nomatch, remains:<JSON string of the tail>, year, day or
second (Python's ValueError).
"""
import calendar
import json
from datetime import datetime

FORMAT = "%Y-%m-%dT%H:%M:%SZ"

INPUTS = [
    # the one form, and its calendar edges
    "2031-03-03T09:00:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
    "2000-02-29T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    "2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "1900-02-29T00:00:00Z",
    "2031-04-31T00:00:00Z", "2031-02-31T00:00:00Z",
    # year 0000, second 60 and 61, out-of-range fields
    "0000-01-01T00:00:00Z", "2031-01-01T23:59:60Z", "2031-01-01T23:59:61Z",
    "2031-01-01T24:00:00Z", "2031-01-01T23:60:00Z", "2031-13-01T00:00:00Z",
    "2031-00-01T00:00:00Z", "2031-01-00T00:00:00Z", "2031-01-32T00:00:00Z",
    # strptime's leniency
    "2031-3-3T9:0:0Z", "2031-03-03t09:00:00z", "2031-03- 3T09:00:00Z",
    "\u0662\u0660\u0663\u0661-03-03T09:00:00Z", "2031-03-03T09:00:0\u0663Z",
    "\uff12\uff10\uff13\uff11-03-03T09:00:00Z",
    # offsets, fractions, naive, trailing data
    "2031-03-03T09:00:00+01:00", "2031-03-03T09:00:00+00:00", "2031-03-03T09:00:00.5Z",
    "2031-03-03T09:00:00.000Z", "2031-03-03T09:00:00", "2031-03-03 09:00:00Z",
    "2031-03-03T09:00:00Z\n", "2031-03-03T09:00:00ZZ", " 2031-03-03T09:00:00Z",
    "+031-03-03T09:00:00Z", "20310-03-03T09:00:00Z", "31-03-03T09:00:00Z", "",
]


def verdict(s):
    try:
        dt = datetime.strptime(s, FORMAT)
    except ValueError as e:
        m = str(e)
        if m.startswith("time data"):
            return "nomatch"
        if m.startswith("unconverted data remains: "):
            return "remains:" + json.dumps(m[len("unconverted data remains: "):], ensure_ascii=False)
        if m.startswith("year "):
            return "year"
        if m.startswith("day is out of range"):
            return "day"
        if m.startswith("second must be"):
            return "second"
        raise
    return str(calendar.timegm(dt.timetuple()))


def main():
    for s in INPUTS:
        print("%s\t%s" % (json.dumps(s, ensure_ascii=False), verdict(s)))


if __name__ == "__main__":
    main()
