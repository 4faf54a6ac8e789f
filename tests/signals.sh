#!/bin/sh
# signals.sh: Ctrl-C during a run.  One SIGINT stops the run
# after the sample in progress; the samples so far are analysed and
# written, marked interrupted, and the status is 130.  A second SIGINT,
# sent while the first is still being handled, ends the process at once by
# the signal's default action: no analysis, nothing written.  Ctrl-C at a
# terminal signals the whole process group, forked invocations included.
# SIGHUP stops it as SIGTERM does (status 129), and keeps --save; a reader
# gone from the pipe or a file size limit fails a write, never the run.
# (SIGTERM, status 143, is in cli.sh.)
#
# The runs would take 60 s; every wait is bounded (30 s, then SIGKILL).
. "${top_srcdir:-.}/tests/lib.sh"

run_scratch sbsig


# wait_bounded PID: wait for PID to end, at most 30 s, then SIGKILL it.
# Sets rc (its status) and took (milliseconds from the call).
wait_bounded() {
    start=$(now_ms)
    wait_for "$1" 30000 0.02
}

# A run that, once interrupted, has seconds of work left: one invocation
# (measured in this process), no precision target (--precision 0: the stop
# rule never holds, however quiet the machine; a tiny target such as
# 0.001% was reached in 2 s on a quiet one) and no sample limit, so it
# measures until the signal, with tens of thousands of samples by then;
# and a BCa bootstrap of 5000 resamples of them, which the analysis after
# the first SIGINT takes seconds to compute.  That is the window in which
# the second SIGINT arrives.  Every sample is kept (--reject none): under
# a loaded make check the shared-core reject once left so few that the
# analysis ended within the 0.1 s before the second SIGINT.
LONG="-k libc -s 4K --invocations 1 --max-time 60 --precision 0
      --max-samples 100000000 --bootstrap 5000 --reject none -f json -q"

interrupted_json() { # FILE: a run marked interrupted, with samples
    [ -n "$PY" ] || return 0
    "$PY" - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True, d["interrupted"]
assert d["cells"] and all(c["samples"] > 0 for c in d["cells"])
PYEOF
}

# --- one SIGINT: partial results, status 130 --------------------------------
# shellcheck disable=SC2086
"$STATBENCH" $LONG -o "$tmp/one.json" >"$tmp/one.txt" 2>"$tmp/one.err" &
pid=$!
sleep 2
kill -INT "$pid"
wait_bounded "$pid"
t1=$took
diag "one SIGINT: status $rc after $t1 ms"
check "one SIGINT: exit status 130 (rc $rc)" test "$rc" -eq 130
check "one SIGINT: ends within 30 s of it ($t1 ms)" test "$t1" -lt 30000
check "one SIGINT: says the results are partial" \
    grep -q 'interrupted: partial results' "$tmp/one.err"
check "one SIGINT: the table says INTERRUPTED" grep -q 'INTERRUPTED' "$tmp/one.txt"
check "one SIGINT: -o FILE written" test -s "$tmp/one.json"
if [ -n "$PY" ]; then
    check "one SIGINT: the JSON holds the samples, \"interrupted\": true" \
        interrupted_json "$tmp/one.json"
else
    check "one SIGINT: the JSON says \"interrupted\": true" \
        grep -q '"interrupted": true' "$tmp/one.json"
fi

# --- SIGHUP (a dropped ssh session): as SIGTERM, status 129 -----------------
# The baseline is saved too: what a hang-up must not lose.
# shellcheck disable=SC2086
STATBENCH_BASELINES="$tmp/bl" "$STATBENCH" $LONG -o "$tmp/hup.json" \
    --save hup >"$tmp/hup.txt" 2>"$tmp/hup.err" &
pid=$!
sleep 2
kill -HUP "$pid"
wait_bounded "$pid"
check "SIGHUP: exit status 129 (rc $rc)" test "$rc" -eq 129
check "SIGHUP: says the results are partial" \
    grep -q 'interrupted: partial results' "$tmp/hup.err"
check "SIGHUP: -o FILE written" test -s "$tmp/hup.json"
check "SIGHUP: the baseline saved" test -s "$tmp/bl/hup.json"
if [ -n "$PY" ]; then
    check "SIGHUP: the JSON holds the samples, \"interrupted\": true" \
        interrupted_json "$tmp/hup.json"
fi

# --- a reader gone (| true) and a file size limit (ulimit -f) ---------------
# Neither signal may kill the run: the write it hits fails with one line
# and status 1, the other outputs and the save are still written, and no
# temporary file is left.  The short run below writes its table at the
# end, when true has long exited.
SHORT="-k libc -s 4K --max-time 0.5 --invocations 2 --max-invocations 2"
# shellcheck disable=SC2086
{ STATBENCH_BASELINES="$tmp/bl" "$STATBENCH" $SHORT --save pipe \
      2>"$tmp/pipe.err"; echo "$?" >"$tmp/pipe.rc"; } | true
