#!/bin/bash
# Acceptance check: every number in events, wakeups and cache_hot equals an
# independent count made from `trace-cmd report -N` text by
# tests/oracle/report_count.py, on every fixture and every shared trace
# trace-cmd can read, at two migration costs.
#
# usage: tests/run-oracle.sh BIN
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
shared=${SR_SHARED:-$top/../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
if ! command -v trace-cmd >/dev/null; then
	echo "oracle: trace-cmd not installed (run ./install.sh)"
	exit 1
fi
for f in "$top"/fixtures/*.dat "$top"/fixtures/qemu/*/*.dat "$top"/fixtures/lost/*.dat \
	 "$top"/fixtures/qemu-lost/*/*.dat \
	 "$shared"/traces/*.dat; do
	[ -f "$f" ] || continue
	mcs="500000 100000"
	case $f in */qemu/*) mcs=500000 ;; esac
	for mc in $mcs; do
		name="$(basename "$f") migration-cost=$mc"
		if ! python3 "$top/tests/oracle/report_count.py" --migration-cost $mc "$f" \
			>"$tmp/oracle.json" 2>/dev/null; then
			# trace-cmd itself cannot read it (e.g. no sched events): nothing to compare
			continue
		fi
		if ! "$bin" analyze --migration-cost $mc "$f" >"$tmp/report.json" 2>"$tmp/err"; then
			if grep -q 'nothing to analyse' "$tmp/err"; then
				continue
			fi
			echo "FAIL $name: schedreplay failed: $(cat "$tmp/err")"
			fail=$((fail + 1))
			continue
		fi
		if python3 "$top/tests/oracle/compare.py" "$tmp/report.json" "$tmp/oracle.json"; then
			pass=$((pass + 1))
		else
			echo "FAIL $name"
			fail=$((fail + 1))
		fi
	done
done
echo "oracle: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
