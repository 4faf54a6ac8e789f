# lib.sh: TAP helpers for the shell tests.  Source it; call ok/not_ok
# through check, then done_testing.
n=0
failed=0
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
STATBENCH="$top_builddir/statbench"

# ---- under emulation -------------------------------------------------------
# SB_TEST_EMULATED=1 (tools/aarch64.sh sets it for qemu-user): the tests
# run on an emulated CPU, ten to fifty times slower than the host's, so a
# run's budget is scaled (tests/emulated.sh: every --max-time times
# SB_TEST_TIME_SCALE, 20 by default; a test that times a run against
# its budget scales its own figures by it and runs $SB_TEST_STATBENCH)
# and what cannot work under qemu-user is skipped with the reason
# (skip_emulated).  Nothing changes without it: SB_TEST_TIME_SCALE is 1.
sb_emulated() {
    [ -n "${SB_TEST_EMULATED:-}" ] && [ "$SB_TEST_EMULATED" != 0 ]
}
# skip_emulated WHAT REASON: under emulation, skip WHAT (the whole
# script) for REASON and end the script.
skip_emulated() {
    sb_emulated || return 0
    skip "$1" "under emulation (SB_TEST_EMULATED): $2"
    done_testing
    exit 0
}
if sb_emulated; then
    SB_TEST_STATBENCH=$STATBENCH
    SB_TEST_TIME_SCALE=${SB_TEST_TIME_SCALE:-20}
    export SB_TEST_STATBENCH SB_TEST_TIME_SCALE
    STATBENCH="$top_srcdir/tests/emulated.sh"
else
    SB_TEST_STATBENCH=$STATBENCH
    SB_TEST_TIME_SCALE=1
fi

# need_python WHAT: $PY, the Python the tests run ($PYTHON, or python3),
# is there; without it WHAT (the whole script) is skipped, saying so, and
# the script ends.
need_python() {
    PY=${PYTHON:-python3}
    command -v "$PY" >/dev/null 2>&1 && return 0
    skip "$1" "no $PY"
    done_testing
    exit 0
}

# ---- what this build has ---------------------------------------------------
# A build without the x86-64 code (configure --disable-arch, aarch64 or
# another architecture) has the portable kernels only: no
# string-instruction or SIMD kernels (movsb, movsl, stosb, sse2, ...), no
# core clock or contention probes (so no host profile is ever written),
# and, but on aarch64 (its generic timer, columns cnt/B and cnt/call; dc
# civac), the clock for a timer instead of the TSC (columns ns/B and
# ns/call, not tsc/B and tsc/call) and no flush (--cache cold is
# refused: sb_can_flush).  A test whose point is not
# one of these runs a portable kernel in their place (the variables
# below), so that the x86-64 build tests exactly what it always did and
# the portable build the same paths; a test whose point is one of them is
# skipped there, with the reason.

# sb_listed KERNEL: statbench --list names KERNEL (this build has it,
# whether this CPU can run it or not).
sb_listed() {
    "$STATBENCH" --list 2>/dev/null |
        awk -v k="$1" '$1 == k { found = 1 } END { exit !found }'
}

# sb_arch: the build has the x86-64 code (config.h defines SB_HAVE_X86_64).
# Without a config.h to read, the build's kernels tell: the x86-64 code
# always lists movsb.
sb_arch() {
    if [ -f "$top_builddir/config.h" ]; then
        grep -q '^#define SB_HAVE_X86_64 1$' "$top_builddir/config.h"
    else
        sb_listed movsb
    fi
}
# sb_can_flush: whether the build flushes caches for --cache cold (x86-64's
# clflush, aarch64's dc civac); the portable build cannot.
sb_can_flush() {
    sb_arch && return 0
    [ -f "$top_builddir/config.h" ] &&
        grep -q '^#define SB_HAVE_AARCH64 1$' "$top_builddir/config.h"
}
sb_no_arch="a build without the x86-64 code (configure --disable-arch or \
another architecture)"

# SB_COPY: the copy kernel of the headline runs, rep movsl in a build with
# the x86-64 code, else int64 (portable, and neither duff nor libc, which
# tests run beside it).  SB_COPY2: a second copy to compare it with, rep
# movsb, else duff.  Chosen by the build, not by what --list shows: an
# x86-64 build that lost movsl must fail its tests, not test int64.
if sb_arch; then
    SB_COPY=movsl
    SB_COPY2=movsb
else
    SB_COPY=int64
    SB_COPY2=duff
fi

# tick_column FILE: the unit of the per-byte and per-call columns of the
# main table of FILE ("tsc" for tsc/B and tsc/call, "ns" for ns/B and
# ns/call), read from its header: the timer the run had decides it.
tick_column() {
    awk '/^kernel .*MB\/s/ {
             for (i = 1; i <= NF; i++)
                 if ($i ~ /^[a-z]+\/call$/ && $i != "core/call") {
                     sub(/\/call$/, "", $i)
                     print $i
                     exit
                 }
         }' "$1"
}

# no_nan FILE: FILE shows no NaN ("nan", "-nan", "NaN"): no such word of
# its own (the "nan" that starts "nanoseconds" is none).
no_nan() {
    ! grep -Eqi '(^|[^[:alpha:]])nan([^[:alpha:]]|$)' "$1"
}

check() { # check DESCRIPTION COMMAND...
    desc=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $desc"
    else
        echo "not ok $n - $desc"
        failed=$((failed + 1))
    fi
}

