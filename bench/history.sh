#!/bin/sh
# history.sh: the figures of statbench history's change points against
# Perfherder's windowed t-test, on synthetic series of 200 runs with steps
# of 2%, 5% and 10% in run-to-run noise (the model is in
# bench/history_bench.c): the detection rate of each step and the false
# change points, side by side, at two noise levels, each without and
# with outlying runs.  Not a timed test: `make check` does not run it.
#
#   bench/history.sh [SEEDS] [SD_PCT...]     # from the build directory
#
# SEEDS series per row (default 100); SD_PCT the noise levels (default 1
# and 2).  Needs a C compiler (CC, default cc; CFLAGS, default -O2), GSL
# and the library built in this build directory (.libs).  A few minutes
# at 100 seeds on two CPUs.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${top_builddir:-.}
SEEDS=${1:-100}
[ $# -gt 0 ] && shift
LEVELS=${*:-1 2}
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}

case $SEEDS in
'' | *[!0-9]*) echo "history.sh: SEEDS '$SEEDS' is not a number" >&2
    exit 2 ;;
esac
if [ ! -d "$BUILD/.libs" ] || [ ! -f "$BUILD/src/statbench_version.h" ]; then
    echo "history.sh: run it from a build directory (no .libs here)" >&2
    exit 2
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbhist.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# CC and CFLAGS are split on blanks on purpose ('ccache gcc').
# shellcheck disable=SC2086
$CC $CFLAGS -Wall -Wextra -I"$SRC/src" -I"$BUILD/src" \
    -o "$WORK/history_bench" "$SRC/bench/history_bench.c" \
    -L"$BUILD/.libs" -Wl,-rpath,"$(cd "$BUILD/.libs" && pwd)" \
    -lstatbench $(pkg-config --libs gsl 2>/dev/null || echo -lgsl -lgslcblas) -lm

for sd in $LEVELS; do
    "$WORK/history_bench" "$SEEDS" "$sd"
    echo
done
