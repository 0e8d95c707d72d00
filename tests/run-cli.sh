#!/bin/bash
# Flows a person follows from one command to the next, checked end to end:
# the worst wakeup of `analyze --top 5` is the one `explain --wakeup N`
# explains; every NDJSON line keeps one type per field, compressed or not;
# `-o -` is stdout.
#
# usage: tests/run-cli.sh BIN
. "$(dirname "$0")/lib.sh"

f=fixtures/qemu/numa2-2s4c2t/hb_pipe.dat
m=fixtures/qemu/numa2-2s4c2t/machine
"$bin" analyze "$f" --topology "$m" --top 5 --decisions "$tmp/d.ndjson" -o "$tmp/r.json" || bad "analyze"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency"]["worst"][0]["wakeup"])' "$tmp/r.json")
"$bin" explain "$f" --topology "$m" --wakeup "$n" --json >"$tmp/e.json" || bad "explain --wakeup $n"
if python3 - "$tmp/r.json" "$tmp/e.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["latency"]["worst"][0]
e = json.load(open(sys.argv[2]))["explain"]
assert (e["wakeup"], e["pid"], e["ts_ns"]) == (w["wakeup"], w["pid"], w["ts_ns"]), (w, e)
assert e["next"]["waited_ns"] == w["wait_ns"], (w, e["next"])
PY
then ok; else bad "worst wakeup of analyze --top 5 is not what explain --wakeup explains"; fi

# Any line of --decisions names the placement explain --wakeup N explains,
# whatever --policy (explain's first pass replays none): the last of a 6.1
# and of a 6.12 trace, where wakeups wait for their task to leave its CPU.
for t in qemu/llc2-1s2d4c2t qemu-6.12/llc2-1s2d4c2t; do
	"$bin" analyze "fixtures/$t/hb_pipe.dat" --topology "fixtures/$t/machine" -o /dev/null \
		--decisions "$tmp/n.ndjson" || bad "analyze $t"
	n=$(tail -1 "$tmp/n.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wakeup"])')
	"$bin" explain "fixtures/$t/hb_pipe.dat" --topology "fixtures/$t/machine" --wakeup "$n" \
		--json >"$tmp/e.json" || bad "explain $t --wakeup $n"
	python3 - "$tmp/n.ndjson" "$tmp/e.json" <<'PY' && ok || bad "$t: explain --wakeup $n explains another placement"
import json, sys
d = json.loads(open(sys.argv[1]).readlines()[-1])
e = json.load(open(sys.argv[2]))["explain"]
assert (e["wakeup"], e["pid"], e["ts_ns"]) == (d["wakeup"], d["pid"], d["ts_ns"]), (d, e)
PY
done

# One type per field on every line (DuckDB/Spark read them as columns).
if python3 - "$tmp/d.ndjson" <<'PY'
import json, sys
types = {}
n = forks = waits = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    n += 1
    forks += d["kind"] == "fork"
    waits += d["wait_ns"] is not None
    for k, v in d.items():
        t = "null" if v is None else type(v).__name__
        types.setdefault(k, set()).add(t)
for k, ts in types.items():
    assert len(ts - {"null"}) <= 1, (k, ts)
assert types["wakeup"] == {"int"} and types["kind"] == {"str"}
assert n and forks and waits, (n, forks, waits)
PY
then ok; else bad "NDJSON fields change type"; fi

# --decisions FILE.zst and FILE.gz: the same lines, compressed by the library.
"$bin" analyze "$f" --topology "$m" --decisions "$tmp/d.ndjson.zst" -o /dev/null &&
	"$bin" analyze "$f" --topology "$m" --decisions "$tmp/d.ndjson.gz" -o /dev/null &&
	zstd -qdc "$tmp/d.ndjson.zst" | cmp -s - "$tmp/d.ndjson" &&
	gzip -dc "$tmp/d.ndjson.gz" | cmp -s - "$tmp/d.ndjson" && ok ||
	bad "compressed --decisions differ from the plain lines"

# -o - writes stdout, and no file named '-'.
(cd "$tmp" && "$bin" explain "$top/$f" --topology "$top/$m" --wakeup "$n" -o - >out.txt) &&
	[ -s "$tmp/out.txt" ] && [ ! -e "$tmp/-" ] && ok || bad "-o - did not write stdout"
