#!/bin/sh
# stats_cli.sh: the statistics on the command line: --baseline with ratio,
# CI, adjusted p and verdict per row; compare of saved runs; analyze of
# plain files made elsewhere; and their bad inputs.
. "${top_srcdir:-.}/tests/lib.sh"

# only_notes RC ERRFILE: exit status 0 and nothing on stderr but note
# lines (a file too short for the pooled check gets one).
only_notes() {
    [ "$1" -eq 0 ] && ! grep -qv '^statbench: note: ' "$2"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbstat.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PY=$(command -v python3 || true)


# --- --baseline KERNEL ------------------------------------------------------
# rep movsb against rep movsl where the build has them, else two portable
# copies ($SB_COPY2 against $SB_COPY, tests/lib.sh).
"$STATBENCH" --kernel "$SB_COPY,$SB_COPY2" --baseline "$SB_COPY" \
    --align 0..8 --max-time 6 -q >"$tmp/base" 2>"$tmp/err"
rc=$?
check "--baseline $SB_COPY exits 0 (rc $rc)" test "$rc" -eq 0
main_rows "$tmp/base" >"$tmp/baserows"
# The columns by their header words (tests/lib.sh, rows_by_name).
rows=$(rows_by_name "$tmp/base" '$1 == "'"$SB_COPY2"'" && NF >= c("verdict")' |
    wc -l)
check "every $SB_COPY2 row has ratio, CI, p(adj) and verdict (rows: $rows)" \
    test "$rows" -eq 9
bad=$(rows_by_name "$tmp/base" '$1 == "'"$SB_COPY2"'" && !(NF >= c("verdict") &&
    $c("lo") <= $c("ratio") && $c("ratio") <= $c("hi") &&
    $c("p(adj)") >= 0 && $c("p(adj)") <= 1 &&
    ($c("verdict") == "faster" || $c("verdict") == "slower" ||
     $c("verdict") == "equivalent" || $c("verdict") == "inconclusive"))' |
    wc -l)
check "ratios lie in their CIs, p in [0,1], verdicts named (bad: $bad)" \
    test "$bad" -eq 0
[ "$bad" -eq 0 ] || sed 's/^/# /' "$tmp/base"
base=$(awk -v k="$SB_COPY" '$1 == k && /baseline/' "$tmp/baserows" | wc -l)
check "the $SB_COPY rows are marked baseline ($base)" test "$base" -eq 9
check "header explains the comparison" grep -q '^compare: .*Holm' "$tmp/base"

# --- --baseline align=0 ------------------------------------------------------
sb_ok align.csv "--baseline align=0" -k duff -a 0..3 --baseline align=0 \
    --max-time 2 --max-invocations 2 --invocations 2 -q -f csv
if [ -n "$PY" ]; then
    check_csv \
        "CSV: align 0 has no ratio, the others do, paired over invocations" \
        "$tmp/align.csv" <<'PYEOF'
assert len(rows) == 4
assert rows[0]["src_align"] == "0" and rows[0]["ratio"] == ""
for r in rows[1:]:
    assert float(r["ratio_ci_lo"]) <= float(r["ratio"]) <= float(r["ratio_ci_hi"])
    # In core cycles when both cells are judged in cycles (--metric auto
    # with a core clock), else in time.
    assert r["test"] in ("paired t on log invocation medians",
                         "paired t on log invocation medians (core cycles)"), r["test"]
    assert r["verdict"] in ("faster", "slower", "equivalent", "inconclusive")
    assert r["invocations"] == "2"
PYEOF
else
    skip "CSV baseline" "no python3"
fi

# --- compare A.json B.json ---------------------------------------------------
"$STATBENCH" -k libc,duff -s 4K --max-time 2 --invocations 3 -q -f json \
    -o "$tmp/a.json" >/dev/null 2>"$tmp/err"
check "a saved run to compare" test -s "$tmp/a.json"
"$STATBENCH" compare "$tmp/a.json" "$tmp/a.json" >"$tmp/self" 2>"$tmp/err"
rc=$?
check "compare A A exits 0 (rc $rc)" test "$rc" -eq 0
# Separate runs are compared unpaired (a bootstrap over invocations): the
# same data give ratio 1 and a bootstrap distribution of the ratio
# symmetric about 1, so p near 1 (at least 0.5: below, fewer than a
# quarter of 1000 resamples would fall on one side), and an interval as
# wide as the noise, so the verdict is never faster or slower.
eq=$(rows_by_name "$tmp/self" '($1 == "libc" || $1 == "duff") &&
    $c("ratio") == "1.0000" && $c("p(adj)") >= 0.5 &&
    $c("lo") <= 1 && 1 <= $c("hi") &&
    ($c("verdict") == "equivalent" || $c("verdict") == "inconclusive")' |
    wc -l)
check "a run compared with itself: ratio 1, p near 1, no verdict of change ($eq of 2)" \
    test "$eq" -eq 2
[ "$eq" -eq 2 ] || sed 's/^/# /' "$tmp/self"

if [ -n "$PY" ]; then
    # Two runs "made elsewhere": written by Python to the documented
    # schema, 5 invocations of 200 lognormal samples; in B the cell k1 is
    # 10% slower and k2 unchanged.
    "$PY" - "$tmp" <<'PYEOF'
import json, random, sys, math
def run(path, shift, seed):
    rnd = random.Random(seed)
    cells = []
    for k, f in (("k1", shift), ("k2", 1.0)):
        samples, invn = [], []
        for inv in range(5):
            loc = 1000.0 * f * math.exp(rnd.gauss(0, 0.01))
            samples += [loc * math.exp(rnd.gauss(0, 0.02)) for _ in range(200)]
            invn.append(200)
        cells.append({"kernel": k, "size": 4096, "src_align": 0,
                      "dst_align": 0, "samples_ticks": samples,
                      "invocation_samples": invn})
    json.dump({"schema": "statbench-run", "schema_version": 1,
               "meta": {"timer": {"hz": 2.0e9, "kind": "tsc"},
                        "command": "made elsewhere"},
               "cells": cells}, open(path, "w"))
