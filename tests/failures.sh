#!/bin/sh
# failures.sh: no wrong figure reported as success, and no measured data
# thrown away.
#
#  - An alloc kernel whose mmap fails inside the run (an address-space
#    limit at the edge) reports the failure; its samples are rejected
#    under "kernel-failed", and a cell left without samples makes the
#    run exit 1 with a line saying why.  Before, such a run exited 0 with
#    thousands of MB/s and no page faults.
#  - An invocation killed with SIGKILL keeps the invocations that
#    finished: the table and JSON are written, marked interrupted, a line
#    names the invocation and the signal, and the status is 1.
#  - A run killed with SIGKILL takes its measuring child with it.
#
# The library side (sb_kernel_failed, sb_run_empty_cells, the gate, a
# kernel that calls exit()) is tests/test_failures.c.
. "${top_srcdir:-.}/tests/lib.sh"
skip_emulated "runs under an address-space limit" \
    "qemu-user maps the program's memory itself, inside its own address space"

run_scratch sbfail

# --- 5, 6: mmap failing inside the run ---------------------------------------
# ulimit -v at the edge: the smallest limit (to 4 KiB) under which the
# kernel's setup still maps its 16 MiB.  The run allocates more after
# setup, and then the timed calls' mmap fails: 32 small cells beside the
# 16 MiB one make sure of that, their sample arrays (8 KiB each at the
# first sample) growing the heap after every setup is done.  A little
# higher, fewer calls fail, or none.
SIZES=16777216
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 \
    25 26 27 28 29 30 31 32; do
    SIZES="$SIZES,$((i * 4096))"
done

# limited LIMIT_KIB NAME [MAX_SAMPLES]: the run under that limit, into
# NAME.json, .out and .err.  Disturbed samples are kept (--reject none), so
# that only a failed call can leave a cell without samples, however busy
# the machine.
limited() {
    (ulimit -v "$1" 2>/dev/null || exit 99
     exec "$STATBENCH" -q -k mmap_touch -s "$SIZES" --invocations 1 \
         --max-time 5 --reject none --min-samples 2 \
         --max-samples "${3:-40}" -f json -o "$tmp/$2.json") \
        >"$tmp/$2.out" 2>"$tmp/$2.err"
}

# Whether the kernel got past its setup: the run succeeded, or it failed
# for want of valid samples (not for "cannot mmap" in setup, nor for
# anything else a too-small limit breaks first).
past_setup() { # NAME RC
    [ "$2" -eq 0 ] || grep -q 'no valid sample' "$tmp/$1.err"
}

# outcome NAME RC: every cell either has kept samples that are real calls
# (a page fault per page) and the run's notes name the failed calls, or
# has none, and then the run failed with a line saying why.  Prints the
# failed calls of the 16 MiB cell.
outcome() {
    "$PY" - "$tmp/$1.json" "$2" "$tmp/$1.err" <<'PYEOF'
import json, sys
path, rc, errf = sys.argv[1], int(sys.argv[2]), sys.argv[3]
err = open(errf).read()
d = json.load(open(path))
empty = 0
for c in d["cells"]:
    failed = c["rejected"].get("kernel-failed")
    assert failed is not None, "no kernel-failed count in the JSON"
    if c["samples"] == 0:
        empty += 1
        line = "mmap_touch, %d bytes, offsets 0/0: no valid sample" % c["size"]
        assert line in err and "kernel-failed %d" % failed in err, err
        continue
    pf = (c.get("samples_counters") or {}).get("perf::PAGE-FAULTS")
    if pf:
        bad = [v for v in pf if v is None or v < 0.9 * c["size"] / 4096]
        assert not bad, "%d B: samples without their page faults: %r" % (
            c["size"], bad[:5])
    if failed:
        assert any("mmap_touch, %d bytes:" % c["size"] in n and
                   "a call failed" in n for n in d["meta"]["notes"]), \
            d["meta"]["notes"]
assert rc == (1 if empty else 0), "exit %d with %d empty cells" % (rc, empty)
print(d["cells"][0]["rejected"]["kernel-failed"])
PYEOF
}

if grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize' \
        "$top_builddir/Makefile" 2>/dev/null; then
    skip "mmap failing under ulimit -v" \
        "sanitizer build (ASan reserves terabytes of address space)"
elif [ -z "$PY" ]; then
    skip "mmap failing under ulimit -v" "no python3 to read the JSON"
elif ! (ulimit -v 262144) 2>/dev/null; then
    skip "mmap failing under ulimit -v" "ulimit -v cannot be set here"