skip() { # skip DESCRIPTION REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

# Every line of a multi-line diagnostic as a TAP comment: a bare "ok 1 -"
# line of an example's output would be read as a result.
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

done_testing() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}

# The rows of a run's main table (the lines after the "kernel ... MB/s"
# header up to the next blank line), so that later sections with the same
# first column (rejects and counters) are not taken for cells.
main_rows() {
    awk '/^kernel .*MB\/s/ { on = 1; next } on && /^$/ { on = 0 } on' "$1"
}

# rows_by_name FILE PROGRAM: awk PROGRAM over the rows of FILE's main
# table (those main_rows gives), where $c("NAME") is the field of the
# column whose header word is NAME: the table's header names each column
# in one word, none twice, so a test reads a column by its name wherever
# it stands.  A name not in the header prints "no column NAME" (a line a
# count of bad rows counts) and ends awk with status 2.
rows_by_name() {
    awk 'function c(name) {
             if (!(name in col)) {
                 print "no column " name
                 exit 2
             }
             return col[name]
         }
         /^kernel .*MB\/s/ {
             for (i = 1; i <= NF; i++) col[$i] = i
             on = 1
             next
         }
         on && /^$/ { on = 0 }
         !on { next }
         '"$2" "$1"
}

# bad_input NEEDLE ARGS...: statbench ARGS must fail with exit status 2,
# one line on stderr containing NEEDLE, and nothing on stdout.  Needs $tmp.
bad_input() {
    needle=$1
    shift
    "$STATBENCH" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    # qemu-user adds its own line for a child of statbench that dies of
    # a signal ("qemu: uncaught target signal 6 (Aborted) - core
    # dumped"); it is the emulator's, not statbench's.
    if sb_emulated; then
        grep -v '^qemu: uncaught target signal' "$tmp/err" >"$tmp/err.q"
        mv "$tmp/err.q" "$tmp/err"
    fi
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$tmp/out" ] &&
        grep -qF -- "$needle" "$tmp/err"; then
        return 0
    fi
    diag "rc $rc, $lines stderr lines: $(cat "$tmp/err")"
    return 1
}

# check_csv DESCRIPTION FILE: the Python on standard input (asserts) over
# the rows of the CSV FILE, given to it as rows, a list of dicts
# (csv.DictReader); passes when it raises nothing.  Needs $PY.
check_csv() {
    check "$1" "$PY" -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
exec(sys.stdin.read())' "$2"
}

# check_json DESCRIPTION FILE: the same over the JSON FILE, given to it
# parsed as d.  Needs $PY.
check_json() {
    check "$1" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.stdin.read())' "$2"
}

# run_scratch PREFIX: a scratch directory in $tmp, removed on every way
# out, with $pid (a run in the background, if any) killed; signals end the
# script with the shell's usual status.  Also sets PY (python3 or empty)
# and now_ms (milliseconds since the epoch).
run_scratch() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
    pid=
    trap 'run_cleanup' EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    PY=$(command -v python3 || true)
}
# python_scratch PREFIX WHAT: run_scratch PREFIX, for a script that needs
# python3 throughout: without it, WHAT is skipped and the script ends.
python_scratch() {
    run_scratch "$1"
    [ -n "$PY" ] && return 0
    skip "$2" "no python3"
    done_testing 2>/dev/null
    exit 0
}
run_cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    rm -rf "$tmp"
}
if [ "$(date +%N)" != N ]; then
    now_ms() { echo $(($(date +%s%N) / 1000000)); }
elif command -v python3 >/dev/null 2>&1; then
    now_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }
else
    now_ms() { echo $(($(date +%s) * 1000)); }
fi

# gate_undecided FILE LIMIT: FILE holds examples/gate.c's line of a gate
# failed as undecided under the default policy, with an interval that
# reaches past LIMIT (1 + its threshold): a machine too noisy for the
# run to decide, which is no verdict on the work.  Any other failure (an
# error, a crash, "slower", an interval within the threshold) is not.
# The line is read from the file, never pasted into a shell.
gate_undecided() {
    sed -n 's/^FAIL candidate vs baseline: inconclusive.* \[\([0-9.]*\), \([0-9.]*\)\].*/\2/p' \
        "$1" | awk -v lim="$2" 'NR == 1 { hi = $1 } END { exit !(hi + 0 > lim + 0) }'
}

# sb_ok FILE DESCRIPTION ARGS...: statbench ARGS, its output in $tmp/FILE
# and its errors in $tmp/err; checks "DESCRIPTION exits 0 (rc N)" and sets
# rc.
sb_ok() {
    sb__out=$1 sb__desc=$2
    shift 2
    "$STATBENCH" "$@" >"$tmp/$sb__out" 2>"$tmp/err"
    rc=$?
    check "$sb__desc exits 0 (rc $rc)" test "$rc" -eq 0
}

# wait_for PID MS POLL: wait for PID to end, at most MS milliseconds after
# $start (now_ms, set by the caller), looking every POLL seconds; then
# SIGKILL it.  Sets rc (its status) and took (milliseconds since $start),
# and clears pid.
wait_for() {
    while kill -0 "$1" 2>/dev/null && [ $(($(now_ms) - start)) -lt "$2" ]; do
        sleep "$3"
    done
    took=$(($(now_ms) - start))
    kill -KILL "$1" 2>/dev/null
    wait "$1"
    rc=$?
    pid=
}
