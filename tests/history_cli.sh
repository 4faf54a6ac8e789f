#!/bin/sh
# history_cli.sh: statbench history end to end on synthetic saved runs
# (written by a small generator below: a few samples a run around the
# run's level, the levels with a deterministic run-to-run noise of 0.5%):
# a step in the middle found between the right runs, the exit status when
# the newest run starts a regression (and not when an older run did, nor
# for a speed-up), runs of another host kept apart with the line saying
# so, hostile file and kernel names kept inert (table, JSON, gnuplot), a
# planted link and a FIFO in the directory passed over, a truncated file
# refused naming it, bad option values refused naming them.  No measuring.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
    skip "statbench history" "no $PY"
    done_testing
    exit $?
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbhist.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
STATBENCH=$(cd "$(dirname "$STATBENCH")" && pwd)/$(basename "$STATBENCH")
have_gnuplot=$(command -v gnuplot || true)

# gen.py DIR PREFIX HOST CPU DAY0 KERNEL LEVEL:COUNT...: COUNT runs at each
# LEVEL (ticks per call), one a day from day DAY0 of December 2026, as
# DIR/PREFIX-NN.json.
cat >"$tmp/gen.py" <<'EOF'
import json, sys
d, prefix, host, cpu, day0, kernel = sys.argv[1:7]
state = [12345 + int(day0)]
def u():
    state[0] = (6364136223846793005 * state[0] + 1442695040888963407) % 2**64
    return (state[0] >> 11) / float(2**53)
i = 0
for spec in sys.argv[7:]:
    level, count = spec.split(":")
    for _ in range(int(count)):
        run = float(level) * (1 + 0.005 * (2 * u() - 1))
        samples = [round(run * (1 + 0.001 * (2 * u() - 1)), 3)
                   for _ in range(21)]
        day = int(day0) + i
        doc = {"schema": "statbench-run", "schema_version": 1,
               "meta": {"hostname": host, "cpu_model": cpu,
                        "start_time": "2026-%02d-%02dT10:00:00Z"
                                      % (1 + day // 28, 1 + day % 28),
                        "timer": {"kind": "tsc", "hz": 2e9}},
               "cells": [{"kernel": kernel, "size": 4096, "src_align": 0,
                          "dst_align": 0, "samples_ticks": samples}]}
        with open("%s/%s-%02d.json" % (d, prefix, i + int(day0)), "w") as f:
            json.dump(doc, f)
        i += 1
EOF
gen() { "$PY" "$tmp/gen.py" "$@"; }

# --- 1. a step in the middle ------------------------------------------------
mkdir "$tmp/mid"
gen "$tmp/mid" run vm "CPU A" 0 libc 1000:15 1100:15
"$STATBENCH" history "$tmp/mid" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a step at run 16 of 30: exit 0, the newest run starts nothing (rc $rc)" \
    test "$rc" -eq 0
check "  one change point" grep -q '1 change point$' "$tmp/out"
check "  between runs 15 and 16" \
    grep -q 'change 1: between runs 15 (2026-01-15T10:00:00Z) and 16 ' \
    "$tmp/out"
check "  its size near 1.10, slower" \
    grep -Eq 'and 16 .*: 1\.(09|10|11)[0-9]* \[.*\] slower, p 0\.005' \
    "$tmp/out"
check "  every run in the table" \
    test "$(grep -c 'run-[0-9][0-9].json$' "$tmp/out")" -eq 30
"$STATBENCH" history "$tmp/mid" -f json >"$tmp/j" 2>/dev/null
check "  -f json: the change point at point 15, runs 14 and 15 (from 0)" \
    "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); \
c=d['cells'][0]['change_points']; \
sys.exit(not (len(c)==1 and c[0]['point']==15 and c[0]['run_before']==14 \
and c[0]['run_after']==15 and d['regressions']==0))" "$tmp/j"
"$STATBENCH" history "$tmp/mid" -f csv >"$tmp/c" 2>/dev/null
check "  -f csv: a header and 30 rows, the change on run 16" \
    "$PY" -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); \
