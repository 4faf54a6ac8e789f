#!/bin/sh
# examples.sh: the examples build (make check builds them) and run.
. "${top_srcdir:-.}/tests/lib.sh"
skip_emulated "the examples built and run" \
    "the host's compilers build x86-64 programs, which cannot link the aarch64 library"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbex.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ex="$top_builddir/examples"

out=$("$ex/basic" 1 2>&1)
rc=$?
check "examples/basic exits 0 (rc $rc)" test "$rc" -eq 0
rows=$(printf '%s\n' "$out" | awk '($1 == "libc" || $1 == "duff") && NF == 5' | wc -l)
check "examples/basic prints 4 cells (got $rows)" test "$rows" -eq 4
[ "$rows" -eq 4 ] || printf '%s\n' "$out" | sed 's/^/# /'

out=$("$ex/custom_kernel" 1 2>&1)
rc=$?
check "examples/custom_kernel exits 0 (rc $rc)" test "$rc" -eq 0
check "examples/custom_kernel measures its own kernel against libc" \
    sh -c "printf '%s\n' '$out' | grep -Eq '^bytewise: .* (time|core-cycle) ratio to libc'"

# The gate: the same work is never called slower; twice the work fails
# with status 1.  The same work passes when its interval lies within the
# threshold (here +-0.3% in 2 s against 5%); a machine noisy enough to
# leave the interval wider fails it as undecided under the default
# policy, which says so, and that is no verdict on the work.
"$ex/gate" >"$tmp/gate.out" 2>&1
rc=$?
# Passed (0), or failed (1) as undecided: an inconclusive line whose
# interval reaches past the threshold, 1.05.
gate_unchanged() { # RC FILE
    [ "$1" -eq 0 ] && return 0
    [ "$1" -eq 1 ] && gate_undecided "$2" 1.05
}
check "examples/gate passes an unchanged function, or fails it as undecided (rc $rc)" \
    gate_unchanged "$rc" "$tmp/gate.out"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/gate.out")"
# ratio_awk: an awk function for the programs below that read the gates'
# lines: ratio(line) sets est, lo and hi from line's "ratio EST [LO, HI]",
# and is 0 when line has none.
ratio_awk='
function ratio(line,    r, f) {
    if (!match(line, /ratio [0-9.e+-]+ \[[0-9.e+-]+, [0-9.e+-]+\]/))
        return 0
    r = substr(line, RSTART + 6, RLENGTH - 6)
    gsub(/[\[\],]/, " ", r)
    split(r, f, " ")
    est = f[1] + 0; lo = f[2] + 0; hi = f[3] + 0
    return 1
}'
# Whatever the machine made of it, the line must follow from its own
# figures by the gate's rules (threshold 5%, default policy fail), and
# the exit status from the line: a pass whose interval reaches past 1.05,
# "equivalent" with an interval outside [0.95, 1.05], "slower" with an
# interval reaching 1, or a status that disagrees with the line, is a
# broken gate on a quiet machine and on a noisy one alike.  (Printed to
# 4 digits: a figure printed equal to a bound passes either way.)
gate_consistent() { # RC FILE
    awk -v rc="$1" "$ratio_awk"'
        /^(PASS|FAIL) candidate vs baseline: / {
            lines++
            out = $1
            why = $0
            sub(/^(PASS|FAIL) candidate vs baseline: /, "", why)
            sub(/;.*/, "", why)
            if (!ratio($0))
                next
            have = 1
            th = $0 ~ /; threshold 5%;/
            mde = $0 ~ /; smallest detectable change [0-9.e+-]+%;/
        }
        END {
            if (lines != 1 || !have || !th || !mde) {
                print "no single gate line with a ratio, the 5% threshold " \
                      "and the smallest detectable change"
                exit 1
            }
            ok = 0
            if (why == "slower, beyond the threshold")
                ok = out == "FAIL" && lo >= 1 && est >= 1.05
            else if (why == "slower, by less than the threshold")
                ok = out == "PASS" && lo >= 1 && est <= 1.05
            else if (why ~ /^inconclusive: /)
                ok = out == "FAIL" && hi >= 1.05
            else if (why ~ /^inconclusive, but the interval rules out/)
                ok = out == "PASS" && hi <= 1.05
            else if (why == "equivalent")
                ok = out == "PASS" && lo >= 0.95 && hi <= 1.05
            else if (why == "faster")
                ok = out == "PASS" && hi <= 1
            ok = ok && lo > 0 && lo <= est && est <= hi
            ok = ok && (out == "PASS" ? rc == 0 : rc == 1)
            if (!ok)
                printf "%s (exit %s) does not follow from ratio %g [%g, %g]\n",
                    out ": " why, rc, est, lo, hi
            exit !ok
        }' "$2"
}
check "examples/gate: the unchanged function's line and status follow from its interval" \
    gate_consistent "$rc" "$tmp/gate.out"
