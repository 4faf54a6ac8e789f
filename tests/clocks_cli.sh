#!/bin/sh
# clocks_cli.sh: compare of two saved runs measured at two core clocks
# the same code, every sample's core cycles equal in both runs,
# its ticks 3.5% more in B, whose clock is 3.5% lower (one step of the
# host's clock), and A's invocations spread over three clock states.  The
# JSON fixtures are made here from tests/fixtures/reanalyse_a.json (libc
# and duff at 256 bytes, 6 invocations of 20 samples) by a few lines of
# Python that set samples_ticks and samples_clock; nothing is measured.
#
#  - compare warns that the clocks differ, and names both;
#  - cells judged in core cycles in both runs (--metric auto: hot copies
#    within the L2 cache, with a clock) are compared in cycles: ratio 1,
#    equivalent, the test naming core cycles;
#  - with --metric time the same pair is compared in time: ratio 1.035
#    exactly (B's ticks are A's times 1.035), never equivalent, the header
#    warning that time moves with the clock.
. "${top_srcdir:-.}/tests/lib.sh"

python_scratch sbclk "compare at two clocks"

"$PY" - "$top_srcdir/tests/fixtures/reanalyse_a.json" "$tmp/a.json" \
    "$tmp/b.json" <<'PYEOF'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
d["meta"]["l2_bytes"] = 2 * 1024 * 1024
steps = [1.33, 1.38, 1.43]  # core cycles per tick: 2.79-3.00 GHz at 2.1
for c in d["cells"]:
    base = statistics.median(c["samples_ticks"]) * 1.4
    ticks, clk, s = [], [], 0
    for g, n in enumerate(c["invocation_samples"]):
        k = steps[g % 3]
        for _ in range(n):
            # +-0.1% around the cell's core cycles, the same in A and B.
            cyc = base * (1 + 0.001 * ((s * 37) % 21 - 10) / 10)
            ticks.append(cyc / k)
            clk.append(k)
            s += 1
    c["samples_ticks"], c["samples_clock"] = ticks, clk
json.dump(d, open(sys.argv[2], "w"))
f = 1.035
for c in d["cells"]:
    c["samples_ticks"] = [t * f for t in c["samples_ticks"]]
    c["samples_clock"] = [k / f for k in c["samples_clock"]]
json.dump(d, open(sys.argv[3], "w"))
PYEOF
check "fixtures at two clocks made" test -s "$tmp/b.json"

# B is A at another clock, by construction: no run level between them, so
# --run-sd 0 says it, and the comparison is the conversion tested here.
"$STATBENCH" compare "$tmp/a.json" "$tmp/b.json" --run-sd 0 -f csv \
    >"$tmp/cyc.csv" 2>"$tmp/cyc.err"
rc=$?
check "compare at two clocks (rc $rc)" test "$rc" -eq 0
check "  warns that the core clocks differ, naming both runs" \
    grep -q "warning: the runs ran at different core clocks: .*a.json at .* GHz, .*b.json at .* GHz (-3.4%)" \
    "$tmp/cyc.err"
check_csv "  cells in cycles in both: ratio 1, equivalent, in core cycles" \
    "$tmp/cyc.csv" <<'PYEOF'
assert len(rows) == 2, rows
for r in rows:
    assert r["metric"] == "cycles", r["metric"]
    assert abs(float(r["ratio"]) - 1) < 1e-9, r["ratio"]
    assert 0.999 < float(r["ratio_ci_lo"]) <= 1 <= float(r["ratio_ci_hi"]) < 1.001
    assert r["verdict"] == "equivalent", r["verdict"]
    assert "core cycles" in r["test"], r["test"]
PYEOF

"$STATBENCH" compare "$tmp/a.json" "$tmp/b.json" --metric time -f csv \
    >"$tmp/time.csv" 2>"$tmp/time.err"
rc=$?
check "compare --metric time at two clocks (rc $rc)" test "$rc" -eq 0
check_csv "  in time: ratio 1.035, never equivalent" "$tmp/time.csv" <<'PYEOF'
assert len(rows) == 2, rows
for r in rows:
    assert r["metric"] == "time", r["metric"]
    assert abs(float(r["ratio"]) - 1.035) < 1e-6, r["ratio"]
    assert r["verdict"] != "equivalent", r["verdict"]
    assert "core cycles" not in r["test"], r["test"]
PYEOF
"$STATBENCH" compare "$tmp/a.json" "$tmp/b.json" --metric time \
    >"$tmp/time.txt" 2>&1
check "  the header warns that time moves with the clock" \
    grep -q '^warning:  clock: invocations ran at 3 core clock states' \
    "$tmp/time.txt"

