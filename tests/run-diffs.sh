#!/bin/bash
# Every fixture through the two comparisons the project exists for:
# linux-2.6.38 vs its NO_HOT_AFFINE patch, and linux-5.11 vs linux-5.12
# (multi-pass vs single-pass select_idle_sibling).  Each must run and report
# its disagreements and counterfactual cost with consistent counts.
#
# usage: tests/run-diffs.sh BIN
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
pass=0 fail=0
for f in "$top"/fixtures/*.dat "$top"/fixtures/qemu/*/*.dat; do
	topo=cpus=2
	[ -d "$(dirname "$f")/machine" ] && topo=$(dirname "$f")/machine
	for pair in "linux-2.6.38 linux-2.6.38+no-hot-affine" "linux-5.11 linux-5.12"; do
		set -- $pair
		if ! "$bin" diff "$f" --topology "$topo" --policy "$1" --policy "$2" --json \
			--compact >"$tmp" 2>/dev/null || ! python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diff"]
c = d["counterfactual"]
det = d["by_determinacy"]
differ = d["different_cpu"]
assert d["same_cpu"] + differ == d["placed"]
assert sum(x["same_cpu"] for x in det.values()) == d["same_cpu"]
assert sum(x["different_cpu"] for x in det.values()) == differ
assert c["estimate"] is True and c["b_cpu_idle"] + c["b_cpu_busy"] == differ
assert c["estimated"] == (c["not_estimated_because"] is None)
assert c["estimated"] == (c["estimated_latency_saved_by_b_ns"] is not None)
assert sum(x["count"] for x in d["by_step"]) == differ
assert sum(d["by_relation"].values()) == differ
assert sum(d["kernel_chose"].values()) == differ
undet = differ - det["both"]["different_cpu"]
for x in d["blocking_inputs"]:
    assert 0 < x["differing"] <= undet and max(x["in_a"], x["in_b"]) <= x["differing"]
PY
		then
			echo "FAIL diff $pair on ${f#$top/}"
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
	done
done
echo "diffs: $pass passed, $fail failed"
[ $fail -eq 0 ]
