#!/bin/sh
# embed.sh: the README's "Embedding" walk-through, as a new user would
# take it: install into a scratch root (make install DESTDIR=...), build
# the README's gate program (taken from README.md itself, so that the two
# cannot part) with pkg-config against the installed header and library,
# run it with the loader pointed at the installed library, and check that
# it names its benchmarks and fails its 10% gate for the right reason: the
# byte loop is slower than memcpy with significance, beyond the threshold
# (many times memcpy's time at 4 KiB on any machine, a margin no noise
# closes).  No time is asserted.
. "${top_srcdir:-.}/tests/lib.sh"
skip_emulated "the library embedded in programs" \
    "the host's compilers build x86-64 programs, which cannot link the aarch64 library"
run_scratch sbembed

CC=${CC:-cc}
for tool in pkg-config "$CC" "${MAKE:-make}"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        skip "the README's embedding walk-through" "no $tool"
        done_testing
        exit $?
    fi
done

# A sanitizer build installs a library that needs the sanitizers' runtime
# loaded first: a program built as the README says cannot load it.
if grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize' \
        "$top_builddir/Makefile" 2>/dev/null; then
    skip "the README's embedding walk-through" \
        "sanitizer build (-fsanitize in the Makefile's flags)"
    done_testing
    exit $?
fi

# 1. Install, into a scratch root.  The sub-make must not take this make
# check's jobserver or flags.
(unset MAKEFLAGS MFLAGS MAKELEVEL
 "${MAKE:-make}" -s -C "$top_builddir" install DESTDIR="$tmp/root") \
    >"$tmp/install.log" 2>&1
rc=$?
check "make install DESTDIR=... (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || diag "$(tail -n 5 "$tmp/install.log")"
pc=$(find "$tmp/root" -name statbench.pc | head -n 1)
lib=$(find "$tmp/root" -name 'libstatbench.so.[0-9]*' | head -n 1)
check "statbench.pc and libstatbench.so.N are installed" \
    test -n "$pc" -a -n "$lib"
check "and the schema, where the man page says" \
    sh -c "find '$tmp/root' -path '*/share/doc/statbench/schema.md' | grep -q ."
check "but not the libtool archive libstatbench.la" \
    sh -c "! find '$tmp/root' -name 'libstatbench.la' | grep -q ."
if [ -z "$pc" ] || [ -z "$lib" ]; then
    done_testing
    exit $?
fi