# a fork is explained with a trail
"$bin" explain fixtures/perf-pipe.dat --wakeup 1 --json | python3 -c '
import json, sys
e = json.load(sys.stdin)["explain"]
assert e["class"] == "fork" and e["policies"][0]["sync_0"]["trail"], e' && ok || bad "fork has no trail"
# Affinity (fixtures/affinity/): the recorder ran under `taskset -c 1` and its snapshot
# holds each task's proc/<pid>/status; hackbench, forked from it, inherits CPU 1, so every
# fork and wakeup of it is bound there (no class asked) and matches the kernel.  Without
# the status files, or with --affinity giving the recorder both CPUs, forks go to the idle
# CPU 0 the kernel could not use.  A CPU the trace lacks is bad input.
af=fixtures/affinity/taskset-hackbench.dat
am=fixtures/affinity/machine
rec=$(basename "$(dirname "$(grep -l "^Name:.schedreplay" $am/proc/[0-9]*/status | head -1)")")
hb() {	# kind, decided_by, hit per hackbench placement of a --decisions file
	python3 -c '
import json, sys, collections
c = collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line); p = d["policies"][0]
    if d["comm"].startswith("hackbench") and d["kind"] != "exec":
        c[(d["kind"], p["decided_by"], p["cpu"] == d["cpu"] == 1)] += 1
print(" ".join("%s:%s:%s=%d" % (k + (v,)) for k, v in sorted(c.items())))' "$1"
}
"$bin" analyze "$af" --topology "$am" --decisions "$tmp/a.nd" -o /dev/null 2>/dev/null &&
	[ "$(hb "$tmp/a.nd")" = "fork:not_allowed:True=20 wakeup:not_allowed:True=78" ] && ok ||
	bad "affinity from the snapshot: $(hb "$tmp/a.nd")"
# the snapshot without its tasks' status files (the kernel's own files stay: cmdline, sysctls)
mkdir -p "$tmp/noproc/proc" && cp -a "$am/sys" "$am/schedreplay-snapshot.json" "$tmp/noproc/" &&
	cp -a "$am"/proc/[!0-9]* "$tmp/noproc/proc/" &&
	"$bin" analyze "$af" --topology "$tmp/noproc" --decisions "$tmp/b.nd" -o /dev/null 2>/dev/null &&
	hb "$tmp/b.nd" | grep -q "fork:find_idlest:False" && ok || bad "affinity unknown: $(hb "$tmp/b.nd")"
"$bin" analyze "$af" --topology "$am" --affinity "$rec=0-1" --decisions "$tmp/c.nd" -o /dev/null \
	2>/dev/null && cmp -s <(hb "$tmp/b.nd") <(hb "$tmp/c.nd") && ok || bad "--affinity $rec=0-1"
"$bin" analyze "$af" --topology "$am" --affinity "$rec=2" -o /dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "the trace has CPUs 0-1" "$tmp/err" && ok || bad "--affinity $rec=2 accepted"
# Threads that pinned themselves one by one (fixtures/affinity/threads/, tests/tools/pinthreads.c):
# each thread's proc/PID/task/TID/status gives its CPU, so every wakeup of one is bound there and
# matches the kernel; its fork is placed under the mask it inherited (both CPUs).  One thread was
# preempted on the CPU it left before it had set its mask: that is no broken mask.
td=fixtures/affinity/threads
"$bin" analyze $td/pinthreads.dat --topology $td/machine --decisions "$tmp/t.nd" -o "$tmp/t.json" \
	2>/dev/null && python3 - "$tmp/t.nd" "$tmp/t.json" <<'PY' && ok || bad "pinned threads"
import json, sys, collections
ds = [json.loads(l) for l in open(sys.argv[1])]
threads = {d["pid"] for d in ds if d["kind"] == "fork" and d["comm"] == "pinthreads"}
c = collections.Counter((d["kind"], d["policies"][0]["decided_by"], d["policies"][0]["cpu"] == d["cpu"])
                        for d in ds if d["pid"] in threads)