run(sys.argv[1] + "/x.json", 1.0, 1)
run(sys.argv[1] + "/y.json", 1.10, 2)
PYEOF
    # The simulated runs have no run level (each invocation is drawn
    # around 1000 x shift alone): --run-sd 0 says so.
    "$STATBENCH" compare "$tmp/x.json" "$tmp/y.json" --run-sd 0 \
        >"$tmp/xy" 2>"$tmp/err"
    rc=$?
    check "compare of files made elsewhere exits 0 (rc $rc)" test "$rc" -eq 0
    v1=$(rows_by_name "$tmp/xy" '$1 == "k1" { print $c("verdict") }')
    check "the 10% slower cell is judged slower ($v1)" test "$v1" = slower
    in1=$(rows_by_name "$tmp/xy" '$1 == "k1" && $c("lo") <= 1.10 &&
        1.10 <= $c("hi")')
    check "its ratio interval holds 1.10" test -n "$in1"
    v2=$(rows_by_name "$tmp/xy" '$1 == "k2" { print $c("verdict") }')
    check "the unchanged cell is not judged faster or slower ($v2)" \
        sh -c "echo '$v2' | grep -Eqx 'equivalent|inconclusive'"
    [ $? -eq 0 ] || sed 's/^/# /' "$tmp/xy"
    # Without it, one run a side cannot show its run level: the header
    # says the 3% assumed, and the JSON names it.
    "$STATBENCH" compare "$tmp/x.json" "$tmp/y.json" >"$tmp/xy3" \
        2>"$tmp/err"
    check "one run a side: the header says the run-to-run sd is assumed" \
        grep -q "^between:  one run a side: .*3% assumed" "$tmp/xy3"
    "$STATBENCH" compare "$tmp/x.json" "$tmp/y.json" -f json \
        >"$tmp/xy3.json" 2>"$tmp/err"
    check_json "  the JSON's comparison: run_level assumed, run_sd 0.03" \
        "$tmp/xy3.json" <<'PYEOF2'
for c in d["cells"]:
    k = c["comparison"]
    assert k["run_level"] == "assumed" and k["run_sd"] == 0.03, k
    assert "widened by the run-to-run sd" in k["test"], k["test"]
PYEOF2
else
    skip "compare of files made elsewhere" "no python3"
fi

if [ -n "$PY" ]; then
    # The same times saved by two timers: TSC ticks at 2 GHz and
    # nanoseconds.  compare works in seconds: ratio 1, no verdict of change.
    "$PY" - "$tmp" <<'PYEOF'
import json, random, sys
def run(path, hz, kind, scale):
    rnd = random.Random(3)
    s = [scale * 1000 * rnd.lognormvariate(0, 0.01) for _ in range(600)]
    json.dump({"schema": "statbench-run", "schema_version": 1,
               "meta": {"timer": {"hz": hz, "kind": kind}},
               "cells": [{"kernel": "libc", "size": 4096, "src_align": 0,
                          "dst_align": 0, "samples_ticks": s,
                          "invocation_samples": [100] * 6}]}, open(path, "w"))
run(sys.argv[1] + "/tsc.json", 2.0e9, "tsc", 1.0)
run(sys.argv[1] + "/clk.json", 1.0e9, "clock_monotonic_raw", 0.5)
PYEOF
    "$STATBENCH" compare "$tmp/tsc.json" "$tmp/clk.json" -f csv >"$tmp/units.csv" 2>"$tmp/err"
    check "compare across timers works in seconds (ratio 1, not slower)" \
        "$PY" -c "
import csv
r = list(csv.DictReader(open('$tmp/units.csv')))[0]
assert abs(float(r['ratio']) - 1) < 1e-9, r['ratio']
assert r['verdict'] in ('equivalent', 'inconclusive'), r['verdict']
"
fi

# --- merge: runs as a level above invocations --------------------------------
if [ -n "$PY" ]; then
    # x.json and y.json (above): two runs of one plan, 5 invocations each.
    "$STATBENCH" merge "$tmp/x.json" "$tmp/y.json" -o "$tmp/xy.json" \
        >"$tmp/merged" 2>"$tmp/err"
    rc=$?
    check "merge of two runs exits 0 (rc $rc)" test "$rc" -eq 0
    check "the merged file tags every invocation with its run, keeps each run and builds the interval over 2 run medians" \
        "$PY" -c "
import json
d = json.load(open('$tmp/xy.json'))
assert d['invocation_run'] == [0] * 5 + [1] * 5, d['invocation_run']
assert len(d['merged_runs']) == 2 and 'hostname' in d['merged_runs'][1]
for c in d['cells']:
    assert c['runs'] == 2 and len(c['run_medians']) == 2, c['runs']
    assert 'run medians' in c['method'], c['method']
"
    check "the table shows the runs and the between-run share" \
        grep -q "btw-run%" "$tmp/merged"
    "$STATBENCH" report "$tmp/xy.json" >"$tmp/out" 2>"$tmp/err"
    check "report reads the merged file" grep -q "merged from 2 runs" "$tmp/out"
    "$STATBENCH" compare "$tmp/x.json" "$tmp/xy.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "compare reads the merged file (rc $rc)" test "$rc" -eq 0
    check "merge of one run: one line, exit 2" \
        bad_input "two or more saved runs" merge "$tmp/x.json"
    # A run merged with itself made an interval of no width, with only a
    # warning; the same run twice is refused, naming both places.
    "$STATBENCH" -k libc -s 4K --max-time 0.3 --invocations 2 -q \
        -o "$tmp/self.json" >/dev/null 2>&1
    "$STATBENCH" -k libc -s 4K --max-time 0.3 --invocations 2 -q \
        -o "$tmp/other.json" >/dev/null 2>&1
    check "merge of a run with itself: one line, exit 2" \
        bad_input "run 2 is run 1 again (the same host, start time and samples)" \
        merge "$tmp/self.json" "$tmp/self.json"
    cp "$tmp/self.json" "$tmp/self2.json"
    check "  also under another file name" \
        bad_input "run 3 is run 1 again" merge "$tmp/self.json" \
        "$tmp/other.json" "$tmp/self2.json"
    check "merge of runs without a common cell: one line, exit 2" \
        bad_input "no cell is in every run" merge "$tmp/x.json" "$tmp/tsc.json"
    "$PY" -c "
import json
d = json.load(open('$tmp/xy.json'))
d['invocation_run'][3] = 7
json.dump(d, open('$tmp/badrun.json', 'w'))
"
    check "a merged file whose invocation names no run: one line, exit 2" \
        bad_input 'invocation_run[3]' report "$tmp/badrun.json"
else
    skip "merge" "no python3"
fi

# --- --save, --against (the CI gate) and report -----------------------------
STATBENCH_BASELINES="$tmp/baselines"
export STATBENCH_BASELINES
"$STATBENCH" -k libc -s 4K --max-time 1 --invocations 2 -q --save mine \
    >/dev/null 2>"$tmp/err"
check "--save NAME keeps the run as JSON" test -s "$tmp/baselines/mine.json"
# --append: the baseline grows a run at a time, a merge of its runs.
for i in 2 3; do
    "$STATBENCH" -k libc -s 4K --max-time 0.5 --invocations 2 --save mine \
        --append >/dev/null 2>"$tmp/err"
done
check "--save --append: the baseline now holds 3 runs, said" \
    grep -q "saved as baseline 'mine' (.*), now of 3 runs" "$tmp/err"
if [ -n "$PY" ]; then
    check_json "  its file is a merge: 3 runs, every invocation tagged" \
        "$tmp/baselines/mine.json" <<'PYEOF'
assert len(d["merged_runs"]) == 3, d["merged_runs"]
assert sorted(set(d["invocation_run"])) == [0, 1, 2], d["invocation_run"]
PYEOF
    "$STATBENCH" -k libc -s 4K --max-time 0.5 --invocations 2 -q \
        --against mine -o "$tmp/ag.json" >/dev/null 2>"$tmp/err"
    check_json "  --against it: the run level from the baseline's runs" \
        "$tmp/ag.json" <<'PYEOF'
k = d["cells"][0]["comparison"]
assert k["run_level"] == "baseline-runs", k
assert "against the merged side's run medians" in k["test"], k["test"]
PYEOF
fi
# Two runs that --append to one baseline at once: each merged the
# baseline it read before measuring, so the second to finish dropped the
# first's run.  Now each merges the baseline as it is at the save, under a
# lock on the directory: 1 run + 2 = 3.  (Both read the 1-run baseline
# within their first milliseconds and measure for a second: they overlap
# unless the machine stalls one for a whole second.)
"$STATBENCH" -k libc -s 4K --max-time 0.3 -q --save conc >/dev/null 2>&1
for i in 1 2; do
    "$STATBENCH" -k libc -s 4K --max-time 1 -q --save conc --append \
        >/dev/null 2>"$tmp/conc$i.err" &
done
wait
if [ -n "$PY" ]; then
    check_json "two --append to one baseline at once: both runs kept" \
        "$tmp/baselines/conc.json" <<'PYEOF'
assert len(d["merged_runs"]) == 3, d["merged_runs"]
PYEOF
fi
check "--append without --save: refused" \
    bad_input "--append adds to the baseline --save NAME names" -k libc \
    --append
check "--append onto a baseline with no cell in common: refused first" \
    bad_input "--append mine: no cell in common" -k "$SB_COPY" -s 1K \
    --save mine --append
# A run that cannot join its baseline once measured (another cache state)
# is not saved, the baseline keeps its runs, and the status says so: 1.
# The portable build refuses --cache cold before measuring (cli.sh).
if sb_can_flush; then
    "$STATBENCH" -k libc -s 4K --max-time 0.3 -q --save mine --append \
        --cache cold >/dev/null 2>"$tmp/err"
    rc=$?
    check "--append of another cache state: not saved, status 1 (rc $rc)" \
        sh -c "[ $rc -eq 1 ] &&
     grep -q \"not saved as baseline 'mine': it keeps its 3 runs\" '$tmp/err'"
else
    skip "--append of another cache state" "$sb_no_arch: no --cache cold"
fi
# A save after an output that failed is said even with -q (the status is
# 1, and the baseline was kept all the same).
"$STATBENCH" -k libc -s 4K --max-time 0.3 -q --save qf \
    -o "$tmp/baselines" >/dev/null 2>"$tmp/err"
rc=$?
check "--save -q with an -o not written: status 1, the save said (rc $rc)" \
    sh -c "[ $rc -eq 1 ] && grep -q \"saved as baseline 'qf' .*; an output above was not written\" '$tmp/err'"
# A link planted under the name while the run measures: not saved through
# it, status 1.  (Planted after a second of a run that takes its whole
# four seconds: no precision target, and a sample count out of reach; on
# a machine so busy that the run had not started by then, the check
# before measuring refuses it instead, and this is skipped.)
"$STATBENCH" -k libc -s 4K --max-time 4 --invocations 2 --precision 0 \
    --min-samples 100000000 --max-samples 100000000 -q --save planted \
    >/dev/null 2>"$tmp/pl.err" &
pid=$!
sleep 1
ln -s /dev/null "$tmp/baselines/planted.json"
start=$(now_ms)
wait_for "$pid" 60000 0.1
if grep -q "is a symbolic link, not a baseline file: remove it" "$tmp/pl.err"; then
    skip "a link planted while measuring" "planted before the run started"
else
    check "a link planted while measuring: not saved, status 1 (rc $rc)" \
        sh -c "[ $rc -eq 1 ] && grep -q \"not saved as baseline 'planted': .* is a symbolic link\" '$tmp/pl.err'"
fi
rm -f "$tmp/baselines/planted.json"
# --append reads its baseline first; an error other than its absence (a
# name too long for the file system) stops the run there, rather than
# counting as no baseline yet and failing the save after measuring.
long=$(printf '%0300d' 0)
check "--append with a baseline that cannot be opened: refused first" \
    env STATBENCH_BASELINES="$tmp/$long" sh -c '
        "$1" -k libc -s 4K --max-time 0.3 -q --save x --append \
            >/dev/null 2>"$2"
        [ $? -eq 2 ] && grep -q "^statbench: --append .x.: " "$2"' \
    sh "$STATBENCH" "$tmp/err"
"$STATBENCH" report "$tmp/baselines/mine.json" -f csv >"$tmp/rep.csv" 2>"$tmp/err"
rc=$?
check "report re-renders a saved run (rc $rc)" \
    sh -c "[ $rc -eq 0 ] && head -n 1 '$tmp/rep.csv' | grep -q '^kernel,' && [ \$(wc -l <'$tmp/rep.csv') -eq 2 ]"
if [ -n "$PY" ]; then
    # Baselines made to order: libc at 4 KiB taking 1 tick a call (every
    # real run is slower: the gate must fail) and 10^7 ticks (every real
    # run is faster: the gate must pass).
    "$PY" - "$tmp/baselines" <<'PYEOF'
import json, sys
for name, t in (("tiny", 1.0), ("huge", 1.0e7)):
    s = [t * (1 + 0.001 * (i % 7)) for i in range(600)]
    json.dump({"schema": "statbench-run", "schema_version": 1,
               "meta": {"timer": {"hz": 2.1e9, "kind": "tsc"}},
               "cells": [{"kernel": "libc", "size": 4096, "src_align": 0,
                          "dst_align": 0, "samples_ticks": s,
                          "invocation_samples": [100] * 6}]},
              open(sys.argv[1] + "/" + name + ".json", "w"))
# "wide": invocation medians from 3 to 30000 ticks around 300, a
# thousandfold spread between processes: the interval of any real run's
# ratio to it (4 KiB copies take tens to thousands of ticks) spans far
# past 1 +- 1% without significance, an inconclusive verdict on any
# machine.
s = []
for m in (3, 30, 300, 300, 3000, 30000):
    s += [m * (1 + 0.001 * (i % 7)) for i in range(100)]
json.dump({"schema": "statbench-run", "schema_version": 1,
           "meta": {"timer": {"hz": 2.1e9, "kind": "tsc"}},
           "cells": [{"kernel": "libc", "size": 4096, "src_align": 0,
                      "dst_align": 0, "samples_ticks": s,
                      "invocation_samples": [100] * 6}]},
          open(sys.argv[1] + "/wide.json", "w"))
PYEOF
    "$STATBENCH" -k libc -s 4K --max-time 2 -q --against tiny >"$tmp/gate1" 2>"$tmp/err"
    rc=$?
    check "--against: a slower cell fails the gate with status 1 (rc $rc)" \
        test "$rc" -eq 1
    # (On a machine too busy for any valid sample the cell cannot be
    # compared: the line then says that.)
    check "--against: the failure is explained in one line" \
        grep -Eq "slower than baseline 'tiny'|cannot be compared with baseline 'tiny'" \
        "$tmp/err"
    [ $? -eq 0 ] || diag "$(cat "$tmp/err")"
    "$STATBENCH" -k libc -s 4K --max-time 2 -q --against huge >"$tmp/gate0" 2>"$tmp/err"
    rc=$?
    check "--against: a faster cell passes the gate (rc $rc)" test "$rc" -eq 0
    check "--against: the verdict is in the table" \
        sh -c "main_rows() { awk '/^kernel .*MB\\/s/ { on = 1; next } on && /^\$/ { on = 0 } on' \"\$1\"; };
               main_rows '$tmp/gate0' | grep -q ' faster '"
    # A gate that passes keeps an earlier failure's status: an -o that
    # could not be written (a directory of that name) is exit 1, not 0.
    mkdir "$tmp/outdir.json"
    "$STATBENCH" -k libc -s 4K --max-time 1 -q --against huge \
        -o "$tmp/outdir.json" >/dev/null 2>"$tmp/err"
    rc=$?
    check "--against passing, an -o not written: status 1 (rc $rc)" \
        sh -c "[ $rc -eq 1 ] && grep -q 'outdir.json: a directory: not written' '$tmp/err'"
    # An inconclusive comparison: the policy decides (default fail), and
    # the gate says undecided (exit 3), not slower (1): a CI script
    # retries or widens such a gate rather than report a regression.
    "$STATBENCH" -k libc -s 4K --max-time 1 -q --against wide \
        >"$tmp/gatew" 2>"$tmp/err"
    rc=$?
    check "--against: inconclusive past the threshold fails as undecided, exit 3 (rc $rc)" \
        test "$rc" -eq 3
    check "--against: the line says inconclusive, the MDE and the baseline" \
        grep -q "FAIL libc 4096 (0/0): inconclusive.*smallest detectable change .*baseline: saved baseline 'wide'" \
        "$tmp/err"
    check "--against: and the summary says what would decide it" \
        grep -q "1 of 1 cells undecided: a slowdown beyond the threshold is not ruled out against baseline 'wide' (a baseline of several runs.*statbench ab)" \
        "$tmp/err"
    [ "$rc" -eq 3 ] || diag "$(cat "$tmp/err")"
    "$STATBENCH" -k libc -s 4K --max-time 1 -q --against wide \
        --inconclusive warn >"$tmp/gatew" 2>"$tmp/err"
    rc=$?
    check "--inconclusive warn: exit 0 (rc $rc) with a WARN line" \
        sh -c "[ $rc -eq 0 ] && grep -q '^statbench: WARN libc' '$tmp/err'"
    "$STATBENCH" -k libc -s 4K --max-time 1 -q --against wide \
        --inconclusive pass >"$tmp/gatew" 2>"$tmp/err"
    rc=$?
    check "--inconclusive pass: exit 0 (rc $rc), quiet under -q" \
        sh -c "[ $rc -eq 0 ] && ! grep -q 'libc 4096' '$tmp/err'"
fi
check "--inconclusive takes fail, warn or pass only" \
    bad_input "--inconclusive 'maybe'" -k libc --inconclusive maybe
check "--against an unknown baseline" bad_input "'nosuch'" -k libc --against nosuch
check "--save with a path in the name" bad_input "'../x'" -k libc --save ../x
long=$(printf '%0200d' 0 | tr 0 a)
check "--save with a 200-letter name: told the limit" \
    bad_input "200 characters, at most 128" -k libc --save "$long"
check "--against with a 128-letter name: within the limit, looked up" \
    bad_input "no such saved baseline" -k libc --against "$(printf '%0128d' 0)"
check "--against with a 129-letter name: told the limit" \
    bad_input "129 characters, at most 128" -k libc \
    --against "$(printf '%0129d' 0)"
check "--against .hidden: no name of a hidden file" \
    bad_input "baseline name '.hidden'" -k libc --against .hidden

# --- analyze FILE [FILE2] ----------------------------------------------------
if [ -n "$PY" ]; then
    # Six processes' samples one after another, and the same values
    # shuffled: the first cannot be independent draws, and says so; the
    # second looks like them (its order cannot tell).
    "$PY" - "$tmp" <<'PYEOF'
import math, random, sys
r = random.Random(7)
v = []
for p in range(6):
    lv = r.gauss(0, 0.03)
    v += [1000 * math.exp(lv + r.gauss(0, 0.05)) for _ in range(100)]
open(sys.argv[1] + "/pooled.txt", "w").write("\n".join(map(str, v)) + "\n")
r.shuffle(v)
open(sys.argv[1] + "/shuffled.txt", "w").write("\n".join(map(str, v)) + "\n")
PYEOF
    # A minimal file's meta.seed is read without meta.options beside it.
    printf '%s\n' '{"schema": "statbench-run", "schema_version": 1,
      "meta": {"seed": 4242, "timer": {"hz": 1e9, "kind": "tsc"}},
      "cells": [{"kernel": "k", "size": 64, "src_align": 0, "dst_align": 0,
        "samples_ticks": [1, 2, 3, 4]}]}' \
        >"$tmp/seed.json"
    "$STATBENCH" report "$tmp/seed.json" -f json >"$tmp/seed.out" 2>"$tmp/err"
    check_json "a minimal file's meta.seed is kept without meta.options" \
        "$tmp/seed.out" <<'PYEOF'
