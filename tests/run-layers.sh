#!/bin/bash
# The layering rule (docs/architecture.md): the tree must pass
# tests/check-layers.py, and the check must catch what it is for — an
# upward include and a reach into another folder's private header planted
# in a copy of the tree.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

expect() {	# expect RC PATTERN ROOT: the check exits RC and prints PATTERN
	local out rc
	out=$("$top/tests/check-layers.py" "$3" 2>&1)
	rc=$?
	if [ "$rc" -eq "$1" ] && grep -q -- "$2" <<<"$out"; then
		pass=$((pass + 1))
	else
		echo "FAIL layers: wanted exit $1 and '$2', got exit $rc:"
		echo "$out" | head -5
		fail=$((fail + 1))
	fi
}

expect 0 "clean" "$top"
plant() {	# plant FILE LINE: a copy of the tree with LINE after FILE's first include
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree"
	cp -r "$top/include" "$top/src" "$top/replay" "$top/analyses" "$tmp/tree/"
	sed -i "0,/^#include/s//$2\n#include/" "$tmp/tree/$1"
}
plant src/state/state.c '#include "run.h"'
expect 1 'src/state/state.c:.*state includes "run.h" of the higher layer run' "$tmp/tree"
plant include/trace.h '#include "policy.h"'
expect 1 'include/trace.h:.*ingest includes "policy.h"' "$tmp/tree"
plant src/run/run.c '#include "models.h"'
expect 1 'src/run/run.c:.*"models.h" is neither a contract' "$tmp/tree"
plant analyses/diff.c '#include "..\/replay\/models.h"'
expect 1 'include by name, not by path' "$tmp/tree"
echo "layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
