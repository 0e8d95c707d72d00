#!/bin/bash
# The fuzzers' regression suite, in `make check`: every committed corpus
# input through a plain build of its harness (tests/fuzz/run-inputs.c),
# and every file that once crashed (or hung) libtracecmd/libtraceevent
# through the CLI, which must end it with exit 2 and one clear message,
# never a signal or a hang.
#
# usage: tests/run-fuzz-regress.sh BIN HARNESS_DIR
set -u
bin=$1
hdir=$2
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0

for pair in events:fuzz-events files:fuzz-file; do
	h=${pair%%:*}
	exe=$hdir/${pair#*:}-replay
	if "$exe" "$top/tests/fuzz/$h" >/tmp/fuzz-regress.$$ 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL fuzz corpus $h: $(tail -20 /tmp/fuzz-regress.$$)"
		fail=$((fail + 1))
	fi
done

# Under ASan (make SANITIZE=1) the libraries' over-reads inside libc string
# calls (asan-*: docs/known-issues.md R3, R6) would end the reader as ASan
# reports, not as the crash the guard turns into exit 2: those checks are off,
# as in the file-fuzzing campaign (tests/run-fuzz.sh); our code stays checked.
# A library's double free (R14) is an ASan report too: abort_on_error makes it
# the SIGABRT a plain build gets, which the guard turns into exit 2.
asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}replace_str=0:detect_leaks=0:abort_on_error=1
for f in strcmp strlen strndup strchr strstr strspn strtok strpbrk memcmp; do
	asan=$asan:intercept_$f=0
done

for f in "$top"/tests/fuzz/crashes/*; do
	[ -f "$f" ] || continue
	# a library stuck on a corrupt header is given up on after 3 s here, not 120
	ASAN_OPTIONS=$asan SCHEDREPLAY_STUCK_SECONDS=3 timeout 120 "$bin" analyze "$f" \
		>/dev/null 2>/tmp/fuzz-regress.$$
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l </tmp/fuzz-regress.$$)" -eq 1 ] &&
	   grep -q '^schedreplay: ' /tmp/fuzz-regress.$$; then
		pass=$((pass + 1))
	else
		echo "FAIL crash file $(basename "$f"): exit $rc: $(head -c 300 /tmp/fuzz-regress.$$)"
		fail=$((fail + 1))
	fi
done
rm -f /tmp/fuzz-regress.$$
echo "fuzz-regress: $pass passed, $fail failed"
[ $fail -eq 0 ]