assert d["meta"]["seed"] == 4242, d["meta"].get("seed")
PYEOF
    # An empty list of invocations for samples that exist: refused.
    printf '%s\n' '{"schema": "statbench-run", "schema_version": 1,
      "meta": {"timer": {"hz": 1e9, "kind": "tsc"}},
      "cells": [{"kernel": "k", "size": 64, "src_align": 0, "dst_align": 0,
        "samples_ticks": [1, 2, 3, 4, 5, 6], "invocation_samples": []}]}' \
        >"$tmp/noinv.json"
    check "invocation_samples [] for 6 samples: refused, naming it" \
        bad_input "cells[0].invocation_samples: an empty list for 6 samples" \
        report "$tmp/noinv.json"
    # A merged file whose runs have no invocation: refused.
    "$PY" - "$tmp/baselines/mine.json" "$tmp/zero.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["invocation_run"] = [0] * len(d["invocation_run"])
json.dump(d, open(sys.argv[2], "w"))
PYEOF
    check "invocation_run all 0 in a merge of 3: refused, naming run 1" \
        bad_input '"invocation_run": no invocation of run 1, one of the 3' \
        report "$tmp/zero.json"
    "$STATBENCH" compare "$tmp/baselines/mine.json" "$tmp/baselines/mine.json" \
        >/dev/null 2>"$tmp/err"
    check "compare A A: a warning that it is one run twice" \
        grep -q "are the same run (host .*): their ratios are 1 by construction" \
        "$tmp/err"
    # Saved options the loader cannot take: the defaults, said in notes.
    printf '%s\n' '{"schema": "statbench-run", "schema_version": 1,
      "meta": {"timer": {"hz": 1e9, "kind": "tsc"}, "seed": "1e23",
               "options": {"ci_level": 5, "metric": "bogus"}},
      "cells": [{"kernel": "k", "size": 64, "src_align": 0, "dst_align": 0,
        "samples_ticks": [1, 2, 3, 4]}]}' >"$tmp/badopt.json"
    "$STATBENCH" report "$tmp/badopt.json" >"$tmp/badopt.out" 2>"$tmp/err"
    check "saved options out of range: each named in a note, defaults used" \
        sh -c 'grep -q "^note: *loaded: meta.options.ci_level is not a valid" "$1" &&
            grep -q "^note: *loaded: meta.options.metric .bogus. is unknown" "$1" &&
            grep -q "^note: *loaded: meta.seed is not a seed" "$1" &&
            grep -q "95% CI" "$1"' sh "$tmp/badopt.out"
    # A saved option out of range names the file and where it was.
    printf '%s\n' '{"schema": "statbench-run", "schema_version": 1,
      "meta": {"timer": {"hz": 1e9, "kind": "tsc"},
               "options": {"bootstrap": 1000000000000}},
      "cells": [{"kernel": "k", "size": 64, "src_align": 0, "dst_align": 0,
        "samples_ticks": [1, 2, 3, 4]}]}' >"$tmp/boot.json"
    check "a saved bootstrap of 10^12: the file and meta.options named" \
        bad_input "boot.json: \"meta.options\": bootstrap 1000000000000" \
        report "$tmp/boot.json"
    # Values whose midpoint overflows: refused, naming the value.
    printf '%s\n' '{"schema": "statbench-run", "schema_version": 1,
      "meta": {"timer": {"hz": 1e9, "kind": "tsc"}},
      "cells": [{"kernel": "k", "size": 64, "src_align": 0, "dst_align": 0,
        "samples_ticks": [1e308, 1e308, 1e308, 1e308]}]}' >"$tmp/huge.json"
    check "saved samples of 1e308: refused, naming the field" \
        bad_input "samples_ticks[0]: 1e+308 is beyond 1e300" \
        report "$tmp/huge.json"
    printf '1\n2\n3e301\n' >"$tmp/huge.txt"
    check "analyze of 3e301: refused, naming the line" \
        bad_input "huge.txt:3: '3e301': beyond 1e300" analyze "$tmp/huge.txt"
    mkdir -p "$tmp/adir"
    check "analyze of a directory: says it is one" \
        bad_input "adir: read error (Is a directory)" analyze "$tmp/adir"
    "$STATBENCH" analyze "$tmp/pooled.txt" >/dev/null 2>"$tmp/err"
    check "analyze of pooled processes: a warning, with the remedy" \
        grep -q "pooled.txt: its values differ between stretches.*invocation_samples" \
        "$tmp/err"
    "$STATBENCH" analyze "$tmp/shuffled.txt" >/dev/null 2>"$tmp/err"
    check "analyze of the same values shuffled: no warning" \
        test ! -s "$tmp/err"
