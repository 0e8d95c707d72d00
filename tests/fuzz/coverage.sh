#!/bin/bash
# Source lines a fuzzing corpus reaches: the harnesses' replay programs
# built with clang's source-based coverage (into build-cov/), run over the
# corpora, summarised per file by llvm-cov.  A measurement, not a test.
#
# usage: tests/fuzz/coverage.sh [EVENTS_CORPUS [FILES_CORPUS]]
#        (default: the campaign's corpora in /var/tmp/schedreplay-fuzz)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
work=${SR_FUZZ_WORK:-/var/tmp/schedreplay-fuzz}
events=${1:-$work/fuzz-events/corpus}
files=${2:-$work/fuzz-file/corpus}
b=build-cov
flags="-O1 -g -fprofile-instr-generate -fcoverage-mapping"
make -s BUILD=$b CC=clang CFLAGS="$flags" LDFLAGS="-fprofile-instr-generate" \
	$b/fuzz/fuzz-events-replay $b/fuzz/fuzz-file-replay
rm -f $b/*.profraw
LLVM_PROFILE_FILE=$b/events.profraw $b/fuzz/fuzz-events-replay "$events" >/dev/null
LLVM_PROFILE_FILE=$b/file.profraw $b/fuzz/fuzz-file-replay "$files" >/dev/null 2>&1 || true
for h in events file; do
	llvm-profdata merge -o $b/$h.profdata $b/$h.profraw
	echo "== fuzz-$h (TOTAL: regions, missed, cover, functions, missed, executed, lines, missed, cover...)"
	for d in src/ingest src/state replay analyses src/run; do
		printf '%-12s ' "$d"
		llvm-cov report $b/fuzz/fuzz-$h-replay -instr-profile=$b/$h.profdata "$d" |
			grep '^TOTAL' | cut -c6-
	done
done
