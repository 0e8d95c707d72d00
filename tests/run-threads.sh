#!/bin/bash
# The decode thread changes nothing but the time: every fixture through
# analyze (text; JSON with --decisions), explain (an early wakeup, whose
# pass stops early, and a later one) and diff, and every crash reproducer
# through analyze, with --threads 1 and with the default (2 on two CPUs, as
# CI has), must give the same bytes: output, --decisions, stderr, exit code.
#
# usage: tests/run-threads.sh BIN [--quick]
# --quick (sanitizer builds): the first fixture of each directory only.
. "$(dirname "$0")/lib.sh"
quick=${2:-}

# one case: NAME then the arguments; both runs' outputs land in $tmp/NAME.{1,d}
# ($tmp/NAME.MODE.out, .err, .rc, and .dec for a --decisions file)
# The stuck guard's verdict depends on time: only the file that hangs for ever
# gets the short limit (under ASan the 17 GB allocation alone takes ~4 s, and
# a 3 s limit made its message depend on the machine's load).
run_case() {
	local name=$1 mode stuck=120
	[[ $name == crash_hang-* ]] && stuck=3
	shift
	for mode in 1 d; do
		local threads=()
		[ "$mode" = 1 ] && threads=(--threads 1)
		local args=("${@//@DEC@/$tmp/$name.$mode.dec}")
		SCHEDREPLAY_STUCK_SECONDS=$stuck timeout 300 "$bin" "${args[@]}" "${threads[@]}" \
			>"$tmp/$name.$mode.out" 2>"$tmp/$name.$mode.err"
		echo $? >"$tmp/$name.$mode.rc"
	done
	for ext in out err rc dec; do
		[ -e "$tmp/$name.1.$ext" ] || [ -e "$tmp/$name.d.$ext" ] || continue
		if ! cmp -s "$tmp/$name.1.$ext" "$tmp/$name.d.$ext"; then
			echo "FAIL $name: the $ext differs with --threads 1 ($*)"
			return 1
		fi
	done
	rm -f "$tmp/$name".*
}

# every case of one fixture; prints one line per failure, "ok N" at the end
fixture_cases() {
	local f=$1 id topo=()
	id=$(echo "${f%.dat}" | tr / _)
	[ -d "$(dirname "$f")/machine" ] && topo=(--topology "$(dirname "$f")/machine")
	local n=0 bad=0
	set -- \
		"an-text:analyze $f --format text" \
		"an-json:analyze $f --format json --decisions @DEC@" \
		"ex-early:explain $f --wakeup 10 --json" \
		"ex-late:explain $f --wakeup 2000" \
		"diff:diff $f --policy linux-5.11 --policy linux-5.12 --json"
	for c in "$@"; do
		# shellcheck disable=SC2086
		run_case "$id.${c%%:*}" ${c#*:} "${topo[@]}" || bad=$((bad + 1))
		n=$((n + 1))
	done
	echo "ok $((n - bad)) $bad"
}

crash_case() {
	local id
	id=crash_$(basename "$1")
	if run_case "$id" analyze "$1"; then echo "ok 1 0"; else echo "ok 0 1"; fi
}
export -f run_case fixture_cases crash_case
export bin tmp

if [ "$quick" = --quick ]; then
	fixtures=$(find fixtures -name '*.dat' | sort | awk -F/ '{ d = $0; sub("/[^/]*$", "", d) }
		!seen[d]++')
else
	fixtures=$(find fixtures -name '*.dat' | sort)
fi
[ -n "$fixtures" ] || { bad "no fixtures"; finish threads; exit; }

# two at a time: the machine has two CPUs, and each default run uses two threads
results=$({
	printf '%s\n' $fixtures | xargs -P 2 -I{} bash -c 'fixture_cases "$1"' _ {}
	for f in tests/fuzz/crashes/*; do
		[ -f "$f" ] && echo "$f"
	done | xargs -P 2 -I{} bash -c 'crash_case "$1"' _ {}
})
while read -r word a b rest; do
	if [ "$word" = ok ]; then
		pass=$((pass + a))
		fail=$((fail + b))
	else
		echo "$word $a $b $rest"
	fi
done <<<"$results"
finish threads