else
    hi=262144
    limited "$hi" hi
    rc=$?
    if ! past_setup hi "$rc" && grep -q 'cannot mmap' "$tmp/hi.err"; then
        skip "mmap failing under ulimit -v" \
            "no 16 MiB under 256 MiB: $(head -n 1 "$tmp/hi.err")"
    elif ! past_setup hi "$rc"; then
        diag "$(cat "$tmp/hi.err")"
        check "mmap_touch runs under ulimit -v 256 MiB (rc $rc)" false
    else
        lo=16384
        while [ $((hi - lo)) -gt 4 ]; do
            mid=$(((lo + hi) / 2))
            limited "$mid" probe 2
            rc=$?
            if past_setup probe "$rc"; then hi=$mid; else lo=$mid; fi
        done
        diag "the kernel's setup maps 16 MiB from ulimit -v $hi KiB up"
        n_failed=0
        for extra in 0 256 4096; do
            limited $((hi + extra)) "edge$extra"
            rc=$?
            what="ulimit -v $hi + $extra KiB: no wrong figure as success"
            if f=$(outcome "edge$extra" "$rc" 2>"$tmp/why"); then
                diag "ulimit -v $hi + $extra: exit $rc, $f calls failed"
                [ "$f" -gt 0 ] && n_failed=$((n_failed + 1))
                check "$what" true
            else
                diag "exit $rc: $(tail -n 1 "$tmp/why")"
                diag "stderr: $(head -n 3 "$tmp/edge$extra.err")"
                check "$what" false
            fi
        done
        # Not vacuous: at the edge the timed calls did fail.
        check "at the edge timed mmaps failed, counted ($n_failed runs)" \
            test "$n_failed" -gt 0
        # That run as a baseline (it was not saved with --save: a run
        # with an empty cell is no baseline; copied here by hand): a cell
        # compared with an empty one cannot pass --against.
        if "$PY" -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["cells"][0]["samples"] != 0)' \
            "$tmp/edge0.json" 2>/dev/null; then
            mkdir "$tmp/bl" && cp "$tmp/edge0.json" "$tmp/bl/edge.json"
            STATBENCH_BASELINES=$tmp/bl "$STATBENCH" -q -k mmap_touch \
                -s 16777216 --invocations 1 --max-time 5 --reject none \
                --min-samples 2 --max-samples 5 --against edge \
                >"$tmp/ag.out" 2>"$tmp/ag.err"
            rc=$?
            diag "$(cat "$tmp/ag.err")"
            check "--against a baseline cell without samples: exit 1 (rc $rc)" \
                test "$rc" -eq 1
            check "  with a line saying it cannot be compared" \
                grep -q "cannot be compared with baseline 'edge' in 1 of 1 cells" \
                "$tmp/ag.err"
        else
            skip "--against a baseline cell without samples" \
                "the edge run kept samples of the 16 MiB cell"
        fi
    fi
fi

if ! command -v pgrep >/dev/null 2>&1 || [ ! -r /proc/self/exe ]; then
    skip "a killed invocation, a killed run" "no pgrep or no /proc"
    done_testing
    exit $?
fi

