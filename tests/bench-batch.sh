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
printf '%-34s %8s %9s %11s\n' "" seconds traces/s events/s

# one by one: what a shell loop over analyze does, with the same machine snapshots
t0=$(now)
while IFS=$'\t' read -r trace topo; do
	case $trace in ''|'#'*) continue ;; esac
	[ -z "$topo" ] && [ -d "$(dirname "$trace")/machine" ] && topo=$(dirname "$trace")/machine
	"$bin" analyze "$trace" ${topo:+--topology "$topo"} -o /dev/null --decisions /dev/null || true
done <"$list"
s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
printf '%-34s %8s %9s %11s\n' "analyze one by one (+ --decisions)" "$s" "$(rate "$n" "$s")" \
	"$(rate "$events" "$s")"
for j in 1 2; do
	"$bin" --json batch -j $j -o "$tmp/j$j" --from "$list" >"$tmp/j$j.json" || true
	s=$(field "$tmp/j$j.json" seconds)
	printf '%-34s %8.2f %9s %11s\n' "batch -j $j (dataset written)" "$s" "$(rate "$n" "$s")" \
		"$(rate "$events" "$s")"
done

t0=$(now)
tools/sr-dataset.mjs parquet "$tmp/j2" >/dev/null
s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
size() { du -sb "$@" | awk '{ s += $1 } END { printf "%.1f MB", s / 1e6 }'; }
printf 'dataset tables: NDJSON+gzip %s, Parquet+zstd %s (converted in %s s); reports %s\n' \
	"$(size "$tmp/j2/traces" "$tmp/j2/wakeups" "$tmp/j2/decisions")" \
	"$(size "$tmp/j2/parquet")" "$s" "$(size "$tmp/j2/reports")"
tools/sr-dataset.mjs bench "$tmp/j2" docs/batch.md
