#!/bin/sh
# valgrind.sh: the command-line paths under valgrind's memcheck:
# no definite leak and no memory error on a short measurement of each
# kernel family, the baseline comparison, every output format, compare,
# analyze, report, check-env, noise, --list, --counters list, --save and
# --against, and bad input.  Each path must end with its own exit status;
# memcheck turns any error (an invalid access, a use of an uninitialised
# value, a definitely lost block) into status 99.
#
# The binary run is the real one, through libtool --mode=execute when the
# build has a libtool wrapper (shared libstatbench), so that valgrind does
# not trace the wrapper shell.  Invocations run in this process
# (--invocations 1), since --trace-children=no leaves forked invocations
# unchecked.  Skipped without valgrind, and in a sanitizer build (ASan's
# shadow memory and interceptors cannot run under valgrind).
. "${top_srcdir:-.}/tests/lib.sh"
skip_emulated "valgrind on the command-line paths" \
    "valgrind cannot run a program of the emulated architecture"

if ! command -v valgrind >/dev/null 2>&1; then
    skip "command-line paths under valgrind" "valgrind not installed"
    done_testing
    exit $?
fi
if grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize' \
        "$top_builddir/Makefile" 2>/dev/null; then
    skip "command-line paths under valgrind" \
        "sanitizer build (-fsanitize in the Makefile's flags)"
    done_testing
    exit $?
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbvg.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
STATBENCH_BASELINES=$tmp/baselines
export STATBENCH_BASELINES

# Valgrind through libtool's execute mode, which replaces a wrapper script
# with the real program and sets the library path for it.
if [ -x "$top_builddir/libtool" ] && [ -f "$top_builddir/.libs/statbench" -o \
        -f "$top_builddir/.libs/lt-statbench" ]; then
    VG_RUN="$top_builddir/libtool --mode=execute"
else
    VG_RUN=
fi
VG_OPTS="-q --leak-check=full --errors-for-leak-kinds=definite
         --error-exitcode=99 --trace-children=no --num-callers=30"
diag "valgrind $(valgrind --version 2>/dev/null); $(
    [ -n "$VG_RUN" ] && echo 'through libtool --mode=execute' ||
    echo 'the program directly')"

# vg NAME WANT ARGS...: statbench ARGS under memcheck; ok when its exit
# status is in WANT (a list such as "0" or "0 1"); valgrind's report goes
# to $tmp/NAME.vg and, on failure, into the log.
vg() {
    name=$1 want=$2
    shift 2
    # shellcheck disable=SC2086
    timeout 120 $VG_RUN valgrind $VG_OPTS --log-file="$tmp/$name.vg" \
        "$STATBENCH" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    for w in $want; do
        if [ "$rc" -eq "$w" ]; then
            # No error (that would be 99), maybe a warning of valgrind's.
            [ -s "$tmp/$name.vg" ] && sed 's/^/#   /' "$tmp/$name.vg" | head -n 10
            return 0
        fi
    done
    diag "$name: exit status $rc (want $want; 99 is a memcheck error, 124 the timeout)"
    sed 's/^/#   /' "$tmp/$name.vg" | head -n 60
    sed 's/^/#   stderr: /' "$tmp/$name.err" | head -n 10
    return 1
}

# --reject none: under memcheck a run of 0.3 s takes a sample or two per
# cell, and one context switch would reject a cell's only sample; a cell
# without samples is an error (exit 1), which is not what this test is
# about.  Every sample is kept, so the exit status does not depend on
# what else the machine runs.
M="--invocations 1 --max-time 0.3 --reject none -q"
check "a copy kernel (libc), -f json -o A.json" \
    vg copy 0 -k libc -s 4K $M -f json -o "$tmp/a.json"
check "a clear kernel (memset), -f json -o B.json" \
    vg clear 0 -k memset -s 4K $M -f json -o "$tmp/b.json"
check "an alloc kernel (mmap_touch)" vg alloc 0 -k mmap_touch -s 64K $M
check "a system-call kernel (pread)" vg syscall 0 -k pread -s 4K $M
check "--baseline (duff against libc, two offsets)" \
    vg baseline 0 -k libc,duff -s 1K -a 0,3 --baseline libc $M
check "-f csv" vg csv 0 -k duff -s 1K $M -f csv
check "-f latex, -o FILE.md and --plot" \
    vg latex 0 -k libc -s 1K $M -f latex -o "$tmp/t.md" --plot "$tmp/t.svg"
check "--save, -o A2.json" \
    vg save 0 -k libc -s 4K $M --save vgbase -o "$tmp/a2.json"
# --against exits 1 when the new run is slower beyond the threshold, and 3
# when it cannot decide, either of which a noisy machine may make it: what
# is checked here is memcheck's silence (99) on each of those paths.
check "--against" vg against "0 1 3" -k libc -s 4K $M --against vgbase
check "--bootstrap with one invocation" \
    vg bootstrap 0 -k libc -s 1K $M --bootstrap 200

# The files the paths below read.
seq 1 40 | awk '{ print 100 + ($1 * 7) % 13 }' >"$tmp/x.txt"
seq 1 40 | awk '{ print 104 + ($1 * 5) % 11 }' >"$tmp/y.txt"
if [ -s "$tmp/a.json" ] && [ -s "$tmp/a2.json" ] && [ -s "$tmp/b.json" ]; then
    check "compare of two saved runs" \
        vg compare 0 compare "$tmp/a.json" "$tmp/a2.json"
    # Different kernels: no cell in common, which compare refuses.
    check "compare of two runs with no cell in common (exit 2)" \
        vg compare2 2 compare "$tmp/a.json" "$tmp/b.json"
    check "report -f markdown" vg report 0 report "$tmp/a.json" -f markdown
    check "report reanalysed (--ci, --outliers, --precision)" \
        vg report_re 0 report "$tmp/a.json" --ci 90 --outliers reject-all \
        --precision 5 -f json
    check "report --plot" vg report_plot 0 report "$tmp/a.json" \
        --plot "$tmp/r.svg"
else
    check "the runs above wrote A.json, A2.json and B.json" false
fi
check "analyze of one file" vg analyze1 0 analyze "$tmp/x.txt"
check "analyze of two files, -f json" \
    vg analyze2 0 analyze "$tmp/x.txt" "$tmp/y.txt" -f json
check "check-env" vg check_env 0 check-env
check "noise" vg noise 0 noise --max-time 0.3 --invocations 1
check "--list" vg list 0 --list
check "--counters list" vg counters 0 --counters list
check "--help" vg help 0 --help
check "bad input: unknown kernel (exit 2)" vg bad_kernel 2 --kernel nosuch
check "bad input: malformed size (exit 2)" vg bad_size 2 --size 10Q
# (A JSON file is no longer bad input to analyze: it reads runs and other
# tools' files; a word is.)
printf 'hello\n' >"$tmp/word.txt"
check "bad input: analyze of a word (exit 2)" \
    vg bad_analyze 2 analyze "$tmp/word.txt"
check "bad input: compare of a missing file (exit 2)" \
    vg bad_compare 2 compare "$tmp/nosuch.json" "$tmp/a.json"

done_testing
