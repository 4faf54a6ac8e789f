#!/bin/sh
# cmd_cli.sh: statbench cmd, whole commands in interleaved rounds: the
# paired ratio of two commands of known relative cost, the random order of
# the rounds and its seed, warm-up and prepare counts, failures, the
# child's rusage, JSON and CSV, hostile names, and bad input.  Never an
# absolute time: only relations with wide margins.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbcmd.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PY=$(command -v python3 || true)

# --- relative cost: sleep 0.02 against sleep 0.06 ---------------------------
# The second sleeps three times as long; whatever the host adds to a run
# (the shell's start-up, a busy neighbour) adds to both, so B/A stays
# well above 1.5 on a busy machine, and near 3 on a quiet one.
"$STATBENCH" cmd -q --runs 6 'sleep 0.02' 'sleep 0.06' -o "$tmp/sleep.json" \
    -o "$tmp/sleep.csv" >"$tmp/sleep" 2>"$tmp/err"
rc=$?
check "two commands exit 0 (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/err")"
check "the header says the times are in ms" \
    grep -q '^data: .*values in ms' "$tmp/sleep"
check "the header says the shell's start-up is in the time" \
    grep -q "^note: .*start-up of /bin/sh" "$tmp/sleep"
check "the second command is slower than the first" \
    grep -q '^sleep 0.06 .* slower' "$tmp/sleep"
if [ -n "$PY" ]; then
    out=$("$PY" - "$tmp/sleep.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["imported"] is True and d["unit"] == "ms", (d.get("unit"),)
names = [c["kernel"] for c in d["cells"]]
assert names == ["sleep 0.02", "sleep 0.06", "(shell start-up)"], names
a, b, s = d["cells"]
assert a["comparison"] is None and s["comparison"] is None
c = b["comparison"]
assert c["base"] == 0 and c["test"] == "paired t on log invocation medians"
assert c["run_level"] == "same-run", c["run_level"]
r = c["ratio"]["estimate"]
assert r > 1.5, "B/A %g" % r
assert c["ratio"]["lo"] <= r <= c["ratio"]["hi"]
assert c["verdict"] == "slower", c["verdict"]
for x in d["cells"]:
    assert x["samples"] == 6 and x["invocations"] == 6
    assert x["invocation_samples"] == [1] * 6
    assert len(x["samples_ticks"]) == 6
    for k in ("rusage::user-ms", "rusage::system-ms", "rusage::voluntary-cs",
              "rusage::involuntary-cs", "rusage::minor-faults",
              "rusage::major-faults"):
        assert len(x["samples_counters"][k]) == 6, k
        assert all(v >= 0 for v in x["samples_counters"][k]), k
        assert k in x["counters"], k
# The shell's start-up alone is shorter than either sleep.
assert s["interval"]["estimate"] < a["interval"]["estimate"]
assert d["meta"]["seed"] == 1
print("ok")
EOF
)
    check "JSON: unit ms, cells, paired ratio > 1.5, rusage ($out)" \
        test "$out" = ok
    out=$("$PY" - "$tmp/sleep.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["kernel"] for r in rows] == ["sleep 0.02", "sleep 0.06",
                                       "(shell start-up)"]
assert all(r["unit"] == "ms" for r in rows)
assert float(rows[1]["ratio"]) > 1.5 and rows[1]["verdict"] == "slower"
assert float(rows[0]["rusage_minor_faults_per_call"]) > 0
print("ok")
EOF
)
    check "CSV: unit ms, ratio > 1.5, rusage columns ($out)" test "$out" = ok
else
    skip "JSON fields" "no python3"
    skip "CSV fields" "no python3"
fi

# --- the order of the rounds ------------------------------------------------
# Each command appends its letter: the file holds the order of every round.
order() { # order SEED FILE
    : >"$2"
    "$STATBENCH" cmd -q --runs 8 --seed "$1" "echo A >>'$2'" \
        "echo B >>'$2'" "echo C >>'$2'" >/dev/null 2>"$tmp/err"
    tr -d '\n' <"$2" | fold -w 3
}
order 1 "$tmp/o1" >"$tmp/r1"
order 1 "$tmp/o2" >"$tmp/r2"
order 2 "$tmp/o3" >"$tmp/r3"
check "8 rounds of the 3 commands, each once a round" \
    test "$(grep -c '^[ABC][ABC][ABC]$' "$tmp/r1")" -eq 8 -a \
    "$(grep -v 'A' "$tmp/r1" | wc -l)" -eq 0 -a \
    "$(grep -v 'B' "$tmp/r1" | wc -l)" -eq 0
