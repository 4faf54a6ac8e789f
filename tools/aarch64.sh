#!/bin/sh
# tools/aarch64.sh [--install] BUILDDIR [TEST...]: cross-build statbench
# for aarch64 in BUILDDIR (from this source tree, configured with
# --host=aarch64-linux-gnu) and run its tests under qemu-user, by binfmt,
# so that the aarch64 code (src/arch/aarch64.c, the counter's reads in
# src/arch/ticks.h, the kernels of kernels/copy_aarch64.c and
# kernels/clear_aarch64.c) is built and run on an x86-64 machine.  TEST...:
# the tests to run, as names in Makefile.am's TESTS ("tests/test_kernels");
# "all", the whole suite, as make -jN check with N the CPUs (the suite is
# automake's parallel harness); none given, the whole suite less the four
# tests named below (emulation_out), whose checks hold a budget to the
# host's speed.  Under emulation
# timing figures mean nothing: what this proves is that the code builds,
# runs and gives right answers, never how fast anything is.
#
# The tests run with SB_TEST_EMULATED=1, their one way of knowing they
# run under emulation, ten to fifty times slower than the host: the
# shell tests scale every run's --max-time (tests/lib.sh,
# tests/emulated.sh), and the few that cannot work under qemu-user skip
# with the reason: those that build programs with the host's compilers
# (cxx_header.sh, embed.sh, examples.sh), valgrind.sh (valgrind cannot
# run an aarch64 program), and those that limit or count the address
# space and its page faults (test_failures' and test_sysalloc's checks of
# it, failures.sh), which qemu-user maps itself.  OBJDUMP is the cross
# objdump, so that codegen.sh reads the aarch64 library.
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

SB_TEST_EMULATED=1
OBJDUMP=${OBJDUMP:-aarch64-linux-gnu-objdump}
export SB_TEST_EMULATED OBJDUMP
# cpu_s: the CPU seconds (user and system) of this script's children so
# far, from times' second line ("0m1.50s 0m0.20s"); times runs in this
# shell (in a $(...) it would see the subshell's children, none).
cpu_s() {
    times >times.out
    sed -n 2p times.out |
        awk '{ t = 0
               for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
               printf "%.0f\n", t }'
}
rm -f test-suite.log
t0=$(date +%s)
cpu_s >cpu0.out
# Left out of the default run (CI's), each for a reason of emulation,
# not of the code; "all" runs them too.  Their checks judge a budget
# against what the host does in it, and under qemu-user an invocation's
# set-up alone takes 0.5-3 s (PAPI's start 0.6 s): budget.sh's refusal
# of a 1 GiB cell and its shortened samples, csv.sh's 0.5 s run (refused
# for its budget even at 20 times), stats_cli.sh's --against a merged
# baseline (its comparison missing at a load of 8), and
# examples/tap_gate, whose 2 s budget is the example's own code.
emulation_out="tests/budget.sh tests/csv.sh tests/stats_cli.sh examples/tap_gate"
if [ "$*" = all ]; then
    make -j"$(nproc)" check >check.out 2>&1
elif [ $# -eq 0 ]; then
    tests=
    for t in $(make -s print-tests); do
        case " $emulation_out " in
        *" $t "*) echo "aarch64: $t left out under emulation (see tools/aarch64.sh)" ;;
        *) tests="$tests $t" ;;
        esac
    done
    make -j"$(nproc)" check TESTS="$tests" >check.out 2>&1
else
    make -j"$(nproc)" check TESTS="$*" >check.out 2>&1
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
# The tests' wall time and their CPU time: on a shared machine the wall
# time grows with the others' load, the CPU time much less.
cpu_s >cpu1.out
echo "aarch64: the tests took $(($(date +%s) - t0)) s," \
    "$(($(cat cpu1.out) - $(cat cpu0.out))) s of CPU time"
echo "aarch64: ${p:-0} passed, $f failed, ${s:-0} skipped"
[ "$f" -eq 0 ]
