# Sourced by the test scripts: strict mode, the binary given as $1 (when it
# is one) by its absolute path in $bin, the repository root as the working
# directory, a scratch directory $tmp removed on exit, and ok/bad counters
# that 'finish NAME' reports in the closing line CI reads.
set -u
bin=
[ -x "${1:-}" ] && bin=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