out=$("$ex/gate" slow 2>&1)
rc=$?
check "examples/gate fails a function twice as slow (rc $rc)" test "$rc" -eq 1
[ "$rc" -eq 1 ] || diag "$out"
printf '%s\n' "$out" >"$tmp/gate_slow_line.out"
check "examples/gate: the slow function's line and status follow from its interval" \
    gate_consistent "$rc" "$tmp/gate_slow_line.out"
# Why: slower, or (a machine loaded enough to widen the interval, as in a
# parallel distcheck) undecided with the interval reaching past the 5%
# threshold; either way the line names the smallest detectable change.
printf '%s\n' "$out" >"$tmp/gate_slow.out"
gate_slower_why() { # FILE
    grep -q '^FAIL candidate vs baseline: slower.*smallest detectable' "$1" ||
        { grep -q '^FAIL candidate vs baseline: inconclusive.*smallest detectable' "$1" &&
              gate_undecided "$1" 1.05; }
}
check "examples/gate says why: FAIL, slower (or undecided past 5%), the smallest detectable change" \
    gate_slower_why "$tmp/gate_slow.out"

# The gate with a reference build in the same run: the same object
# loaded twice (two copies of one file) and a build doing three times the
# work.  Only the difference the test made is a verdict checked: three
# times the work fails (exit 1, every size "not ok"); for the copies, what
# the machine made of them is its own, and only that each TAP line and
# the exit status follow from the line's figures by the gate's rules
# (threshold 5%, default policy fail) is checked.
libs="$top_builddir/tests/.libs"
# ref_consistent RC FILE: the plan, one line a size, and the status.
ref_consistent() {
    awk -v rc="$1" "$ratio_awk"'
        /^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
        /^(not ok|ok) [0-9]+ - (PASS|FAIL) new vs reference, [0-9]+ B: / {
            n++
            tap = $1 == "not" ? "not ok" : "ok"
            out = $0; sub(/^(not ok|ok) [0-9]+ - /, "", out)
            why = out; sub(/^(PASS|FAIL) new vs reference, [0-9]+ B: /, "", why)
            sub(/;.*/, "", why)
            out = substr(out, 1, 4)
            skip = $0 ~ / # SKIP undecided$/
            if (!ratio($0)) {
                bad = bad "no ratio in line " n "; "
                next
            }
            ok = 0
            if (why == "slower, beyond the threshold")
                ok = out == "FAIL" && tap == "not ok" && !skip && lo >= 1 && est >= 1.05
            else if (why ~ /^inconclusive: /)
                ok = out == "FAIL" && tap == "ok" && skip && hi >= 1.05
            else if (why ~ /^inconclusive, but the interval rules out/ ||
                     why == "equivalent" || why == "faster" ||
                     why == "slower, by less than the threshold")
                ok = out == "PASS" && tap == "ok" && !skip
            ok = ok && lo > 0 && lo <= est && est <= hi
            if (!ok)
                bad = bad "line " n " (" tap ", " out ": " why ") does not follow from " est " [" lo ", " hi "]; "
            fail += tap == "not ok"
            undecided += skip
            next
        }
        /^# / { next }
        { bad = bad "an unexpected line: " $0 "; " }
        END {
            want = fail ? 1 : undecided ? 3 : 0
            if (n != 2 || plan != n)
                bad = bad "plan " plan ", " n " lines (two sizes); "
            if (rc != want)
                bad = bad "exit " rc ", the lines say " want "; "
            if (bad != "")
                print bad
            exit bad != ""
        }' "$2"
}
# ref_gate ARGS...: examples/ref_gate ARGS, its output (both streams) in
# $tmp/rg.out and its status in rc.
ref_gate() {
    "$ex/ref_gate" "$@" >"$tmp/rg.out" 2>&1
    rc=$?
}
if [ -f "$libs/kplain.so" ] && grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize=[a-z,]*address' \
        "$top_builddir/Makefile" 2>/dev/null; then
    # AddressSanitizer cannot follow a dlmopen namespace: such a build
    # refuses the load with the reason, before opening anything.
    cp "$libs/kplain.so" "$tmp/ref.so"
    ref_gate "$tmp/ref.so" "$tmp/ref.so" sbk_copy
    check "examples/ref_gate in an AddressSanitizer build: the load refused, said why, exit 2 (rc $rc)" \
        sh -c "[ $rc -eq 2 ] && grep -q 'this build has AddressSanitizer, which cannot follow' '$tmp/rg.out'"
    [ "$rc" -eq 2 ] || diag "$(cat "$tmp/rg.out")"
