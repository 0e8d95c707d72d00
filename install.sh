#!/bin/bash
# Set up schedreplay on a fresh Debian 12 machine: install the packages it
# builds and tests with, build it, and analyse a bundled trace.
#
#   ./install.sh              install, build, run `schedreplay analyze` on a fixture
#   ./install.sh --deps-only  install the packages only (what .ci/run uses)
set -euo pipefail
cd "$(dirname "$0")"

packages=(
	build-essential pkg-config make
	libtracecmd-dev libtraceevent-dev libtracefs-dev libjansson-dev zlib1g-dev	# libraries
	libcmocka-dev valgrind python3 time				# the test suite
	trace-cmd							# the oracle's trace-cmd report
	rt-tests util-linux						# record tests: hackbench, setpriv
	clang libclang-rt-14-dev llvm					# make fuzz: libFuzzer, symbolizer
)
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
		"${missing[@]}"
fi
[ "${1:-}" = --deps-only ] && exit 0

make
./build/schedreplay analyze fixtures/perf-pipe.dat
