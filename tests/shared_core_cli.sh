#!/bin/sh
# shared_core_cli.sh: a run measured on a shared core throughout (issue
# 12): nothing inside it can tell (its own quiet level is the contended
# one), but beside another run it shows, and compare and merge say which
# run was louder.  The JSON fixtures are made here from
# tests/fixtures/reanalyse_a.json by a few lines of Python: A with a core
# clock on every sample and the contention probe's quiet level 32.8 core
# cycles per repetition (this VM's core), A2 the same at 33.5 (2% louder:
# within the 5% margin), C at 54.0 (65% louder: measured here while
# another tenant shared the core).  Nothing is measured.
. "${top_srcdir:-.}/tests/lib.sh"

python_scratch sbshared "a run on a shared core"

"$PY" - "$top_srcdir/tests/fixtures/reanalyse_a.json" "$tmp" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["meta"]["l2_bytes"] = 2 * 1024 * 1024
for c in d["cells"]:
    c["samples_clock"] = [1.4] * len(c["samples_ticks"])
pr = d["meta"].setdefault("probes", {})
pr["contention_margin"] = 0.05
ticks = [c["samples_ticks"] for c in d["cells"]]
for name, quiet, start, f in (("a", 32.8, "2026-12-01T06:00:00Z", 1),
                              ("a2", 33.5, "2026-12-01T06:01:00Z", 1),
                              ("c", 54.0, "2026-12-01T06:02:00Z", 1.6),
                              ("s", 33.0, "2026-12-01T06:05:00Z", 1.6)):
    for c, t in zip(d["cells"], ticks):
        c["samples_ticks"] = [x * f for x in t]
    pr["contention_quiet"] = quiet
    d["meta"]["start_time"] = start
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
# N: no clock (every sample's unknown), its level in ticks.
for c in d["cells"]:
    c["samples_clock"] = [None] * len(c["samples_ticks"])
pr["contention_quiet"], pr["clock_source"] = 23.0, "none"
d["meta"]["start_time"] = "2026-12-01T06:03:00Z"
json.dump(d, open("%s/n.json" % sys.argv[2], "w"))
# D: C's figures on another CPU model, whose core has its own level.
d = json.load(open("%s/c.json" % sys.argv[2]))
d["meta"]["cpu_model"] = "Another CPU"
d["meta"]["start_time"] = "2026-12-01T06:04:00Z"
json.dump(d, open("%s/d.json" % sys.argv[2], "w"))
PYEOF
check "fixtures made" test -s "$tmp/c.json"

"$STATBENCH" compare "$tmp/a.json" "$tmp/c.json" >"$tmp/ac.out" \
    2>"$tmp/ac.err"
rc=$?
check "compare a quiet run with a loud one (rc $rc)" test "$rc" -eq 0
check "  warns that the second was measured on a shared core, with both levels" \
    grep -q "warning: .*c.json was measured on a shared core: its contention probe's quiet level is 54.0 core cycles per repetition, .*a.json's 32.8 (+65%)" \
    "$tmp/ac.err"
[ -s "$tmp/ac.err" ] && diag "$(cat "$tmp/ac.err")"
"$STATBENCH" compare "$tmp/c.json" "$tmp/a.json" >/dev/null 2>"$tmp/ca.err"
check "  and names the loud run when it is the baseline" \
    grep -q "warning: .*c.json was measured on a shared core: .* 54.0 .*a.json's 32.8" \
    "$tmp/ca.err"
"$STATBENCH" compare "$tmp/a.json" "$tmp/a2.json" >/dev/null \
    2>"$tmp/aa2.err"
check "  no warning within the margin (32.8 and 33.5, 2%)" \
    sh -c "! grep -q 'shared core' '$tmp/aa2.err'"

# The verdicts: C's and S's samples are A's times 1.6, as a shared core
# made them here; S at a quiet level is slower, C beside A says nothing
# (its figures are the shared core's), and runs of two CPU models are
# compared as they are (their cores' levels differ by nature).
verdicts() {
    "$STATBENCH" compare "$1" "$2" -f csv 2>/dev/null |
        "$PY" -c 'import csv, sys
print(" ".join(sorted(set(r["verdict"] for r in csv.DictReader(sys.stdin)))))'
}
v=$(verdicts "$tmp/a.json" "$tmp/s.json")
check "  1.6 times the ticks at a quiet level: slower ($v)" test "$v" = slower
v=$(verdicts "$tmp/a.json" "$tmp/c.json")
check "  the same beside a loud run: every verdict inconclusive ($v)" \
    test "$v" = inconclusive
"$STATBENCH" compare "$tmp/a.json" "$tmp/d.json" >/dev/null 2>"$tmp/ad.err"
v=$(verdicts "$tmp/a.json" "$tmp/d.json")
check "  another CPU model: no warning, slower ($v)" \
    sh -c "! grep -q 'shared core' '$tmp/ad.err' && test '$v' = slower"

"$STATBENCH" merge "$tmp/a.json" "$tmp/a2.json" "$tmp/c.json" \
    -o "$tmp/m.json" >/dev/null 2>"$tmp/m.err"
rc=$?
check "merge of the three (rc $rc)" test "$rc" -eq 0
check "  warns that run 3 was measured on a shared core, against run 1" \
    grep -q "run 3: measured on a shared core: its contention probe's quiet level is 54.0 core cycles per repetition, run 1's 32.8 (+65%)" \
    "$tmp/m.err"
check "  and of no other run" \
    test "$(grep -c 'shared core' "$tmp/m.err")" -eq 1
[ -s "$tmp/m.err" ] && diag "$(cat "$tmp/m.err")"

# The quietest run is found wherever it stands: last, after a loud run
# and one within the margin of both others (33.5 is 2% above 32.8 and 38%
# below 54.0), and after a run without a clock (its level unknown).
"$STATBENCH" merge "$tmp/c.json" "$tmp/a2.json" "$tmp/a.json" \
    -o "$tmp/m2.json" >/dev/null 2>"$tmp/m2.err"
check "  the quietest run last: run 1 named, against run 3" \
    grep -q "run 1: measured on a shared core: .* 54.0 .*run 3's 32.8" \
    "$tmp/m2.err"
"$STATBENCH" merge "$tmp/n.json" "$tmp/c.json" "$tmp/a.json" \
    -o "$tmp/m3.json" >/dev/null 2>"$tmp/m3.err"
check "  a first run without a clock: run 2 named, against run 3" \
    grep -q "run 2: measured on a shared core: .* 54.0 .*run 3's 32.8" \
    "$tmp/m3.err"
done_testing
