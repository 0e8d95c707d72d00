#!/bin/bash
# valgrind over the unit tests, the fuzzers' committed corpora and analyze on
# every fixture: no errors, no definite leaks.
#
# usage: tests/run-valgrind.sh BIN TEST_BIN...
set -u
bin=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --suppressions="$top/tests/valgrind.supp")
pass=0 fail=0
run() {
	if "${vg[@]}" "$@" >/dev/null 2>/tmp/vg.$$; then
		pass=$((pass + 1))
	else
		echo "FAIL valgrind: $*"
		tail -30 /tmp/vg.$$
		fail=$((fail + 1))
	fi
}
for t in "$@"; do
	case $t in
	*/fuzz-events-replay) run "$t" tests/fuzz/events ;;
	*/fuzz-file-replay) run "$t" tests/fuzz/files ;;
	*) run "$t" ;;
	esac
done
for f in fixtures/*.dat; do
	run "$bin" analyze "$f"
done
run "$bin" analyze fixtures/qemu-zlib/niced-zlib.dat
run "$bin" explain fixtures/hackbench-pipe.dat --wakeup 78 --topology cpus=2 --json
run "$bin" explain fixtures/qemu/numa4-4s2c2t/hb_pipe.dat --wakeup 300 \
	--topology fixtures/qemu/numa4-4s2c2t/machine --policy linux-6.1 --policy linux-2.6.38
run "$bin" analyze fixtures/qemu/numa2llc2-2s2d2c2t/hb_sock.dat \
	--topology fixtures/qemu/numa2llc2-2s2d2c2t/machine --decisions /dev/null
run "$bin" diff fixtures/hackbench-pipe.dat --topology cpus=2 --policy linux-2.6.38 \
	--policy linux-2.6.38+no-hot-affine
# batch: the parent and each forked worker (valgrind follows fork); a worker's
# error makes it exit 99, which the batch reports as a failed trace (exit 3)
vgds=$(mktemp -d)
run "$bin" batch -j 2 -o "$vgds" fixtures/qemu/numa4-4s2c2t/niced.dat \
	fixtures/qemu-ipc-6.1/numa2-2s4c2t/mq.dat
rm -rf "$vgds"
[ -f ../shared/traces/linux-4.13-i686-4cpu-success-field.dat ] &&
	run "$bin" analyze ../shared/traces/linux-4.13-i686-4cpu-success-field.dat
rm -f /tmp/vg.$$
echo "valgrind: $pass passed, $fail failed"
[ $fail -eq 0 ]
