#!/usr/bin/env python3
"""The layering rule of docs/architecture.md, checked on the sources.

Layers, lowest first:  base < ingest < machine < state < replay < analyses < run < cli.
A file may #include "..." only
  - a contract header in include/ of its own layer or a lower one, or
  - a private header in its own folder.
Any other quoted include (upward, sideways into another folder's private
header, or one that resolves nowhere) is an error.  System includes <...>
are not checked.

usage: tests/check-layers.py [ROOT]      exit 0 clean, 1 violations, 2 misuse
"""
import os
import re
import sys

LAYERS = ["base", "ingest", "machine", "state", "replay", "analyses", "run", "cli"]

# Folder of a source file -> its layer.
FOLDERS = {
    "src/base": "base",
    "src/ingest": "ingest",
    "src/machine": "machine",
    "src/state": "state",
    "replay": "replay",
    "analyses": "analyses",
    "src/run": "run",
    "src/cli": "cli",
}

# Contract header -> the layer that implements it.
CONTRACTS = {
    "base.h": "base",
    "trace.h": "ingest",
    "topology.h": "machine",
    "machine.h": "machine",
    "state.h": "state",
    "policy.h": "replay",
    "analysis.h": "analyses",
    "run.h": "run",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def rank(layer):
    return LAYERS.index(layer)


def check(root):
    errors = []
    incdir = os.path.join(root, "include")
    for name in sorted(os.listdir(incdir)):
        if name.endswith(".h") and name not in CONTRACTS:
            errors.append(f"include/{name}: not a layer contract (move it into its layer's folder)")
    files = [("include/" + n, CONTRACTS.get(n)) for n in sorted(os.listdir(incdir))
             if n.endswith(".h") and n in CONTRACTS]
    for folder, layer in FOLDERS.items():
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            errors.append(f"{folder}/: missing layer folder")
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith((".c", ".h")):
                files.append((f"{folder}/{name}", layer))
    for extra in ("src",):
        for name in sorted(os.listdir(os.path.join(root, extra))):
            if name.endswith((".c", ".h")):
                errors.append(f"{extra}/{name}: outside every layer folder")
    for rel, layer in files:
        here = os.path.dirname(rel)
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                where = f"{rel}:{lineno}"
                if "/" in target:
                    errors.append(f"{where}: \"{target}\": include by name, not by path")
                elif here != "include" and os.path.exists(os.path.join(root, here, target)):
                    continue  # a private header of the same folder
                elif target in CONTRACTS:
                    if rank(CONTRACTS[target]) > rank(layer):
                        errors.append(f"{where}: {layer} includes \"{target}\" of the higher "
                                      f"layer {CONTRACTS[target]}")
                else:
                    errors.append(f"{where}: \"{target}\" is neither a contract in include/ nor "
                                  f"a header of {here}/")
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    if not os.path.isdir(os.path.join(root, "include")):
        print(f"check-layers: {root}: no include/ folder", file=sys.stderr)
        return 2
    errors = check(root)
    for e in errors:
        print(f"layers: {e}")
    print(f"layers: {'clean' if not errors else f'{len(errors)} violation(s)'} "
          f"({' < '.join(LAYERS)})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
