#!/bin/bash
# zlib-compressed trace.dat v7 (src/zlib-proto.c).  Debian's trace-cmd
# cannot read such a file, so the oracle cannot check it; instead the
# fixture was made from a zstd fixture by tests/tools/mkzlib.c, and every
# output on it must equal the output on that original, except trace.file.
# Damaged copies fail cleanly (exit 2) or, when the damage removed
# nothing the tool reads, give exactly the whole file's numbers.
#
# usage: tests/run-zlib.sh BIN
set -u
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
zfile=$top/fixtures/qemu-zlib/niced-zlib.dat
orig=$top/fixtures/qemu/llc2-1s2d4c2t/niced.dat
topo=sockets=1,llcs-per-socket=2,cores-per-llc=4,threads=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL $*"
	fail=$((fail + 1))
}

for f in "$zfile" "$orig"; do
	if [ ! -f "$f" ]; then
		echo "zlib: $f is missing"
		exit 1
	fi
done

# The v7 initial format: magic, "tracing", "7\0", endian, long size,
# page size, then the compression name and version as C strings.
compression() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(256)
assert d[:10] == b"\x17\x08\x44tracing", "bad magic"
ver, rest = d[10:].split(b"\0", 1)
assert ver == b"7", "file version %r" % ver
rest = rest[6:]				# endian, long size, page size
name, version = rest.split(b"\0")[:2]
print(name.decode(), version.decode())
PY
}

# same_json A B: equal after dropping trace.file
same_json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    r.get("trace", {}).pop("file", None)
sys.exit(0 if a == b else 1)
PY
}

read -r zname zver < <(compression "$zfile")
read -r oname _ < <(compression "$orig")
if [ "${zname:-}" = zlib ] && [ "${oname:-}" != zlib ]; then
	ok
else
	bad "fixture compression: $(basename "$zfile") says '${zname:-?}', $(basename "$orig") '${oname:-?}'"
fi

# compare NAME CMD ARGS...: the command's stdout on both files (TRACE
# stands for the file) must agree; a --decisions stream must be identical.
compare() {
	local name=$1 rc_z=0 rc_o=0 i f a args
	shift
	for i in z o; do
		f=$zfile
		[ $i = o ] && f=$orig
		args=()
		for a in "$@"; do
			case $a in
			TRACE) args+=("$f") ;;
			DECISIONS) args+=("$tmp/$i.ndjson") ;;
			*) args+=("$a") ;;
			esac
		done
		if ! timeout 120 "$bin" "${args[@]}" >"$tmp/$i.json" 2>"$tmp/$i.err"; then
			[ $i = z ] && rc_z=1 || rc_o=1
		fi
	done
	if [ "$rc_z" -ne 0 ] || [ "$rc_o" -ne 0 ]; then
		bad "$name: failed (zlib $rc_z, zstd $rc_o): $(head -c 300 "$tmp/z.err" "$tmp/o.err")"
	elif ! same_json "$tmp/z.json" "$tmp/o.json"; then
		bad "$name: the zlib file's output differs from the original's"
	elif [ -f "$tmp/o.ndjson" ] && ! cmp -s "$tmp/z.ndjson" "$tmp/o.ndjson"; then
		bad "$name: the zlib file's decisions differ from the original's"
	else
		ok
	fi
	rm -f "$tmp/z.ndjson" "$tmp/o.ndjson"
}

compare "analyze" analyze TRACE
compare "analyze mc=100000 hz=1000 topology two policies decisions" \
	analyze TRACE --migration-cost 100000 --hz 1000 --topology "$topo" \
	--policy linux-6.18 --policy linux-5.11 --decisions DECISIONS
compare "analyze --assume-root-cgroup --compact" analyze TRACE --assume-root-cgroup --compact
compare "diff" diff TRACE --policy linux-6.18 --policy linux-5.11 --json

# check NAME FILE [want]: exit 0 with the whole file's numbers, or exit 2
# with one clear message; never a signal or a hang.  want=2 forces refusal.
"$bin" analyze "$zfile" >"$tmp/full.json" 2>/dev/null
check() {
	local name=$1 file=$2 want=${3:-} rc
	timeout 120 "$bin" analyze "$file" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^schedreplay: ' "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok
	elif [ -z "$want" ] && [ $rc -eq 0 ] && same_json "$tmp/out" "$tmp/full.json"; then
		ok
	else
		bad "$name: exit $rc $(tail -c 300 "$tmp/err")"
	fi
}

size=$(stat -c %s "$zfile")
for per in 1 100 300 400 500 600 700 800 900 950 990 999; do
	n=$((size * per / 1000 - 1))
	head -c "$n" "$zfile" >"$tmp/cut.dat"
	check "cut at $n/$size" "$tmp/cut.dat"
done

# A file written by a newer zlib major version is refused, as trace-cmd does.
python3 - "$zfile" "$tmp/newer.dat" "$zver" <<'PY'
import sys
src, dst, ver = sys.argv[1:4]
d = open(src, "rb").read()
old = b"zlib\0" + ver.encode() + b"\0"
new = b"zlib\0" + b"9" + ver.encode()[1:] + b"\0"
assert d.count(old) == 1
open(dst, "wb").write(d.replace(old, new))
PY
check "zlib major version 9" "$tmp/newer.dat" 2

# Damaged compressed event data (the first CPU's first chunk, where the
# reader starts) fails the Adler-32 check: a clean refusal, never a crash.
data_at=$(python3 - "$zfile" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
# the flyrecord section names each CPU's data offset; the first CPU is
# the lowest page-aligned offset whose chunk header decodes as a zlib stream
for off in range(0, len(d) - 14, 4096):
    n, zs, us = struct.unpack_from("<III", d, off)
    if 0 < n < 1024 and 0 < zs < us and d[off + 12] == 0x78:
        print(off + 12 + zs // 2)
        break
PY
)
if [ -n "$data_at" ]; then
	cp "$zfile" "$tmp/flip.dat"
	printf '\xff\x00\x13\x37' | dd of="$tmp/flip.dat" bs=1 seek="$data_at" conv=notrunc 2>/dev/null
	check "damaged zlib stream at $data_at" "$tmp/flip.dat" 2
else
	bad "damaged zlib stream: no compressed CPU data found"
fi

echo "zlib: $pass passed, $fail failed"
[ $fail -eq 0 ]
