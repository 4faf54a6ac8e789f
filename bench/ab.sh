#!/bin/sh
# bench/ab.sh: "before and after in one run", the benchmarks, printed as
# figures.
#
# Two builds of one kernel compared the ways statbench offers, and whole
# commands compared with statbench cmd and with hyperfine.  It prints,
# after the CPU model and the date:
#  1. A/A, kernels from shared objects: one source (bench/ab_kernel.c)
#     built once as a.so and copied to b.so (two files, so two dlmopen
#     namespaces); `statbench ab a.so b.so --symbol ab_copy -s SIZE`
#     PAIRS times; the false verdicts (new "faster" or "slower" than old)
#     among them.  The project's goal: at most 1 in 20.
#  2. Power: the same source built with -DEXTRA_PCT=3 (slow.so: the kernel
#     copies 3% of the bytes a second time, 3% more of the same work);
#     `statbench ab a.so slow.so ... --precision 0 --max-time POWER_TIME`
#     POWER_RUNS times; how many say "slower", and the median of the
#     measured ratios (it should come out near 1.03).  The goal: at least
#     9 of 10.
#  3. The same two figures through a saved baseline (W: the work
#     directory in --dir, where the objects are built):
#     `statbench --kernel-from W/a.so:ab_copy=k -s SIZE --save NAME`, then
#     `statbench --kernel-from W/b.so:ab_copy=k -s SIZE --against NAME`
#     (A/A), and the same with slow.so against a.so (power), each run with
#     the options of the ab run it stands beside (so each build gets a run
#     of its own, twice the measuring time of ab's run of both); a fresh
#     baseline name each time, so a failed --save never leaves an older
#     baseline to compare with.  The ab run and the baseline pair of each
#     index run one after the other, so that a change of the host lands
#     on both methods alike.  A table: method x (A/A false verdicts of N,
#     slowdown detected of N).  A verdict the host profile withheld (a
#     run it judged measured on a shared core: "inconclusive") counts as
#     what it is, inconclusive, and the count of them is shown.
#  4. A/A of whole commands: bench/busy.c, a multiply-add loop of ITER
#     steps, ITER calibrated at start-up to about 10 ms (busy --calibrate),
#     copied to busy_a and busy_b (statbench cmd refuses one command
#     twice); `statbench cmd -N './busy_a ITER' './busy_b ITER'` (its
#     default 20 rounds) PAIRS times; the false verdicts of command 2
#     against command 1.
#  5. Time to a +-1% interval for that command pair, for N = 10, 20, 40,
#     80, 160 runs of each command, stopping at the first N where both
#     commands are within +-1%, and the wall time of that one run (the
#     tool's process from start to exit, timed around it):
#     - statbench cmd -N --runs N: the cell's rel_halfwidth in its JSON
#       (half the width of its 95% interval of the median, over the
#       median: order statistics over the rounds);
#     - hyperfine -N --runs N --export-json: from each command's `times`,
#       the 95% Student t interval of the mean, t(0.975, N-1) * sd /
#       sqrt(N), over the mean (sd with N-1; the t quantile by the
#       Cornish-Fisher expansion from the normal's, within 0.001 of the
#       table from 4 degrees of freedom on: no scipy needed).
# A verdict is the `comparison.verdict` of the compared cell in the run's
# JSON (`-f json -o`): the exit status alone cannot tell faster from the
# same (both 0).  A run that fails (exit 2, no JSON, or no comparison in
# it) is counted and reported as failed, never as a verdict.  The exit
# status of the gates (0 pass, 1 fail, 3 undecided) is shown beside.
#
# It is a benchmark, not a test: it takes up to about 50 minutes at the
# defaults (20 A/A indices of up to 30 s for ab and twice that for the
# baseline pair, 10 power indices of 30 s and 60 s, then some seconds of
# commands), nothing asserts, and neither CI nor `make check` runs it.
# A quick look (under a minute): bench/ab.sh --quick
# Needs a C compiler (${CC:-cc}), python3 (to read the JSON) and, for 5,
# hyperfine (skipped without it).  Every run's output stays in --dir,
# with the host profile (STATBENCH_STATE) and the baselines
# (STATBENCH_BASELINES) of these runs: the user's own are neither read
# nor touched, so the profile starts empty (its first runs are judged
# against few) unless --dir names the directory of an earlier run.
set -u

