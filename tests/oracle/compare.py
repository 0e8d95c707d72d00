#!/usr/bin/env python3
"""Compare schedreplay's report with the text oracle on the fields both define.

usage: compare.py REPORT.json ORACLE.json   (exit 0 equal, 1 different)
"""
import json
import sys


def subset(rep):
    w = rep["wakeups"]
    ev = dict(rep["trace"]["events"])
    # the oracle does not single out sched_stat_runtime nor the cpuhp events: "other" there
    for name in ("sched_stat_runtime", "cpuhp_enter", "cpuhp_exit"):
        ev["other"] += ev.pop(name, 0)
    return {
        "events": ev,
        "wakeups": {k: w[k] for k in ("placed", "runnable", "unknown", "unpaired", "wakeup_new",
                                      "actual", "in_lost_windows", "outside_lost_windows")},
        "cache_hot": rep["cache_hot"],
    }


def main():
    rep = json.load(open(sys.argv[1]))
    ora = json.load(open(sys.argv[2]))
    mine = subset(rep)
    diffs = []
    for sec in ("events", "wakeups", "cache_hot"):
        for k, v in ora[sec].items():
            if mine[sec].get(k) != v:
                diffs.append(f"{sec}.{k}: schedreplay {mine[sec].get(k)} oracle {v}")
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
