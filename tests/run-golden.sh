#!/bin/bash
# Golden tests kept as data: tests/golden/NAME.args holds the arguments
# (paths relative to the repository root), NAME.expected the exact stdout,
# NAME.exit the exit code when it is not 0.  Like jq's tests, adding a case
# is adding files.  --update rewrites the expected files (review the diff!).
#
# usage: tests/run-golden.sh BIN [--update]
set -u
bin=$(realpath "$1")
update=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
pass=0 fail=0

# JSON outputs (NDJSON for *ndjson*) must pass the strict parser: UTF-8, RFC 8259.
strict_json() {
	local name=$1 out=$2 mode=
	case $out in "{"*) ;; *) return 0 ;; esac
	case $name in *ndjson*) mode=--ndjson ;; esac
	printf '%s\n' "$out" | python3 tests/strict-json.py $mode -
}

for args in tests/golden/*.args; do
	name=${args%.args}
	want_rc=0
	[ -f "$name.exit" ] && want_rc=$(cat "$name.exit")
	# shellcheck disable=SC2046
	out=$(eval "\"$bin\" $(cat "$args")" 2>/dev/null)
	rc=$?
	if [ "$update" = --update ]; then
		printf '%s\n' "$out" >"$name.expected"
		[ $rc -ne 0 ] && echo $rc >"$name.exit"
	fi
	if [ $rc -ne "$want_rc" ]; then
		echo "FAIL $(basename "$name"): exit $rc, expected $want_rc"
		fail=$((fail + 1))
	elif ! diff -u "$name.expected" <(printf '%s\n' "$out") >/tmp/golden.diff.$$; then
		echo "FAIL $(basename "$name"): output differs"
		head -40 /tmp/golden.diff.$$
		fail=$((fail + 1))
	elif ! strict_json "$name" "$out"; then
		echo "FAIL $(basename "$name"): the output is not strict UTF-8 JSON"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
	rm -f /tmp/golden.diff.$$
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
