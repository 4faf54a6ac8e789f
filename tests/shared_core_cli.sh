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
for name, quiet, start in (("a", 32.8, "2026-12-01T06:00:00Z"),
                           ("a2", 33.5, "2026-12-01T06:01:00Z"),
                           ("c", 54.0, "2026-12-01T06:02:00Z")):
    pr["contention_quiet"] = quiet
    d["meta"]["start_time"] = start
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
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
done_testing