# --- 9: an invocation killed -------------------------------------------------
# The run's processes: the one started (a libtool wrapper script, or the
# program), the program, and its forked invocation: a process that runs
# the same executable as its parent.
descendants() {
    for c in $(pgrep -P "$1" 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}
invocation_of() {
    for p in $(descendants "$1"); do
        pp=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ')
        e=$(readlink "/proc/$p/exe" 2>/dev/null) || continue
        [ -n "$pp" ] && [ "$e" = "$(readlink "/proc/$pp/exe" 2>/dev/null)" ] &&
            echo "$p"
    done
}
# wait_gone PID SECONDS: PID ended (or is a zombie) within SECONDS.
wait_gone() {
    i=0
    while [ "$i" -lt $(($2 * 20)) ]; do
        st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
        [ "$st" = Z ] && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# --precision 0 (never stop on precision) where this build has it; else a
# target too tight to reach soon (the retries below cover the rest).
if "$STATBENCH" --precision 0 --help >/dev/null 2>&1; then
    NEVER="--precision 0"
else
    NEVER="--precision 0.00001"
fi

# Four invocations of 5 s each that never stop on precision: the second
# is killed once the first has finished.  Should the run end before the
# kill, the attempt is repeated (three at most), never passed.
killed=
for attempt in 1 2 3; do
    # shellcheck disable=SC2086
    "$STATBENCH" -k libc -s 4K --invocations 4 --max-time 20 $NEVER \
        --max-samples 100000000 -f json -o "$tmp/kill.json" \
        >"$tmp/kill.out" 2>"$tmp/kill.err" &
    pid=$!
    first= second=
    i=0
    while [ "$i" -lt 300 ] && kill -0 "$pid" 2>/dev/null; do
        c=$(invocation_of "$pid" | head -n 1)
        if [ -n "$c" ] && [ -z "$first" ]; then
            first=$c
        elif [ -n "$c" ] && [ "$c" != "$first" ]; then
            second=$c
            break
        fi
        sleep 0.05
        i=$((i + 1))
    done
    if [ -n "$second" ]; then
        sleep 0.5 # well into its measuring
        kill -KILL "$second" 2>/dev/null && killed=$second
    fi
    i=0
    while [ "$i" -lt 600 ] && kill -0 "$pid" 2>/dev/null; do
        sleep 0.05
        i=$((i + 1))
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    pid=
    [ -n "$killed" ] && grep -q 'died with signal 9' "$tmp/kill.err" && break
    diag "attempt $attempt: no invocation killed mid-run (status $rc)"
    diag "$(cat "$tmp/kill.err")"
    killed=
done
if [ -z "$killed" ]; then
    check "a killed invocation: the run outlived the kill" false
else
    diag "invocation process $killed killed; status $rc"
    check "a killed invocation: exit status 1 (rc $rc)" test "$rc" -eq 1
    check "a killed invocation: says which died and how" \
        grep -q 'invocation 1 died with signal 9 (Killed): partial results' \
        "$tmp/kill.err"
    check "a killed invocation: -o FILE written" test -s "$tmp/kill.json"
    if [ -n "$PY" ]; then
        check "a killed invocation: the JSON keeps invocation 0, with a note" \
            "$PY" - "$tmp/kill.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True
assert d["invocations_run"] == 1, d["invocations_run"]
assert all(c["samples"] > 0 for c in d["cells"])
assert any("invocation 1 died with signal 9" in n for n in d["meta"]["notes"])
PYEOF
    fi
fi

# --- 9: the parent killed: its invocation goes with it -----------------------
# shellcheck disable=SC2086
"$STATBENCH" -k libc -s 4K --invocations 2 --max-time 60 $NEVER \
    --max-samples 100000000 -q >/dev/null 2>"$tmp/parent.err" &
pid=$!
child=
i=0
while [ "$i" -lt 300 ] && [ -z "$child" ] && kill -0 "$pid" 2>/dev/null; do
    child=$(invocation_of "$pid" | head -n 1)
    sleep 0.05
    i=$((i + 1))
done
if [ -z "$child" ]; then
    check "a killed run: an invocation was found to watch" false
    diag "$(cat "$tmp/parent.err")"
else
    # The program, parent of the invocation (the wrapper script, if any,
    # is not the one that matters).
    main=$(ps -o ppid= -p "$child" | tr -d ' ')
    kill -KILL "$main"
    check "a killed run: its invocation ends within 5 s" wait_gone "$child" 5
    kill -KILL "$child" 2>/dev/null
fi
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=

# A small stack (ulimit -s 64: SIGSEGV in the run's frames and PAPI's
# start): a soft limit is raised as far as the hard one lets; a hard
# limit too low is one line and exit 2, never a crash.
(ulimit -Ss 64 && "$STATBENCH" -k libc -s 4K --max-time 0.3 \
    --invocations 2 -q >/dev/null 2>"$tmp/err")
rc=$?
check "a soft stack limit of 64 KiB: the run goes on (rc $rc)" \
    test "$rc" -eq 0 -o "$rc" -eq 1
if (ulimit -Ss 64 && ulimit -Hs 64) 2>/dev/null; then
    check "a hard stack limit of 64 KiB: one line, exit 2" sh -c '
        ulimit -Ss 64 && ulimit -Hs 64 &&
        "$1" -k libc -s 4K --max-time 0.3 -q >"$2/out" 2>"$2/err"
        rc=$?
        [ "$rc" -eq 2 ] && [ "$(wc -l <"$2/err")" -eq 1 ] &&
            grep -q "stack limit 64 KiB (ulimit -s), at most 64 KiB" \
                "$2/err"' sh "$STATBENCH" "$tmp"
else
    skip "a hard stack limit of 64 KiB" "ulimit -H cannot be lowered here"
fi

done_testing
