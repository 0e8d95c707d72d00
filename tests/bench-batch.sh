#!/bin/bash
# make bench, batch part (docs/batch.md): the fixture traces analysed one by
# one (`analyze`, one process after another) against `batch -j 1` and
# `batch -j 2`, as traces/s and events/s; then the dataset's size and the
# documented queries' times on its NDJSON and Parquet forms.
#
# usage: tests/bench-batch.sh BIN [LIST]     LIST defaults to tests/dataset/fixtures.list
set -eu
bin=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
list=${2:-tests/dataset/fixtures.list}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? n / s : 0) }'; }
field() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

"$bin" --json batch -j 2 -o "$tmp/warm" --from "$list" >"$tmp/warm.json" || true	# page cache
n=$(field "$tmp/warm.json" ok)
events=$(field "$tmp/warm.json" events)
printf 'batch: %s traces, %s events (%s)\n' "$n" "$events" "$list"
printf '%-34s %8s %8s %9s %11s\n' "" seconds cpu_s traces/s events/s
# row NAME: a timed command's wall and CPU (user + sys, children included) seconds
row() {
	local name=$1 wall cpu
	shift
	/usr/bin/time -o "$tmp/time" -f '%e %U %S' "$@" >/dev/null 2>&1 || true
	read -r wall u s <"$tmp/time"
	cpu=$(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }')
	printf '%-34s %8s %8s %9s %11s\n' "$name" "$wall" "$cpu" "$(rate "$n" "$wall")" \
		"$(rate "$events" "$wall")"
}
# one by one: what a shell loop over analyze does, with the same machine snapshots
one_by_one() {
	while IFS=$'\t' read -r trace topo; do
		case $trace in ''|'#'*) continue ;; esac
		[ -z "$topo" ] && [ -d "$(dirname "$trace")/machine" ] && topo=$(dirname "$trace")/machine
		"$bin" analyze "$trace" ${topo:+--topology "$topo"} -o /dev/null --decisions /dev/null
	done <"$list"
}
export -f one_by_one
export bin list
row "analyze one by one (+ --decisions)" bash -c one_by_one
for j in 1 2; do
	row "batch -j $j (dataset written)" "$bin" batch -j $j -o "$tmp/j$j" --from "$list"
done
printf '(the machine has %s CPUs; wall time is what a busy shared machine left over)\n' "$(nproc)"

t0=$(now)
tools/sr-dataset.mjs parquet "$tmp/j2" >/dev/null
s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
size() { du -sb "$@" | awk '{ s += $1 } END { printf "%.1f MB", s / 1e6 }'; }
printf 'dataset tables: NDJSON+gzip %s, Parquet+zstd %s (converted in %s s); reports %s\n' \
	"$(size "$tmp/j2/traces" "$tmp/j2/wakeups" "$tmp/j2/decisions")" \
	"$(size "$tmp/j2/parquet")" "$s" "$(size "$tmp/j2/reports")"
tools/sr-dataset.mjs bench "$tmp/j2" docs/batch.md