fi
# Fewer values than the test of blocks needs: the file cannot tell, and
# a note says the interval takes its values as independent draws.
seq 1 49 >"$tmp/short49"
"$STATBENCH" analyze "$tmp/short49" >/dev/null 2>"$tmp/err"
check "analyze of 49 values: a note that they cannot be checked" \
    grep -q "^statbench: note: .*short49: 49 values, too few to check that they are independent draws.*invocation_samples" \
    "$tmp/err"
seq 1 50 >"$tmp/short50"
"$STATBENCH" analyze "$tmp/short50" >/dev/null 2>"$tmp/err"
check "analyze of 50 values: checked, so no such note" \
    sh -c "! grep -q 'too few to check' '$tmp/err'"
if [ -n "$PY" ]; then
    "$PY" - "$tmp" <<'PYEOF'
import random, sys, statistics
rnd = random.Random(7)
a = [100 * rnd.lognormvariate(0, 0.05) for _ in range(400)]
b = [x * 1.10 for x in (100 * rnd.lognormvariate(0, 0.05) for _ in range(400))]
open(sys.argv[1] + "/a.txt", "w").write("# times in ns\n" + "\n".join("%.6f" % x for x in a) + "\n\n")
open(sys.argv[1] + "/b.txt", "w").write("\n".join("%.6f" % x for x in b) + "\n")
open(sys.argv[1] + "/a.median", "w").write("%.6g\n" % statistics.median(float("%.6f" % x) for x in a))
PYEOF
    "$STATBENCH" analyze "$tmp/a.txt" >"$tmp/an1" 2>"$tmp/err"
    rc=$?
    check "analyze FILE exits 0 (rc $rc)" test "$rc" -eq 0
    want=$(cat "$tmp/a.median")
    got=$(awk -v f="$tmp/a.txt" '$1 == f { print $2 }' "$tmp/an1")
    check "analyze reports the file's median ($got, Python says $want)" \
        test "$got" = "$want"
    "$STATBENCH" analyze "$tmp/a.txt" "$tmp/b.txt" >"$tmp/an2" 2>"$tmp/err"
    rc=$?
    check "analyze FILE FILE2 exits 0 (rc $rc)" test "$rc" -eq 0
    check "analyze judges the 10% slower file slower" \
        sh -c "awk -v f='$tmp/b.txt' '\$1 == f { print \$14 }' '$tmp/an2' | grep -qx slower"
    "$STATBENCH" analyze "$tmp/a.txt" "$tmp/b.txt" -f json >"$tmp/an.json" \
        2>"$tmp/err"
    check "analyze --format json parses, with a Mann-Whitney comparison" \
        "$PY" -c "