# --- merge and compare, from the same fixtures --------------------------------
# B's timer at twice the rate: ticks doubled, clocks halved, the same
# seconds and core cycles.  Merged with A, its ticks are converted to A's
# rate and its clocks with them: the core cycles stay A's.
"$PY" - "$tmp/a.json" "$tmp/b2.json" "$tmp/dup.json" "$tmp/one.json" \
    "$tmp/one_nan.json" <<'PYEOF'
import copy, json, sys
a = json.load(open(sys.argv[1]))
b = copy.deepcopy(a)
b["meta"]["timer"]["hz"] *= 2
b["meta"]["start_time"] = "2026-01-01T00:00:00Z"
for c in b["cells"]:
    c["samples_ticks"] = [t * 2 for t in c["samples_ticks"]]
    c["samples_clock"] = [k / 2 for k in c["samples_clock"]]
json.dump(b, open(sys.argv[2], "w"))
d = copy.deepcopy(a)
d["cells"].append(copy.deepcopy(d["cells"][0]))
json.dump(d, open(sys.argv[3], "w"))
# One invocation: the samples pooled (Mann-Whitney), and one sample
# without a clock in the second file.
o = copy.deepcopy(a)
for c in o["cells"]:
    c["invocation_samples"] = [sum(c["invocation_samples"])]
    c["invocations"] = 1
json.dump(o, open(sys.argv[4], "w"))
for c in o["cells"]:
    c["samples_clock"][3] = None
json.dump(o, open(sys.argv[5], "w"))
PYEOF
"$STATBENCH" merge "$tmp/a.json" "$tmp/b2.json" -q -f json \
    -o "$tmp/ab.json" >/dev/null 2>"$tmp/merge.err"
rc=$?
check "merge of runs at two timer rates (rc $rc)" test "$rc" -eq 0
check "  the merged core cycles are the runs' (clocks converted with ticks)" \
    "$PY" - "$tmp/a.json" "$tmp/ab.json" <<'PYEOF'
import json, statistics, sys
a, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for ca, cm in zip(a["cells"], m["cells"]):
    want = statistics.median(t * k for t, k in
                             zip(ca["samples_ticks"], ca["samples_clock"]))
    got = cm["core_cycles"]["estimate"]
    assert abs(got / want - 1) < 2e-3, (got, want)
PYEOF
"$STATBENCH" merge "$tmp/dup.json" "$tmp/b2.json" -q -o "$tmp/no.json" \
    >/dev/null 2>"$tmp/dup.err"
rc=$?
# Refused as it is read (every command refuses such a file), naming the
# two places.
check "merge refuses a run that lists a cell twice (rc $rc)" \
    sh -c "test $rc -eq 2 && grep -q 'dup.json: cells\[[0-9]*\] repeats cells\[0\]' '$tmp/dup.err'"
"$STATBENCH" merge "$tmp/a.json" "$tmp/a.json" -q -o "$tmp/aa.json" \
    >/dev/null 2>"$tmp/aa.err"
rc=$?
# Refused as input that cannot be one measurement: a usage error, 2.
check "merge refuses the same run twice, with status 2 (rc $rc)" \
    sh -c "test $rc -eq 2 && grep -q 'run 2 is run 1 again' '$tmp/aa.err'"
check "merge of one run: refused" \
    bad_input "merge takes two or more saved runs" merge "$tmp/a.json" \
    -o "$tmp/one-merged.json"
"$STATBENCH" compare "$tmp/one.json" "$tmp/one_nan.json" -f csv \
    >"$tmp/nan.csv" 2>/dev/null
check_csv "one invocation, a sample without a clock: still compared in cycles" \
    "$tmp/nan.csv" <<'PYEOF'
for r in rows:
    assert r["metric"] == "cycles", r["metric"]
    assert "not comparable" not in r["test"], r["test"]
    assert r["ratio"] != "" and abs(float(r["ratio"]) - 1) < 1e-3, r["ratio"]
PYEOF
# Two merged runs of two runs each: too few units for a bootstrap (with
# two, A/A pairs were "different" at p < 0.05 a third of the time).  A's
# ticks 0.4% more in a3.json, so that the runs of one side differ.
"$PY" - "$tmp/a.json" "$tmp/a3.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["meta"]["start_time"] = "2026-01-02T00:00:00Z"
for c in d["cells"]:
    c["samples_ticks"] = [t * 1.004 for t in c["samples_ticks"]]
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$STATBENCH" merge "$tmp/a3.json" "$tmp/b2.json" -q -o "$tmp/y.json" \
    >/dev/null 2>&1
"$STATBENCH" compare "$tmp/ab.json" "$tmp/y.json" -f csv >"$tmp/few.csv" \
    2>/dev/null
check_csv "two runs a side: Welch t on log unit medians, not the bootstrap" \
    "$tmp/few.csv" <<'PYEOF'
assert rows
for r in rows:
    assert r["test"].startswith("Welch t on log unit medians"), r["test"]
PYEOF
done_testing