elif [ -f "$libs/kplain.so" ] && [ -f "$libs/kheavy.so" ]; then
    cp "$libs/kplain.so" "$tmp/ref.so" && cp "$libs/kplain.so" "$tmp/same.so" &&
        cp "$libs/kheavy.so" "$tmp/heavy.so"
    ref_gate "$tmp/ref.so" "$tmp/heavy.so" sbk_copy
    check "examples/ref_gate fails a build doing three times the work (rc $rc)" \
        sh -c "[ $rc -eq 1 ] && [ \$(grep -c '^not ok [0-9]* - FAIL new vs reference, [0-9]* B: slower, beyond the threshold' '$tmp/rg.out') -eq 2 ]"
    [ "$rc" -eq 1 ] || diag "$(cat "$tmp/rg.out")"
    check "examples/ref_gate: its TAP lines and status follow from their figures" \
        ref_consistent "$rc" "$tmp/rg.out"
    ref_gate "$tmp/ref.so" "$tmp/same.so" sbk_copy
    check "examples/ref_gate: two copies of one build, lines and status consistent (rc $rc)" \
        ref_consistent "$rc" "$tmp/rg.out"
    diag "$(grep '^\(not \)\{0,1\}ok' "$tmp/rg.out")"
    ref_gate "$tmp/ref.so" "$tmp/same.so" no_such_symbol
    check "examples/ref_gate: a missing symbol is an error, exit 2, named (rc $rc)" \
        sh -c "[ $rc -eq 2 ] && grep -q \"no symbol 'no_such_symbol'\" '$tmp/rg.out'"
    ref_gate "$tmp/ref.so"
    check "examples/ref_gate without its three arguments: usage, exit 2 (rc $rc)" \
        test "$rc" -eq 2
else
    skip "examples/ref_gate" "no tests/.libs/kplain.so (no shared libraries)"
fi

# The TAP gate (make check also runs it as a test): four copies in one
# call are "not ok", with the ratio and interval, and the exit status is
# 1.  (Two copies came out inconclusive against the 25% threshold once,
# on a machine loaded by three suites at once.)
"$ex/tap_gate" slow >"$tmp/tap" 2>&1
rc=$?
if grep -q '^1\.\.0 # SKIP' "$tmp/tap"; then
    skip "examples/tap_gate slow" "$(sed 's/^1\.\.0 # SKIP //' "$tmp/tap")"
else
    check "examples/tap_gate slow: exit status 1 (rc $rc)" test "$rc" -eq 1
    check "examples/tap_gate slow: a plan and one line per comparison" \
        sh -c "head -n 1 '$tmp/tap' | grep -qx '1..3' &&
               [ \$(grep -cE '^(not )?ok [1-3] - ' '$tmp/tap') -eq 3 ]"
    check "examples/tap_gate slow: the fourfold copy is not ok, with its ratio" \
        grep -qE '^not ok 3 - four-times vs memcpy: (time|core-cycle) ratio [0-9.]+ \[[0-9.]+, [0-9.]+\], slower$' \
        "$tmp/tap"
    [ "$rc" -eq 1 ] || diag "$(cat "$tmp/tap")"
fi

"$STATBENCH" -k libc,duff -s 4K --max-time 1 -q -f json -o "$tmp/run.json" \
    >/dev/null 2>&1
out=$("$ex/read_run" "$tmp/run.json" 2>&1)
rc=$?
check "examples/read_run reads a saved run (rc $rc)" test "$rc" -eq 0
check "examples/read_run prints both cells" \
    sh -c "[ \$(printf '%s\n' '$out' | grep -cE '^(libc|duff) ') -eq 2 ]"
printf 'not json' >"$tmp/bad.json"
"$ex/read_run" "$tmp/bad.json" >/dev/null 2>&1
rc=$?
check "examples/read_run rejects a file that is not JSON (rc $rc)" test "$rc" -eq 2
# The saved-baseline gate: one baseline run has its run level assumed;
# three merged show theirs.  The verdicts are the machine's: only where
# the run level came from, and an exit of 0 or 1, are checked.
"$ex/saved_gate" save "$tmp/sg1.json" 2>"$tmp/sg.err"
rc=$?
check "examples/saved_gate save writes a run (rc $rc)" \
    sh -c "[ $rc -eq 0 ] && [ -s '$tmp/sg1.json' ]"
"$ex/saved_gate" check "$tmp/sg1.json" >"$tmp/sg.out" 2>"$tmp/sg.err"
rc=$?
check "examples/saved_gate against one run: the run level assumed (rc $rc)" \
    sh -c "[ $rc -le 1 ] && grep -q '^run level: assumed, run-to-run sd 3%' '$tmp/sg.out'"