rc=$(cat "$tmp/pipe.rc")
check "stdout's reader gone: status 1, not SIGPIPE's 141 (rc $rc)" \
    test "$rc" -eq 1
check "  the baseline saved all the same" test -s "$tmp/bl/pipe.json"
check "  and said so" grep -q "saved as baseline 'pipe'.*not written" \
    "$tmp/pipe.err"
# ulimit -f counts 512- or 1024-byte blocks: 4 of either is well below the
# run's JSON (tens of KB).
# shellcheck disable=SC2086
(ulimit -f 4 && exec "$STATBENCH" $SHORT -q -o "$tmp/big.json" \
    >"$tmp/big.txt" 2>"$tmp/big.err")
rc=$?
check "a file size limit: status 1, not SIGXFSZ's 153 (rc $rc)" \
    test "$rc" -eq 1
check "  a line naming the file and the limit" \
    grep -q 'big\.json: writing failed: File too large' "$tmp/big.err"
sed 's/^/#   stderr: /' "$tmp/big.err"
check "  no file and no temporary file left" \
    sh -c "! ls '$tmp' | grep -q '^big\\.json'"
# shellcheck disable=SC2086
(ulimit -f 4 && exec env STATBENCH_BASELINES="$tmp/bl" "$STATBENCH" \
    $SHORT -q --save big >/dev/null 2>"$tmp/bigsave.err")
rc=$?
check "  --save under the limit: status 1 (rc $rc), no temporary file" \
    sh -c "test $rc -eq 1 && ! ls '$tmp/bl' | grep -q '^big'"

# --- two SIGINTs: the second ends the process at once -----------------------
# A bootstrap of the single invocation's tens of thousands of samples makes
# the analysis after the first SIGINT last seconds: without it the run
# could finish its analysis and its file within the 0.1 s before the
# second (it did once, in 4 ms), and there would be nothing to end.
# shellcheck disable=SC2086
"$STATBENCH" $LONG --bootstrap 20000 -o "$tmp/two.json" >"$tmp/two.txt" \
    2>"$tmp/two.err" &
pid=$!
# Under emulation the set-up alone can take 3 s: the samples come later.
sleep $((2 * SB_TEST_TIME_SCALE))
kill -INT "$pid"
sleep 0.1 # the first is being handled: the analysis has begun
kill -INT "$pid"
wait_bounded "$pid"
t2=$took
diag "two SIGINTs: status $rc after $t2 ms from the second"
# A process killed by SIGINT has status 128 + 2 in the shell, as exit(130)
# would; what tells them apart is that it wrote and said nothing more.
check "two SIGINTs: status 130, killed by SIGINT (rc $rc)" test "$rc" -eq 130
check "two SIGINTs: nothing written (no -o FILE, no temporary file)" \
    sh -c "! ls '$tmp' | grep -q '^two\\.json'"
check "two SIGINTs: no 'partial results' line (it did not finish)" \
    sh -c "! grep -q 'partial results' '$tmp/two.err'"
# The relation: the second SIGINT ends it in well under the time the
# first one alone took to end the run (the analysis and the writing).
check "two SIGINTs: ends in under a quarter of one SIGINT's time ($t2 ms, $t1 ms)" \
    test $((4 * t2)) -lt "$t1"
[ "$t1" -ge 400 ] ||
    diag "one SIGINT took only $t1 ms: the window for the second is short"

# --- Ctrl-C to the process group of a run of forked invocations -------------
# setsid gives the run a process group of its own (it does not fork when
# started in the background of a shell without job control), and the
# signal goes to the group, as a terminal's Ctrl-C does: the parent and
# the invocation measuring both receive it.
if command -v setsid >/dev/null 2>&1; then
    setsid "$STATBENCH" -k libc,duff -s 4K --max-time 60 --precision 0 \
        -f json -o "$tmp/group.json" -q >"$tmp/group.txt" 2>"$tmp/group.err" &
    pid=$!
        sleep 2
    pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')
    if [ "$pgid" = "$pid" ]; then
        sid=$pid
        kill -INT "-$pid"
        wait_bounded "$pid"
        diag "Ctrl-C to the group: status $rc after $took ms"
        check "Ctrl-C to the group: exit status 130 (rc $rc)" test "$rc" -eq 130
        check "Ctrl-C to the group: ends within 30 s ($took ms)" \
            test "$took" -lt 30000
        check "Ctrl-C to the group: -o FILE written" test -s "$tmp/group.json"
        if [ -n "$PY" ]; then
            check "Ctrl-C to the group: the JSON holds the samples, \"interrupted\": true" \
                interrupted_json "$tmp/group.json"
        fi
        check "Ctrl-C to the group: no invocation left running" \
            sh -c "! ps -o pid= -s '$sid' 2>/dev/null | grep -q ."
    else
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        pid=
        skip "Ctrl-C to the process group" \
            "setsid did not give the run its own group (pgid '$pgid')"
    fi
else
    skip "Ctrl-C to the process group" "no setsid"
fi

done_testing
