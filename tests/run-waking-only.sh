#!/bin/bash
# Waking-only traces: copies of real fixtures as if recorded without
# sched_wakeup (tests/tools/drop-wakeup.c), analysed next to the full trace.
# On each, at least 98 % of the full trace's placed wakeups must get the
# CPU the full trace gives, every inferred wakeup is marked so, and the
# placements found are the same ones; and the independent oracle
# (tests/oracle/report_count.py, from trace-cmd report text) counts the
# copy's events, wakeup classes and outcomes as analyze does.
#
# usage: tests/run-waking-only.sh BIN DROP-WAKEUP
drop=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
skip=0
for f in fixtures/*.dat fixtures/qemu/*/hb_*.dat fixtures/qemu/*/niced.dat fixtures/qemu-6.12/*/forkexec.dat \
	fixtures/qemu-ipc-6.1/*/*.dat; do
	[ -f "$f" ] || continue
	topo=cpus=2
	[ -d "$(dirname "$f")/machine" ] && topo=$(dirname "$f")/machine
	[ "$f" = fixtures/hackbench-pipe.dat ] && topo=fixtures/machine-local
	name=${f#fixtures/}
	"$drop" "$f" "$tmp/w.dat" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 3 ]; then
		echo "  skip $name: $(grep drop-wakeup: "$tmp/err")"
		skip=$((skip + 1))
		continue
	elif [ $rc -ne 0 ]; then
		echo "FAIL $name: cannot strip: $(cat "$tmp/err")"
		fail=$((fail + 1))
		continue
	fi
	"$bin" analyze "$f" --topology "$topo" --decisions "$tmp/full.nd" -o "$tmp/full.json" &&
	"$bin" analyze "$tmp/w.dat" --topology "$topo" --decisions "$tmp/w.nd" -o "$tmp/w.json"
	if [ $? -ne 0 ] || ! python3 - "$tmp" "$name" <<'PY'
import json, sys
tmp, name = sys.argv[1:3]
def lines(p):
    return {(d["pid"], d["ts_ns"]): d for d in map(json.loads, open(p)) if d["kind"] == "wakeup"}
full, w = lines(tmp + "/full.nd"), lines(tmp + "/w.nd")
rep = json.load(open(tmp + "/w.json"))
assert rep["trace"]["events"]["sched_wakeup"] == 0, "sched_wakeup still read"
assert all("chosen_inferred" in d["flags"] for d in w.values()), "unmarked inference"
same = sum(1 for k, d in full.items() if k in w and w[k]["cpu"] == d["cpu"])
found = sum(1 for k in full if k in w)
share = same / len(full) if full else 1.0
print(f"  {name}: {same}/{len(full)} placed wakeups get the full trace's CPU "
      f"({100 * share:.2f} %), {found} found, "
      f"{rep['wakeups']['uncertain']} uncertain")
open(tmp + "/totals", "a").write(f"{same} {len(full)}\n")
assert share >= 0.98, "below 98 %"
PY
	then
		echo "FAIL $name"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
	"$bin" analyze "$tmp/w.dat" >"$tmp/w-flat.json" 2>/dev/null &&
		python3 tests/oracle/report_count.py "$tmp/w.dat" >"$tmp/o.json" 2>/dev/null &&
		python3 tests/oracle/compare.py "$tmp/w-flat.json" "$tmp/o.json" >"$tmp/cmp" &&
		pass=$((pass + 1)) || { echo "FAIL $name: the oracle counts otherwise"; cat "$tmp/cmp";
					fail=$((fail + 1)); }
done
[ -f "$tmp/totals" ] && awk '{s += $1; n += $2} END {printf "  all: %d/%d placed wakeups (%.2f %%)\n", s, n, 100 * s / n}' "$tmp/totals"
echo "waking-only: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