import json, sys
d = json.load(open('$tmp/an.json'))
c = d['cells'][1]['comparison']
assert c['test'].startswith('Mann-Whitney'), c['test']
assert c['ratio']['lo'] <= 1.10 <= c['ratio']['hi'], c['ratio']
assert 0.5 < c['a12'] <= 1 and c['p'] < 1e-6
assert d['cells'][0]['comparison'] is None
"
    # A file name with a comma and a quote stays one CSV field.
    cp "$tmp/a.txt" "$tmp/odd,na\"me.txt"
    "$STATBENCH" analyze "$tmp/odd,na\"me.txt" -f csv >"$tmp/odd.csv" 2>"$tmp/err"
    check "CSV quotes text fields" "$PY" -c "
import csv
rows = list(csv.reader(open('$tmp/odd.csv')))
assert len(rows) == 2 and len(rows[1]) == len(rows[0]), rows
assert rows[1][0].endswith('odd,na\"me.txt'), rows[1][0]
"
else
    skip "analyze" "no python3"
fi

# --- bad input ----------------------------------------------------------------
printf '1\n2\nabc\n' >"$tmp/words"
printf '1\nnan\n' >"$tmp/nan"
printf '1\ninf\n' >"$tmp/inf"
printf '# nothing\n\n' >"$tmp/empty"
printf '{"schema": "statbench-run", "schema_version": 1, "cells": [' >"$tmp/trunc.json"
printf '{"foo": 1}\n' >"$tmp/foreign.json"
printf '{"schema": "statbench-run", "schema_version": 99, "cells": []}\n' >"$tmp/newer.json"
check "analyze: a word" bad_input "words:3: 'abc'" analyze "$tmp/words"
check "analyze: NaN" bad_input "nan:2: 'nan'" analyze "$tmp/nan"
check "analyze: infinity" bad_input "inf:2: 'inf'" analyze "$tmp/inf"
# Finite values whose mean overflows: refused as read, naming the line
# (exit 2, one line), rather than a "numerical error" of the statistics.
printf '1.7e308\n1.7e308\n1.6e308\n' >"$tmp/huge"
check "analyze: values whose statistics overflow" \
    bad_input "huge:1: '1.7e308': beyond 1e300" analyze "$tmp/huge"
