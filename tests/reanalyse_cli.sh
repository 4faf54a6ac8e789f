#!/bin/sh
# reanalyse_cli.sh: report and compare recompute a saved run's statistics
# with the analysis options given (sb_run_reanalyse): --ci, --outliers,
# --precision and --bootstrap on two saved runs (tests/fixtures/
# reanalyse_a.json and _b.json: libc and duff at 256 bytes, 6 invocations
# of 20 samples, saved under --outliers reject-severe).  The measuring
# options stay refused.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbre.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PY=$(command -v python3 || true)
A="$top_srcdir/tests/fixtures/reanalyse_a.json"
B="$top_srcdir/tests/fixtures/reanalyse_b.json"

"$STATBENCH" report "$A" -f json >"$tmp/as.json" 2>"$tmp/err"
check "report of the fixture (rc $?)" test -s "$tmp/as.json"

# --- report --ci 90 ----------------------------------------------------------
"$STATBENCH" report "$A" --ci 90 >"$tmp/ci90.txt" 2>"$tmp/err"
rc=$?
check "report --ci 90 (rc $rc)" test "$rc" -eq 0
check "  the header says 90% CI" grep -q '^plan: .* 90% CI' "$tmp/ci90.txt"
# Over 6 invocation medians the order statistics give (x1, x6) down to a
# level of 78%: 90% is the same interval as 95%, 75% is (x2, x5).
"$STATBENCH" report "$A" --ci 90 -f json >"$tmp/ci90.json" 2>/dev/null
"$STATBENCH" report "$A" --ci 75 -f json >"$tmp/ci75.json" 2>/dev/null
if [ -n "$PY" ]; then
    check "  each interval at its level, the same median, 75% narrower" \
        "$PY" - "$tmp/as.json" "$tmp/ci90.json" "$tmp/ci75.json" <<'PYEOF'
import json, sys
a, b, c = (json.load(open(f))['cells'] for f in sys.argv[1:4])
assert len(a) == len(b) == len(c) == 2
for x, y, z in zip(a, b, c):
    i, j, k = x['interval'], y['interval'], z['interval']
    assert (i['level'], j['level'], k['level']) == (0.95, 0.9, 0.75)
    assert i['estimate'] == j['estimate'] == k['estimate'], (i, j, k)
    assert (i['lo'], i['hi']) == (j['lo'], j['hi']), (i, j)
    assert i['lo'] < k['lo'] <= k['estimate'] <= k['hi'] < i['hi'], (i, k)
    assert x['samples'] == y['samples'] == z['samples']
PYEOF
else
    skip "  each interval at 90%" "no python3"
fi

# --- report --outliers reject-all -------------------------------------------
"$STATBENCH" report "$A" --outliers reject-all >"$tmp/rall.txt" 2>"$tmp/err"
rc=$?
check "report --outliers reject-all (rc $rc)" test "$rc" -eq 0
check "  the header names the policy" \
    grep -q '^method: .*policy reject-all' "$tmp/rall.txt"
"$STATBENCH" report "$A" --outliers reject-all -f json >"$tmp/rall.json" \
    2>/dev/null
if [ -n "$PY" ]; then
    check "  outliers removed from the saved samples and counted" \
        "$PY" - "$tmp/as.json" "$tmp/rall.json" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))['cells']
b = json.load(open(sys.argv[2]))['cells']
removed = 0
for x, y in zip(a, b):
    gone = y['rejected']['outlier'] - x['rejected']['outlier']
    assert gone >= 0 and y['samples'] == x['samples'] - gone, (x['samples'],
                                                               y['samples'])
    assert y['rejected_total'] == x['rejected_total'] + gone
    removed += gone
assert removed > 0, 'no outlier removed'
PYEOF
else
    skip "  outliers removed" "no python3"
fi

# --- report --precision ----------------------------------------------------
# The fixture's half-widths are about 7% (libc) and 42% (duff).
"$STATBENCH" report "$A" --precision 10 >"$tmp/p10.txt" 2>"$tmp/err"
rc=$?
check "report --precision 10 (rc $rc)" test "$rc" -eq 0 -a ! -s "$tmp/err"
check "  the header states the target" \
    grep -q 'precision target +-10%' "$tmp/p10.txt"
check "  one cell falls short of it" \
    grep -q '^\* 1 cell stopped short of the precision target (+-10%)' \
    "$tmp/p10.txt"
"$STATBENCH" report "$A" --precision 5 -f json >"$tmp/p5.json" 2>/dev/null
"$STATBENCH" report "$A" --precision 50 -f json >"$tmp/p50.json" 2>/dev/null
if [ -n "$PY" ]; then
    check "  the flag follows the target (5%: none; 50%: both)" \
        "$PY" - "$tmp/p5.json" "$tmp/p50.json" <<'PYEOF'