STATBENCH=${STATBENCH:-$(dirname "$0")/../statbench}
SRC=$(dirname "$0")
BENCH=$(cd "$SRC" && pwd) # run_json.py, for the readers of the runs
SYM=ab_copy
PAIRS=
POWER_RUNS=
POWER_TIME=
AA_TIME=
LADDER_MAX=
SIZE=4096
SLOW=3
DIR=
QUICK=0

usage() {
    cat <<USAGE
Usage: $0 [--pairs N] [--power-runs N] [--power-time SEC] [--aa-time SEC]
          [--size BYTES] [--slowdown PCT] [--ladder-max N] [--quick]
          [--statbench PATH] [--dir DIR]
  --pairs N         A/A runs of each kind: ab, saved baseline, cmd
                    (default 20; 0: none)
  --power-runs N    runs of the injected slowdown, ab and saved baseline
                    (default 10; 0: none)
  --power-time SEC  --max-time of each power run, at --precision 0
                    (default 30)
  --aa-time SEC     --max-time of each A/A kernel run (default: statbench's
                    own, 30 s, with its +-1% stop)
  --size BYTES      bytes per call of the kernel (default 4096)
  --slowdown PCT    the injected slowdown, a whole percentage (default 3)
  --ladder-max N    the largest N of the +-1% ladder 10, 20, 40, ...
                    (default 160)
  --quick           a smoke test: 2 pairs, 2 power runs of 3 s, A/A runs
                    of 3 s, the ladder up to 20 (options given beside it
                    win)
  --statbench P     the statbench to run (default: the one beside bench/,
                    or \$STATBENCH)
  --dir DIR         where every run's output goes (default: a new
                    temporary directory, kept and named at the end)
Environment: CC (default cc) and CFLAGS (default -O2) build the kernel
objects and the busy loop.
USAGE
}

# need_arg, is_count, is_positive
. "$(dirname "$0")/args.sh"

while [ $# -gt 0 ]; do
    case $1 in
    --pairs) need_arg "$@"; is_count "$1" "$2"; PAIRS=$2; shift 2 ;;
    --power-runs) need_arg "$@"; is_count "$1" "$2"; POWER_RUNS=$2
        shift 2 ;;
    --power-time) need_arg "$@"; is_positive "$1" "$2"; POWER_TIME=$2
        shift 2 ;;
    --aa-time) need_arg "$@"; is_positive "$1" "$2"; AA_TIME=$2; shift 2 ;;
    --size) need_arg "$@"; is_positive "$1" "$2"; SIZE=$2; shift 2 ;;
    --slowdown) need_arg "$@"; is_positive "$1" "$2"; SLOW=$2; shift 2 ;;
    --ladder-max) need_arg "$@"; is_count "$1" "$2"; LADDER_MAX=$2
        shift 2 ;;
    --quick) QUICK=1; shift ;;
    --statbench) need_arg "$@"; STATBENCH=$2; shift 2 ;;
    --dir) need_arg "$@"; DIR=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [ "$QUICK" -eq 1 ]; then
    : "${PAIRS:=2}" "${POWER_RUNS:=2}" "${POWER_TIME:=3}" "${AA_TIME:=3}"
    : "${LADDER_MAX:=20}"
else
    : "${PAIRS:=20}" "${POWER_RUNS:=10}" "${POWER_TIME:=30}"
    : "${LADDER_MAX:=160}"
fi