"$ex/saved_gate" save "$tmp/sg2.json" 2>"$tmp/sg.err"
"$ex/saved_gate" save "$tmp/sg3.json" 2>"$tmp/sg.err"
"$ex/saved_gate" check "$tmp/sg1.json" "$tmp/sg2.json" "$tmp/sg3.json" \
    >"$tmp/sg.out" 2>"$tmp/sg.err"
rc=$?
check "examples/saved_gate against three runs: from their spread (rc $rc)" \
    sh -c "[ $rc -le 1 ] && grep -q '^run level: baseline-runs' '$tmp/sg.out' &&
        grep -Eq '^(PASS|WARN|FAIL) libc 4096: .*baseline: saved baseline runs' '$tmp/sg.out'"
[ "$rc" -le 1 ] || diag "$(cat "$tmp/sg.out" "$tmp/sg.err")"
"$ex/saved_gate" >/dev/null 2>&1
rc=$?
check "examples/saved_gate without arguments: usage, exit 2 (rc $rc)" \
    test "$rc" -eq 2

# The programs that statbench cmd times for seeds 001 and 004: they do
# their work (a wrong page or a short read is exit 1), refuse bad
# arguments (exit 2), and a before/after pair of each runs as the README
# shows it, with fewer rounds.  Only the run's shape is checked, never
# which side is faster.
"$ex/mmap_rounds" 3 1
rc=$?
check "examples/mmap_rounds: 3 rounds of 1 MiB touched and read back (rc $rc)" \
    test "$rc" -eq 0
"$ex/mmap_rounds" 3 populate 1
rc=$?
check "examples/mmap_rounds: and populated (rc $rc)" test "$rc" -eq 0
# (AddressSanitizer's shadow memory cannot start under a 64 MiB ulimit -v.)
if grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize=[a-z,]*address' \
        "$top_builddir/Makefile" 2>/dev/null; then
    skip "examples/mmap_rounds under ulimit -v" "an AddressSanitizer build"
else
    (ulimit -v 65536 && "$ex/mmap_rounds" 1 256) 2>"$tmp/mr.err"
    rc=$?
    check "examples/mmap_rounds: a mapping refused (ulimit -v) is exit 1, named (rc $rc)" \
        sh -c "[ $rc -eq 1 ] && grep -q '^mmap_rounds: round 1: mmap of 256 MiB: ' '$tmp/mr.err'"
fi
"$ex/mmap_rounds" 10x 2>/dev/null
rc=$?
check "examples/mmap_rounds: bad ROUNDS is exit 2 (rc $rc)" test "$rc" -eq 2
head -c 300000 /dev/zero >"$tmp/f"
"$ex/cached_read" "$tmp/f" 3 4096
rc=$?
check "examples/cached_read: 3 whole passes (rc $rc)" test "$rc" -eq 0
mkfifo "$tmp/fifo" 2>/dev/null
for bad in "$tmp/missing" "$tmp/fifo" /dev/null; do
    "$ex/cached_read" "$bad" 1 2>"$tmp/cr.err"
    rc=$?
    check "examples/cached_read: $(basename "$bad") is exit 1, named (rc $rc)" \
        sh -c "[ $rc -eq 1 ] && grep -q '^cached_read: $bad: ' '$tmp/cr.err'"
done
"$ex/cached_read" "$tmp/f" 1 0 2>/dev/null
rc=$?
check "examples/cached_read: a block of 0 is exit 2 (rc $rc)" test "$rc" -eq 2
"$STATBENCH" cmd -N -q --runs 3 "$ex/mmap_rounds 5 4" \
    "$ex/mmap_rounds 5 populate 4" -o "$tmp/s001.json" >"$tmp/s001.out" 2>&1
rc=$?
check "seed 001 by statbench cmd: two rows, 3 rounds each, exit 0 (rc $rc)" \
    sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^$ex/mmap_rounds 5 .*[0-9]' '$tmp/s001.out') -ge 2 ] &&
        grep -q '\"samples\": 3' '$tmp/s001.json'"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/s001.out")"
"$STATBENCH" cmd -N -q --warmup 1 --runs 3 "$ex/cached_read $tmp/f 20" \
    "$ex/cached_read $tmp/f 20 4096" >"$tmp/s004.out" 2>&1
rc=$?
check "seed 004 by statbench cmd: the two block sizes, exit 0 (rc $rc)" \
    sh -c "[ $rc -eq 0 ] && grep -q '^$ex/cached_read $tmp/f 20 4096 ' '$tmp/s004.out'"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/s004.out")"

done_testing