import json, sys
p5 = json.load(open(sys.argv[1]))
p50 = json.load(open(sys.argv[2]))
assert p5['meta']['options']['precision'] == 0.05
assert p50['meta']['options']['precision'] == 0.5
for c in p5['cells']:
    assert c['rel_halfwidth'] > 0.05 and c['reached_precision'] is False
for c in p50['cells']:
    assert c['rel_halfwidth'] <= 0.5 and c['reached_precision'] is True
PYEOF
else
    skip "  the flag follows the target" "no python3"
fi
"$STATBENCH" report "$A" --precision 0 >"$tmp/p0.txt" 2>"$tmp/err"
check "report --precision 0: no target, no cell short of it" \
    sh -c "grep -q 'no precision target' '$tmp/p0.txt' &&
           ! grep -q 'short of the precision target' '$tmp/p0.txt'"

# --- compare --ci 99 ---------------------------------------------------------
"$STATBENCH" compare "$A" "$B" --ci 99 >"$tmp/c99.txt" 2>"$tmp/err"
rc=$?
check "compare --ci 99 (rc $rc)" test "$rc" -eq 0
check "  the header says 99% CI" grep -q '^plan: .* 99% CI' "$tmp/c99.txt"
"$STATBENCH" compare "$A" "$B" --ci 99 -f json >"$tmp/c99.json" 2>/dev/null
"$STATBENCH" compare "$A" "$B" -f json >"$tmp/c95.json" 2>/dev/null
if [ -n "$PY" ]; then
    check "  the intervals and ratios at 99%, wider than at 95%" \
        "$PY" - "$tmp/c95.json" "$tmp/c99.json" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))['cells']
b = json.load(open(sys.argv[2]))['cells']
for x, y in zip(a, b):
    assert y['interval']['level'] == 0.99
    r95, r99 = x['comparison']['ratio'], y['comparison']['ratio']
    assert r99['level'] == 0.99 and r95['level'] == 0.95
    assert r99['estimate'] == r95['estimate']
    assert r99['lo'] <= r95['lo'] and r99['hi'] >= r95['hi'], (r95, r99)
PYEOF
else
    skip "  the intervals at 99%" "no python3"
fi

# --- the options not given keep the saved run's values -----------------------
# A copy of the fixture saved with other analysis options: CI 99%, target
# 10%, threshold 5%, alpha 0.1 (the fixture itself was saved under
# --outliers reject-severe).  Giving one option must leave the others as
# saved, not reset them to the command's defaults.
S="$tmp/saved.json"
S2="$tmp/saved_b.json"
for f in "$A:$S" "$B:$S2"; do
    sed -e 's/^   "ci_level": 0.95,$/   "ci_level": 0.99,/' \
        -e 's/^   "precision": 0.01,$/   "precision": 0.1,/' \
        -e 's/^   "alpha": 0.05,$/   "alpha": 0.1,/' \
        -e 's/^   "threshold": 0.01,$/   "threshold": 0.05,/' \
        "${f%%:*}" >"${f#*:}"
done
check "the copies differ from the fixture in four lines" \
    test "$(diff "$A" "$S" | grep -c '^>')" -eq 4
"$STATBENCH" report "$S" --outliers reject-all >"$tmp/k1.txt" 2>"$tmp/err"
check "report --outliers reject-all keeps the saved 99% CI and 10% target" \
    grep -q '^plan: .* 99% CI, precision target +-10% of the median' \
    "$tmp/k1.txt"
"$STATBENCH" report "$S" --ci 90 >"$tmp/k2.txt" 2>"$tmp/err"
check "report --ci 90 keeps the saved 10% target" \
    grep -q '^plan: .* 90% CI, precision target +-10% of the median' \
    "$tmp/k2.txt"
"$STATBENCH" compare "$S" "$S2" --ci 90 >"$tmp/k3.txt" 2>"$tmp/err"
check "compare --ci 90 keeps the saved alpha and threshold" \
    grep -q '^compare: .*verdict at alpha 0.1, threshold +-5%' "$tmp/k3.txt"
"$STATBENCH" compare "$S" "$S2" >"$tmp/k4.txt" 2>"$tmp/err"
check "compare without options keeps the saved 99% CI" \
    grep -q '^plan: .* 99% CI' "$tmp/k4.txt"
# Saved under reject-severe: its rejections stay counted under --ci 90.
"$STATBENCH" report "$A" -f json >"$tmp/k5.json" 2>/dev/null
"$STATBENCH" report "$A" --ci 90 -f json >"$tmp/k6.json" 2>/dev/null
if [ -n "$PY" ]; then
    check "report --ci 90 of a reject-severe run keeps its rejections" \
        "$PY" - "$tmp/k5.json" "$tmp/k6.json" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))['cells']
