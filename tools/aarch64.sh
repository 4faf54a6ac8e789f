#!/bin/sh
# tools/aarch64.sh [--install] BUILDDIR [TEST...]: cross-build statbench
# for aarch64 in BUILDDIR (from this source tree, configured with
# --host=aarch64-linux-gnu) and run tests under qemu-user, by binfmt, so
# that the aarch64 code (src/arch/aarch64.c, the counter's reads in
# src/arch/ticks.h, the kernels of kernels/copy_aarch64.c and
# kernels/clear_aarch64.c) is built and run on an x86-64 machine.  TEST...: the
# tests to run, as names in Makefile.am's TESTS ("tests/test_kernels"),
# or "all" for the whole suite; none given, the tests below.  Under
# emulation timing figures mean nothing: what this proves is that the
# code builds, runs and gives right answers, never how fast anything is.
#
# The tests it runs by default are those whose answers do not depend on
# the machine's speed or on what qemu-user emulates differently from a
# kernel: the kernels' byte checks at every alignment, the statistics
# against their references, the JSON and the writers, the timer, the
# environment audit, the API and ABI, the plan's checks, the gate, the
# loaded kernels, the profile, the stop and the budgets, and the static
# checks of the tree.  Left out, with the reason:
#   - the Monte Carlo suites (test_montecarlo, test_merge, test_runlevel,
#     test_compare_clocks): minutes each under emulation;
#   - test_intervals: GSL's binomial CDF returns NaN at n = 10^6 under
#     qemu-aarch64 (quantile intervals of a million samples fail), not
#     yet seen on hardware;
#   - test_failures, test_sysalloc, failures.sh: qemu-user maps memory
#     itself, so address-space limits and page faults are not the
#     kernel's;
#   - the command-line suites that give a run a native time budget or
#     find the measuring child by /proc/PID/exe (cli.sh, csv.sh,
#     output.sh, stats_cli.sh, loaded.sh, signals.sh and the like);
#   - tests that build programs with the host's compilers or tools
#     (codegen.sh, cxx_header.sh, embed.sh, examples.sh, valgrind.sh).
#
# --install (as root, Debian 12) first installs what it needs: the cross
# compiler, qemu-user-static, and the arm64 libraries.  libgsl-dev is not
# co-installable across architectures (installing libgsl-dev:arm64
# removes the amd64 one), so the arm64 GSL is linked from its runtime
# package, libgsl27:arm64, through a directory of links in BUILDDIR.
#
# It ends with the suite's counts, one line: "aarch64: N passed, N
# failed, N skipped"; its exit status is 0 when none failed.  Without
# --install it needs what sh setup.sh installs, and the packages above.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
install=0
if [ "${1:-}" = --install ]; then
    install=1
    shift
fi
if [ $# -lt 1 ]; then
    echo "usage: tools/aarch64.sh [--install] BUILDDIR [TEST...]" >&2
    exit 2
fi
build=$1
shift
arm=/usr/lib/aarch64-linux-gnu

if [ "$install" -eq 1 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "aarch64: --install needs root" >&2
        exit 1
    fi
    # --no-remove: an arm64 package that could not sit beside its amd64
    # one would otherwise take the native build's away without a word.
    # GSL's headers are libgsl-dev's (amd64): they are the same on both.
    dpkg --add-architecture arm64 &&
        apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-remove \
            make file pkg-config libgsl-dev gcc-aarch64-linux-gnu \
            qemu-user-static libc6-dev:arm64 libgsl27:arm64 \
            libgslcblas0:arm64 libjansson-dev:arm64 libpapi-dev:arm64 \
            >/dev/null || {
        echo "aarch64: could not install the cross tools" >&2
        exit 1
    }
fi

# qemu runs aarch64 programs through binfmt_misc; a machine without
# systemd-binfmt (a container) has the entry registered here.
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    conf=/usr/lib/binfmt.d/qemu-aarch64.conf
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
            { echo "aarch64: cannot mount binfmt_misc" >&2; exit 1; }
    fi
    [ -r "$conf" ] && cat "$conf" >/proc/sys/fs/binfmt_misc/register ||
        { echo "aarch64: cannot register qemu-aarch64 with binfmt_misc" >&2
          exit 1; }
fi

mkdir -p "$build/gsl-link" || exit 1
build=$(cd "$build" && pwd)
for l in libgsl.so.27 libgslcblas.so.0; do
    [ -e "$arm/$l" ] ||
        { echo "aarch64: $arm/$l missing (run with --install)" >&2; exit 1; }
done
ln -sf "$arm/libgsl.so.27" "$build/gsl-link/libgsl.so"
ln -sf "$arm/libgslcblas.so.0" "$build/gsl-link/libgslcblas.so"

cd "$build" || exit 1
if [ ! -f Makefile ] && [ -f "$top/config.status" ]; then
    echo "aarch64: $top is configured in place; a build elsewhere needs" \
        "make distclean there, or a tree from make dist" >&2
    exit 1
fi
if [ ! -f Makefile ]; then
    PKG_CONFIG_LIBDIR=$arm/pkgconfig:/usr/share/pkgconfig \
    GSL_CFLAGS=" " GSL_LIBS="-L$build/gsl-link -lgsl -lgslcblas -lm" \
        "$top/configure" --host=aarch64-linux-gnu --enable-werror \
            >configure.out 2>&1 ||
        { tail -n 20 configure.out; exit 1; }
fi
grep -q '^#define SB_HAVE_AARCH64 1' config.h ||
    { echo "aarch64: configure did not choose the aarch64 layer" >&2; exit 1; }
make -j"$(nproc)" >make.out 2>&1 || { tail -n 30 make.out; exit 1; }
file .libs/statbench 2>/dev/null | grep -q 'ARM aarch64' ||
    { echo "aarch64: .libs/statbench is not an aarch64 program" >&2; exit 1; }
./statbench --version >/dev/null ||
    { echo "aarch64: statbench does not run under qemu" >&2; exit 1; }

default="tests/test_stats tests/test_compare tests/test_coverage
tests/test_kernels tests/test_kstores tests/test_json tests/test_schema
tests/test_csv tests/test_tex tests/test_plot tests/test_api tests/test_abi
tests/test_env tests/test_timer tests/test_metric tests/test_reanalyse
tests/test_redecide tests/test_replay tests/test_parse tests/test_gate
tests/test_progress_state tests/test_loaded tests/test_profile
tests/test_stop tests/test_budget tests/deps.sh tests/exports.sh
tests/mutants.sh tests/manpage.sh tests/optguard.sh"
rm -f test-suite.log
if [ "${1:-}" = all ]; then
    make check >check.out 2>&1
elif [ $# -gt 0 ]; then
    make check TESTS="$*" >check.out 2>&1
else
    make check TESTS="$(echo $default)" >check.out 2>&1
fi
rc=$?
count() {
    sed -n "s/^# $1: *\([0-9][0-9]*\).*/\1/p" test-suite.log | head -n 1
}
if [ ! -f test-suite.log ]; then
    tail -n 30 check.out
    echo "aarch64: 0 passed, 1 failed, 0 skipped"
    exit 1
fi
p=$(count PASS) f=$(count FAIL) e=$(count ERROR) s=$(count SKIP)
f=$(( ${f:-0} + ${e:-0} ))
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
grep -E '^(FAIL|ERROR):' test-suite.log | head -n 20
echo "aarch64: ${p:-0} passed, $f failed, ${s:-0} skipped"
[ "$f" -eq 0 ]
