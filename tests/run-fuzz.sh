#!/bin/bash
# The fuzzing campaign (`make fuzz FUZZ_SECONDS=N`): each libFuzzer harness
# of tests/fuzz/ runs for N seconds at nice 10, one after the other, on a
# corpus kept in $SR_FUZZ_WORK (default /var/tmp/schedreplay-fuzz) and
# seeded from the repository.  Not part of CI: `make check` replays the
# committed corpora instead (tests/run-fuzz-regress.sh).
#
#   fuzz-events  event streams -> state -> replay -> analyses (event-codec.h)
#   fuzz-file    whole trace.dat files through the run, under ASan; crashes
#                inside libtracecmd/libtraceevent are expected (the CLI
#                contains them), so it runs in fork mode and keeps going
#
# Failing inputs land in $SR_FUZZ_WORK/NAME/crashes/.  Each becomes a
# regression case: event inputs go to tests/fuzz/events/, files that crash
# the libraries to tests/fuzz/crashes/ (the CLI must exit 2 on them).
#
# usage: tests/run-fuzz.sh FUZZ_BIN_DIR SECONDS
set -u
dir=$1
secs=${2:-600}
top=$(cd "$(dirname "$0")/.." && pwd)
work=${SR_FUZZ_WORK:-/var/tmp/schedreplay-fuzz}
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# campaign NAME SEED_DIR FLAGS...
campaign() {
	local name=$1 seeds=$2
	shift 2
	mkdir -p "$work/$name/corpus" "$work/$name/crashes"
	cp -n "$seeds"/* "$work/$name/corpus/" 2>/dev/null
	echo "fuzz: $name for ${secs}s (corpus $work/$name/corpus)"
	(cd "$work/$name" && nice -n 10 "$dir/$name" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/$name/crashes/" "$@" corpus >"$work/$name/log" 2>&1)
	grep -E '^(#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::average_exec)' \
		"$work/$name/log" | tail -3
	echo "fuzz: $name: $(find "$work/$name/crashes" -type f | wc -l) failing inputs in" \
		"$work/$name/crashes"
}

campaign fuzz-events "$top/tests/fuzz/events" -max_len=4096 -timeout=20 -rss_limit_mb=3072
campaign fuzz-file "$top/tests/fuzz/files" -max_len=65536 -timeout=30 -rss_limit_mb=3072 \
	-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