b = json.load(open(sys.argv[2]))['cells']
assert sum(x['rejected']['outlier'] for x in a) > 0
for x, y in zip(a, b):
    assert y['rejected'] == x['rejected'] and y['samples'] == x['samples']
PYEOF
else
    skip "report --ci 90 keeps the rejections" "no python3"
fi

# --- still refused -----------------------------------------------------------
check "report --precision 100" bad_input "'100'" report "$A" --precision 100
check "report --ci 100" bad_input "'100'" report "$A" --ci 100

# --- --shared-margin: record, then decide --------------------------------
# The fixtures were saved before readings were kept: refused, with why.
check "report --shared-margin auto of a file without readings" \
    bad_input "no probe readings" report "$A" --shared-margin auto
check "report --shared-margin 0" bad_input "'0'" report "$A" \
    --shared-margin 0
# A short measured run, decided again: the samples kept and held add up
# to what was recorded, and "measured" gives back the run as saved.  How
# many samples are held is the machine's (none on a quiet core): the
# decisions themselves are checked on fixed data by test_redecide.
"$STATBENCH" -k libc -s 1K --max-time 1 --invocations 2 \
    --max-invocations 2 --min-samples 50 --max-samples 50 -q -f json \
    -o "$tmp/m.json" >/dev/null 2>"$tmp/err"
rc=$?
check "a short run saved (rc $rc)" test "$rc" -eq 0 -a -s "$tmp/m.json"
"$STATBENCH" report "$tmp/m.json" -q -f json -o "$tmp/m-as.json" \
    >/dev/null 2>&1
# decided_again OPTION VALUE OUT: m.json reported as JSON into $tmp/OUT
# with OPTION VALUE, which must exit 0.
decided_again() {
    "$STATBENCH" report "$tmp/m.json" "$1" "$2" -q -f json -o "$tmp/$3" \
        >/dev/null 2>"$tmp/err"
    rc=$?
    check "report $1 $2 (rc $rc)" test "$rc" -eq 0
}
for m in auto 5 measured; do
    decided_again --shared-margin "$m" "m-$m.json"
done
if [ -n "$PY" ]; then
    check "  kept + held are the recorded samples; measured is the run" \
        "$PY" - "$tmp/m-as.json" "$tmp/m-auto.json" "$tmp/m-5.json" \
        "$tmp/m-measured.json" <<'PYEOF'
import json, sys
# The saved run as report writes it (its statistics from the samples as
# the file keeps them), then decided again three ways.
runs = [json.load(open(f)) for f in sys.argv[1:5]]
def pool(c):
    h = c["held"] or {"samples_ticks": []}
    return sorted(c["samples_ticks"] + h["samples_ticks"])
for r in runs[1:]:
    for c, d in zip(runs[0]["cells"], r["cells"]):
        assert pool(c) == pool(d), "the samples changed"
        n = len((d["held"] or {"samples_ticks": []})["samples_ticks"])
        assert d["rejected"]["shared-core"] >= n, d["rejected"]
        # null when the new decision left the cell no sample
        assert all(len(p) == 4 for p in d["samples_probes"] or [])
assert runs[1]["meta"]["options"]["shared_margin"] == 0
assert runs[2]["meta"]["options"]["shared_margin"] == 0.05
assert runs[3]["cells"] == runs[0]["cells"]
assert runs[3]["meta"]["options"]["shared_margin"] is None
PYEOF
else
    skip "  kept + held are the recorded samples" "no python3"
fi
# --- --chain-apart: the core clock decided again ----------------------------
check "report --chain-apart of a file without readings" \
    bad_input "no probe readings" report "$A" --chain-apart 1.5
check "report --chain-apart 0.5" bad_input "'0.5'" report "$tmp/m.json" \
    --chain-apart 0.5
check "report --chain-apart nonsense" bad_input "'x'" report "$tmp/m.json" \
    --chain-apart x
if grep -q '"clock_source": "imul-chain"' "$tmp/m.json"; then
    for r in 1.5 1; do
        decided_again --chain-apart "$r" "c-$r.json"
    done
    if [ -n "$PY" ]; then
        check "  1.5 gives back the clocks as saved; 1 the faster chain's" \
            "$PY" - "$tmp/m-as.json" "$tmp/c-1.5.json" "$tmp/c-1.json" \
            <<'PYEOF'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:4]]
# Both sides as the file keeps them: ten significant digits.
def close(x, y):
    return (x is None and y is None) or abs(x / y - 1) < 1e-9
n = 0
for c, d, e in zip(*(r["cells"] for r in runs)):
    for x, y, z, p in zip(c["samples_clock"], d["samples_clock"],
                          e["samples_clock"], c["samples_probes"]):
        assert close(x, y), (x, y)
        rs = [v for v in p[:2] if v is not None and v > 0]
        if x is not None and rs:
            assert close(z, 3 / min(rs)), (z, p)
            n += 1
