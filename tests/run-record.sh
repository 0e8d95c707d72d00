#!/bin/bash
# `schedreplay record` for real: record a small workload, then check that
# analyze and trace-cmd read the trace (events in the top-level buffer),
# the machine snapshot is there, the exit codes, and that the top-level
# tracing setup and the list of tracefs instances are as before.
# Skips (exit 0) when not root or tracefs cannot be mounted.
#
# usage: tests/run-record.sh BIN [PINTHREADS]
set -u
bin=$(realpath "$1")
pinthreads=${2:+$(realpath "$2")}
tmp=$(mktemp -d)
trap '[ -n "${SR_KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0 fail=0

skip() {
	echo "record: SKIP: $*"
	exit 0
}

ok() {
	pass=$((pass + 1))
}

bad() {
	echo "FAIL record: $*"
	fail=$((fail + 1))
}

[ "$(id -u)" -eq 0 ] || skip "needs root (tracefs)"
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -z "$T" ]; then
	# record mounts tracefs itself (and unmounts it); check that it can.
	grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
	probe=$(mktemp -d)
	if ! mount -t tracefs nodev "$probe" 2>/dev/null; then
		rmdir "$probe"
		skip "tracefs cannot be mounted here"
	fi
	umount "$probe"
	rmdir "$probe"
fi
if command -v perf >/dev/null && perf bench sched pipe -l 1 >/dev/null 2>&1; then
	workload=(perf bench sched pipe -l 2000)
elif command -v hackbench >/dev/null; then
	workload=(hackbench -P -p -g 2 -f 5 -l 200)
else
	skip "neither perf nor hackbench is installed"
fi
if "$bin" record --help 2>&1 | grep -q 'not available'; then
	bad "the record command is not wired into src/main.c"
	echo "record: $pass passed, $fail failed"
	exit 1
fi

# What record must leave alone: the top instance's setup and other instances.
top_state() {
	[ -n "$T" ] || return 0
	for f in tracing_on current_tracer buffer_size_kb trace_clock set_event; do
		echo "$f: $(cat "$T/$f")"
	done
	for d in "$T"/instances/schedreplay-*; do
		[ -e "$d" ] && echo "instance: ${d##*/}"
	done
	return 0
}
top_state >"$tmp/before"

out=$tmp/rec.dat
"$bin" record -o "$out" -- "${workload[@]}" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ $rc -ne 0 ]; then
	bad "'record -o FILE -- ${workload[*]}' exited $rc: $(tail -5 "$tmp/stderr")"
fi
if [ -s "$out" ] && "$bin" analyze "$out" >"$tmp/report.json" 2>"$tmp/err"; then
	ok
else
	bad "analyze cannot read the recorded trace: $(cat "$tmp/err" 2>/dev/null)"
fi
switches=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"]["events"]["sched_switch"])' \
	"$tmp/report.json" 2>/dev/null || echo 0)
if [ "$switches" -gt 0 ]; then
	ok
else
	bad "analyze found no sched_switch in the recorded trace (data in a named buffer?)"
fi
if command -v trace-cmd >/dev/null; then
	n=$(trace-cmd report -N -i "$out" 2>/dev/null | grep -c ' sched_switch: ')
	if [ "$n" -eq "$switches" ]; then
		ok
	else
		bad "trace-cmd report shows $n sched_switch, analyze $switches"
	fi
fi
snap=$out.machine
if [ -f "$snap/schedreplay-snapshot.json" ] && [ -f "$snap/proc/version" ] &&
   [ -f "$snap/sys/devices/system/cpu/online" ] &&
   python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); j["lost_events"]["total"]; j["captured"]; j["command"]' \
	"$snap/schedreplay-snapshot.json" 2>/dev/null; then
	ok
else
	bad "the snapshot $snap is missing or incomplete"
fi

# expect_rc WANT ARGS...: exit codes of failures (docs/record.md)
expect_rc() {
	local want=$1 rc
	shift
	"$bin" record "$@" >/dev/null 2>&1
	rc=$?
	if [ $rc -eq "$want" ]; then ok; else bad "'record $*' exited $rc, expected $want"; fi
}
expect_rc 2 -d 0 -o "$tmp/x.dat" --no-snapshot
expect_rc 2 --instance a/b -o "$tmp/x.dat" --no-snapshot -- true
expect_rc 2 -b 0 -o "$tmp/x.dat" -- true
expect_rc 2 -C no-such-clock -o "$tmp/x.dat" -- true
expect_rc 2 -o "$tmp/x.dat" --no-snapshot -- /no/such/command
expect_rc 4 -o "$tmp/x.dat" --no-snapshot -- false
expect_rc 2 -o "$out" -- true		# FILE.machine exists

