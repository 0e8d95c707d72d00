#!/bin/bash
# Every input either analyses (exit 0, JSON on stdout) or fails cleanly
# (exit 2, one clear message on stderr): shared real traces, a non-trace
# file, a directory, a missing file, and truncated copies of fixtures cut
# at 20 points each.  Never a signal, never a hang.
#
# usage: tests/run-robustness.sh BIN
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${SR_SHARED:-$top/../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# check NAME FILE [EXPECTED_RC]
check() {
	local name=$1 file=$2 want=${3:-}
	local rc
	timeout 120 "$bin" analyze "$file" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && python3 "$top/tests/strict-json.py" "$tmp/out" 2>/dev/null; then
		:
	elif [ $rc -eq 2 ] && grep -q '^schedreplay: ' "$tmp/err" && [ ! -s "$tmp/out" ]; then
		:
	else
		echo "FAIL $name: exit $rc $(tail -c 300 "$tmp/err")"
		fail=$((fail + 1))
		return
	fi
	if [ -n "$want" ] && [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, expected $want"
		fail=$((fail + 1))
		return
	fi
	pass=$((pass + 1))
}

if [ -d "$shared/traces" ]; then
	for f in "$shared"/traces/*.dat "$shared"/traces/bad/*; do
		[ -f "$f" ] && check "shared/$(basename "$f")" "$f"
	done
else
	echo "note: $shared/traces not found; shared traces skipped"
fi
check "no-sched-events is refused" "$shared/traces/no-sched-events-i915.dat" 2
check "appledouble is refused" "$shared/traces/bad/appledouble-named-trace.dat" 2

printf 'this is not a trace\n' >"$tmp/text.dat"
check "text file" "$tmp/text.dat" 2
: >"$tmp/empty.dat"
check "empty file" "$tmp/empty.dat" 2
check "directory" "$tmp" 2
check "missing file" "$tmp/does-not-exist.dat" 2
head -c 4096 /dev/urandom >"$tmp/random.dat"
check "random bytes" "$tmp/random.dat" 2

# Truncated copies: v7 fixtures (sections after the data) and a v6 trace (data
# last).  A cut either fails with exit 2 or, when it removed nothing the tool
# needs, gives exactly the full file's numbers: never silently different ones.
same_numbers() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    r["trace"].pop("file", None)
sys.exit(0 if a == b else 1)
PY
}
for f in "$top"/fixtures/*.dat "$shared"/traces/linux-4.13-i686-4cpu-success-field.dat; do
	[ -f "$f" ] || continue
	size=$(stat -c %s "$f")
	"$bin" analyze "$f" >"$tmp/full.json" 2>/dev/null
	for per in 1 10 50 100 200 300 400 500 600 700 800 850 900 950 970 990 995 998 999 1000; do
		n=$((size * per / 1000 - 1))
		name="$(basename "$f") cut at $n/$size"
		head -c "$n" "$f" >"$tmp/cut.dat"
		check "$name" "$tmp/cut.dat"
		if [ -s "$tmp/out" ] && ! same_numbers "$tmp/out" "$tmp/full.json"; then
			echo "FAIL $name: exit 0 with numbers that differ from the whole file's"
			fail=$((fail + 1))
		fi
	done
done

# Bad flags are bad input too.
for args in "--bogus" "--migration-cost -5" "--migration-cost abc" "--hz 0" "--top 0" \
	    "--topology sockets=0" "--topology cpus=3"; do
	# shellcheck disable=SC2086
	timeout 60 "$bin" analyze $args "$top/fixtures/perf-pipe.dat" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^schedreplay: ' "$tmp/err"; then
		pass=$((pass + 1))
	else
		echo "FAIL flags '$args': exit $rc"
		fail=$((fail + 1))
	fi
done
echo "robustness: $pass passed, $fail failed"
[ $fail -eq 0 ]
