#!/bin/bash
# The fuzzing campaign (`make fuzz FUZZ_SECONDS=N`): each libFuzzer harness
# of tests/fuzz/ runs for N seconds at nice 10, one after the other, on a
# corpus kept in $SR_FUZZ_WORK (default /var/tmp/schedreplay-fuzz) and
# seeded from the repository.  Not part of CI: `make check` replays the
# committed corpora instead (tests/run-fuzz-regress.sh).
#
#   fuzz-events  event streams -> state -> replay -> analyses (event-codec.h)
#   fuzz-file    whole trace.dat files through the run, under ASan.  Inputs
#                that crash libtracecmd/libtraceevent are expected (the CLI
#                contains them, src/cli/guard.c): the fuzzer is restarted
#                after each, until the time is up.  ASan's checks inside libc
#                string calls are off (replace_str=0, intercept_str*=0) and
#                so is leak detection: the libraries' reads past their own
#                buffers and their leaks are known (docs/known-issues.md) and
#                would stop every run; our code's memory accesses are still
#                checked (it is instrumented), and valgrind checks its leaks.
#                Allocations above 256 MiB fail (corrupt sizes ask for GBs,
#                and zeroing them took most of the time), as they may.
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
asan_events=allocator_may_return_null=1:detect_leaks=1
asan_file=allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=0:replace_str=0
asan_file=$asan_file:intercept_strcmp=0
asan_file=$asan_file:intercept_strlen=0:intercept_strndup=0:intercept_strchr=0
asan_file=$asan_file:intercept_strstr=0:intercept_strspn=0:intercept_strtok=0
asan_file=$asan_file:intercept_strpbrk=0:intercept_memcmp=0
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# session NAME SECONDS FLAGS...: one libFuzzer run; prints how many executions it made
session() {
	local name=$1 t=$2 log asan=$asan_events
	shift 2
	[ "$name" = fuzz-file ] && asan=$asan_file
	log=$work/$name/log-$(date +%s)
	(cd "$work/$name" && ASAN_OPTIONS=$asan nice -n 10 "$dir/$name" -max_total_time="$t" \
		-print_final_stats=1 \
		-artifact_prefix="$work/$name/crashes/" "$@" corpus >"$log" 2>&1)
	grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 >&2
	sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1
}

# campaign NAME SEED_DIR FLAGS...: sessions until SECONDS have passed
campaign() {
	local name=$1 seeds=$2 end=$((SECONDS + secs)) runs=0 n
	shift 2
	mkdir -p "$work/$name/corpus" "$work/$name/crashes"
	cp -n "$seeds"/* "$work/$name/corpus/" 2>/dev/null
	echo "fuzz: $name for ${secs}s (corpus $work/$name/corpus)"
	while [ $SECONDS -lt "$end" ]; do
		n=$(session "$name" $((end - SECONDS)) "$@")
		runs=$((runs + ${n:-0}))
	done
	echo "fuzz: $name: $runs executions; $(find "$work/$name/crashes" -type f | wc -l)" \
		"failing inputs in $work/$name/crashes"
}

campaign fuzz-events "$top/tests/fuzz/events" -max_len=4096 -timeout=20 -rss_limit_mb=3072
campaign fuzz-file "$top/tests/fuzz/files" -max_len=65536 -timeout=30 -rss_limit_mb=3072 \
	-malloc_limit_mb=65536