assert len(threads) == 4 and c[("wakeup", "not_allowed", True)] == 413, c
# each thread's fork: the slow path, or sched_vcpu_pack's stay on the parent's CPU, as the kernel did
assert sum(v for k, v in c.items() if k[0] == "fork" and k[1] in ("find_idlest", "vcpu_pack")
           and k[2]) == 4, c
assert json.load(open(sys.argv[2]))["affinity"]["broken"] == 0
PY
# The same on a real 6.12 scheduler (fixtures/qemu-affinity-6.12/): hackbench allowed half of
# each LLC; with its status file no fork or wakeup of it is answered outside those CPUs.
pd=fixtures/qemu-affinity-6.12/llc2-1s2d4c2t
"$bin" analyze $pd/hb_pin.dat --topology $pd/machine --assume-root-cgroup --decisions "$tmp/p.nd" \
	-o /dev/null 2>/dev/null && python3 - "$tmp/p.nd" <<'PY' && ok || bad "hb_pin answered outside its CPUs"
import json, sys
allowed = {0, 1, 2, 3, 8, 9, 10, 11}
n = out = 0
for line in open(sys.argv[1]):
    d = json.loads(line); p = d["policies"][0]
    if d["comm"].startswith("hackbench") and d["kind"] in ("wakeup", "fork") and p["cpu"] is not None:
        n += 1; out += p["cpu"] not in allowed
assert n > 1000 and out == 0, (n, out)
PY
# The snapshot `record` saves beside a trace (TRACE.machine/) is the topology when none is
# given, the same answers as --topology naming it; --topology flat keeps the flat assumption.
cp fixtures/hackbench-pipe.dat "$tmp/hp.dat" && cp -r fixtures/machine-local "$tmp/hp.dat.machine"
"$bin" analyze "$tmp/hp.dat" --format text -o "$tmp/b.txt" 2>/dev/null &&
	grep -q "^Topology: sysfs from $tmp/hp.dat.machine (found beside the trace" "$tmp/b.txt" &&
	"$bin" analyze "$tmp/hp.dat" --decisions "$tmp/b1.nd" -o "$tmp/b1.json" 2>/dev/null &&
	"$bin" analyze "$tmp/hp.dat" --topology "$tmp/hp.dat.machine" --decisions "$tmp/b2.nd" \
		-o /dev/null 2>/dev/null && cmp -s "$tmp/b1.nd" "$tmp/b2.nd" &&
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["topology"]; assert t["given"] == sys.argv[2] and t["beside_trace"], t' \
		"$tmp/b1.json" "$tmp/hp.dat.machine" && ok || bad "TRACE.machine/ beside the trace not taken as its topology"
"$bin" analyze "$tmp/hp.dat" --topology flat --format text -o "$tmp/f.txt" 2>/dev/null &&
	grep -q "^Topology: assumed-flat$" "$tmp/f.txt" && ok || bad "--topology flat beside a snapshot"
# A snapshot beside the trace that does not fit it: exit 2, one line naming where it was found.
cp fixtures/qemu/numa2-2s4c2t/hb_pipe.dat "$tmp/w.dat" && cp -r fixtures/machine-local "$tmp/w.dat.machine"
"$bin" analyze "$tmp/w.dat" -o /dev/null 2>"$tmp/w.err"; rc=$?
[ $rc = 2 ] && grep -q "w.dat.machine describes 2 CPUs but the trace has 16 (the snapshot found beside" \
	"$tmp/w.err" && [ "$(wc -l <"$tmp/w.err")" = 1 ] && ok || bad "misfit snapshot beside the trace: rc $rc"
rm -rf "$tmp/w.dat.machine" && mkdir "$tmp/w.dat.machine"
"$bin" analyze "$tmp/w.dat" -o /dev/null 2>"$tmp/w.err"; rc=$?
[ $rc = 2 ] && grep -q "not a machine snapshot (the snapshot found beside the trace" "$tmp/w.err" &&
	"$bin" analyze "$tmp/w.dat" --topology flat -o /dev/null 2>/dev/null && ok ||
	bad "empty snapshot dir beside the trace: rc $rc"
finish cli