check "the order is not the same in every round" \
    test "$(sort -u "$tmp/r1" | wc -l)" -ge 2
check "the same seed gives the same orders" cmp -s "$tmp/r1" "$tmp/r2"
differ() { ! cmp -s "$1" "$2"; }
check "another seed gives other orders" differ "$tmp/r1" "$tmp/r3"

# --- warm-up and prepare ------------------------------------------------------
"$STATBENCH" cmd -q --runs 3 --warmup 2 "echo x >>'$tmp/w'" >/dev/null \
    2>&1
check "--warmup 2 --runs 3: 5 runs ($(wc -l <"$tmp/w"))" \
    test "$(wc -l <"$tmp/w")" -eq 5
"$STATBENCH" cmd -q --runs 3 --warmup 1 --prepare "echo p >>'$tmp/p'" \
    true 'true;' >/dev/null 2>&1
check "one --prepare runs before every run of both: 8 ($(wc -l <"$tmp/p"))" \
    test "$(wc -l <"$tmp/p")" -eq 8
"$STATBENCH" cmd -q --runs 4 --prepare "echo 1 >>'$tmp/p1'" \
    --prepare "echo 2 >>'$tmp/p2'" true 'true;' >/dev/null 2>&1
check "a --prepare per command: 4 and 4 ($(wc -l <"$tmp/p1"), \
$(wc -l <"$tmp/p2"))" \
    test "$(wc -l <"$tmp/p1")" -eq 4 -a "$(wc -l <"$tmp/p2")" -eq 4

# --- failures ---------------------------------------------------------------
"$STATBENCH" cmd -q --runs 3 true 'exit 3' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a failing command exits 1 (rc $rc)" test "$rc" -eq 1
check "its error names the command, the run and the status" \
    grep -q "command 'exit 3': timed run 1 failed: exit status 3" "$tmp/err"
check "and is one line" test "$(wc -l <"$tmp/err")" -eq 1
"$STATBENCH" cmd -q --runs 3 true 'kill -9 $$' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a command killed by a signal exits 1 naming it (rc $rc)" \
    sh -c "test $rc -eq 1 && grep -q 'killed by signal 9' '$tmp/err'"
"$STATBENCH" cmd -q --runs 3 --prepare false true >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a failing --prepare exits 1 naming it (rc $rc)" \
    test "$rc" -eq 1 -a -n "$(grep -- "command 'true': prepare before timed run 1 failed" \
    "$tmp/err")"
"$STATBENCH" cmd -q --runs 3 --ignore-failure true 'exit 3' \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--ignore-failure keeps going (rc $rc)" test "$rc" -eq 0
check "and its header counts the failures" \
    grep -q '^note: *command 2 failed in 3 runs' "$tmp/out"

# --- the child's rusage ---------------------------------------------------------
# 64 MiB mapped without huge pages and touched page by page: about 16384
# more minor faults than the same interpreter doing nothing.
if [ -n "$PY" ]; then
    touch64="$PY -c 'import mmap
m = mmap.mmap(-1, 64 << 20)
getattr(m, \"madvise\", lambda a: 0)(getattr(mmap, \"MADV_NOHUGEPAGE\", 0))
for i in range(0, 64 << 20, 4096): m[i] = 1'"
    "$STATBENCH" cmd -q --runs 3 "$PY -c pass" "$touch64" \
        -o "$tmp/ru.json" >/dev/null 2>"$tmp/err"
    rc=$?
    out=$("$PY" - "$tmp/ru.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = [c["counters"]["rusage::minor-faults"]["per_call"]["estimate"]
     for c in d["cells"]]
assert f[1] - f[0] > 8000, f
print("ok")
EOF
)
    check "touching 64 MiB takes > 8000 more minor faults (rc $rc, $out)" \
        test "$out" = ok
else
    skip "minor faults" "no python3"
fi