sys.exit(not (len(r)==30 and [x['run'] for x in r if x['change']=='1']==['16']))" \
    "$tmp/c"
# The same files in another order, named one by one: the same history.
"$STATBENCH" history $(ls -r "$tmp"/mid/*.json) >"$tmp/out2" 2>/dev/null
check "  files named in reverse order: ordered by start time all the same" \
    grep -q 'change 1: between runs 15 (2026-01-15T10:00:00Z) and 16 ' \
    "$tmp/out2"

# --- 2. the exit status for CI ------------------------------------------------
# 20 quiet runs, then slower runs one at a time, as a CI job adds them: the
# gate fails exactly once, at the run that makes the change detectable
# (the fifth at the latest: segments of 5 runs), and passes after it.
mkdir "$tmp/reg"
gen "$tmp/reg" run vm "CPU A" 0 libc 1000:20
codes=
k=20
while [ $k -lt 27 ]; do
    gen "$tmp/reg" run vm "CPU A" $k libc 1080:1
    "$STATBENCH" history "$tmp/reg" >"$tmp/out.$k" 2>"$tmp/err.$k"
    codes="$codes$?"
    k=$((k + 1))
done
check "+8% from run 21, a run at a time: exit 1 once, by the fifth ($codes)" \
    sh -c "echo '$codes' | grep -Eq '^0*10*$' &&
           test \$(echo '$codes' | cut -c1-5 | tr -cd 1 | wc -c) -eq 1"
first=$(echo "$codes" | sed 's/1.*//' | wc -c)
k=$((19 + first))
check "  a REGRESSION line naming the cell and where it began" \
    grep -Eq 'REGRESSION libc 4096 B 0/0: 1\.0[0-9]* .* slower from run (19|20|21) ' \
    "$tmp/err.$k"
check "  the table says so" grep -q "REGRESSION: the newest run ($((k + 1)))" \
    "$tmp/out.$k"
"$STATBENCH" history "$tmp/reg" >"$tmp/out" 2>/dev/null
check "  with 7 slower runs the change sits at run 21" \
    grep -q 'change 1: between runs 20 (2026-01-20T10:00:00Z) and 21 ' \
    "$tmp/out"
rm "$tmp/reg/run-26.json" "$tmp/reg/run-25.json"
"$STATBENCH" history "$tmp/reg" --threshold 10 >/dev/null 2>&1
rc=$?
check "  --threshold 10: the change stands, no regression: exit 0 (rc $rc)" \
    test "$rc" -eq 0
mkdir "$tmp/fast"
gen "$tmp/fast" run vm "CPU A" 0 libc 1000:20 920:5
"$STATBENCH" history "$tmp/fast" >"$tmp/out" 2>/dev/null
rc=$?
check "a speed-up at the newest run: exit 0 (rc $rc)" test "$rc" -eq 0
check "  shown as faster" grep -q '\] faster, p' "$tmp/out"

# --- 3. another host ---------------------------------------------------------
cp -r "$tmp/mid" "$tmp/hosts"
gen "$tmp/hosts" other fast "CPU B" 3 libc 700:3
"$STATBENCH" history "$tmp/hosts" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "3 runs of another host among 30: exit 0 (rc $rc)" test "$rc" -eq 0
check "  the line on stderr says they were kept apart" \
    grep -q "history: kept apart: 3 runs of host 'fast', CPU 'CPU B'" \
    "$tmp/err"
check "  and the table says so" grep -q "^note: kept apart: 3 runs" \
    "$tmp/out"
check "  the history is the 30 runs of host vm, one change point" \
    sh -c "grep -q \"^statbench history: 30 runs of host 'vm'\" '$tmp/out' &&
           grep -q '1 change point\$' '$tmp/out'"

# --- 4. hostile names, links and FIFOs ----------------------------------------
mkdir "$tmp/evil" && cd "$tmp/evil" || exit 1
gen . 'x$(touch PWNED1)`touch PWNED2`' vm "CPU A" 0 \
    "k\`touch PWNED3\`\$(touch PWNED4)'q\"" 1000:8 1100:8
printf '{"schema": "statbench-run", "schema_version": 1, "meta": {"hostname": "vm", "cpu_model": "CPU A", "start_time": "2026-03-01T00:00:00Z", "timer": {"kind": "tsc", "hz": 2e9}}, "cells": [{"kernel": "esc\\u001b[31mred", "size": 4096, "src_align": 0, "dst_align": 0, "samples_ticks": [1100, 1101, 1102]}]}' \
    >"$tmp/evil/zesc.json"
ln -s /etc/passwd "$tmp/evil/link.json"
mkfifo "$tmp/evil/fifo.json" 2>/dev/null || true
# The outputs outside the directory: a .json there would be read as a run.
mkdir "$tmp/fig"
sb_ok out "history of hostile names, a link and a FIFO" \
    history . --plot ../fig/h.svg -o ../fig/h.json
check "  the link passed over with a line" \
    grep -q 'link.json: a symbolic link: passed over' "$tmp/err"
if [ -p "$tmp/evil/fifo.json" ]; then
    check "  the FIFO passed over with a line, not read" \
        grep -q 'fifo.json: not a regular file: passed over' "$tmp/err"
else
    skip "  the FIFO passed over" "no mkfifo"
fi
check "  no escape character reaches the table or stderr" \
    sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/out' '$tmp/err'"
check "  the ESC shown as ?" grep -q 'esc?\[31mred' "$tmp/out"
check "  the JSON reads back, the kernel name intact" \
    "$PY" -c "import json,sys; k=json.load(open('../fig/h.json'))['cells'][0]['kernel']; \
sys.exit(not ('touch PWNED3' in k and '(touch PWNED4)' in k))"
check "  the script has no backquote outside a single-quoted string" \
    sh -c "test -s ../fig/h.gp && ! sed \"s/'[^']*'//g\" ../fig/h.gp | grep -v '^#' | grep -q '\`'"
check "  nor a \$( outside one" \
    sh -c "test -s ../fig/h.gp && ! sed \"s/'[^']*'//g\" ../fig/h.gp | grep -v '^#' | grep -qF '\$('"
if [ -n "$have_gnuplot" ]; then
    check "  the figure drawn" test -s ../fig/h.svg
    check "  nothing ran (no PWNED file)" \
        sh -c '! ls PWNED* ../fig/PWNED* >/dev/null 2>&1'
else
    skip "  the figure drawn" "no gnuplot"
    check "  nothing ran (no PWNED file)" \
        sh -c '! ls PWNED* ../fig/PWNED* >/dev/null 2>&1'
fi
rm -f ../fig/h.dat && ln -s "$tmp/planted" ../fig/h.dat
"$STATBENCH" history . --plot ../fig/h.svg >/dev/null 2>&1
check "  a link planted at the figure's data is replaced, not followed" \
    sh -c "test ! -e '$tmp/planted' && test -f ../fig/h.dat &&
           test ! -L ../fig/h.dat"
cd "$tmp" || exit 1

# --- 4b. more cells than the figure's colours ---------------------------------
# 12 cells: each drawn, the 9th to 12th in the colours again, dashed;
# none left out of the figure with nothing said.
mkdir "$tmp/wide" "$tmp/widefig"
"$PY" - "$tmp/wide" <<'EOF3'
import json, sys
for r in range(12):
    cells = [{"kernel": "k%02d" % c, "size": 4096, "src_align": 0,
              "dst_align": 0,
              "samples_ticks": [1000 + c + r % 3, 1001 + c, 1002 + c]}
             for c in range(12)]
    doc = {"schema": "statbench-run", "schema_version": 1,
           "meta": {"hostname": "vm", "cpu_model": "CPU A",
                    "start_time": "2026-02-%02dT10:00:00Z" % (r + 1),
                    "timer": {"kind": "tsc", "hz": 2e9}},
           "cells": cells}
    json.dump(doc, open("%s/w%02d.json" % (sys.argv[1], r), "w"))
EOF3
sb_ok out "history of 12 cells --plot" history "$tmp/wide" \
    --plot "$tmp/widefig/w.svg"
check "  all 12 cells plotted, k11 too" \
    sh -c "test \$(grep -c 'data index [0-9]* using' '$tmp/widefig/w.gp') -eq 12 &&
           grep -q \"dt 2 title 'k11 \" '$tmp/widefig/w.gp'"
check "  the first 8 solid, the next 4 dashed" \
    sh -c "test \$(grep -c 'yerrorlines lt [1-8] dt 1 ' '$tmp/widefig/w.gp') -eq 8 &&
           test \$(grep -c 'yerrorlines lt [1-4] dt 2 ' '$tmp/widefig/w.gp') -eq 4"
if [ -n "$have_gnuplot" ]; then
    check "  the figure drawn" test -s "$tmp/widefig/w.svg"
else
    skip "  the figure drawn" "no gnuplot"
fi

# --- 5. bad input --------------------------------------------------------------
head -c 300 "$tmp/mid/run-03.json" >"$tmp/trunc.json"
"$STATBENCH" history "$tmp/mid/run-01.json" "$tmp/trunc.json" \
    >/dev/null 2>"$tmp/err"
rc=$?
check "a truncated file: exit 2 (rc $rc)" test "$rc" -eq 2
check "  one line naming it" \
    sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'trunc.json' '$tmp/err'"
for bad in '--cp-min-size 1' '--cp-exponent 2' '--cp-permutations 0' \
    '--format markdown' '--alpha 1' '--kernel libc'; do
    # shellcheck disable=SC2086
    "$STATBENCH" history "$tmp/mid" $bad >/dev/null 2>"$tmp/err"
    rc=$?
    word=${bad%% *}
    check "history $bad: exit 2, one line naming ${word} (rc $rc)" \
        sh -c "test $rc -eq 2 && test \$(wc -l <'$tmp/err') -eq 1 &&
               grep -q -- '${word#--}' '$tmp/err'"
done
# Too few permutations for the p cutoff: no split could ever be kept.
"$STATBENCH" history "$tmp/mid" --cp-permutations 10 >/dev/null 2>"$tmp/err"
rc=$?
check "--cp-permutations 10 at alpha 0.05: exit 2, the least that can (rc $rc)" \
    sh -c "test $rc -eq 2 && grep -q 'use at least 19' '$tmp/err'"
# A start time that names no instant: refused, naming the file and the
# value (as text it would sort anywhere).
mkdir "$tmp/when"
cp "$tmp/mid/run-0"[0-5].json "$tmp/when/"
sed 's/"start_time": "[^"]*"/"start_time": "last Tuesday"/' \
    "$tmp/mid/run-06.json" >"$tmp/when/run-06.json"
"$STATBENCH" history "$tmp/when" >/dev/null 2>"$tmp/err"
rc=$?
check "a start time 'last Tuesday': exit 2, one line naming file and value" \
    sh -c "test $rc -eq 2 && test \$(wc -l <'$tmp/err') -eq 1 &&
           grep -q \"run-06.json: meta.start_time 'last Tuesday'\" '$tmp/err'"
# A run whose cell kept no sample is no point of the series: the step
# after it is still found at the newest run.
mkdir "$tmp/nan"
gen "$tmp/nan" run vm "CPU A" 0 libc 1000:15 1100:3
"$PY" - "$tmp/nan/run-05.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
d["cells"][0]["samples_ticks"] = []
json.dump(d, open(sys.argv[1], "w"))
EOF2
"$STATBENCH" history "$tmp/nan" >/dev/null 2>"$tmp/err"
rc=$?
check "a run without samples in the series: the step still found (rc $rc)" \
    test "$rc" -eq 1
# An error is 2, never 1: 1 tells a CI gate that the newest run is
# slower, and an output not written says nothing of the kind.
"$STATBENCH" history "$tmp/nan" -o "$tmp/no/such/dir/h.json" >/dev/null \
    2>"$tmp/err"
rc=$?
check "  with an output that cannot be written: exit 2, not 1 (rc $rc)" \
    sh -c "test $rc -eq 2 && grep -q 'no/such/dir/h.json' '$tmp/err'"
"$STATBENCH" history "$tmp/mid" --plot "$tmp/no/such/dir/h.svg" \
    >/dev/null 2>&1
rc=$?
check "a figure that cannot be written, no regression: exit 2 (rc $rc)" \
    test "$rc" -eq 2
if [ -w /dev/full ]; then
    "$STATBENCH" history "$tmp/nan" >/dev/full 2>"$tmp/err"
    rc=$?
    check "the table to a full disk (/dev/full): exit 2 (rc $rc)" \
        sh -c "test $rc -eq 2 && grep -q 'standard output' '$tmp/err'"
else
    skip "the table to a full disk" "no /dev/full"
fi
# Imported values in two units are two series, not one with a thousandfold
# step: Google Benchmark runs in us, then the same durations in ns, each
# saved by report; the other unit's runs are kept apart, said in a line.
mkdir "$tmp/gb" "$tmp/units"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    if [ "$i" -le 6 ]; then unit=us v=1.0; else unit=ns v=1000; fi
    row='{"name":"k","run_type":"iteration","iterations":10,"real_time":'$v',"cpu_time":'$v',"time_unit":"'$unit'"}'
    printf '{"context":{"date":"2026-12-%02dT10:00:00+00:00","host_name":"h"},"benchmarks":[%s,%s,%s]}\n' \
        "$i" "$row" "$row" "$row" >"$tmp/gb/g$i.json"
    "$STATBENCH" report "$tmp/gb/g$i.json" -f json -o "$tmp/units/r$i.json" \
        >/dev/null 2>&1
done
"$STATBENCH" history "$tmp/units" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "imported runs in us, then in ns: exit 0, no change across units (rc $rc)" \
    sh -c "test $rc -eq 0 && grep -q \"kept apart: 6 runs .*values in 'us'\" '$tmp/err'"
# More files than a series may hold: refused before any is read.
mkdir "$tmp/many"
(cd "$tmp/many" && i=0 && while [ $i -le 4096 ]; do
    : >"r$i.json"; i=$((i + 1)); done)
"$STATBENCH" history "$tmp/many" >/dev/null 2>"$tmp/err"
rc=$?
check "4097 files: exit 2 before reading, naming the cap (rc $rc)" \
    sh -c "test $rc -eq 2 && grep -q '4097 files to read, at most 4096' '$tmp/err'"
mkdir "$tmp/empty"
"$STATBENCH" history "$tmp/empty" >/dev/null 2>"$tmp/err"
rc=$?
check "an empty directory: exit 2 (rc $rc)" test "$rc" -eq 2
"$STATBENCH" history >/dev/null 2>"$tmp/err"
rc=$?
check "no operand: exit 2 (rc $rc)" test "$rc" -eq 2
"$STATBENCH" history --help >"$tmp/out" 2>&1
check "history --help lists its options" \
    sh -c "grep -q -- '--cp-min-size' '$tmp/out' &&
           grep -q -- '--threshold' '$tmp/out' &&
           ! grep -q -- '--kernel' '$tmp/out'"
check "  and only the formats a history is written in" \
    sh -c "grep -q -- '-f, --format FMT  *table, csv or json ' '$tmp/out' &&
           ! grep -Eq 'markdown|latex|compact|\.tex|\.md' '$tmp/out'"
for f in markdown nosuch; do
    "$STATBENCH" history "$tmp/mid" -f "$f" >/dev/null 2>"$tmp/err"
    rc=$?
    check "history -f $f: exit 2, one line naming it and table, csv, json" \
        sh -c "test $rc -eq 2 && test \$(wc -l <'$tmp/err') -eq 1 &&
               grep -q \"'$f'.*(use table, csv or json)\" '$tmp/err'"
done
done_testing
