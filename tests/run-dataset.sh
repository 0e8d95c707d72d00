#!/bin/bash
# Batch mode and its dataset (docs/batch.md), end to end on the fixtures:
#  - `batch -j 2` over tests/dataset/fixtures.list plus a corrupt file and
#    a missing one: every fixture ok, the two refused with their messages,
#    exit 3; a FIFO that never delivers fails by the timeout, alone;
#  - a rerun skips every trace (the ledger) and changes no file;
#  - DuckDB reads the NDJSON and the Parquet copy with schema.json's types;
#  - the dataset adds up to the per-trace reports (agreement and counts);
#  - every documented example query of docs/batch.md runs and prints its
#    golden output (tests/dataset/NAME.expected; --update rewrites them);
#  - the Dask job on a LocalCluster writes the same dataset as batch.
#
# SR_DATASET_QUICK=1 (what `make SANITIZE=1 check` sets: the same code under
# the sanitizers, in a fraction of the time) takes only the numa4 and 2-CPU
# fixtures, and runs the examples without comparing their output.
#
# usage: tests/run-dataset.sh BIN [--update]
set -u
quick=${SR_DATASET_QUICK:-0}
bin=$(realpath "$1")
update=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
sr_dataset=tools/sr-dataset.mjs
doc=docs/batch.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

if [ ! -d tools/node_modules/@duckdb/node-api ] || [ ! -x /usr/bin/python3 ] ||
   ! /usr/bin/python3 -c 'import distributed' 2>/dev/null; then
	echo "FAIL dataset: DuckDB (tools/node_modules) or python3-distributed missing: run ./install.sh"
	echo "dataset: 0 passed, 1 failed"
	exit 1
fi

# ------------------------------------------------------------ batch
printf 'not a trace' >"$tmp/corrupt.dat"
pick=. pick2=.
[ "$quick" = 1 ] && pick='numa4-4s2c2t\|machine-local' pick2=numa4-4s2c2t
{ grep -v '^#' tests/dataset/fixtures.list | grep "$pick"; printf '%s\n' "$tmp/corrupt.dat" "$tmp/missing.dat"; } \
	>"$tmp/list"
ds=$tmp/ds
"$bin" --json batch -j 2 -o "$ds" --from "$tmp/list" >"$tmp/sum.json"
rc=$?
[ $rc -eq 3 ] && ok || bad "batch over the fixtures: exit $rc, expected 3 (some failed)"
/usr/bin/python3 - "$tmp/sum.json" "$tmp" "$(grep -c . "$tmp/list")" <<'PY' && ok ||
import json, sys
s, tmp, listed = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
by = {r["path"]: r for r in s["results"]}
want = {tmp + "/corrupt.dat": ("refused", "bad magic"),
        tmp + "/missing.dat": ("refused", "No such file")}
errs = [f"{p}: {r['status']} {r['message']}" for p, r in by.items()
        if p not in want and r["status"] != "ok"]
errs += [f"{p}: {by[p]['status']} {by[p]['message']!r}, want {st} ~{m!r}"
         for p, (st, m) in want.items() if by[p]["status"] != st or m not in by[p]["message"]]
if s["ok"] != len(by) - 2 or len(by) != listed:
    errs.append(f"{s['ok']} ok of {len(by)}, {listed} listed")
if errs:
    print("\n".join(errs))
sys.exit(1 if errs else 0)
PY
	bad "batch statuses"

# a rerun skips what is done and rewrites nothing (the missing file is tried again)
snap() { find "$ds" -path "$ds/_tmp" -prune -o -type f -printf '%p %s %T@\n' | sort; }
missing_id=$(printf '%s' "$tmp/missing.dat" | sha256sum | cut -c1-16)	# its files' names
snap | grep -v "$missing_id" >"$tmp/before"
"$bin" --json batch -j 2 -o "$ds" --from "$tmp/list" >"$tmp/sum2.json"
rc=$?
skipped=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["skipped"])' \
	"$tmp/sum2.json")
[ $rc -eq 3 ] && [ "$skipped" -eq $(($(grep -c . "$tmp/list") - 1)) ] &&
	ok || bad "rerun: exit $rc, $skipped skipped"
snap | grep -v "$missing_id" | diff -q "$tmp/before" - >/dev/null && ok ||
	bad "rerun changed files"

# a trace that never ends (a FIFO nobody writes) fails by --timeout; the batch goes on
mkfifo "$tmp/fifo.dat"
"$bin" batch -j 2 --timeout 5 -o "$tmp/ds-fifo" "$tmp/fifo.dat" \
	fixtures/qemu-ipc-6.1/numa2-2s4c2t/mq.dat >"$tmp/fifo.out"
rc=$?
[ $rc -eq 3 ] && grep -q "^failed .*fifo.dat: timed out after 5 s" "$tmp/fifo.out" &&
	grep -q "^ok .*mq.dat" "$tmp/fifo.out" && ok ||
	{ bad "timeout: exit $rc"; cat "$tmp/fifo.out"; }

# a worker killed by a signal (SIGKILL, as the OOM killer sends: a sanitizer would
# catch a SIGSEGV) while it waits on the FIFO is failed, with its signal
"$bin" batch -j 1 --timeout 0 -o "$tmp/ds-crash" "$tmp/fifo.dat" >"$tmp/crash.out" &
bpid=$!
for _ in $(seq 100); do
	child=$(cat "/proc/$bpid/task/$bpid/children" 2>/dev/null)
	[ -n "$child" ] && break
	sleep 0.1
