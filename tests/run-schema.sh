#!/bin/bash
# JSON Schemas (docs/schema/) against every golden JSON output and the
# --decisions lines of two fixtures.
#
# usage: tests/run-schema.sh BIN
. "$(dirname "$0")/lib.sh"
"$bin" analyze fixtures/perf-pipe.dat --decisions "$tmp/perf-pipe.ndjson" -o /dev/null &&
"$bin" analyze fixtures/qemu-6.12/numa2-2s4c2t/forkexec.dat \
	--topology fixtures/qemu-6.12/numa2-2s4c2t/machine \
	--policy linux-6.12 --policy naive-prev --decisions "$tmp/forkexec.ndjson" -o /dev/null ||
	{ echo "schema: 0 passed, 1 failed (analyze)"; exit 1; }
exec python3 tests/check-schemas.py "$tmp"/*.ndjson
