#!/usr/bin/env python3
"""Every JSON schedreplay writes names its schema ("schema": "schedreplay-KIND/N"), and
validates against docs/schema/KIND.schema.json: every golden output, and the NDJSON
lines of the --decisions files given on the command line.

usage: tests/check-schemas.py [DECISIONS.ndjson ...]
"""
import glob
import json
import os
import sys

import jsonschema

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCHEMAS = {}
for path in glob.glob(os.path.join(TOP, "docs/schema/*.schema.json")):
    s = json.load(open(path))
    jsonschema.Draft202012Validator.check_schema(s)
    SCHEMAS[s["$id"]] = s


def validator(kind):
    schema = SCHEMAS["urn:schedreplay:schema:" + kind]
    try:        # jsonschema >= 4.18: the referencing library
        from referencing import Registry, Resource
        reg = Registry().with_resources(
            (i, Resource.from_contents(s)) for i, s in SCHEMAS.items())
        return jsonschema.Draft202012Validator(schema, registry=reg)
    except ImportError:     # Debian 12's 4.10
        res = jsonschema.RefResolver.from_schema(schema, store=SCHEMAS)
        return jsonschema.Draft202012Validator(schema, resolver=res)


VALIDATORS = {}


def check(doc, where):
    name = doc.get("schema", "") if isinstance(doc, dict) else ""
    if not name.startswith("schedreplay-") or "/" not in name:
        return f"{where}: no schedreplay schema field"
    kind = name[len("schedreplay-"):].split("/")[0]
    if "urn:schedreplay:schema:" + kind not in SCHEMAS:
        return f"{where}: no schema for {name}"
    v = VALIDATORS.setdefault(kind, validator(kind))
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if errs:
        e = errs[0]
        return f"{where}: {name}: {'/'.join(map(str, e.path))}: {e.message[:300]}"
    return None


def main():
    passed = failed = 0
    docs = []
    for path in sorted(glob.glob(os.path.join(TOP, "tests/golden/*.expected"))):
        text = open(path).read()
        if not text.lstrip().startswith("{"):
            continue
        try:
            docs.append((json.loads(text), os.path.basename(path)))
        except json.JSONDecodeError:    # NDJSON: a document per line
            for n, line in enumerate(text.splitlines(), 1):
                docs.append((json.loads(line), f"{os.path.basename(path)}:{n}"))
    for path in sys.argv[1:]:
        for n, line in enumerate(open(path), 1):
            docs.append((json.loads(line), f"{os.path.basename(path)}:{n}"))
    for doc, where in docs:
        err = check(doc, where)
        if err:
            print("FAIL", err)
            failed += 1
        else:
            passed += 1
    print(f"schema: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