# --- without a shell --------------------------------------------------------
"$STATBENCH" cmd -q --runs 2 -N --show-output "printf %s\\\\n 'a b'" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
check "-N splits at blanks, quotes kept together (rc $rc)" \
    test "$(grep -c '^a b$' "$tmp/out")" -eq 2
check "-N: the header says no shell, and there is no start-up row" \
    test -n "$(grep '^note: *no shell' "$tmp/out")" -a \
    -z "$(grep 'shell start-up' "$tmp/out")"

# --- hostile input --------------------------------------------------------------
# A command is one argv element of sh -c, run as given: its quotes reach
# the shell untouched.
"$STATBENCH" cmd -q --runs 2 "printf %s \"a'b\\\"c\" >'$tmp/q'" \
    >/dev/null 2>&1
check "a command's quotes reach the shell as given" \
    test "$(cat "$tmp/q")" = "a'b\"c"
esc=$(printf 'true #\033[31m')
"$STATBENCH" cmd -q --runs 2 "$esc" -o "$tmp/esc.json" >"$tmp/out" 2>&1
check "an escape in a command's name does not reach the table" \
    test -z "$(tr -d '\n' <"$tmp/out" | grep "$(printf '\033')")"
# jansson writes a raw ESC as \u001b, so the JSON is checked for that
# form: the name must arrive cleaned ('?'), not escaped.
check "nor the JSON, raw or as \\u001b" sh -c \
    "! grep -q \"\$(printf '\\033')\" '$tmp/esc.json' &&
     ! grep -qi 'u001b' '$tmp/esc.json' && grep -q 'true #?' '$tmp/esc.json'"

# --- the budget ---------------------------------------------------------------
"$STATBENCH" cmd -q --runs 1000 --max-time 0.3 'sleep 0.05' true \
    -o "$tmp/b.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--max-time stops the rounds (rc $rc)" \
    grep -q '^note: *budget: --max-time 0.3 s stopped it after' "$tmp/out"
if [ -n "$PY" ]; then
    out=$("$PY" - "$tmp/b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = {c["samples"] for c in d["cells"]}
assert len(n) == 1, n
assert 2 <= n.pop() < 1000
print("ok")
EOF
)
    check "after a whole round: every command has as many runs ($out)" \
        test "$out" = ok
fi

# --- a command past the budget's deadline ----------------------------------
# The second command hangs from its fifth run on, with a child in its
# group ('sleep 97.PID', PID this script's: a name no other process has,
# another copy of the suite running at once included).  At the deadline,
# max(1.2 x 3 s, 3 s + 2 s), it is killed with its group; the four whole
# rounds before it stay.  Four rounds of ~20 ms cannot reach a 3 s budget
# (the budget would stop them only at a round of ~700 ms).  timeout(1)
# turns a run that never ends into a failure rather than a hung suite.
to=
command -v timeout >/dev/null 2>&1 && to="timeout 120"
nap=97.$$
hang='n=$(cat '"$tmp"'/cnt 2>/dev/null || echo 0); echo $((n + 1)) >'"$tmp"'/cnt; if [ "$n" -ge 4 ]; then sleep '"$nap"' & sleep '"$nap"'; fi'
$to "$STATBENCH" cmd -q --max-time 3 'sleep 0.001' "$hang" \
    -o "$tmp/dl.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a command that hangs in round 5: killed at the deadline, exit 0 (rc $rc)" \
    test "$rc" -eq 0
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/err")"
check "  the note names it, the deadline and the rounds kept" \
    grep -q "^note: *budget: command 'n=.*' was still running at --max-time 3 s's deadline (5 s): killed with its process group, its round dropped; the 4 whole rounds before it kept" \
    "$tmp/out"
sleep 0.2
check "  nothing of its process group is left running" \
    sh -c "! pgrep -f 'sleep 97[.]$$\$' >/dev/null"
pkill -f "sleep 97[.]$$\$" 2>/dev/null
if [ -n "$PY" ]; then
    out=$("$PY" - "$tmp/dl.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = [c["samples"] for c in d["cells"]]
assert n == [4, 4, 4], n
assert any("still running at" in x for x in d["meta"]["notes"])
print("ok")
EOF
)
    check "  the JSON keeps the 4 rounds of every row ($out)" test "$out" = ok