[ -x "$STATBENCH" ] || {
    echo "$0: statbench '$STATBENCH' is not an executable (build it, or" \
        "use --statbench)" >&2
    exit 2
}
# Absolute: the command runs start in the work directory.
case $STATBENCH in
/*) ;;
*) STATBENCH=$(pwd)/$STATBENCH ;;
esac
command -v python3 >/dev/null 2>&1 || {
    echo "$0: python3 is needed to read the runs' JSON" >&2
    exit 2
}
for f in ab_kernel.c busy.c; do
    [ -f "$SRC/$f" ] || { echo "$0: $SRC/$f: not found" >&2; exit 2; }
done
if [ -z "$DIR" ]; then
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/statbench-ab.XXXXXX") || exit 1
else
    mkdir -p -- "$DIR" || exit 1
fi
DIR=$(cd -- "$DIR" && pwd) || exit 1
WORK=$DIR/work
mkdir -p -- "$WORK" || exit 1
# This script's own host profile and baselines (0700, as statbench wants
# its state directory): the user's are neither read nor changed.
STATBENCH_STATE=$DIR/state
STATBENCH_BASELINES=$DIR/baselines
mkdir -m 700 -- "$STATBENCH_STATE" "$STATBENCH_BASELINES" 2>/dev/null ||
    [ -d "$STATBENCH_STATE" ] && [ -d "$STATBENCH_BASELINES" ] || exit 1
export STATBENCH_STATE STATBENCH_BASELINES

CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}
# The objects are built from one source with the same flags; b.so is a
# copy of a.so, byte for byte, so that the A/A pair is one build loaded
# twice.  CC and CFLAGS are split on blanks on purpose ('ccache gcc').
build() {
    echo "+ $*" >>"$WORK/build.log"
    "$@" >>"$WORK/build.log" 2>&1 || {
        echo "$0: build failed:" >&2
        cat "$WORK/build.log" >&2
        exit 2
    }
}
: >"$WORK/build.log"
# shellcheck disable=SC2086
build $CC $CFLAGS -Wall -Wextra -fPIC -shared -o "$WORK/a.so" \
    "$SRC/ab_kernel.c"
# shellcheck disable=SC2086
build $CC $CFLAGS -Wall -Wextra -fPIC -shared -DEXTRA_PCT="$SLOW" \
    -o "$WORK/slow.so" "$SRC/ab_kernel.c"
# shellcheck disable=SC2086
build $CC $CFLAGS -Wall -Wextra -o "$WORK/busy" "$SRC/busy.c"
build cp "$WORK/a.so" "$WORK/b.so"
build cp "$WORK/busy" "$WORK/busy_a"
build cp "$WORK/busy" "$WORK/busy_b"

# The readers of the runs' output, one program: `verdicts` tallies runs'
# comparisons, `cmdwidth` and `hfwidth` give a ladder rung's half-widths,
# `summary` prints the final block from what `verdicts` recorded.
cat >"$WORK/read.py" <<'PY'
import json, math, os, sys
from statistics import NormalDist, median, mean, stdev

from run_json import load

DIR = os.environ["AB_DIR"]


def first_line(path):
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("statbench: warning"):
                    return line
    except OSError:
        pass
    return "(no message)"


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v)


def verdicts(label, names):
    """One line per run, then the tally; the tally also goes to
    summary.tsv for the final block."""
    t = {"n": len(names), "faster": 0, "slower": 0, "equivalent": 0,
         "inconclusive": 0, "failed": 0, "withheld": 0}
    gates = {}
    ratios = []
    for name in names:
        base = os.path.join(DIR, name)
        try:
            rc = open(base + ".rc").read().strip()
        except OSError:
            rc = "?"
        if rc == "skip":
            t["failed"] += 1
            print("  %s: failed: not run (%s)" % (name, first_line(
                base + ".err")))
            continue
        run = load(base + ".json")
        cmp = None
        if rc != "2" and isinstance(run, dict):
            for c in run.get("cells") or []:
                if isinstance(c, dict) and isinstance(c.get("comparison"),
                                                      dict):
                    cmp = c["comparison"]
        v = cmp.get("verdict") if cmp else None
        if v not in ("faster", "slower", "equivalent", "inconclusive"):
            t["failed"] += 1
            print("  %s: failed (exit %s): %s" % (name, rc, first_line(
                base + ".err")))
            continue
        t[v] += 1
        r = cmp.get("ratio") or {}
        if num(r.get("estimate")):
            ratios.append(r["estimate"])
        gate = {"0": "pass", "1": "fail", "3": "undecided"}.get(
            rc, "exit " + rc)
        gates[gate] = gates.get(gate, 0) + 1
        held = bool(cmp.get("withheld"))
        t["withheld"] += held
        print("  %s: ratio %s [%s, %s] (%s, %s), p(adj) %s, mde %s: %s%s;"
              " exit %s (%s)"
              % (name, fmt(r.get("estimate")), fmt(r.get("lo")),
                 fmt(r.get("hi")), cmp.get("run_level"),
                 "cycles" if "core cycles" in (cmp.get("test") or "")
                 else "time", fmt(cmp.get("p_adjusted"), 2),
                 pct(cmp.get("mde")), v,
                 " (withheld: a run on a shared core)" if held else "",
                 rc, gate))
    med = median(ratios) if ratios else None
    judged = t["n"] - t["failed"]
    print("%s: %d runs, %d judged, %d failed; verdicts: %d faster, "
          "%d slower, %d equivalent, %d inconclusive (%d withheld); "
          "gate: %s; median ratio %s"
          % (label, t["n"], judged, t["failed"], t["faster"], t["slower"],
             t["equivalent"], t["inconclusive"], t["withheld"],
             ", ".join("%d %s" % (n, g) for g, n in sorted(gates.items()))
             or "none", fmt(med)))
    with open(os.path.join(DIR, "summary.tsv"), "a") as f:
        f.write("\t".join([label] + [str(t[k]) for k in (
            "n", "faster", "slower", "equivalent", "inconclusive",
            "failed", "withheld")] + ["" if med is None else repr(med)])
            + "\n")


def fmt(v, digits=5):
    return ("%." + str(digits) + "g") % v if num(v) else "-"


def pct(v):
    return "%.2f%%" % (100 * v) if num(v) else "-"


def cmdwidth(path):
    """statbench cmd: each command's rel_halfwidth and median (ms), and
    the rounds it ran; 'ok' when every one is within 1%."""
    run = load(path)
    cells = [c for c in (run or {}).get("cells") or []
             if isinstance(c, dict) and not
             str(c.get("kernel", "")).startswith("(")]
    if len(cells) < 2:
        print("failed -")
        return
    w = [c.get("rel_halfwidth") for c in cells]
    ok = all(num(x) and x <= 0.01 for x in w)
    print("%s %s" % ("ok" if ok else "no", "; ".join(
        "%s: median %s ms, +-%s, %s rounds" % (
            c.get("kernel"), fmt((c.get("interval") or {}).get("estimate")),
            pct(x), c.get("invocations")) for c, x in zip(cells, w))))


def tq975(df):
    # Cornish-Fisher expansion of Student t's quantile about the normal's.
    z = NormalDist().inv_cdf(0.975)
    g = [(z**3 + z) / 4, (5 * z**5 + 16 * z**3 + 3 * z) / 96,
         (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
         (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z)
         / 92160]
    return z + sum(gi / df ** (i + 1) for i, gi in enumerate(g))


def hfwidth(path):
    """hyperfine: each command's 95% t half-width of the mean over the
    mean; 'ok' when every one is within 1%."""
    run = load(path)
    res = (run or {}).get("results") or []
    parts, ok = [], len(res) >= 2
    for r in res:
        times = [x for x in r.get("times") or [] if num(x)]
        if len(times) < 2:
            ok = False
            parts.append("%s: fewer than 2 times" % r.get("command"))
            continue
        m = mean(times)
        w = tq975(len(times) - 1) * stdev(times) / math.sqrt(len(times)) / m
        ok = ok and w <= 0.01
        parts.append("%s: mean %s ms, +-%s, %d runs"
                     % (r.get("command"), fmt(1000 * m), pct(w), len(times)))
    print("%s %s" % ("ok" if ok else ("no" if res else "failed"),
                     "; ".join(parts) or "-"))


def summary():
    rows = {}
    try:
        with open(os.path.join(DIR, "summary.tsv")) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                rows[p[0]] = p
    except OSError:
        pass

    def cell(label, what):
        p = rows.get(label)
        if not p:
            return "not run"
        n, faster, slower, failed, held = int(p[1]), int(p[2]), \
            int(p[3]), int(p[6]), int(p[7])
        k = faster + slower if what == "false" else slower
        more = ["%d failed" % failed] if failed else []
        more += ["%d withheld" % held] if held else []
        return "%d of %d" % (k, n - failed) + (
            " (%s)" % ", ".join(more) if more else "")

    slow = os.environ.get("AB_SLOW", "3")
    print("%-22s %-30s %s" % ("method", "A/A false verdicts",
                               "%s%% slowdown detected" % slow))
    for name, aa, pw in (("interleaved ab", "ab A/A", "ab power"),
                         ("saved baseline", "baseline A/A",
                          "baseline power")):
        print("%-22s %-30s %s" % (name, cell(aa, "false"), cell(pw, "det")))
    for label in ("ab power", "baseline power"):
        p = rows.get(label)
        if p and p[8]:
            print("median ratio, %s: %.4f (injected: %s%% more work)"
                  % (label, float(p[8]), slow))
    p = rows.get("cmd A/A")
    if p:
        print("%-22s %-30s %s" % ("statbench cmd", cell("cmd A/A", "false"),
                                   "-"))


mode = sys.argv[1]
if mode == "verdicts":
    verdicts(sys.argv[2], sys.argv[3:])
elif mode == "cmdwidth":
    cmdwidth(sys.argv[2])
elif mode == "hfwidth":
    hfwidth(sys.argv[2])
elif mode == "summary":
    summary()
PY
AB_DIR=$DIR
AB_SLOW=$SLOW
export AB_DIR AB_SLOW
: >"$DIR/summary.tsv"
read_py() {
    PYTHONPATH="$BENCH${PYTHONPATH:+:$PYTHONPATH}" python3 "$WORK/read.py" "$@"
}

# The words given, quoted for a shell where they need it: the lines of
# $DIR/commands.txt can be pasted.
quote() {
    q_sep=
    for w in "$@"; do
        case $w in
        '' | *[!A-Za-z0-9_./:=,+%@-]*)
            printf "%s'%s'" "$q_sep" \
                "$(printf '%s' "$w" | sed "s/'/'\\\\''/g")" ;;
        *) printf '%s%s' "$q_sep" "$w" ;;
        esac
        q_sep=' '
    done
}

# One statbench run, its JSON in $DIR/$1.json, its table, messages and
# exit status beside it (.txt, .err, .rc); the options follow.  Run in
# the work directory: the commands of cmd are ./busy_a and ./busy_b.
# Each command line goes to $DIR/commands.txt.
sb() {
    sb_out=$1
    shift
    rm -f -- "$DIR/$sb_out.json"
    echo "(cd $(quote "$WORK") && $(quote statbench "$@" -q -f json -o \
        "$DIR/$sb_out.json"))" >>"$DIR/commands.txt"
    (cd -- "$WORK" &&
        exec "$STATBENCH" "$@" -q -f json -o "$DIR/$sb_out.json") \
        >"$DIR/$sb_out.txt" 2>"$DIR/$sb_out.err"
    rc=$?
    echo "$rc" >"$DIR/$sb_out.rc"
    return "$rc"
}

# A run that cannot happen (its baseline was not saved): counted as
# failed with the reason.
skip() {
    echo skip >"$DIR/$1.rc"
    echo "$2" >"$DIR/$1.err"
}

# A --save run, then the --against run of another object with it; a save
# that failed is no baseline, and the comparison is then a failed run.
baseline_pair() {
    bp_name=$1 bp_base=$2 bp_cand=$3
    shift 3
    rm -f -- "$STATBENCH_BASELINES/$bp_name.json"
    sb "$bp_name-save" --kernel-from "$WORK/$bp_base:$SYM=k" -s "$SIZE" \
        --save "$bp_name" "$@"
    rc=$?
    if [ "$rc" -ne 0 ] ||
        [ ! -f "$STATBENCH_BASELINES/$bp_name.json" ]; then
        skip "$bp_name" "--save $bp_name failed (exit $rc): $(head -n 1 \
            "$DIR/$bp_name-save.err")"
        return
    fi
    sb "$bp_name" --kernel-from "$WORK/$bp_cand:$SYM=k" -s "$SIZE" \
        --against "$bp_name" "$@"
}

# The wall time of a command, in seconds, into file $1.
timed() {
    python3 -c '
import subprocess, sys, time
t = time.monotonic()
rc = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("%.2f\n" % (time.monotonic() - t))
sys.exit(rc)' "$@"
}

idx() {
    printf '%02d' "$1"
}

CPU=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo \
    2>/dev/null | head -n 1)
echo "cpu: ${CPU:-unknown} ($(uname -m), $(getconf _NPROCESSORS_ONLN \
    2>/dev/null || echo '?') online CPUs)"
echo "date: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
echo "load: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "statbench: $STATBENCH ($("$STATBENCH" --version 2>/dev/null |
    head -n 1))"
echo "compiler: $CC $CFLAGS ($($CC --version 2>/dev/null | head -n 1))"
aa_shown="statbench's default"
[ -n "$AA_TIME" ] && aa_shown=$AA_TIME
echo "settings: size $SIZE B; $PAIRS A/A pairs at --max-time" \
    "$aa_shown; $POWER_RUNS power runs of" \
    "$POWER_TIME s at --precision 0; slowdown $SLOW%; ladder to" \
    "$LADDER_MAX runs"
if [ -n "${STATBENCH_NO_PROFILE-}" ]; then
    echo "host profile: off (STATBENCH_NO_PROFILE is set): no verdict is" \
        "withheld for a shared core"
else
    echo "host profile: $STATBENCH_STATE (verdicts of runs it judges" \
        "measured on a shared core are withheld: inconclusive)"
fi
echo "output in $DIR"
echo

AA_OPTS=
[ -n "$AA_TIME" ] && AA_OPTS="--max-time $AA_TIME"

# ab_and_baseline TAG COUNT NEW LABEL OPTS...: COUNT runs index by index
# of statbench ab and of the saved baseline, each of a.so against NEW
# under OPTS (the runs named TAG and the index), then the verdicts of
# each as "ab LABEL" and "baseline LABEL".
ab_and_baseline() {
    abb_tag=$1 abb_count=$2 abb_new=$3 abb_label=$4
    shift 4
    ab='' bl=''
    i=1
    while [ "$i" -le "$abb_count" ]; do
        n=$(idx "$i")
        sb "ab-$abb_tag-$n" ab "$WORK/a.so" "$WORK/$abb_new" \
            --symbol "$SYM" -s "$SIZE" "$@"
        baseline_pair "bl-$abb_tag-$n" a.so "$abb_new" "$@"
        ab="$ab ab-$abb_tag-$n" bl="$bl bl-$abb_tag-$n"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    read_py verdicts "ab $abb_label" $ab
    # shellcheck disable=SC2086
    read_py verdicts "baseline $abb_label" $bl
}

# --- 1 and 3: A/A, ab and saved baseline, index by index -----------------
if [ "$PAIRS" -gt 0 ]; then
    echo "A/A of a.so and b.so (one build, two files), $PAIRS runs each:"
    # shellcheck disable=SC2086
    ab_and_baseline aa "$PAIRS" b.so A/A $AA_OPTS
    echo
fi

# --- 2 and 3: the injected slowdown -----------------------------------------
if [ "$POWER_RUNS" -gt 0 ]; then
    echo "$SLOW% slowdown (slow.so against a.so), $POWER_RUNS runs each at" \
        "--precision 0 --max-time $POWER_TIME:"
    ab_and_baseline pw "$POWER_RUNS" slow.so power --precision 0 \
        --max-time "$POWER_TIME"
    echo
fi

# --- 4: A/A of whole commands ----------------------------------------------
ITER=$("$WORK/busy" --calibrate 10) || ITER=
case $ITER in
'' | *[!0-9]*)
    echo "busy --calibrate failed ('$ITER'): no command figures"
    ITER=
    ;;
*)
    echo "busy loop: $ITER steps (calibrated in process to about 10 ms)"
    ;;
esac
if [ -n "$ITER" ] && [ "$PAIRS" -gt 0 ]; then
    echo "A/A of busy_a and busy_b ($ITER steps), statbench cmd -N," \
        "$PAIRS runs of its default 20 rounds:"
    runs=
    i=1
    while [ "$i" -le "$PAIRS" ]; do
        n=$(idx "$i")
        sb "cmd-aa-$n" cmd -N "./busy_a $ITER" "./busy_b $ITER"
        runs="$runs cmd-aa-$n"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    read_py verdicts "cmd A/A" $runs
    # shellcheck disable=SC2086
    python3 - "$DIR" $runs <<'PY'
import json, os, sys
from statistics import median
m = []
for name in sys.argv[2:]:
    try:
        cells = json.load(open(os.path.join(sys.argv[1], name + ".json")))[
            "cells"]
    except (OSError, ValueError, KeyError, TypeError):
        continue
    m += [c["interval"]["estimate"] for c in cells
          if isinstance((c.get("interval") or {}).get("estimate"),
                        (int, float))]
if m:
    print("  one run of the busy loop, wall time from spawn to wait4: "
          "median %.3g ms (%.3g-%.3g over the runs' medians)"
          % (median(m), min(m), max(m)))
PY
    echo
fi

# --- 5: time to +-1% --------------------------------------------------------
# rung TOOL TAG READER RC: the line of one rung of the ladder, the run of
# TOOL (so named in it) at N=$n whose files are $DIR/ladder-TAG-$n.* and
# whose exit status was RC.  Sets wall (its seconds); on success also ok
# ("ok" when within +-1%, by read_py READER) and out (its width), and
# returns 0; a failed run returns 1.
rung() {
    wall=$(cat "$DIR/ladder-$2-$n.wall" 2>/dev/null || echo '?')
    if [ "$4" -ne 0 ]; then
        echo "  $1 N=$n: failed (exit $4, $wall s):" \
            "$(head -n 1 "$DIR/ladder-$2-$n.err")"
        return 1
    fi
    out=$(read_py "$3" "$DIR/ladder-$2-$n.json")
    ok=${out%% *}
    out=${out#* }
    echo "  $1 N=$n: $wall s; $out"
}
if [ -n "$ITER" ] && [ "$LADDER_MAX" -ge 10 ]; then
    echo "time to +-1% for busy_a and busy_b, N runs each:"
    have_hf=0
    command -v hyperfine >/dev/null 2>&1 && have_hf=1
    [ "$have_hf" -eq 1 ] || echo "  hyperfine: not installed, skipped"
    sb_done='' hf_done='' sb_fail=0 hf_fail=0
    sb_res="statbench cmd: not within +-1% by N=$LADDER_MAX"
    hf_res="hyperfine: not within +-1% by N=$LADDER_MAX"
    [ "$have_hf" -eq 1 ] || { hf_done=1; hf_res="hyperfine: not run"; }
    n=10
    while [ "$n" -le "$LADDER_MAX" ] && { [ -z "$sb_done" ] ||
        [ -z "$hf_done" ]; }; do
        if [ -z "$sb_done" ]; then
            # --max-time far beyond N rounds: N is the number of rounds.
            echo "(cd $(quote "$WORK") && $(quote statbench cmd -N --runs \
                "$n" --max-time 3600 "./busy_a $ITER" "./busy_b $ITER" -q \
                -f json -o "$DIR/ladder-sb-$n.json"))" >>"$DIR/commands.txt"
            (cd -- "$WORK" && timed "$DIR/ladder-sb-$n.wall" "$STATBENCH" \
                cmd -N --runs "$n" --max-time 3600 "./busy_a $ITER" \
                "./busy_b $ITER" -q -f json -o "$DIR/ladder-sb-$n.json") \
                >"$DIR/ladder-sb-$n.txt" 2>"$DIR/ladder-sb-$n.err"
            rc=$?
            if ! rung "statbench cmd" sb cmdwidth "$rc"; then
                sb_fail=$((sb_fail + 1))
            elif [ "$ok" = ok ]; then
                sb_done=1
                sb_res="statbench cmd: +-1% at N=$n, that run $wall s"
            fi
        fi
        if [ -z "$hf_done" ]; then
            echo "(cd $(quote "$WORK") && $(quote hyperfine -N --runs "$n" \
                --style none --export-json "$DIR/ladder-hf-$n.json" \
                "./busy_a $ITER" "./busy_b $ITER"))" >>"$DIR/commands.txt"
            (cd -- "$WORK" && timed "$DIR/ladder-hf-$n.wall" hyperfine -N \
                --runs "$n" --style none \
                --export-json "$DIR/ladder-hf-$n.json" "./busy_a $ITER" \
                "./busy_b $ITER") \
                >"$DIR/ladder-hf-$n.txt" 2>"$DIR/ladder-hf-$n.err"
            rc=$?
            if ! rung hyperfine hf hfwidth "$rc"; then
                hf_fail=$((hf_fail + 1))
            elif [ "$ok" = ok ]; then
                hf_done=1
                hf_res="hyperfine: +-1% at N=$n, that run $wall s"
            fi
        fi
        n=$((n * 2))
    done
    [ "$sb_fail" -gt 0 ] && sb_res="$sb_res ($sb_fail runs failed)"
    [ "$hf_fail" -gt 0 ] && hf_res="$hf_res ($hf_fail runs failed)"
    echo "$sb_res"
    echo "$hf_res"
    echo
fi

echo "summary ($(date -u '+%Y-%m-%dT%H:%M:%SZ'), ${CPU:-unknown cpu}," \
    "size $SIZE B):"
read_py summary
if [ -n "${sb_res-}" ]; then
    echo "time to +-1%, busy loop pair: $sb_res; $hf_res"
fi
echo "goals: A/A at most 1 false verdict in 20; slowdown detected in at" \
    "least 9 of 10"
echo "output in $DIR (commands run: $DIR/commands.txt)"