# 2. The program, as README.md shows it.
awk '/^## Embedding/ { on = 1 } on && /^```c$/ { code = 1; next }
     code && /^```$/ { exit } code' "$top_srcdir/README.md" >"$tmp/gate.c"
check "README.md's Embedding section has the program" \
    grep -q 'sb_gate_judge' "$tmp/gate.c"

# 3. Build with pkg-config against the installed copy and run it with the
# loader told where the library is (what ldconfig does for
# /usr/local/lib).  The scratch root moved the installed tree: a copy of
# statbench.pc with its absolute paths moved alike is what a --prefix
# install into that place would have written.
mkdir -p "$tmp/pc"
sed -e "s#^prefix=/#prefix=$tmp/root/#" \
    -e "s#^exec_prefix=/#exec_prefix=$tmp/root/#" \
    -e "s#^libdir=/#libdir=$tmp/root/#" \
    -e "s#^includedir=/#includedir=$tmp/root/#" "$pc" >"$tmp/pc/statbench.pc"
PKG_CONFIG_PATH=$tmp/pc
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs statbench)
rc=$?
check "pkg-config --cflags --libs statbench (rc $rc)" test "$rc" -eq 0
# A shared library brings its own dependencies: building against it
# needs no .pc file of GSL, jansson or PAPI (no -dev package of theirs).
PKG_CONFIG_LIBDIR=$tmp/pc pkg-config --cflags --libs statbench \
    >"$tmp/pc.out" 2>&1
rc=$?
check "and with statbench.pc the only .pc file it sees (rc $rc)" \
    test "$rc" -eq 0
[ "$rc" -eq 0 ] || diag "$(head -n 3 "$tmp/pc.out")"
# shellcheck disable=SC2086
"$CC" -std=c11 -O3 -Wall -Wextra -Werror "$tmp/gate.c" $flags \
    -o "$tmp/gate" 2>"$tmp/cc.err"
rc=$?
check "it builds at -O3 against the installed header, warning-free (rc $rc)" \
    test "$rc" -eq 0
[ "$rc" -eq 0 ] || diag "$(head -n 5 "$tmp/cc.err")"
if [ "$rc" -ne 0 ]; then
    done_testing
    exit $?
fi
# Unless a copy is installed system-wide (then the loader finds that).
if command -v ldconfig >/dev/null 2>&1 &&
    ! ldconfig -p 2>/dev/null | grep -q 'libstatbench\.so\.[0-9]'; then
    (unset LD_LIBRARY_PATH; "$tmp/gate") >"$tmp/out" 2>"$tmp/err"
    check "without the library path it fails as the README warns" \
        grep -q 'libstatbench\.so\.[0-9]' "$tmp/err"
else
    skip "without the library path it fails as the README warns" \
        "a libstatbench.so.N is installed system-wide, or no ldconfig"
fi
LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/gate" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "with it, the gate fails: exit status 1 (rc $rc)" test "$rc" -eq 1
[ "$rc" -eq 1 ] || diag "$(cat "$tmp/err" "$tmp/out" | head -n 20)"
check "for the right reason: slower, with significance, beyond 10%" \
    grep -Eq '^FAIL bytes vs memcpy: slower, beyond the threshold; (time|core-cycle) ratio .*threshold 10%; smallest detectable change' \
    "$tmp/out"
check "the table is headed by the title and names both benchmarks" \
    sh -c "head -n 1 '$tmp/out' | grep -q '^byte loop against memcpy, 4 KiB (statbench' &&
           grep -q '^bytes ' '$tmp/out' && grep -q '^memcpy ' '$tmp/out'"
check "nothing on stderr (the library never prints)" test ! -s "$tmp/err"
diag "$(grep '^FAIL' "$tmp/out")"

# examples/cmake: a CTest test that finds the installed statbench through
# pkg-config, where cmake is installed.
if command -v cmake >/dev/null 2>&1 && command -v ctest >/dev/null 2>&1; then
    cmake -S "$top_srcdir/examples/cmake" -B "$tmp/cmake" \
        >"$tmp/cmake.log" 2>&1 &&
        cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1
    rc=$?
    check "examples/cmake configures and builds with pkg-config (rc $rc)" \
        test "$rc" -eq 0
    [ "$rc" -eq 0 ] || diag "$(tail -n 8 "$tmp/cmake.log")"
    # One ctest a test, so that each log holds one test's output; a name
    # ctest no longer finds would pass as "No tests were found", so each
    # log must count one test.  Twice the work must fail (the test is
    # WILL_FAIL) whatever the noise: twice memcpy's time is far past the
    # 5% threshold.  The same work passes when its interval lies within
    # the threshold; on a machine too busy for that in 2 s (seen under
    # load: inconclusive, 1.021 [0.944, 1.103]) the gate fails it as
    # undecided, as the default policy says, and that is no verdict on the
    # work: that failure, and only that, is accepted, as in examples.sh.
    one_test() { # LOG
        grep -q 'tests failed out of 1$' "$1"
    }
    passed() { # RC LOG
        [ "$1" -eq 0 ] && one_test "$2"
    }
    passed_or_undecided() { # RC LOG
        one_test "$2" || return 1
        [ "$1" -eq 0 ] && return 0
        grep -q 'statbench_gate .*Failed' "$2" && gate_undecided "$2" 1.05
    }
    # The gate with a reference build in the same run, two copies of
    # copy_build.c and a third doing three times the work.  ctest -V
    # shows what ref_gate said, passed or not: the slow build must be
    # failed for its slowdown ("not ok ... slower"), not for an error or
    # an undecided run; the identical one is passed or skipped (undecided,
    # exit status 3, SKIP_RETURN_CODE), or failed only with a slowdown
    # line of the gate's own, which is the machine's verdict, not the
    # test's to check.
    (cd "$tmp/cmake" && ctest -V -R '^statbench_ref_gate_slow$') \
        >"$tmp/ctest-rslow.log" 2>&1
    rc=$?
    ref_slow() { # RC LOG
        passed "$1" "$2" &&
            grep -q 'not ok [0-9]* - FAIL new vs reference, 4096 B: slower, beyond the threshold' "$2"
    }
    check "ctest: a build doing three times the work fails the reference gate (rc $rc)" \
        ref_slow "$rc" "$tmp/ctest-rslow.log"
    [ "$rc" -eq 0 ] || diag "$(tail -n 12 "$tmp/ctest-rslow.log")"
    (cd "$tmp/cmake" && ctest -V -R '^statbench_ref_gate$') \
        >"$tmp/ctest-ref.log" 2>&1
    rc=$?
    ref_ran() { # RC LOG
        one_test "$2" || return 1
        if grep -q 'statbench_ref_gate .*Passed' "$2"; then
            [ "$1" -eq 0 ] && ! grep -q 'not ok\|# SKIP' "$2"
        elif grep -q 'statbench_ref_gate .*Skipped' "$2"; then
            [ "$1" -eq 0 ] && grep -q '# SKIP undecided' "$2"
        else
            [ "$1" -ne 0 ] && grep -q 'not ok [0-9]* - FAIL new vs reference, [0-9]* B: slower' "$2"
        fi
    }
    check "ctest: two identical builds: passed, skipped as undecided, or failed by a verdict (rc $rc)" \
        ref_ran "$rc" "$tmp/ctest-ref.log"
    diag "$(grep 'ok [0-9]* - \|statbench_ref_gate ' "$tmp/ctest-ref.log")"
    (cd "$tmp/cmake" && ctest --output-on-failure -R '^statbench_gate_slow$') \
        >"$tmp/ctest-slow.log" 2>&1
    rc=$?
    check "ctest: twice the work fails the gate (rc $rc)" \
        passed "$rc" "$tmp/ctest-slow.log"
    [ "$rc" -eq 0 ] || diag "$(tail -n 12 "$tmp/ctest-slow.log")"
    (cd "$tmp/cmake" && ctest --output-on-failure -R '^statbench_gate$') \
        >"$tmp/ctest.log" 2>&1
    rc=$?
    check "ctest: the same work passes the gate, or fails it as undecided (rc $rc)" \
        passed_or_undecided "$rc" "$tmp/ctest.log"
    [ "$rc" -eq 0 ] || diag "$(tail -n 12 "$tmp/ctest.log")"
else
    skip "examples/cmake with CTest" "no cmake"
    skip "examples/cmake: the same work under CTest" "no cmake"
    skip "examples/cmake: twice the work under CTest" "no cmake"
    skip "examples/cmake: the reference gate, three times the work" "no cmake"
    skip "examples/cmake: the reference gate, identical builds" "no cmake"
fi
done_testing