fi
$to "$STATBENCH" cmd -q --max-time 0.5 'sleep 0.001' "sleep $nap" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a command that hangs in round 1: one line, exit 1 (rc $rc)" \
    sh -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"^statbench: command 'sleep $nap' was still running at --max-time 0.5 s's deadline (2.5 s), in timed round 1: killed; fewer than two whole rounds\" '$tmp/err'"
[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] ||
    diag "$(head -n 5 "$tmp/err")"
sleep 0.2
check "  and it is not left running" sh -c "! pgrep -f 'sleep 97[.]$$\$' >/dev/null"
pkill -f "sleep 97[.]$$\$" 2>/dev/null

# --- a stop ---------------------------------------------------------------------
# SIGTERM after some whole rounds ends the rounds: the run of those rounds
# is written, and the exit status is still the signal's (128 + 15), not
# the outputs' 0.  (With fewer than two rounds done by then, on a very busy
# machine, there is no run, and the status is the signal's all the same.)
"$STATBENCH" cmd -q --runs 100000 'sleep 0.02' 'sleep 0.03' -f csv \
    >"$tmp/stop.csv" 2>"$tmp/stop.err" &
pid=$!
sleep 3
kill -TERM "$pid"
start=$(now_ms)
wait_for "$pid" 30000 0.05
check "cmd stopped by SIGTERM after its rounds: exit 143 (rc $rc)" \
    test "$rc" -eq 143
[ "$rc" -eq 143 ] || diag "$(cat "$tmp/stop.err")"
diag "rows written before the stop: $(($(wc -l <"$tmp/stop.csv") - 1))"

# --- bad input ------------------------------------------------------------------
check "no command" bad_input "cmd takes one or more commands" cmd
check "--runs 0" bad_input "--runs '0'" cmd --runs 0 true
check "a --shell that does not exist" bad_input "shell '/nonexistent/sh': no program" \
    cmd --shell /nonexistent/sh true
check "-N and a program not there" bad_input "no program 'no-such-prog-x'" \
    cmd -N no-such-prog-x
check "-N and a pipe" bad_input "without a shell: '|'" cmd -N 'echo a | wc'
check "--prepare neither once nor per command" bad_input \
    "--prepare given 2 times for 3 commands" cmd --prepare true \
    --prepare true true 'true;' 'true;;'
check "a command given twice" bad_input "given twice" cmd true true
check "--baseline not a command" bad_input "--baseline 'x'" \
    cmd --baseline x true 'true;'
# --baseline N counts from 1: 2 is the second command, the last, which
# then has no verdict of its own while the first has one.
"$STATBENCH" cmd -q --runs 3 --baseline 2 true 'true;' -f csv \
    >"$tmp/bl.csv" 2>"$tmp/err"
rc=$?
check "--baseline 2 of 2 commands: the last is the baseline (rc $rc)" sh -c \
    "[ $rc -eq 0 ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
                                            if (\$i == \"verdict\") v = i; next }
        { got[\$1] = \$v } END { exit !(v && got[\"true\"] != \"\" &&
                                     (\"true;\" in got) && got[\"true;\"] == \"\") }' \
        '$tmp/bl.csv'"
check "--baseline 3 of 2 commands: refused" bad_input \
    "--baseline '3': not one of the commands, nor a number from 1 to 2" \
    cmd --baseline 3 true 'true;'
check "--runs is cmd's only" bad_input "'--runs' is an option of" --runs 3
check "a measurement's option" bad_input "'--kernel' is not an option" \
    cmd --kernel movsl true
# A parent that ignores SIGCHLD passes that on through exec: the command
# takes the default back, and its children are still waited for.  (The
# ignore is set by python3: dash's trap '' CHLD does not pass it on.)
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$STATBENCH" cmd -q --runs 3 true \
        >"$tmp/chld" 2>&1
    rc=$?
    check "cmd under a parent that ignores SIGCHLD exits 0 (rc $rc)" \
        test "$rc" -eq 0
    check "  and reports its rounds" grep -q "3 rounds" "$tmp/chld"
else
    skip "cmd under a parent that ignores SIGCHLD" "no python3"
    skip "  and reports its rounds" "no python3"
fi
done_testing