assert n > 0
assert runs[1]["meta"]["options"]["chain_apart"] == 1.5
assert runs[0]["meta"]["options"]["chain_apart"] is None
PYEOF
    else
        skip "  1.5 gives back the clocks as saved" "no python3"
    fi
    # A merge decides again only the invocations of runs whose clock came
    # from the chains: the second run is relabelled as a PMU's.
    "$STATBENCH" -k libc -s 1K --max-time 1 --invocations 2 \
        --max-invocations 2 --min-samples 50 --max-samples 50 -q -f json \
        -o "$tmp/m2.json" >/dev/null 2>"$tmp/err"
    rc=$?
else
    skip "report --chain-apart of a measured run" \
        "its clock is not from the chains"
    rc=1
fi
# The second run must have its clock from the chains too (a busy host can
# have its start-up check refuse the probe): else nothing to relabel.
if grep -q '"clock_source": "imul-chain"' "$tmp/m.json" && [ "$rc" -eq 0 ] &&
    grep -q '"clock_source": "imul-chain"' "$tmp/m2.json"; then
    sed 's/"clock_source": "imul-chain"/"clock_source": "pmu"/' \
        "$tmp/m2.json" >"$tmp/m2-pmu.json"
    "$STATBENCH" merge "$tmp/m.json" "$tmp/m2-pmu.json" --chain-apart 1 \
        -q -f json -o "$tmp/mm.json" >/dev/null 2>"$tmp/err"
    rc=$?
    check "merge --chain-apart 1 of a chains run and a PMU run (rc $rc)" \
        test "$rc" -eq 0
    if [ -n "$PY" ] && [ "$rc" -eq 0 ]; then
        check "  the chains run's clocks decided again, the PMU run's kept" \
            "$PY" - "$tmp/m.json" "$tmp/m2-pmu.json" "$tmp/mm.json" \
            <<'PYEOF'
import json, sys
a, b, m = (json.load(open(f)) for f in sys.argv[1:4])
assert [r["clock_source"] for r in m["merged_runs"]] == ["imul-chain",
                                                         "pmu"]
def close(x, y):
    return (x is None and y is None) or abs(x / y - 1) < 1e-9
def faster(p):
    rs = [v for v in p[:2] if v is not None and v > 0]
    return 3 / min(rs) if rs else None
runs = m["invocation_run"]
for c, ca, cb in zip(m["cells"], a["cells"], b["cells"]):
    # The merged cell's samples, invocation by invocation, split by run.
    at, mine, theirs = 0, [], []
    for g, k in enumerate(c["invocation_samples"]):
        part = list(zip(c["samples_clock"][at:at + k],
                        c["samples_probes"][at:at + k]))
        (mine if runs[g] == 0 else theirs).extend(part)
        at += k
    assert len(mine) == len(ca["samples_clock"]) and mine
    assert len(theirs) == len(cb["samples_clock"]) and theirs
    # The second run's clocks kept, in the first run's ticks (merge
    # converts a run of another timer rate).
    h1, h2 = (r["timer_hz"] for r in m["merged_runs"])
    for (x, p), y in zip(theirs, cb["samples_clock"]):
        assert close(x, None if y is None else y * h2 / h1), (x, y)
    for (x, p), y in zip(mine, ca["samples_clock"]):
        if y is not None and faster(p) is not None:
            assert close(x, faster(p)), (x, p)
PYEOF
    else
        skip "  the chains run's clocks decided again" "no python3 or merge"
    fi
else
    skip "merge --chain-apart" "a run's clock is not from the chains"
    skip "  the chains run's clocks decided again" \
        "a run's clock is not from the chains"
fi
# --against decides the baseline again as the run: one without readings
# is refused before anything is measured.
mkdir "$tmp/bl" && cp "$A" "$tmp/bl/old.json"
STATBENCH_BASELINES=$tmp/bl
export STATBENCH_BASELINES
check "--against a baseline without readings, --chain-apart 1.5" \
    bad_input "--against old: the core clock cannot be decided again" \
    -k libc -s 256 --against old --chain-apart 1.5
check "--against a baseline without readings, --shared-margin auto" \
    bad_input "--against old: the shared core cannot be decided again" \
    -k libc -s 256 --against old --shared-margin auto
unset STATBENCH_BASELINES
check "report with a measuring option beside --precision" \
    bad_input "'--max-time' is an option of a measurement" \
    report "$A" --precision 5 --max-time 3
check "noise --precision" bad_input "'--precision' is not an option" \
    noise --precision 5
check "check-env --precision" bad_input "'--precision' is not an option" \
    check-env --precision 5

done_testing
