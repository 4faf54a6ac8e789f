#!/bin/sh
# budget.sh: --max-time is a budget.  Each plan below
# once ran far past a budget of 1 s (55 s, 26 s, 9.8 s and 45 s on the
# machine of the report; 150+ s, 52 s, 21 s and 68 s on the development
# VM): warm-up took 16 samples of every cell in every invocation whatever
# the deadline.  Now each either keeps to the budget or is refused up
# front, with one line saying how long the plan needs.
#
# The goal is a wall time of at most max(1.2 T, T + 2 s).  What is
# asserted is a relation to the user's own budget T, with a generous
# margin: wall time <= 3 T + 5 s, or exit 2 with the refusal line within
# that bound.  The margin is there because this is a shared, noisy VM that
# can deschedule a process for seconds (other builds run on it, and the
# process start, PAPI's initialisation and the analysis are outside the
# library's deadlines); it is still far below what the old code took, so
# the test fails on the old behaviour.  T = 1 s keeps the suite fast.
. "${top_srcdir:-.}/tests/lib.sh"

run_scratch sbbudget


# Under emulation T is SB_TEST_TIME_SCALE seconds (lib.sh), given to the
# program itself, so that the bound scales with it.
T=$((1 * SB_TEST_TIME_SCALE))
STATBENCH=$SB_TEST_STATBENCH
BOUND_MS=$(((3 * T + 5) * 1000))

# budget NAME ARGS...: run statbench --max-time $T ARGS in the background,
# killed at 4 times the bound (so that a runaway run cannot hang the
# suite); sets rc and took (ms).
budget() {
    name=$1
    shift
    start=$(now_ms)
    # --reject none: what is checked is the time, and a cell whose few
    # long samples a busy CPU disturbed all would end empty (exit 1).
    "$STATBENCH" --max-time "$T" --reject none -q "$@" >"$tmp/$name.out" \
        2>"$tmp/$name.err" &
    pid=$!
    wait_for "$pid" $((4 * BOUND_MS)) 0.05
}

# kept_or_refused NAME: the relation above, for the run just made.
kept_or_refused() {
    if [ "$rc" -eq 0 ]; then
        [ "$took" -le "$BOUND_MS" ]
    elif [ "$rc" -eq 2 ]; then
        [ "$took" -le "$BOUND_MS" ] &&
            [ "$(wc -l <"$tmp/$1.err")" -eq 1 ] &&
            grep -q "the plan needs about [0-9.]* s.*more than --max-time $T: raise --max-time or shrink the plan" \
                "$tmp/$1.err"
    else
        false
    fi
}

check_case() { # NAME DESCRIPTION ARGS...
    name=$1
    desc=$2
    shift 2
    budget "$name" "$@"
    diag "$desc: status $rc after $took ms: $(head -c 300 "$tmp/$name.err")"
    check "$desc: kept to --max-time $T (<= $BOUND_MS ms) or refused up front (rc $rc, $took ms)" \
        kept_or_refused "$name"
}

check_case cells "10000 cells (--size 1..10000)" --size 1..10000
check_case mmap "a 256 MiB mmap_touch" -k mmap_touch -s 256M
# One call of 1 GiB outlasts the budget here (0.4-0.6 s, six of them
# cannot be cut): refused on trial calls of a fraction of the size, with
# the cell and its cost a call named (a machine fast enough runs it).
check_case mmap1g "a 1 GiB mmap_touch" -k mmap_touch -s 1G --invocations 1
if [ "$rc" -eq 2 ]; then
    check "  the refusal names the cell and its cost a call" \
        grep -q "kernel mmap_touch, 1073741824 bytes: about [0-9.]* s a call, from a trial of [0-9.]* MiB" \
        "$tmp/mmap1g.err"
else
    skip "  the refusal names the cell and its cost a call" \
        "not refused here (rc $rc, $took ms)"
fi
check_case long "--sample-us 200000" -k libc -s 4K --sample-us 200000
check_case many "--invocations 1000" -k libc -s 4K --invocations 1000

# A plan that fits in its budget is not refused, and its samples are
# shortened to fit rather than the budget stretched: --sample-us 200000
# with 1 s over 6 invocations leaves no room for even one round of such
# samples per invocation.
# (Refused only if 6 setups of an invocation took more than about 2 s,
# which a badly overloaded machine could do: then there is nothing to
# check here, and the case above has checked the refusal.)
budget fits -k libc -s 4K --sample-us 200000
if [ "$rc" -eq 2 ]; then
    skip "--sample-us 200000 in 1 s runs" "refused on this machine: $(cat "$tmp/fits.err")"
    skip "  and says its samples were shortened" "(as above)"
    skip "  and that --min-samples do not fit" "(as above)"
else
    check "--sample-us 200000 in 1 s runs (rc $rc)" test "$rc" -eq 0
    check "  and says its samples were shortened" \
        grep -q 'budget: samples of about [0-9]* us instead of --sample-us 200000' \
        "$tmp/fits.out"
    check "  and that --min-samples do not fit" \
        grep -q "budget: the plan needs about .* more than --max-time $T" \
        "$tmp/fits.out"
fi

# A refusal writes nothing.  1000 invocations need 1000 setups (fork,
# timer calibration, counters: 50 ms or so each here), far beyond 1 s; a
# machine that could do them all within the slack would run the plan
# instead, which the relation above already allows.
budget refused -k libc -s 4K --invocations 1000 -o "$tmp/refused.json"
if [ "$rc" -eq 2 ]; then
    check "--invocations 1000 in 1 s refused: nothing written" \
        test ! -e "$tmp/refused.json"
else
    skip "--invocations 1000 in 1 s refused: nothing written" \
        "not refused here (rc $rc, $took ms)"
fi

# A budget gone in the setup (10 ms, 1 ms): the cell still gets the
# refill of samples it is promised, from then on, and a result; it once
# got one sample, rejected for a shared core, and exited 1 with "no valid
# sample".  On a core shared throughout the refill keeps its samples
# marked ("measured on a shared core"), so the result is there either way.
for t in 0.01 0.001; do
    "$STATBENCH" -k libc -s 4K --max-time "$t" --invocations 1 -q \
        -f json -o "$tmp/tiny.json" >/dev/null 2>"$tmp/tiny.err"
    rc=$?
    check "--max-time $t: a result, not 'no valid sample' (rc $rc)" \
        sh -c "test $rc -eq 0 && grep -q '\"samples\": [1-9]' '$tmp/tiny.json'"
    [ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$tmp/tiny.err"
done

done_testing
