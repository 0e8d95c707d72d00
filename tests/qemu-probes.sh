#!/bin/bash
# `schedreplay record --probes` end to end on real kernels: boot Debian's 6.1
# and 6.12 under QEMU (fixtures/record/qemu-record.sh, workload srrec), let
# the guest run `schedreplay record --probes -- hackbench`, then analyze that
# trace here and check that the probes were recorded and used: placements
# replayed at the kernel's select_task_rq_fair() (all but a few on 6.1; on
# 6.12 a wakeup of a task delayed-dequeued is requeued without selecting),
# which needs the wakee pid the probe read through the BTF offsets to be the
# wakeup's.  Not part of `make check` (two TCG boots take minutes):
# `make qemu-probes`.
#
# usage: tests/qemu-probes.sh BIN [TOPOLOGY]
# QR_WORK_6_1 / QR_WORK_6_12: the harness's scratch dirs for each kernel
# [/var/tmp/schedreplay-qemu-6.1, -6.12]; results in /var/tmp/sr-qemu-probes.
set -u
bin=$(realpath "$1")
topo=${2:-numa2llc2-2s2d2c2t}
here=$(cd "$(dirname "$0")" && pwd)
dest=/var/tmp/sr-qemu-probes
pass=0 fail=0

check() {  # check KERNEL: the recorded trace and what analyze made of it
	local k=$1 d=$dest/$1/$topo f
	f=$d/srrec-own.dat
	if [ ! -s "$f" ]; then
		echo "FAIL qemu-probes $k: no trace from 'schedreplay record --probes' in the guest"
		fail=$((fail + 1))
		return
	fi
	"$bin" analyze --topology "$d/machine" "$f" >"$d/report.json" 2>"$d/analyze.err" &&
	python3 - "$k" "$d/report.json" <<'PY'
import json, sys
k, path = sys.argv[1], sys.argv[2]
r = json.load(open(path))
p, w = r["probes"], r["wakeups"]
ev = r["trace"]["events"]
print("qemu-probes %s: %d srqf, %d placed: %d at the kernel's select, %d without; "
      "sync guess vs flag %s; agreement %.3f" % (
          k, ev["srqf"], w["placed"], p["placed_at_select"], p["placed_without_select"],
          p["sync_guess"], r["divergence"]["policies"][0]["all"]["match_ratio"]))
ok = (p and p["used_as_inputs"] and ev["srqf"] > 0 and ev["srqf_ret"] == ev["srqf"]
      and p["placed_at_select"] >= 0.75 * w["placed"] and p["answer_moved"] == 0)
sys.exit(0 if ok else 1)
PY
	if [ $? -eq 0 ]; then pass=$((pass + 1)); else
		echo "FAIL qemu-probes $k: $(cat "$d/analyze.err")"; fail=$((fail + 1)); fi
}

for k in 6.1 6.12; do
	var=QR_WORK_${k//./_}
	work=${!var:-/var/tmp/schedreplay-qemu-$k}
	[ "$k" = 6.12 ] && pkg=linux-image-6.12.117+deb12-amd64 || pkg=
	mkdir -p "$dest/$k"
	env QR_WORK="$work" QR_DEST="$dest/$k" QR_SCHEDREPLAY="$bin" QR_RETRIES=4 \
		${pkg:+QR_KERNEL_PKG=$pkg} "$here/../fixtures/record/qemu-record.sh" run "$topo" srrec@20 \
		>"$dest/$k.log" 2>&1 || echo "qemu-probes $k: harness said: $(tail -2 "$dest/$k.log")"
	check "$k"
done
echo "qemu-probes: $pass passed, $fail failed"
[ $fail -eq 0 ]
