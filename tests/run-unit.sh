#!/bin/bash
# Run each cmocka unit-test binary; fail if any fails.
set -u
fail=0
for t in "$@"; do
	"$t" || fail=1
done
exit $fail