printf '1\n2\000\n3\n' >"$tmp/nul"
printf '1e-320\n2\n3\n' >"$tmp/subnormal"
printf '0x10\n' >"$tmp/hex"
check "analyze: a NUL byte is named" bad_input "nul:2: NUL byte in line 2" \
    analyze "$tmp/nul"
check "analyze: hexadecimal refused" bad_input "hex:1: '0x10': hexadecimal" \
    analyze "$tmp/hex"
"$STATBENCH" analyze "$tmp/subnormal" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "analyze: a subnormal (1e-320) is a finite number (rc $rc)" \
    only_notes "$rc" "$tmp/err"
awk 'BEGIN { printf "4"; for (i = 1; i < 511; i++) printf " "
             print ""; print 5; print 6 }' </dev/null >"$tmp/l511"
"$STATBENCH" analyze "$tmp/l511" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "analyze: a line of 511 characters is read (rc $rc)" \
    only_notes "$rc" "$tmp/err"
# The CSV's half-width is in percent of the median: 100 (hi - lo) / 2 /
# median, from the same row's columns (100..140: median 120).
seq 100 140 >"$tmp/seq"
"$STATBENCH" analyze "$tmp/seq" -f csv >"$tmp/seq.csv" 2>"$tmp/err"
hw=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    NR == 2 { hw = ($c["ticks_ci_hi"] - $c["ticks_ci_lo"]) / 2
              want = 100 * hw / $c["ticks_median"]
              got = $c["halfwidth_pct"]
              d = got - want; if (d < 0) d = -d
              print (want > 0 && d <= 1e-4 * want ? "ok" : "bad") " " got \
                  " " want }' "$tmp/seq.csv")
