#!/bin/sh
# neighbour.sh: a noisy neighbour.  A CPU hog, a shell busy loop
# pinned with taskset, runs (a) on another CPU than the measurement and
# (b) on the very CPU the measurement is pinned to.  Either way the run
# completes with status 0 and a sane interval; on the same CPU it must
# show the disturbance and must not print a confident wrong number.
#
# Every run has --max-time 3 and a hard bound of 60 s (timeout), and the
# hogs are killed on every way out of this script.  Every assertion about
# the numbers is a relation between runs made here, minutes apart at most,
# never an absolute time: the machine's speed and noise are unknown.
. "${top_srcdir:-.}/tests/lib.sh"

PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
    skip "noisy neighbour" "no python3 to read the runs' JSON"
    done_testing
    exit $?
fi

# The CPUs this test may run on; the measurement takes the last of them
# (as statbench does by default), the other hog the first other one.
cpus=$("$PY" -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
set -- $cpus
ncpu=$#
first=$1
eval "last=\${$#}"
C=$last
O=
[ "$ncpu" -gt 1 ] && O=$first
diag "allowed CPUs: $cpus; measuring on CPU $C${O:+, other CPU $O}"

if command -v taskset >/dev/null 2>&1; then
    PIN="taskset -c"
elif [ "$ncpu" -eq 1 ]; then
    PIN= # one CPU: the hog cannot be anywhere else
else
    skip "noisy neighbour" "no taskset to pin the hog to a CPU"
    done_testing
    exit $?
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbnb.XXXXXX") || exit 1
hogs=
stop_hogs() {
    for h in $hogs; do
        kill "$h" 2>/dev/null
        wait "$h" 2>/dev/null
    done
    hogs=
}
trap 'stop_hogs; rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# hog_on CPU: a busy loop on CPU, until stop_hogs.  It also ends by itself
# after 120 s (timeout), should this script be killed before its trap runs.
hog_on() {
    if [ -n "$PIN" ]; then
        $PIN "$1" timeout 120 sh -c 'while :; do :; done' &
    else
        timeout 120 sh -c 'while :; do :; done' &
    fi
    hogs="$hogs $!"
    sleep 0.2 # let it be scheduled before the run starts
}

run() { # run NAME [ARGS...]: one measurement on CPU $C into $tmp/NAME.json
    name=$1
    shift
    timeout 60 "$STATBENCH" -k libc -s 4K --cpu "$C" --max-time 3 "$@" \
        -f json -o "$tmp/$name.json" -q >"$tmp/$name.txt" 2>"$tmp/$name.err"
    rc=$?
    [ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$tmp/$name.err" | head -n 5
    return $rc
}

# facts NAME...: the JSON's interval and disturbances, checked by the
# Python expression in $EXPR over R[name] (printed when it fails).
facts() {
    "$PY" - "$tmp" "$EXPR" "$@" <<'PYEOF'
import json, math, sys
tmp, expr, names = sys.argv[1], sys.argv[2], sys.argv[3:]
R = {}
for n in names:
    try:
        d = json.load(open("%s/%s.json" % (tmp, n)))
    except Exception as e:
        print("# %s: %s" % (n, e))
        sys.exit(1)
    c = d["cells"][0]
    iv = c["interval"]
    taken = c["samples"] + c["rejected_total"]
    ctx = (c.get("disturbed") or {}).get("context-switch", 0)
    meds = c.get("invocation_medians") or [iv["estimate"]]
    R[n] = dict(interrupted=d["interrupted"], n=c["samples"],
                medmin=min(meds), medmax=max(meds),
                inv=c["invocations"], est=iv["estimate"], lo=iv["lo"],
                hi=iv["hi"], ctx=ctx, taken=taken,
                rate=ctx / taken if taken else 0.0,
                width=(iv["hi"] - iv["lo"]) / iv["estimate"]
                      if iv["estimate"] else float("inf"))
def sane(r):
    return (not r["interrupted"] and r["n"] > 0 and r["inv"] >= 6 and
            all(math.isfinite(r[k]) for k in ("est", "lo", "hi")) and
            0 < r["lo"] <= r["est"] <= r["hi"])
ok = bool(eval(expr, {"R": R, "sane": sane, "max": max, "min": min}))
if not ok:
    for n in names:
        r = R[n]
        print("# %-6s median %.2f ticks [%.2f, %.2f] width %.1f%%; %d "
              "invocations, medians %.2f to %.2f; %d of %d samples "
              "context-switched (%.2f%%)" %
              (n, r["est"], r["lo"], r["hi"], 100 * r["width"], r["inv"],
               r["medmin"], r["medmax"], r["ctx"], r["taken"],
               100 * r["rate"]))
sys.exit(0 if ok else 1)
PYEOF
}
describe() { # describe NAME: one diagnostic line about a run
    EXPR=False facts "$1" | sed 's/^# /# run: /'
}

# --- (a) a hog on another CPU -------------------------------------------
# Sane: not interrupted, six invocations at least, samples kept, a finite
# positive interval around its median.  Not a bound on its width: with
# six invocations the 95% interval runs from the lowest invocation median
# to the highest, and one invocation on a shared core or beside the
# loaded make check's other runs sets the upper end (54.5 against 107.5
# ticks in one "quiet" run of a CI make check, 52.6 against 158.0 in
# another): the width is the machine's noise, which the interval is right
# to show; what the numbers claim is checked below, as relations.  Its
# number is not compared with a quiet run's: a busy neighbour CPU may
# really change the cost (an SMT sibling sharing the core, a shared
# cache), and on a shared virtual machine runs minutes apart differ by
# more than that anyway (on the development KVM guest, with other work on
# it, quiet runs' medians differed by up to 1.8 times).
if [ -n "$O" ]; then
    hog_on "$O"
    run other
    rc=$?
    stop_hogs
    check "hog on CPU $O, run on CPU $C: completes (status $rc)" \
        test "$rc" -eq 0
    EXPR='sane(R["other"])' check "  its interval is sane" facts other
    describe other
else
    skip "hog on another CPU" "one CPU only"
fi

# --- (b) a hog on the same CPU, between two quiet runs ------------------
# triple: quiet1, then the run beside a hog on CPU $C, then quiet2.
# --precision 0: the loaded run measures for its whole 3 s beside the hog
# (with a target it could stop after tens of milliseconds of measuring),
# so the scheduler must preempt it many times, which a check below counts.
triple() {
    run quiet1
    rc1=$?
    hog_on "$C"
    run same --precision 0
    rc=$?
    stop_hogs
    run quiet2
    rc2=$?
}

# Not a confident wrong number.  The hog takes turns on the CPU but does
# not change what one call of memcpy costs while it runs, and the samples
# it interrupts are rejected, so the same-CPU run estimates what the quiet
# runs estimate.  What a benchmark that timed long stretches of calls
# would print is the time-shared cost, about twice the true one with one
# hog, and with a narrow interval, since every process sees the same
# sharing; statbench's short samples, rejected when preempted, and medians
# should not.
#
# The reference is not one quiet number but every quiet process's median:
# the invocations of the quiet runs just before and just after the loaded
# one (80 or so processes).  Comparing intervals alone is not robust on a
# shared or virtual machine: its state drifts over seconds (a busy SMT
# sibling on the host, a clock change), by more than one run's interval
# claims, so two quiet runs' intervals can be disjoint, and the loaded
# run can fall in either state (seen here: quiet runs at 94 and 65 ticks,
# the loaded one at 58, 2 ticks from the fastest quiet process).  Drift
# moves the truth within what the quiet processes measured; so the honest
# claim to check is that the same-CPU interval overlaps the range of the
# quiet invocation medians.  An interval wholly outside it claims, with
# 95% confidence, a value that no quiet process measured: that is the
# confident wrong number.  Its width does not excuse it (a wide interval
# that misses is still wrong), and a narrow one that overlaps is fine (the
# rejections removed the disturbed samples).  The check is as sensitive
# as the machine is quiet: on a quiet machine the quiet medians agree
# within a few percent, and a time-shared cost fails it by far.
#
# The host can still move between the three runs as a whole: a stretch
# of a shared core that begins after quiet2's start or ends before the
# loaded run's puts all of one run's processes in the other state (a
# sanitizer build in CI: quiet medians of 239-405 ticks, the loaded run
# outside them once in some ten runs).  So a triple that misses is taken
# again, up to three times in all: a drift of the host is not bound to
# the hog and falls elsewhere the next time, while a number the hog
# makes wrong is wrong in every triple, and fails all three.
overlaps='R["same"]["lo"] <= max(R["quiet1"]["medmax"], R["quiet2"]["medmax"]) and R["same"]["hi"] >= min(R["quiet1"]["medmin"], R["quiet2"]["medmin"])'
attempt=1
while :; do
    triple
    [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] || break
    EXPR=$overlaps facts same quiet1 quiet2 >"$tmp/overlap.txt" && break
    [ "$attempt" -lt 3 ] || break
    diag "triple $attempt: the loaded run's interval missed the quiet medians; the three runs again:"
    sed 's/^# /#   /' "$tmp/overlap.txt"
    attempt=$((attempt + 1))
done
check "quiet runs before and after complete (status $rc1, $rc2)" \
    test "$rc1" -eq 0 -a "$rc2" -eq 0
check "hog on the same CPU $C: completes (status $rc)" test "$rc" -eq 0
for r in quiet1 same quiet2; do describe "$r"; done
EXPR='sane(R["quiet1"]) and sane(R["quiet2"])' \
    check "  the quiet runs' intervals are sane" facts quiet1 quiet2
EXPR='sane(R["same"])' check "  its interval is sane" facts same

# Shows the disturbance.  Two tasks that both want the CPU must take
# turns on it: for the 3 s of the run the scheduler preempts the
# measurement every few milliseconds (hundreds of times), and a preemption
# inside a sample's checked window is counted as a context switch
# ("disturbed" in the JSON, the rejects section of the table).  That is
# caused here, by the hog, not hoped for from the machine: so the check is
# on the loaded run's own record.  It is not a comparison with the quiet
# runs, whose share of switched samples depends on what else runs on this
# CPU (other tests of a parallel make check pin their runs to it too) and
# can be as high as the loaded run's.  The comparison is printed for the
# reader.
EXPR='R["same"]["ctx"] >= 1' \
    check "  it shows the disturbance: context-switched samples counted" \
    facts same
EXPR='R["same"]["rate"] > max(R["quiet1"]["rate"], R["quiet2"]["rate"])' \
    facts same quiet1 quiet2 >/dev/null 2>&1 ||
    diag "the loaded run's share of switched samples is not above both quiet runs' (they were busy too)"

EXPR=$overlaps \
    check "  not a confident wrong number: its interval overlaps the quiet processes' medians ($attempt triple(s))" \
    facts same quiet1 quiet2

done_testing
