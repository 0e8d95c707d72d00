#!/usr/bin/env python3
"""A strict check of schedreplay's JSON output: the bytes are UTF-8 (no
invalid sequence, no lone surrogate escaped as \\udXXX), every document is
RFC 8259 JSON (no NaN or Infinity, no duplicate member), and, with --ndjson,
each line is one such document.

usage: strict-json.py [--ndjson] FILE|-      exit 0 valid, 1 not (the reason on stderr)
"""
import json
import re
import sys

LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate member in an object")
    for k in keys:
        if LONE_SURROGATE.search(k):
            raise ValueError("lone surrogate in a member name")
    return dict(pairs)


def no_constant(name):
    raise ValueError("non-JSON constant " + name)


def check_strings(v):
    if isinstance(v, str):
        if LONE_SURROGATE.search(v):
            raise ValueError("lone surrogate in a string: " + ascii(v))
    elif isinstance(v, list):
        for x in v:
            check_strings(x)
    elif isinstance(v, dict):
        for x in v.values():
            check_strings(x)


def check(text):
    v = json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    check_strings(v)


def main(argv):
    ndjson = "--ndjson" in argv
    args = [a for a in argv if a != "--ndjson"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read() if args[0] == "-" else open(args[0], "rb").read()
    try:
        text = data.decode("utf-8", errors="strict")
        docs = [ln for ln in text.split("\n") if ln] if ndjson else [text]
        for i, d in enumerate(docs, 1):
            try:
                check(d)
            except ValueError as e:
                raise ValueError("document %d: %s" % (i, e)) from None
        if not docs:
            raise ValueError("no JSON at all")
    except (UnicodeDecodeError, ValueError) as e:
        print("strict-json: %s: %s" % (args[0], e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
