#!/bin/sh
# bench/repro.sh: the run-to-run benchmarks, printed as figures.
#
# Figures that should hold from one run to the next, measured the way a
# new user would meet them: separate default runs of statbench, some
# seconds apart, and what they say about each other.  It prints
#  - for each of `-k sse2 -s 2K -a 3`, `-k libc -s 4K` and `-k movsl -a 1`:
#    the medians of RUNS separate runs in the primary metric (core cycles
#    where the run judged the cell in cycles, else time), their spread
#    (max / min - 1), how many of the runs' intervals cover the median
#    of the medians, and the runs merged (statbench merge): the interval
#    over their medians and the between-run share;
#  - PAIRS A/A pairs (two such runs of `-k libc -s 4K`, then `statbench
#    compare`): the count of "faster" and "slower" verdicts;
#  - PAIRS A/A pairs through a saved baseline (`--save NAME`, then
#    `--against NAME` PAIR_GAP seconds later, identical code): the same
#    count, with the gates' exit statuses (0 pass, 1 fail, 3 undecided);
#    the baselines go to a directory of their own in --dir, never the
#    user's;
#  - the headline sweep (`--kernel movsl --align 0..32 --ci 95`): how many
#    cells reached +-1% within the default 30 s;
#  - the probe's share of measuring time and its overhead ratio, where the
#    run's JSON has them ("n/a" where it does not).
#
# It is a benchmark, not a test: it takes about half an hour at the
# defaults (30 runs at least 10 s apart, 20 runs for the pairs, a sweep),
# nothing asserts, and neither CI nor `make check` runs it.  A quick look:
#   bench/repro.sh --runs 3 --gap 2 --pairs 1 --extra '--max-time 5'
# Needs python3 (to read the JSON).  Every run's JSON stays in --dir.
set -u

STATBENCH=${STATBENCH:-$(dirname "$0")/../statbench}
BENCH=$(cd "$(dirname "$0")" && pwd) # run_json.py, for figures
RUNS=10
GAP=10
PAIRS=5
PAIR_GAP=5
SWEEP=1
DIR=
EXTRA=

usage() {
    cat <<USAGE
Usage: $0 [--runs N] [--gap SEC] [--pairs N] [--pair-gap SEC] [--no-sweep]
          [--statbench PATH] [--dir DIR] [--extra 'ARGS']
  --runs N        separate runs of each configuration (default 10)
  --gap SEC       seconds between runs (default 10; the goals ask >= 10)
  --pairs N       A/A pairs for compare (default 5; 0: none)
  --pair-gap SEC  seconds between the two runs of a pair (default 5)
  --no-sweep      skip the headline sweep
  --statbench P   the statbench to run (default: the one beside bench/,
                  or \$STATBENCH)
  --dir DIR       where the JSON of every run goes (default: a new
                  temporary directory, kept and named at the end)
  --extra 'ARGS'  more options for every measuring run (for a quick
                  look: '--max-time 5'; the benchmark's figures are at
                  the defaults)
USAGE
}

# need_arg, is_count, is_positive
. "$(dirname "$0")/args.sh"

while [ $# -gt 0 ]; do
    case $1 in
    --runs) need_arg "$@"; is_count "$1" "$2"; RUNS=$2; shift 2 ;;
    --gap) need_arg "$@"; is_count "$1" "$2"; GAP=$2; shift 2 ;;
    --pairs) need_arg "$@"; is_count "$1" "$2"; PAIRS=$2; shift 2 ;;
    --pair-gap) need_arg "$@"; is_count "$1" "$2"; PAIR_GAP=$2; shift 2 ;;
    --no-sweep) SWEEP=0; shift ;;
    --statbench) need_arg "$@"; STATBENCH=$2; shift 2 ;;
    --dir) need_arg "$@"; DIR=$2; shift 2 ;;
    --extra) need_arg "$@"; EXTRA=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$0: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ "$RUNS" -ge 1 ] || { echo "$0: --runs '0': at least 1" >&2; exit 2; }
[ -x "$STATBENCH" ] || {
    echo "$0: statbench '$STATBENCH' is not an executable (build it, or" \
        "use --statbench)" >&2
    exit 2
}
command -v python3 >/dev/null 2>&1 || {
    echo "$0: python3 is needed to read the runs' JSON" >&2
    exit 2
}
if [ -z "$DIR" ]; then
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/statbench-repro.XXXXXX") || exit 1
else
    mkdir -p -- "$DIR" || exit 1
fi

# One measuring run into $DIR/$1.json; the options follow.  EXTRA is split
# on blanks on purpose (several options).
measure() {
    out=$1
    shift
    # shellcheck disable=SC2086
    if ! "$STATBENCH" "$@" $EXTRA -q -f json -o "$DIR/$out.json" \
        >"$DIR/$out.txt" 2>"$DIR/$out.err"; then
        echo "  run $out failed: $(head -n 1 "$DIR/$out.err")"
        return 1
    fi
}