done
[ -n "$child" ] && kill -KILL $child
wait $bpid
rc=$?
[ $rc -eq 3 ] && grep -q "^failed .*fifo.dat: crashed: killed by signal 9" "$tmp/crash.out" &&
	zcat "$tmp"/ds-crash/traces/kernel=unknown/*.ndjson.gz | grep -q '"status":"failed"' && ok ||
	{ bad "crash: exit $rc"; cat "$tmp/crash.out"; }

# ------------------------------------------------------------ types, parquet
"$sr_dataset" parquet "$ds" >/dev/null || bad "parquet"
for form in --ndjson ""; do
	# shellcheck disable=SC2086
	"$sr_dataset" check-types "$ds" $form >"$tmp/types" && ok || { bad "types $form"; cat "$tmp/types"; }
done

# ------------------------------------------------------------ dataset = reports
"$sr_dataset" query "$ds" "SELECT kernel_release, policy, count(*) FILTER (determined AND match),
	count(*) FILTER (determined AND NOT match), count(*) FILTER (NOT determined),
	count(*) FILTER (match) FROM decisions WHERE kind = 'wakeup' AND policy_cpu IS NOT NULL
	GROUP BY ALL ORDER BY ALL" >"$tmp/agg.tsv"
/usr/bin/python3 - "$ds" "$tmp/agg.tsv" <<'PY' && ok || bad "dataset does not add up to the reports"
import collections, glob, json, sys
ds, tsv = sys.argv[1:3]
rep = collections.Counter()
for f in glob.glob(ds + "/reports/*.json"):
    r = json.load(open(f))
    for p in r["divergence"]["policies"]:
        k = (r["trace"]["kernel"]["release"], p["policy"])
        rep[k + ("m",)] += p["determined"]["match"]
        rep[k + ("x",)] += p["determined"]["miss"]
        rep[k + ("u",)] += p["undetermined"]["count"]
        rep[k + ("a",)] += p["all"]["match"]
got = collections.Counter()
for line in open(tsv).read().splitlines()[1:]:
    kern, pol, m, x, u, a = line.split("\t")
    for t, v in zip("mxua", (m, x, u, a)):
        got[(kern, pol, t)] = int(v)
diff = {k: (rep[k], got[k]) for k in set(rep) | set(got) if rep[k] != got[k]}
for k, (a, b) in sorted(diff.items()):
    print(f"{k}: reports {a}, dataset {b}")
sys.exit(1 if diff or not rep else 0)
PY

# ------------------------------------------------------------ documented queries
# A second dataset for the policy diff: the 6.1 QEMU traces under 5.11 and 5.12.
ds2=$tmp/ds2
find fixtures/qemu -name '*.dat' | grep "$pick2" | sort >"$tmp/list2"
"$bin" batch -j 2 -o "$ds2" --policy linux-5.11 --policy linux-5.12 --from "$tmp/list2" \
	>/dev/null && "$sr_dataset" parquet "$ds2" >/dev/null || bad "policy-diff dataset"
for name in $(sed -n 's/^-- example: //p' "$doc"); do
	want=tests/dataset/$name.expected
	case $name in policy-diff) d=$ds2 ;; *) d=$ds ;; esac
	out=$("$sr_dataset" query "$d" --doc "$doc" "$name" 2>&1 | sed "s|$tmp|TMP|g")
	[ "$update" = --update ] && printf '%s\n' "$out" >"$want"
	if [ "$quick" = 1 ]; then	# other traces, other numbers: only that it runs
		[ "$(printf '%s\n' "$out" | head -1)" = "$(head -1 "$want")" ] && ok ||
			bad "example $name: $out"
	elif [ ! -f "$want" ]; then
		bad "example $name: no $want"
	elif diff -u "$want" <(printf '%s\n' "$out") >"$tmp/diff"; then
		ok
	else
		bad "example $name: output differs"
		head -20 "$tmp/diff"
	fi
done
[ "$(sed -n 's/^-- example: //p' "$doc" | wc -l)" -ge 5 ] && ok || bad "docs lost their examples"

# ------------------------------------------------------------ Dask
# The policy-diff job again, as the map step of Dask on a LocalCluster: the
# same traces and options must give the same dataset, file by file.
ds3=$tmp/ds3
/usr/bin/python3 tools/sr-dask.py --local 2 --schedreplay "$bin" -o "$ds3" --policy linux-5.11 \
	--policy linux-5.12 --from "$tmp/list2" "$tmp/corrupt.dat" >"$tmp/dask.out" 2>"$tmp/dask.err"
rc=$?
[ $rc -eq 3 ] && grep -q "^refused .*corrupt.dat: .*bad magic" "$tmp/dask.out" && ok ||
	{ bad "dask: exit $rc"; tail -5 "$tmp/dask.out" "$tmp/dask.err"; }
"$bin" batch -j 2 -o "$ds2" --policy linux-5.11 --policy linux-5.12 "$tmp/corrupt.dat" >/dev/null
/usr/bin/python3 - "$ds2" "$ds3" <<'PY' && ok || bad "the Dask dataset differs from batch's"
import gzip, os, sys
def tree(d):
    out = {}
    for root, dirs, files in os.walk(d):
        dirs[:] = [x for x in dirs if x not in ("_tmp", "parquet")]
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, d)] = (gzip.open(p).read() if f.endswith(".gz")
                                          else open(p, "rb").read())
    return out
a, b = tree(sys.argv[1]), tree(sys.argv[2])
diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
for k in diff[:20]:
    print("differs:", k)
sys.exit(1 if diff or len(a) < 10 else 0)
PY

echo "dataset: $pass passed, $fail failed"
[ $fail -eq 0 ]
