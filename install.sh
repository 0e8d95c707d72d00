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
	libtracecmd-dev libtraceevent-dev libtracefs-dev libjansson-dev libyajl-dev zlib1g-dev libzstd-dev libbpf-dev	# libraries
	libcairo2-dev fonts-dejavu-core					# pictures (--svg, --png)
	scdoc man-db bash-completion					# man pages, completion
	libssl-dev							# SHA-256 of traces (batch)
	libcmocka-dev valgrind python3 time				# the test suite
	python3-jsonschema libxml2-utils				# schema and SVG checks
	trace-cmd							# the oracle's trace-cmd report
	python3-distributed						# batch on Dask (tools/sr-dask.py)
	rt-tests util-linux						# record tests: hackbench, setpriv
	clang libclang-rt-14-dev llvm					# make fuzz: libFuzzer, symbolizer
)
# DuckDB (tools/sr-dataset.mjs) comes from the npm registry; Node.js from Debian
# unless the machine already has one (a distribution's nodejs bundles npm).
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
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
# @duckdb/node-api at the version tools/package-lock.json pins, native library included
npm ci --prefix tools --no-audit --no-fund --loglevel=error
[ "${1:-}" = --deps-only ] && exit 0

make
# a 16-CPU, 2-node, 4-LLC Debian 6.1 guest's hackbench, with its machine snapshot
./build/schedreplay analyze fixtures/qemu/numa2llc2-2s2d2c2t/hb_pipe.dat \
	--topology fixtures/qemu/numa2llc2-2s2d2c2t/machine --top 5
