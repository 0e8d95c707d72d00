#!/bin/bash
# Flows a person follows from one command to the next, checked end to end:
# the worst wakeup of `analyze --top 5` is the one `explain --wakeup N`
# explains; every NDJSON line keeps one type per field, compressed or not;
# `-o -` is stdout.
#
# usage: tests/run-cli.sh BIN
. "$(dirname "$0")/lib.sh"

f=fixtures/qemu/numa2-2s4c2t/hb_pipe.dat
m=fixtures/qemu/numa2-2s4c2t/machine
"$bin" analyze "$f" --topology "$m" --top 5 --decisions "$tmp/d.ndjson" -o "$tmp/r.json" || bad "analyze"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency"]["worst"][0]["wakeup"])' "$tmp/r.json")
"$bin" explain "$f" --topology "$m" --wakeup "$n" --json >"$tmp/e.json" || bad "explain --wakeup $n"
if python3 - "$tmp/r.json" "$tmp/e.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["latency"]["worst"][0]
e = json.load(open(sys.argv[2]))["explain"]
assert (e["wakeup"], e["pid"], e["ts_ns"]) == (w["wakeup"], w["pid"], w["ts_ns"]), (w, e)
assert e["next"]["waited_ns"] == w["wait_ns"], (w, e["next"])
PY
then ok; else bad "worst wakeup of analyze --top 5 is not what explain --wakeup explains"; fi

# Any line of --decisions names the placement explain --wakeup N explains,
# whatever --policy (explain's first pass replays none): the last of a 6.1
# and of a 6.12 trace, where wakeups wait for their task to leave its CPU.
for t in qemu/llc2-1s2d4c2t qemu-6.12/llc2-1s2d4c2t; do
	"$bin" analyze "fixtures/$t/hb_pipe.dat" --topology "fixtures/$t/machine" -o /dev/null \
		--decisions "$tmp/n.ndjson" || bad "analyze $t"
	n=$(tail -1 "$tmp/n.ndjson" | python3 -c 'import json,sys; print(json.load(sys.stdin)["wakeup"])')
	"$bin" explain "fixtures/$t/hb_pipe.dat" --topology "fixtures/$t/machine" --wakeup "$n" \
		--json >"$tmp/e.json" || bad "explain $t --wakeup $n"
	python3 - "$tmp/n.ndjson" "$tmp/e.json" <<'PY' && ok || bad "$t: explain --wakeup $n explains another placement"
import json, sys
d = json.loads(open(sys.argv[1]).readlines()[-1])
e = json.load(open(sys.argv[2]))["explain"]
assert (e["wakeup"], e["pid"], e["ts_ns"]) == (d["wakeup"], d["pid"], d["ts_ns"]), (d, e)
PY
done

# One type per field on every line (DuckDB/Spark read them as columns).
if python3 - "$tmp/d.ndjson" <<'PY'
import json, sys
types = {}
n = forks = waits = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    n += 1
    forks += d["kind"] == "fork"
    waits += d["wait_ns"] is not None
    for k, v in d.items():
        t = "null" if v is None else type(v).__name__
        types.setdefault(k, set()).add(t)
for k, ts in types.items():
    assert len(ts - {"null"}) <= 1, (k, ts)
assert types["wakeup"] == {"int"} and types["kind"] == {"str"}
assert n and forks and waits, (n, forks, waits)
PY
then ok; else bad "NDJSON fields change type"; fi

# --decisions FILE.zst and FILE.gz: the same lines, compressed by the library.
"$bin" analyze "$f" --topology "$m" --decisions "$tmp/d.ndjson.zst" -o /dev/null &&
	"$bin" analyze "$f" --topology "$m" --decisions "$tmp/d.ndjson.gz" -o /dev/null &&
	zstd -qdc "$tmp/d.ndjson.zst" | cmp -s - "$tmp/d.ndjson" &&
	gzip -dc "$tmp/d.ndjson.gz" | cmp -s - "$tmp/d.ndjson" && ok ||
	bad "compressed --decisions differ from the plain lines"

# -o - writes stdout, and no file named '-'.
(cd "$tmp" && "$bin" explain "$top/$f" --topology "$top/$m" --wakeup "$n" -o - >out.txt) &&
	[ -s "$tmp/out.txt" ] && [ ! -e "$tmp/-" ] && ok || bad "-o - did not write stdout"
# a fork is explained with a trail
"$bin" explain fixtures/perf-pipe.dat --wakeup 1 --json | python3 -c '
import json, sys
e = json.load(sys.stdin)["explain"]
assert e["class"] == "fork" and e["policies"][0]["sync_0"]["trail"], e' && ok || bad "fork has no trail"
finish cli