check "CSV halfwidth_pct is the percentage of the median ($hw)" \
    test "${hw%% *}" = ok
# A p-value from 0.001 up is written with two significant digits, not in
# scientific notation: 100..119 against 106..125 (Mann-Whitney, exact),
# Holm-adjusted p 0.0060.
seq 100 119 >"$tmp/pa"
seq 106 125 >"$tmp/pb"
"$STATBENCH" analyze "$tmp/pa" "$tmp/pb" -f markdown >"$tmp/p.md" 2>"$tmp/err"
check "Markdown writes p 0.0060 as such" \
    sh -c "grep '/pb ' '$tmp/p.md' | grep -q '| *0\.0060 |'"
check "Markdown's caption gives the threshold in percent" \
    grep -q 'alpha 0.05, threshold +-1%' "$tmp/p.md"
# One value has no bootstrap to make: its interval is the value itself.
printf '5\n' >"$tmp/one"
"$STATBENCH" analyze --bootstrap 1000 "$tmp/one" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "analyze --bootstrap 1000 of one value exits 0 (rc $rc)" \
    test "$rc" -eq 0 -a ! -s "$tmp/err"
check "analyze: no numbers" bad_input "no numbers" analyze "$tmp/empty"
check "analyze: missing file" bad_input "nosuchfile" analyze "$tmp/nosuchfile"
check "analyze: three files" bad_input "one or two files" analyze a b c
check "analyze: a measuring option" bad_input "'--kernel'" analyze --kernel movsl "$tmp/words"
check "compare: truncated JSON" bad_input "not JSON" compare "$tmp/trunc.json" "$tmp/trunc.json"
check "compare: foreign JSON" bad_input "not a statbench run" compare "$tmp/foreign.json" "$tmp/foreign.json"
check "compare: newer schema" bad_input "schema version 99 is newer than this statbench" compare "$tmp/newer.json" "$tmp/newer.json"
check "compare: one file" bad_input "two saved runs" compare "$tmp/a.json"
check "--baseline that matches nothing" bad_input "'nosuch'" -k "$SB_COPY" --baseline nosuch
check "--baseline align= not measured" bad_input "'align=7'" -k "$SB_COPY" -a 0..3 --baseline align=7
check "--outliers unknown" bad_input "'drop'" --outliers drop
check "--bootstrap too few" bad_input "'50'" --bootstrap 50
check "--invocations 0" bad_input "'0'" --invocations 0
# --no-mlock: no mlockall.  Under a locked-memory limit of 0 an unprivileged
# process's mlockall fails and the run notes it; with --no-mlock there is
# nothing to note.  Root's mlockall would succeed: root runs it as nobody
# (setpriv), or skips.
as_user=
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
    # A build below a directory only root may enter (mktemp -d: CI's
    # tarball builds) cannot be run as nobody: then these checks skip.
    $as_user "$STATBENCH" --version >/dev/null 2>&1 || as_user=
fi
mlock_run() {
    $as_user sh -c 'ulimit -l 0 && exec "$@"' sh "$STATBENCH" "$@" -k libc \
        -s 64 --max-time 2 --invocations 1 --min-samples 5 --max-samples 5 -q
}
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
    mlock_run >"$tmp/ml1" 2>&1
    rc=$?
    mlock_run --no-mlock >"$tmp/ml2" 2>&1
    if [ "$rc" -eq 0 ] && grep -q 'mlockall(MCL_CURRENT) failed' "$tmp/ml1"
    then
        check "--no-mlock: no mlockall to fail under a limit of 0" \
            sh -c "! grep -q 'mlockall' '$tmp/ml2'"
    else
        skip "--no-mlock" "no refused mlockall to compare with (rc $rc)"
    fi
else
    skip "--no-mlock" "root without setpriv: mlockall cannot fail"