# The figures of one configuration's runs, read from their JSON.
figures() {
    PYTHONPATH="$BENCH${PYTHONPATH:+:$PYTHONPATH}" python3 - "$@" <<'PY'
import json, sys

from run_json import load

def primary(cell):
    """(name, estimate, lo, hi) of the cell's primary metric: core cycles
    where the run judged the cell in cycles and wrote them, else ticks."""
    if cell.get("metric") == "cycles":
        for key in ("cycles_per_call", "core_cycles", "cycles"):
            v = cell.get(key)
            if isinstance(v, dict) and isinstance(v.get("estimate"),
                                                  (int, float)):
                return ("core cycles", v["estimate"], v.get("lo"),
                        v.get("hi"))
    iv = cell.get("interval") or {}
    return ("ticks", iv.get("estimate"), iv.get("lo"), iv.get("hi"))

def quiet(run):
    """(quiet level, margin) of the run's contention probe, in core
    cycles per repetition where the run had a clock; None when unknown."""
    pr = (run.get("meta") or {}).get("probes") or {}
    q, m = pr.get("contention_quiet"), pr.get("contention_margin")
    if pr.get("clock_source") in (None, "none") or \
            not isinstance(q, (int, float)) or not isinstance(m, (int, float)):
        return None
    return (q, m)

def report(rows, what):
    est = [r[1] for r in rows if isinstance(r[1], (int, float)) and r[1] > 0]
    if not est:
        return
    units = sorted(set(r[0] for r in rows))
    s = sorted(est)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    cover = sum(1 for r in rows
                if isinstance(r[2], (int, float)) and
                isinstance(r[3], (int, float)) and r[2] <= med <= r[3])
    print("  %smedians (%s): %s" % (what, "/".join(units),
                                    " ".join("%.6g" % v for v in est)))
    print("  %sspread max/min - 1: %.2f%%" % (what,
                                             100 * (s[-1] / s[0] - 1)))
    print("  %sintervals covering the median of the %d: %d of %d"
          % (what, n, cover, len(rows)))

label, paths = sys.argv[1], sys.argv[2:]
rows, levels = [], []
for p in paths:
    run = load(p)
    cells = run.get("cells") if isinstance(run, dict) else None
    if not cells:
        print("  %s: unreadable or empty" % p)
        continue
    rows.append(primary(cells[0]))
    levels.append(quiet(run))
print("%s: %d runs read" % (label, len(rows)))
report(rows, "")
# Runs measured on a shared core throughout: their contention probe's
# quiet level above the quietest run's beyond the margin, as compare and
# merge warn (sb_run_contention_differ).  Nothing inside such a run tells
# it; the figures without them show what the rest agree on.
known = [l for l in levels if l]
if known:
    q0 = min(l[0] for l in known)
    loud = [i for i, l in enumerate(levels) if l and l[0] > q0 * (1 + l[1])]
    print("  runs on a shared core throughout (quiet level above the "
          "quietest run's %.1f beyond the margin): %d%s"
          % (q0, len(loud), (" (levels %s)" % ", ".join(
              "%.1f" % levels[i][0] for i in loud)) if loud else ""))
    if loud and len(loud) < len(rows):
        report([r for i, r in enumerate(rows) if i not in loud],
               "without them: ")
PY
}

probe_figures() {
    python3 - "$@" <<'PY'
import json, sys

def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) \
        else None

share, ratio, contended = [], [], []
for p in sys.argv[1:]:
    try:
        with open(p) as f:
            meta = json.load(f).get("meta", {})
    except (OSError, ValueError, AttributeError):
        continue
    probes = meta.get("probes") or {}
    timer = meta.get("timer") or {}
    s, c = num(probes.get("cost_share")), num(probes.get("contended_share"))
    o, b = num(timer.get("overhead_ticks")), num(timer.get("bare_overhead_ticks"))
    if s is not None:
        share.append(s)
    if c is not None:
        contended.append(c)
    if o is not None and b:
        ratio.append(o / b)

def span(v, pct):
    if not v:
        return "n/a"
    f = (lambda x: "%.2f%%" % (100 * x)) if pct else (lambda x: "%.2f" % x)
    return f(min(v)) if min(v) == max(v) else "%s-%s" % (f(min(v)), f(max(v)))

print("  probes over %d runs: share of measuring time %s; per-sample "
      "overhead against a bare timer pair %s; samples on a shared core %s"
      % (len(sys.argv) - 1, span(share, 1), span(ratio, 0),
         span(contended, 1)))
PY
}

verdicts() {
    python3 - "$@" <<'PY'
import json, sys
faster = slower = other = 0
for p in sys.argv[1:]:
    try:
        with open(p) as f:
            cells = json.load(f).get("cells", [])
    except (OSError, ValueError, AttributeError):
        cells = []
    for c in cells:
        cmp = c.get("comparison") or {}
        v = cmp.get("verdict")
        r = cmp.get("ratio") or {}
        print("  %s: ratio %s [%s, %s], p %s, %s" % (
            p.rsplit("/", 1)[-1], r.get("estimate"), r.get("lo"),
            r.get("hi"), cmp.get("p_adjusted"), v))
        if v == "faster":
            faster += 1
        elif v == "slower":
            slower += 1
        else:
            other += 1
print("A/A verdicts: %d faster, %d slower, %d equivalent or inconclusive"
      % (faster, slower, other))
PY
}

