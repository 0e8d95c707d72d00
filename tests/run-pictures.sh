#!/bin/bash
# Pictures and the Perfetto export: each file is what it claims (well-formed
# SVG, a PNG of the right size), holds the expected drawing (the wakee's red,
# the waiting tasks' orange, the diff's bars: cairo writes colours as
# fill:rgb(...)), and the Chrome JSON trace has CPU tracks, slices, annotated
# placements and paired flows.  Bad picture names are exit 2.
#
# usage: tests/run-pictures.sh BIN
. "$(dirname "$0")/lib.sh"

f=fixtures/qemu/numa2-2s4c2t/hb_pipe.dat
m=fixtures/qemu/numa2-2s4c2t/machine
red='fill:rgb(90.196078%,33.333333%,31.372549%)'	# the wakee running (230,85,80)
orange='fill:rgb(100%,58.823529%,15.686275%)'		# tasks waiting (255,150,40)
blue='fill:rgb(39.215686%,58.823529%,86.27451%)'		# diff: same CPU (100,150,220)

# svg FILE MIN_PATHS COLOUR...: well-formed, drawn, with each colour
svg() {
	local file=$1 min=$2
	shift 2
	xmllint --noout "$file" 2>/dev/null || { bad "$file is not well-formed XML"; return; }
	grep -q '<svg' "$file" || { bad "$file has no <svg>"; return; }
	[ "$(grep -c '<path' "$file")" -ge "$min" ] || { bad "$file: fewer than $min paths"; return; }
	grep -q '<use' "$file" || { bad "$file has no text"; return; }
	for c in "$@"; do
		grep -qF "$c" "$file" || { bad "$file lacks $c"; return; }
	done
	ok
}

# png FILE WIDTH: the PNG signature and the width in its IHDR
png() {
	python3 - "$1" "$2" <<'PY' && ok || bad "$1 is not a PNG $2 wide"
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR"
w, h = struct.unpack(">II", d[16:24])
assert w == int(sys.argv[2]) and h > 100, (w, h)
PY
}

"$bin" explain "$f" --topology "$m" --wakeup 424 --svg "$tmp/e.svg" >/dev/null &&
	svg "$tmp/e.svg" 20 "$orange" || bad "explain --svg"
"$bin" explain fixtures/perf-pipe.dat --wakeup 7882 --svg "$tmp/e2.svg" >/dev/null &&
	svg "$tmp/e2.svg" 20 "$red" "$orange" || bad "explain --svg (perf-pipe)"
"$bin" explain "$f" --topology "$m" --wakeup 300 --png "$tmp/e.png" >/dev/null &&
	png "$tmp/e.png" 1100 || bad "explain --png"
"$bin" analyze "$f" --topology "$m" --time 81.6,81.7 --svg "$tmp/o.svg" -o /dev/null &&
	svg "$tmp/o.svg" 100 "$orange" || bad "analyze --svg"
"$bin" analyze "$f" --topology "$m" --time 81.6,81.7 --png "$tmp/o.png" -o /dev/null &&
	png "$tmp/o.png" 1200 || bad "analyze --png"
"$bin" diff "$f" --topology "$m" --policy linux-6.1 --policy linux-6.1:WA_IDLE=0 \
	--svg "$tmp/d.svg" >/dev/null && svg "$tmp/d.svg" 10 "$blue" || bad "diff --svg"
# a wrong name is bad input (2); a file that cannot be written, a failure (1)
for case in "2 --svg $tmp/x.png" "2 --png $tmp/x.svg" "1 --svg $tmp/no-such-dir/x.svg"; do
	set -- $case
	"$bin" analyze fixtures/perf-pipe.dat "$2" "$3" -o /dev/null 2>"$tmp/err"
	[ $? -eq "$1" ] && grep -q '^schedreplay: ' "$tmp/err" && ok ||
		bad "analyze $2 $3: not exit $1 with a message"
done

"$bin" analyze "$f" --topology "$m" --time 81.6,81.7 --perfetto "$tmp/p.json" -o /dev/null &&
python3 - "$tmp/p.json" <<'PY' && ok || bad "perfetto trace"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert names and all(v == f"CPU {k}" for k, v in names.items()), names
xs = [e for e in ev if e["ph"] == "X"]
assert xs and all(e["dur"] > 0 and e["tid"] in names and e["name"] for e in xs)
assert all(81.6e6 <= e["ts"] <= 81.7e6 for e in xs), "slice outside --time"
marks = [e for e in ev if e["ph"] == "i"]
assert marks and all("linux-6.1" in e["args"]["policies"] for e in marks)
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = [e for e in ev if e["ph"] == "f"]
assert ends and all(e["id"] in starts and e["ts"] >= starts[e["id"]]["ts"] for e in ends)
assert d["otherData"]["truncated"] is False
PY
finish pictures