fi
# A rename that fails is an error: in a sticky directory, root's writable
# file cannot be replaced by another user (rename: EPERM), though it can be
# opened.  Needs root to make the file and setpriv to be someone else.
if [ -n "$as_user" ]; then
    mkdir "$tmp/sticky" && chmod 1777 "$tmp/sticky" && chmod 755 "$tmp" &&
        printf '1\n2\n3\n' >"$tmp/sticky/in" && : >"$tmp/sticky/out.json" &&
        chmod 666 "$tmp/sticky/out.json"
    $as_user "$STATBENCH" analyze "$tmp/sticky/in" -o "$tmp/sticky/out.json" \
        >/dev/null 2>"$tmp/sticky.err"
    rc=$?
    check "-o over a file another user cannot replace: exit 1, said, no \
temporary left (rc $rc)" sh -c "[ $rc -eq 1 ] &&
        grep -q 'out.json' '$tmp/sticky.err' &&
        [ \$(ls '$tmp/sticky' | wc -l) -eq 2 ]"
    chmod 700 "$tmp"
else
    skip "-o over a file that cannot be replaced" "needs root and setpriv"
fi
check "a ninth -o is refused" bad_input "at most 8 output files" \
    -o "$tmp/1.json" -o "$tmp/2.json" -o "$tmp/3.json" -o "$tmp/4.json" \
    -o "$tmp/5.json" -o "$tmp/6.json" -o "$tmp/7.json" -o "$tmp/8.json" \
    -o "$tmp/9.json"
check "--invocations one above its maximum" \
    bad_input "'1001': must be at most 1000" --invocations 1001
check "--threshold negative" bad_input "'-1'" --threshold -1

# --- imported values are not times -----------------------------------------
# analyze's output holds values in their own unit: comparing it with a
# measured run gave a ratio of 0.0000, "faster", exit 0; as a --against
# baseline, a FAIL at "time ratio 15.06".  Both refused now.
printf '5\n6\n7\n5\n6\n7\n' >"$tmp/imp.txt"
"$STATBENCH" analyze "$tmp/imp.txt" -f json -o "$tmp/imp.json" -q \
    >/dev/null 2>&1
check "compare of imported values with a measured run: refused" \
    bad_input "cannot compare imported samples" compare "$tmp/imp.json" \
    "$top_srcdir/tests/fixtures/reanalyse_a.json"
check "  and the other way round" bad_input "cannot compare imported" \
    compare "$top_srcdir/tests/fixtures/reanalyse_a.json" "$tmp/imp.json"
"$STATBENCH" compare "$tmp/imp.json" "$tmp/imp.json" -q >/dev/null 2>&1
rc=$?
check "two imported runs still compare (rc $rc)" test "$rc" -eq 0
mkdir "$tmp/bl"
cp "$tmp/imp.json" "$tmp/bl/imp.json"
STATBENCH_BASELINES="$tmp/bl" bad_input "a baseline of imported samples" \
    -k libc -s 4K --max-time 0.2 --against imp
rc=$?
check "--against a baseline of imported values: refused before measuring" \
    test "$rc" -eq 0

# --- analyze of a stream that never ends ------------------------------------
# yes(1) writes forever: refused at the cap (10,000,000 values), with one
# line, in bounded time and memory (it grew past 241 MB and kept going).
if command -v yes >/dev/null 2>&1; then
    yes 1 | "$STATBENCH" analyze /dev/stdin >"$tmp/yes.out" 2>"$tmp/yes.err"
    rc=$?
    check "analyze of an endless stream: refused (rc $rc)" test "$rc" -eq 2
    check "  at the cap, saying so" grep -q "more than 10000000 values" \
        "$tmp/yes.err"
else
    skip "analyze of an endless stream" "no yes(1)"
fi

# --- a run of too many cells, refused as it is read --------------------------
# A JSON run of more than 100,000 cells was refused only once jansson had
# built all of it (a million cells: 12 s and 950 MB), and an endless one
# was never refused.  The loader now counts the cells as the bytes pass:
# a stream of cells without end (cut at 30 MB, some 300,000 cells, so that
# a loader that reads it all fails rather than hangs) is refused at the
# cell beyond the cap, with one line.  Strings that hold brackets,
# quotes and the word "cells", and a "cells" key inside meta, are no
# cells of the run: a small file of such text loads.
cat >"$tmp/tricky.json" <<'JSON'
{"schema": "statbench-run", "schema_version": 1,
 "meta": {"timer": {"kind": "tsc", "hz": 2e9}, "hostname": "cells",
          "notes": ["]\"[{,", "cells"], "cells": [1, 2, 3]},
 "cells": [
  {"kernel": "libc", "size": 64, "src_align": 0, "dst_align": 0,
   "samples_ticks": [100, 101, 102, 103, 104, 105]},
  {"kernel": "libc", "size": 128, "src_align": 0, "dst_align": 0,
   "samples_ticks": [200, 201, 202, 203, 204, 205]}]}
JSON
"$STATBENCH" report -f csv "$tmp/tricky.json" >"$tmp/tricky.csv" 2>"$tmp/tricky.err"
rc=$?
check "a run whose strings hold brackets and \"cells\": loads (rc $rc)" \
    test "$rc" -eq 0
check "  with its two cells" test "$(grep -c '^libc,' "$tmp/tricky.csv")" -eq 2
awk 'BEGIN {
    printf "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
    printf "\"meta\": {\"timer\": {\"kind\": \"tsc\", \"hz\": 2e9}}, "
    printf "\"cells\": ["
    for (i = 0; ; i++)
        printf "%s{\"kernel\": \"libc\", \"size\": %d, \"src_align\": 0, " \
            "\"dst_align\": 0, \"samples_ticks\": [100, 101, 102]}\n",
            i ? "," : "", 64 + i
}' 2>/dev/null | head -c 30000000 |
    "$STATBENCH" report /dev/stdin >"$tmp/many.out" 2>"$tmp/many.err"
rc=$?
check "an endless stream of cells: refused (rc $rc)" test "$rc" -eq 2
check "  at the cell beyond the cap, in one line" \
    test "$(grep -c 'more than 100000 cells' "$tmp/many.err")" -eq 1 \
    -a "$(wc -l <"$tmp/many.err")" -eq 1

done_testing