# --probes: on a kernel without kprobe events it is refused before COMMAND runs
# (exit 2, the reason said, no probe event left); with them it records the
# probe events and analyze replays the wakeups at them.
"$bin" record --probes -o "$tmp/p.dat" --no-snapshot -- "${workload[@]}" >/dev/null 2>"$tmp/perr"
rc=$?
if [ -e "${T:-/sys/kernel/tracing}/kprobe_events" ]; then
	if [ $rc -eq 0 ] && "$bin" analyze "$tmp/p.dat" 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)["probes"]
sys.exit(0 if p and p["selects"] > 0 and p["placed_at_select"] > 0 else 1)'; then
		ok
	else
		bad "record --probes exited $rc or analyze did not use the probes: $(tail -2 "$tmp/perr")"
	fi
elif [ $rc -eq 2 ] && grep -q "kprobe" "$tmp/perr" && [ ! -e "$tmp/p.dat" ]; then
	ok
else
	bad "record --probes without kprobe events: exit $rc, $(tail -2 "$tmp/perr")"
fi
if [ -n "$T" ] && grep -q '^[pr][0-9]*:sr/' "$T/dynamic_events" 2>/dev/null; then
	bad "record --probes left probe events behind"
else
	ok
fi

# COMMAND under taskset: taskset sets its mask after our fork and execs the
# workload, which exits before the snapshot: the status record read while it ran
# is in the snapshot, and the workload's children are replayed on CPU 0 alone.
if command -v taskset >/dev/null && command -v hackbench >/dev/null; then
	"$bin" record -o "$tmp/ts.dat" -- taskset -c 0 hackbench -P -p -g 2 -f 5 -l 50 \
		>/dev/null 2>"$tmp/tserr"
	if grep -qx "Cpus_allowed_list:.0" "$tmp"/ts.dat.machine/proc/[0-9]*/status 2>/dev/null &&
	   "$bin" analyze "$tmp/ts.dat" --topology "$tmp/ts.dat.machine" --decisions "$tmp/ts.nd" \
		-o /dev/null 2>/dev/null && python3 - "$tmp/ts.nd" <<'PY'
import json, sys
forks = [json.loads(l) for l in open(sys.argv[1])]
forks = [d for d in forks if d["kind"] == "fork" and d["comm"].startswith("hackbench")]
assert len(forks) >= 10 and all(d["policies"][0]["cpu"] == 0 for d in forks), forks[:2]
PY
	then ok; else bad "record -- taskset: the workload's mask is not in the snapshot or not used"; fi
fi

# Threads that pin themselves one by one (tests/tools/pinthreads.c): each
# thread's status is in the snapshot (proc/PID/task/TID/status, kept while it
# ran) and its wakeups are replayed as the kernel's select_task_rq() does for
# a task allowed one CPU.
if [ -n "$pinthreads" ]; then
	"$bin" record -o "$tmp/pt.dat" -- "$pinthreads" 4 100 >/dev/null 2>"$tmp/pterr"
	if [ "$(cat "$tmp"/pt.dat.machine/proc/[0-9]*/task/[0-9]*/status 2>/dev/null |
		grep -cx "Name:.pinthreads")" -ge 4 ] &&
	   "$bin" analyze "$tmp/pt.dat" --topology "$tmp/pt.dat.machine" --decisions "$tmp/pt.nd" \
		-o /dev/null 2>/dev/null && python3 - "$tmp/pt.nd" "$tmp"/pt.dat.machine/proc/[0-9]*/task/[0-9]*/status <<'PY'
import json, re, sys
ds = [json.loads(l) for l in open(sys.argv[1])]
# the threads the snapshot shows pinned to one CPU
threads = set()
for path in sys.argv[2:]:
    text = open(path).read()
    if re.search(r"^Name:\tpinthreads$", text, re.M) and re.search(r"^Cpus_allowed_list:\t\d+$", text, re.M):
        threads.add(int(re.search(r"^Pid:\t(\d+)$", text, re.M).group(1)))
wakeups = [d for d in ds if d["kind"] == "wakeup" and d["pid"] in threads]
pinned = [d for d in wakeups if d["policies"][0]["decided_by"] == "not_allowed"]
assert len(threads) == 4 and len(wakeups) >= 300 and len(pinned) == len(wakeups), \
    (len(threads), len(wakeups), len(pinned))
assert all(d["policies"][0]["cpu"] == d["cpu"] for d in pinned), "a pinned answer is not the kernel's"
PY
	then ok; else cat "$tmp/pterr"; bad "record -- pinthreads: the threads' masks are not in the snapshot or not used"; fi
fi

top_state >"$tmp/after"
if diff -u "$tmp/before" "$tmp/after"; then
	ok
else
	bad "the top-level tracing setup or the instance list changed"
fi
if [ -z "$T" ] && grep -qw tracefs /proc/mounts; then
	bad "tracefs was left mounted"
fi
echo "record: $pass passed, $fail failed"
[ $fail -eq 0 ]
