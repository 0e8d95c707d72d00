#!/bin/bash
# The fuzzing campaign (`make fuzz FUZZ_SECONDS=N`): each libFuzzer harness
# of tests/fuzz/ runs for N seconds at nice 10, one after the other, on a
# corpus kept in $SR_FUZZ_WORK (default /var/tmp/schedreplay-fuzz) and
# seeded from the repository.  Not part of CI: `make check` replays the
# committed corpora instead (tests/run-fuzz-regress.sh).
#
#   fuzz-events  event streams -> state -> replay -> analyses (event-codec.h),
#                under ASan+UBSan; it stops at the first failure: ours to fix
#   fuzz-file    whole trace.dat files through the run, under ASan.  Inputs
#                that crash libtracecmd/libtraceevent are expected (the CLI
#                contains them, src/cli/guard.c), so it runs in fork mode and
#                keeps going.  ASan's checks inside libc string calls are off
#                (replace_str=0, intercept_str*=0) and so is leak detection:
#                the libraries' reads past their own buffers and their leaks
#                are known (docs/known-issues.md) and would stop every run;
#                our code's memory accesses are still checked (it is
#                instrumented), and valgrind checks its leaks.  Allocations
#                above 256 MiB fail (corrupt sizes ask for GBs, and zeroing
#                them took most of the time), as they may.
#
# Failing inputs land in $SR_FUZZ_WORK/NAME/crashes/.  Each becomes a
# regression case: event inputs go to tests/fuzz/events/, files that crash
# or hang the libraries to tests/fuzz/crashes/ (the CLI must exit 2 on them).
#
# usage: tests/run-fuzz.sh FUZZ_BIN_DIR SECONDS
set -u
dir=$1
secs=${2:-600}
top=$(cd "$(dirname "$0")/.." && pwd)
work=${SR_FUZZ_WORK:-/var/tmp/schedreplay-fuzz}
asan_events=allocator_may_return_null=1:detect_leaks=1
asan_file=allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=0:replace_str=0
for f in strcmp strlen strndup strchr strstr strspn strtok strpbrk memcmp; do
	asan_file=$asan_file:intercept_$f=0
done
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# campaign NAME SEED_DIR ASAN_OPTIONS FLAGS...
campaign() {
	local name=$1 seeds=$2 asan=$3 log
	shift 3
	mkdir -p "$work/$name/corpus" "$work/$name/crashes"
	cp -n "$seeds"/* "$work/$name/corpus/" 2>/dev/null
	log=$work/$name/log-$(date +%s)
	echo "fuzz: $name for ${secs}s (corpus $work/$name/corpus, log $log)"
	(cd "$work/$name" && ASAN_OPTIONS=$asan nice -n 10 "$dir/$name" -max_total_time="$secs" \
		-print_final_stats=1 -artifact_prefix="$work/$name/crashes/" "$@" corpus >"$log" 2>&1)
	# executions: the last "#N" (fork mode counts over its jobs)
	grep -E '^#[0-9]+' "$log" | tail -1
	echo "fuzz: $name: $(find "$work/$name/crashes" -type f | wc -l) failing inputs in" \
		"$work/$name/crashes"
}

campaign fuzz-events "$top/tests/fuzz/events" "$asan_events" -max_len=4096 -timeout=20 \
	-rss_limit_mb=3072
campaign fuzz-file "$top/tests/fuzz/files" "$asan_file" -max_len=65536 -timeout=30 \
	-rss_limit_mb=3072 -malloc_limit_mb=65536 -fork=1 -ignore_crashes=1 -ignore_ooms=1 \
	-ignore_timeouts=1
