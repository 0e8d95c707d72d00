#!/bin/bash
# Hostile but valid traces (fixtures/hostile/, fixtures/wide/): each is
# analysed or refused with a clear message, and none is silently wrong —
# machines wider than 64, 1024 and 4096 CPUs, pids near pid_max 4M, a
# trace recorded into a tracefs instance, clocks that do not count
# nanoseconds (refused) and those that do or are converted (analysed), a
# guest trace synchronised to its host's time, a CPU hotplug.
#
# usage: tests/run-hostile.sh BIN
. "$(dirname "$0")/lib.sh"

# analysed NAME ARGS...: exit 0 and a report that passes the strict parser
analysed() {
	local name=$1
	shift
	if "$bin" analyze "$@" >"$tmp/$name.json" 2>"$tmp/err" &&
	   python3 tests/strict-json.py "$tmp/$name.json"; then
		return 0
	fi
	bad "$name: analyze $*: exit $?: $(head -c 300 "$tmp/err")"
	return 1
}

# refused NAME PATTERN ARGS...: exit 2, one line on stderr matching PATTERN
refused() {
	local name=$1 pattern=$2 rc
	shift 2
	"$bin" analyze "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	   grep -q "$pattern" "$tmp/err"; then
		ok
	else
		bad "$name: exit $rc (want 2 and '$pattern'): $(head -c 300 "$tmp/err")"
	fi
}

# field NAME JSON-PATH EXPECTED: a value of the report named NAME
field() {
	local got
	got=$(python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v, sort_keys=True))' "$tmp/$1.json" "$2")
	if [ "$got" = "$3" ]; then ok; else bad "$1: $2 is $got, not $3"; fi
}

# Wider machines: the same events, the same accounting, only more (quiet) CPUs.
analysed narrow fixtures/utf8-comms.dat
want=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["wakeups"], sort_keys=True))' \
	"$tmp/narrow.json")
for n in 65 1100 4096; do
	if analysed "wide$n" "fixtures/wide/utf8-comms-${n}cpus.dat"; then
		field "wide$n" trace.cpus "$n"
		field "wide$n" wakeups "$want"
	fi
done
refused "4097 CPUs" 'handles machines of 1 to 4096 CPUs' fixtures/wide/utf8-comms-4097cpus.dat

# pids up to pid_max 4194304 (the oracle agrees on every count)
if analysed pid4m fixtures/hostile/pid-max-4m.dat &&
   python3 tests/oracle/report_count.py fixtures/hostile/pid-max-4m.dat >"$tmp/o.json" &&
   python3 tests/oracle/compare.py "$tmp/pid4m.json" "$tmp/o.json"; then
	ok
else
	bad "pid-max-4m: analyze and the oracle disagree"
fi

# A trace recorded into an instance (trace-cmd extract -B srtest): that buffer is read
if analysed inst fixtures/hostile/instance-srtest.dat; then
	field inst trace.buffer '"srtest"'
	field inst trace.events.sched_switch 40
fi
if analysed inst-top --buffer '' fixtures/hostile/instance-srtest.dat; then
	field inst-top trace.events.sched_switch 0
fi
refused "--buffer nope" "no buffer named 'nope'" --buffer nope fixtures/hostile/instance-srtest.dat

# Clocks: nanoseconds (mono, boot, x86-tsc converted, a guest synced to its host) or refused
for c in mono boot; do
	analysed "clock-$c" "fixtures/hostile/clock-$c.dat" && field "clock-$c" trace.clock "\"$c\""
done
refused counter 'does not count nanoseconds' fixtures/hostile/clock-counter.dat
refused x86-tsc 'counts CPU cycles' fixtures/hostile/clock-x86-tsc.dat
for f in clock-x86-tsc-tsc2nsec guest-time-shift; do
	if analysed "$f" "fixtures/hostile/$f.dat"; then
		field "$f" trace.clock_tsc2nsec true
		field "$f" wakeups.placed 28
	fi
done
# Records of events whose format the file lacks: counted as other, and said
if analysed noformat fixtures/hostile/probes-no-formats.dat; then
	field noformat trace.events.other 4500
	if grep -q '4500 records are of events whose format the file does not hold' \
		"$tmp/noformat.json"; then ok; else bad "noformat: no warning"; fi
fi

# A CPU hotplug: CPU 5 offline for 4.67 s is said, and its time is not counted busy
q=fixtures/qemu-lost/llc2-1s2d4c2t
if analysed hotplug "$q/hotplug.dat" --topology "$q/machine"; then
	if python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))
ok = any("CPU 5 was taken offline" in w for w in r["warnings"])
sys.exit(0 if ok and r["cpus"][5]["unknown_ns"] > 4e9 else 1)' "$tmp/hotplug.json"; then
		ok
	else
		bad "hotplug: CPU 5's offline time is not reported"
	fi
fi
finish hostile