echo "statbench: $STATBENCH ($("$STATBENCH" --version 2>/dev/null | head -n 1))"
echo "runs $RUNS, $GAP s apart; $PAIRS A/A pairs; extra options: '${EXTRA}'"
echo "JSON in $DIR"
echo

n=0
for conf in "sse2 -s 2K -a 3" "libc -s 4K" "movsl -a 1"; do
    n=$((n + 1))
    files=
    i=1
    while [ "$i" -le "$RUNS" ]; do
        [ "$i" -gt 1 ] && sleep "$GAP"
        # shellcheck disable=SC2086
        measure "c$n-r$i" -k $conf && files="$files $DIR/c$n-r$i.json"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    figures "-k $conf" $files
    # shellcheck disable=SC2086
    probe_figures $files
    # The runs merged: one interval over the run medians.
    # shellcheck disable=SC2086
    if [ "$(echo $files | wc -w)" -ge 2 ] &&
        "$STATBENCH" merge $files -q -f json -o "$DIR/c$n-merged.json" \
            >/dev/null 2>"$DIR/c$n-merged.err"; then
        python3 - "$DIR/c$n-merged.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
# The interval in the cell's metric: core cycles or time (ticks).
cyc = c.get("metric") == "cycles"
iv = (c.get("core_cycles") if cyc else c.get("interval")) or {}
b = c.get("run_between_fraction")
print("  merged: median %s [%s, %s] %s over %s runs, between-run share %s"
      % (iv.get("estimate"), iv.get("lo"), iv.get("hi"),
         "core cycles" if cyc else "ticks", c.get("runs"),
         "n/a" if b is None else "%.0f%%" % (100 * b)))
PY
    fi
    sleep "$GAP"
done
echo

if [ "$PAIRS" -gt 0 ]; then
    cmps=
    i=1
    while [ "$i" -le "$PAIRS" ]; do
        [ "$i" -gt 1 ] && sleep "$GAP"
        measure "aa$i-a" -k libc -s 4K && sleep "$PAIR_GAP" &&
            measure "aa$i-b" -k libc -s 4K &&
            if "$STATBENCH" compare "$DIR/aa$i-a.json" "$DIR/aa$i-b.json" \
                -q -f json -o "$DIR/aa$i-cmp.json" >/dev/null \
                2>"$DIR/aa$i-cmp.err"; then
                cmps="$cmps $DIR/aa$i-cmp.json"
            else
                echo "  compare of pair $i failed: $(head -n 1 \
                    "$DIR/aa$i-cmp.err")"
            fi
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    verdicts $cmps
    echo
fi

if [ "$PAIRS" -gt 0 ]; then
    # The same A/A pairs through a saved baseline: what a gate in CI does.
    # A baseline of one run has no run-to-run spread of its own, so its
    # comparison assumes one and is often undecided: that is counted as
    # what it is, not as a verdict.
    STATBENCH_BASELINES=$DIR/baselines
    export STATBENCH_BASELINES
    mkdir -p -- "$STATBENCH_BASELINES" || exit 1
    gates=
    statuses=
    i=1
    while [ "$i" -le "$PAIRS" ]; do
        [ "$i" -gt 1 ] && sleep "$GAP"
        if measure "sa$i-a" -k libc -s 4K --save "repro-aa$i"; then
            sleep "$PAIR_GAP"
            # shellcheck disable=SC2086
            "$STATBENCH" -k libc -s 4K --against "repro-aa$i" $EXTRA -q \
                -f json -o "$DIR/sa$i-b.json" >"$DIR/sa$i-b.txt" \
                2>"$DIR/sa$i-b.err"
            rc=$?
            statuses="$statuses $rc"
            if [ "$rc" -eq 2 ] || [ ! -s "$DIR/sa$i-b.json" ]; then
                echo "  --against of pair $i failed: $(head -n 1 \
                    "$DIR/sa$i-b.err")"
            else
                gates="$gates $DIR/sa$i-b.json"
            fi
        fi
        i=$((i + 1))
    done
    echo "through --save/--against (exit statuses:${statuses:- none}):"
    # shellcheck disable=SC2086
    verdicts $gates
    unset STATBENCH_BASELINES
    echo
fi

if [ "$SWEEP" -eq 1 ]; then
    if measure sweep --kernel movsl --align 0..32 --ci 95; then
        python3 - "$DIR/sweep.json" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    run = json.load(f)
cells = run.get("cells", [])
ok = sum(1 for c in cells
         if isinstance(c.get("rel_halfwidth"), (int, float)) and
         c["rel_halfwidth"] <= 0.01)
print("headline sweep: %d of %d cells within +-1%% after %s s"
      % (ok, len(cells), run.get("elapsed_s")))
PY
    fi
fi
