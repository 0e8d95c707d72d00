#!/bin/bash
# `schedreplay record` when things go wrong: interrupted mid-run (SIGINT,
# SIGTERM), a time limit without COMMAND, a full disk, an unwritable output,
# a tracefs instance that is taken, and no root.  Each ends in the exit code
# docs/record.md gives and a clear message; a FILE left behind is readable
# (analyze exits 0), never a corrupt file reported as good; no instance and
# no temporary directory is left.  Skips without root or tracefs.
#
# usage: tests/run-record-faults.sh BIN
set -u
bin=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
mounts=()
cleanup() {
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL record-faults: $*"; fail=$((fail + 1)); }

[ "$(id -u)" -eq 0 ] || { echo "record-faults: SKIP: needs root"; exit 0; }
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -z "$T" ] && ! grep -qw tracefs /proc/filesystems; then
	echo "record-faults: SKIP: no tracefs"
	exit 0
fi
command -v hackbench >/dev/null || { echo "record-faults: SKIP: no hackbench"; exit 0; }

# readable FILE: analyze reads it, with sched events
readable() {
	"$bin" analyze "$1" >"$tmp/rep.json" 2>"$tmp/rep.err" &&
		python3 "$top/tests/strict-json.py" "$tmp/rep.json" &&
		python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))
sys.exit(0 if r["trace"]["events"]["sched_switch"] > 0 else 1)' "$tmp/rep.json"
}

# leftovers NAME: no temporary per-CPU directory next to the output, no instance
# (schedreplay-PID) whose recorder has gone: a live one is another recording's
leftovers() {
	local n d
	n=$(find "$tmp" -maxdepth 2 -name '*.tmp-*' | wc -l)
	[ "$n" -eq 0 ] || bad "$1: $n temporary directories left"
	[ -n "$T" ] || return
	for d in "$T"/instances/schedreplay-*; do
		[ -d "$d" ] && [ ! -d "/proc/${d##*-}" ] &&
			bad "$1: instance ${d##*/} was left in $T/instances"
	done
}

# interrupt SIGNAL: the first one stops recording; COMMAND ends; FILE is good
interrupt() {
	local sig=$1 out=$tmp/int-$1.dat rc
	"$bin" record -o "$out" --no-snapshot --allow-lost -- \
		sh -c 'hackbench -P -p -g 1 -f 2 -l 50 >/dev/null; exec sleep 60' \
		>"$tmp/out" 2>"$tmp/err" &
	local pid=$!
	sleep 2
	kill -"$sig" $pid
	wait $pid
	rc=$?
	if [ $rc -eq 0 ] && grep -q 'recording stopped' "$tmp/err" && readable "$out"; then
		ok
	else
		bad "SIG$sig mid-run: exit $rc, $(tail -2 "$tmp/err")"
	fi
	leftovers "SIG$sig"
}
interrupt INT
interrupt TERM

# no COMMAND: the whole system for -d seconds
out=$tmp/whole.dat
start=$SECONDS
"$bin" record -o "$out" -d 1 --no-snapshot --allow-lost >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ $((SECONDS - start)) -lt 30 ] && grep -q 'duration reached' "$tmp/err" &&
   readable "$out"; then
	ok
else
	bad "-d 1 without COMMAND: exit $rc after $((SECONDS - start)) s: $(tail -2 "$tmp/err")"
fi

# a full disk: a clear error, exit 1, no FILE (a partial one would be corrupt)
mkdir "$tmp/full"
if mount -t tmpfs -o size=96k tmpfs "$tmp/full"; then
	mounts+=("$tmp/full")
	"$bin" record -o "$tmp/full/t.dat" --no-snapshot -- \
		hackbench -P -p -g 4 -f 10 -l 300 >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'No space left on device' "$tmp/err" &&
	   [ ! -e "$tmp/full/t.dat" ] && [ -z "$(ls -A "$tmp/full")" ]; then
		ok
	else
		bad "full disk: exit $rc, files: $(ls -A "$tmp/full"), $(tail -2 "$tmp/err")"
	fi
else
	echo "record-faults: note: cannot mount a tmpfs; full disk not tested"
fi

# an unwritable output directory (read-only file system): exit 2 before recording
mkdir "$tmp/ro"
if mount -t tmpfs -o ro,size=64k tmpfs "$tmp/ro"; then
	mounts+=("$tmp/ro")
	"$bin" record -o "$tmp/ro/t.dat" --no-snapshot -- true >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'cannot write there' "$tmp/err"; then
		ok
	else
		bad "read-only output: exit $rc: $(cat "$tmp/err")"
	fi
fi

# tracefs busy: the instance name is taken; it is left exactly as it was
if [ -n "$T" ] && mkdir "$T/instances/sr-faults-$$" 2>/dev/null; then
	"$bin" record --instance "sr-faults-$$" -o "$tmp/busy.dat" --no-snapshot -- true \
		>/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'already exists' "$tmp/err" &&
	   [ -d "$T/instances/sr-faults-$$" ] && [ ! -e "$tmp/busy.dat" ]; then
		ok
	else
		bad "instance taken: exit $rc: $(cat "$tmp/err")"
	fi
	rmdir "$T/instances/sr-faults-$$"
fi

# not root: refused before anything is touched
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$bin" record -o /tmp/never.dat -- true >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'needs root' "$tmp/err" && [ ! -e /tmp/never.dat ]; then
		ok
	else
		bad "not root: exit $rc: $(cat "$tmp/err")"
	fi
fi
leftovers "all"
echo "record-faults: $pass passed, $fail failed"
[ $fail -eq 0 ]
