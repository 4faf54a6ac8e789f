#!/bin/sh
# progress.sh: the progress line on a terminal (a pseudo-terminal from
# script(1)): drawn, at most 10 times a second across the invocations,
# with the cells done, the invocation count, the elapsed time and an ETA;
# and nothing on a stderr that is not a terminal, or with -q.
. "${top_srcdir:-.}/tests/lib.sh"
run_scratch sbprog

"$STATBENCH" -k libc -s 4K --max-time 0.5 >/dev/null 2>"$tmp/err"
check "no progress line when stderr is a file" \
    sh -c "! grep -q 'invocation [0-9]* of' '$tmp/err'"

if ! command -v script >/dev/null 2>&1 ||
    ! script -qec true /dev/null >/dev/null 2>&1; then
    skip "the progress line on a terminal" "no script(1) with -e -c"
    done_testing
    exit $?
fi
# stdout to a file, stderr to the pseudo-terminal script records.
t0=$(now_ms)
script -qec "'$STATBENCH' -k libc,duff -s 4K --max-time 2 \
    --precision 0 -o '$tmp/out.json'" "$tmp/tty" >/dev/null 2>&1
t1=$(now_ms)
draws=$(tr '\r' '\n' <"$tmp/tty" | grep -c 'invocation [0-9]* of')
# An upper bound only: a slow machine draws less, never more.
limit=$(( (t1 - t0) / 100 + 2 ))
check "the line is drawn on a terminal ($draws times)" test "$draws" -ge 1
check "at most 10 times a second ($draws in $((t1 - t0)) ms, limit $limit)" \
    test "$draws" -le "$limit"
check "it counts invocations of the 6" grep -q 'invocation [1-6] of 6' \
    "$tmp/tty"
check "without a target: the cells, the elapsed time and an ETA" \
    grep -q '2 cells (no precision target), invocation .*, [0-9.]* s, ETA' \
    "$tmp/tty"
# With a target: the cells done so far, of the plan's.
script -qec "'$STATBENCH' -k libc,duff -s 4K --max-time 1 \
    -o '$tmp/out3.json'" "$tmp/tty3" >/dev/null 2>&1
check "with a target: k of 2 cells done, and an ETA" \
    grep -q '[0-2] of 2 cells done, invocation [1-9]* of 6+*, [0-9.]* s, ETA' \
    "$tmp/tty3"
script -qec "'$STATBENCH' -k libc -s 4K --max-time 0.5 -q \
    -o '$tmp/out2.json'" "$tmp/tty2" >/dev/null 2>&1
check "-q: no progress line on a terminal" \
    sh -c "! grep -q 'invocation [0-9]* of' '$tmp/tty2'"
# A terminal 40 columns wide that knows no escapes (TERM=dumb): every
# draw fits in 39 columns (a wrapped line cannot be taken back), and no
# ESC[K is sent.  (Skipped where the pseudo-terminal cannot be narrowed.)
if script -qec "stty cols 40" /dev/null >/dev/null 2>&1; then
    script -qec "stty cols 40; TERM=dumb '$STATBENCH' -k libc,duff \
        -s 4K --max-time 1 --precision 0 -o '$tmp/out4.json'" "$tmp/tty4" \
        >/dev/null 2>&1
    check "a 40-column terminal: the line is drawn" \
        grep -q 'statbench: ' "$tmp/tty4"
    check "  each draw within 39 columns" sh -c '
        tr "\r" "\n" <"$1" | grep "statbench: .*invocation\|statbench: [0-9 ]*cells\|ETA" |
            awk "length(\$0) > 39 { bad = 1 } END { exit bad }"' sh "$tmp/tty4"
    check "  TERM=dumb: no escape sequence" \
        sh -c '! grep -q "$(printf "\033")\[K" "$1"' sh "$tmp/tty4"
else
    skip "the progress line on a narrow terminal" "stty cannot set cols"
fi

done_testing
