#!/bin/bash
# Exec placements on real kernels (src/state/exec.c): one QEMU run recorded
# twice, a plain sched trace and a `record --probes` trace whose srqf with
# WF_EXEC and srqf_ret are each exec's sched_exec() and its answer
# (fixtures/README.md, srrec_exec).  On each of 6.1 and 6.12:
#  - the probe trace: every exec replayed at its own srqf, and it ran where
#    srqf_ret said (exec_answer_moved 0);
#  - the plain trace: every exec placement it reports names the CPU the
#    kernel's sched_exec() chose, and its determined answers are the
#    kernel's (all but 5 %; the rest are what the state gets wrong at the
#    exact moment too, which the probe trace's own misses show).
#
# usage: tests/run-exec.sh BIN
. "$(dirname "$0")/lib.sh"

for k in 6.1 6.12; do
	d=fixtures/qemu-probes-$k/numa2llc2-2s2d2c2t
	"$bin" analyze --topology "$d/machine" --decisions "$tmp/own.ndjson" "$d/srrec_exec-own.dat" \
		>"$tmp/own.json" 2>/dev/null &&
	"$bin" analyze --topology "$d/machine" --decisions "$tmp/plain.ndjson" "$d/srrec_exec.dat" \
		>"$tmp/plain.json" 2>/dev/null || { bad "exec $k: analyze failed"; continue; }
	if out=$(python3 - "$k" "$tmp" <<'PY'
import collections, json, sys
k, tmp = sys.argv[1], sys.argv[2]
own, plain = (json.load(open(f"{tmp}/{n}.json")) for n in ("own", "plain"))

def execs(name):
    by = collections.defaultdict(list)
    for line in open(f"{tmp}/{name}.ndjson"):
        o = json.loads(line)
        if o["kind"] == "exec":
            by[o["pid"]].append(o)
    return by

ref, got = execs("own"), execs("plain")
p, e = own["probes"], own["wakeups"]["exec"]
errs = []
if p["exec_at_select"] != e["sched_process_exec"] or p["exec_answer_moved"]:
    errs.append("probe trace: %d of %d execs at their srqf, %d ran elsewhere than srqf_ret"
                % (p["exec_at_select"], e["sched_process_exec"], p["exec_answer_moved"]))
n = det = det_ok = any_ok = 0
for pid, lst in got.items():
    for i, o in enumerate(lst):
        if i >= len(ref[pid]):
            continue
        kernel, pol = ref[pid][i]["cpu"], o["policies"][0]
        n += 1
        if o["cpu"] != kernel:
            errs.append("plain exec #%d (pid %d): reported on CPU %d, sched_exec() chose %d"
                        % (o["wakeup"], pid, o["cpu"], kernel))
        any_ok += pol["cpu"] == kernel
        if pol["determined"]:
            det += 1
            det_ok += pol["cpu"] == kernel
if n < 240 or det < 15 or det_ok < 0.95 * det:
    errs.append("plain: %d execs matched, %d determined, %d of those right" % (n, det, det_ok))
od = own["divergence"]["policies"][0]["exec"]["determined"]
pe = plain["wakeups"]["exec"]
print("exec %s: probe trace %d/%d determined right at sched_exec()'s srqf; plain trace %d "
      "placements (%d moved, %d kept, %d unresolved): every CPU the kernel's, %d determined "
      "%d right, every answer %.1f%%" % (k, od["match"], od["match"] + od["miss"], n,
      pe["moved"], pe["stayed"], pe["unresolved"], det, det_ok, 100.0 * any_ok / n))
for m in errs:
    print("FAIL", m)
sys.exit(1 if errs else 0)
PY
	); then ok; echo "$out"; else bad "exec $k:"; echo "$out"; fi
done
finish exec
