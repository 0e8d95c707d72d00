#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The batch job as the map step of Dask distributed (docs/batch.md).

Dask schedules; schedreplay stays the per-trace worker.  Each task runs
`schedreplay batch -j 1 -o DIR` on one trace, which writes that trace's
partition of the dataset exactly as a local `schedreplay batch` would (same
files, same rows, same ledger, so reruns skip what is done either way).

    sr-dask.py -o DIR [--scheduler tcp://HOST:8786 | --local N] [--parquet]
               [--schedreplay BIN] [batch options] TRACE... | --from LIST

Without --scheduler it starts a LocalCluster of N worker processes (default:
one per CPU).  On a real cluster every worker must see the traces and DIR at
the same paths (shared storage) and have the schedreplay binary.  --parquet
writes the Parquet copy afterwards (tools/sr-dataset.mjs, DuckDB).  Exit 0
when every trace was analysed, 3 when some were refused or failed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Options passed through to `schedreplay batch` unchanged: they decide the results.
PASS_VALUE = ["--policy", "--cgroup-weight", "--topology", "--migration-cost", "--hz", "--top",
              "--idle-threshold", "--timeout"]
REPEATED = ["--policy", "--cgroup-weight"]
PASS_FLAG = ["--assume-root-cgroup", "--probes-measure-only"]


def analyse(binary, out, opts, path, topology, timeout):
    """One task: one trace into DIR.  Returns the batch's result for it."""
    line = path if topology is None else f"{path}\t{topology}"
    cmd = [binary, "--json", "batch", "-j", "1", "-o", out, *opts, "--from", "-"]
    try:
        p = subprocess.run(cmd, input=line + "\n", capture_output=True, text=True,
                           timeout=timeout + 120 if timeout else None, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"path": path, "status": "failed", "message": f"cannot run {binary}: {e}"}
    if p.returncode not in (0, 3):
        return {"path": path, "status": "failed",
                "message": (p.stderr or p.stdout).strip() or f"exit {p.returncode}"}
    try:
        return json.loads(p.stdout)["results"][0]
    except (ValueError, KeyError, IndexError):
        return {"path": path, "status": "failed",
                "message": f"unreadable summary from {binary}: {p.stdout[:200]!r}"}


def read_list(name):
    """TRACE or TRACE<TAB>TOPOLOGY per line, as `batch --from` reads it."""
    items = []
    with (sys.stdin if name == "-" else open(name, encoding="utf-8")) as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            path, _, topo = line.partition("\t")
            items.append((path, topo or None))
    return items


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True, help="the dataset directory")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("--local", type=int, default=os.cpu_count() or 1,
                    help="LocalCluster worker processes when no --scheduler")
    ap.add_argument("--schedreplay", default=shutil.which("schedreplay") or
                    os.path.join(HERE, "..", "build", "schedreplay"),
                    help="the binary every worker runs")
    ap.add_argument("--from", dest="from_list", help="a list of traces ('-': stdin)")
    ap.add_argument("--parquet", action="store_true", help="write the Parquet copy after")
    for o in PASS_VALUE:
        ap.add_argument(o, action="append" if o in REPEATED else "store")
    for o in PASS_FLAG:
        ap.add_argument(o, action="store_true")
    ap.add_argument("traces", nargs="*")
    return ap.parse_args(argv)


def batch_options(a):
    opts = []
    for o in PASS_VALUE:
        v = getattr(a, o[2:].replace("-", "_"))
        for x in (v if isinstance(v, list) else [v] if v is not None else []):
            opts += [o, x]
    return opts + [o for o in PASS_FLAG if getattr(a, o[2:].replace("-", "_"))]


def client_for(a):
    from distributed import Client, LocalCluster  # pylint: disable=import-outside-toplevel

    if a.scheduler:
        return Client(a.scheduler), None
    cluster = LocalCluster(n_workers=a.local, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster


def run(a):
    from distributed import as_completed  # pylint: disable=import-outside-toplevel

    items = [(p, None) for p in a.traces] + (read_list(a.from_list) if a.from_list else [])
    items = list(dict((p, (p, t)) for p, t in items).values())   # a path once
    if not items:
        print("sr-dask: no traces (TRACE... or --from LIST)", file=sys.stderr)
        return 2
    binary = os.path.abspath(a.schedreplay)
    out = a.output
    opts = batch_options(a)
    timeout = int(a.timeout) if a.timeout else 1800
    client, cluster = client_for(a)
    start = time.monotonic()
    counts = {"ok": 0, "refused": 0, "failed": 0}
    try:
        futures = client.map(analyse, [binary] * len(items), [out] * len(items),
                             [opts] * len(items), [p for p, _ in items],
                             [t for _, t in items], [timeout] * len(items), pure=False)
        for fut in as_completed(futures):
            r = fut.result()
            counts[r["status"]] = counts.get(r["status"], 0) + 1
            note = " (done before)" if r.get("skipped") else ""
            msg = f": {r['message']}" if r["status"] != "ok" else note
            print(f"{r['status']:<8} {r['path']}{msg}", flush=True)
    finally:
        client.close()
        if cluster:
            cluster.close()
    secs = time.monotonic() - start
    print(f"dask: {len(items)} traces in {secs:.2f} s: {counts['ok']} ok, "
          f"{counts['refused']} refused, {counts['failed']} failed\ndataset: {out}")
    if a.parquet:
        subprocess.run([os.path.join(HERE, "sr-dataset.mjs"), "parquet", out], check=True)
    return 0 if counts["ok"] == len(items) else 3


if __name__ == "__main__":
    sys.exit(run(parse(sys.argv[1:])))
