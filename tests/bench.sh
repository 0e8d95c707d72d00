#!/bin/bash
# make bench: schedreplay analyze against two baselines measured in the same
# run on the same file — a bare libtracecmd read (tests/bench/bare-read.c)
# and `trace-cmd report` — as best-of-N wall-clock ratios and peak RSS.
# Machines are shared and noisy: read the ratios, not the seconds.
#
# usage: tests/bench.sh BIN BARE_READ [TRACE]
# TRACE defaults to $SR_BENCH_TRACE, else a ~1M-event hackbench trace that is
# recorded once into /var/tmp/sr-bench.dat (needs root and tracefs).
set -eu
bin=$1
bare=$2
top=$(cd "$(dirname "$0")/.." && pwd)
trace=${3:-${SR_BENCH_TRACE:-/var/tmp/sr-bench.dat}}
runs=${SR_BENCH_RUNS:-5}

if [ ! -f "$trace" ]; then
	echo "recording a ~1M-event benchmark trace into $trace ..."
	"$bin" record -o "$trace" -b 262144 --no-snapshot -- \
		hackbench -P -p -g 4 -f 10 -l 40000 >/dev/null
fi

tfile=$(mktemp)
trap 'rm -f "$tfile"' EXIT

# best_of CMD...: prints "seconds peak_kb" of the fastest of $runs runs
best_of() {
	local best="" kb="" t
	for _ in $(seq "$runs"); do
		/usr/bin/time -o "$tfile" -f '%e %M' "$@" >/dev/null 2>&1
		t=$(tail -1 "$tfile")
		if [ -z "$best" ] || awk -v a="${t% *}" -v b="$best" 'BEGIN{exit !(a<b)}'; then
			best=${t% *}
			kb=${t#* }
		fi
	done
	echo "$best $kb"
}

events=$("$bare" "$trace")
read -r t_bare kb_bare < <(best_of "$bare" "$trace")
read -r t_sr kb_sr < <(best_of "$bin" analyze "$trace")
read -r t_acc kb_acc < <(best_of "$bin" analyze --policy none "$trace")
read -r t_rep kb_rep < <(best_of trace-cmd report -N -i "$trace")
printf 'trace: %s (%s)\n' "$trace" "$events"
printf '%-28s %8s %10s %8s\n' "" "best s" "peak KB" "ratio"
printf '%-28s %8s %10s %8s\n' "bare libtracecmd read" "$t_bare" "$kb_bare" "1.00"
printf '%-28s %8s %10s %8s\n' "schedreplay analyze" "$t_sr" "$kb_sr" \
	"$(awk -v a="$t_sr" -v b="$t_bare" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
printf '%-28s %8s %10s %8s\n' "analyze --policy none" "$t_acc" "$kb_acc" \
	"$(awk -v a="$t_acc" -v b="$t_bare" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
printf '%-28s %8s %10s %8s\n' "trace-cmd report -N" "$t_rep" "$kb_rep" \
	"$(awk -v a="$t_rep" -v b="$t_bare" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
printf 'analyze / trace-cmd report: %s\n' \
	"$(awk -v a="$t_sr" -v b="$t_rep" 'BEGIN{printf "%.2f", (b > 0 ? a / b : 0)}')"
printf 'extra peak memory over the bare read: %s KB\n' $((kb_sr - kb_bare))
# Instructions, not seconds: repeatable on a shared machine (SR_BENCH_CALLGRIND=0 skips).
if [ "${SR_BENCH_CALLGRIND:-1}" = 1 ] && command -v valgrind >/dev/null; then
	ir() {
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
			awk '/Collected/ {print $NF}'
	}
	i_bare=$(ir "$bare" "$trace")
	i_sr=$(ir "$bin" analyze "$trace" -o /dev/null)
	i_acc=$(ir "$bin" analyze --policy none "$trace" -o /dev/null)
	printf 'instructions (callgrind): bare %s, analyze %s (%s), --policy none %s (%s)\n' \
		"$i_bare" "$i_sr" "$(awk -v a="$i_sr" -v b="$i_bare" 'BEGIN{printf "%.2fx", a / b}')" \
		"$i_acc" "$(awk -v a="$i_acc" -v b="$i_bare" 'BEGIN{printf "%.2fx", a / b}')"
fi
