#!/bin/sh
# import_tools.sh: the JSON of other benchmark tools (Google Benchmark,
# hyperfine, pyperf), made by the real tools (tests/fixtures/tools/,
# make.sh there), read by analyze, report, compare and merge: each file's
# medians and means against the numbers the tool itself printed for it,
# within the printed digits; a round trip through statbench's JSON;
# verdicts between two files; and hostile or truncated files refused with
# one line naming the field.
. "${top_srcdir:-.}/tests/lib.sh"
run_scratch sbimp
fx="$top_srcdir/tests/fixtures/tools"

# --- each tool's file, against the tool's own printed figures --------------
if [ -n "$PY" ]; then
    # within DESC: the Python on stdin over the statbench JSON d, with
    # near(a, printed) true when a rounds to the printed number: within
    # half its last digit (in the printed unit, scaled to statbench's).
    within() {
        check "$1" "$PY" -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
fx = sys.argv[2]
def near(a, printed, scale=1.0):
    s = printed.strip()
    dec = len(s.split(".")[1]) if "." in s else 0
    tol = 0.5 * 10 ** -dec * scale * (1 + 1e-9)
    return abs(a - float(s) * scale) <= tol
cells = {c["kernel"]: c for c in d["cells"]}
exec(sys.stdin.read())' "$2" "$fx"
    }

    sb_ok gb.json "analyze of Google Benchmark's JSON" \
        analyze "$fx/gbench.json" -f json
    within "gbench: median and mean of each benchmark as its aggregate rows say" \
        "$tmp/gb.json" <<'PYEOF'
src = json.load(open(fx + "/gbench.json"))
agg = {}
for r in src["benchmarks"]:
    if r.get("run_type") == "aggregate":
        agg[(r["run_name"], r["aggregate_name"])] = r["real_time"]
assert sorted(cells) == ["BM_memcpy/4096", "BM_memcpy/65536"], sorted(cells)
assert d["unit"] == "ns" and d["imported"] is True
# The file's record: its host and date.
assert d["meta"]["hostname"] == src["context"]["host_name"][:63]
assert d["meta"]["start_time"] == src["context"]["date"][:31]
for name, c in cells.items():
    assert c["invocations"] == 6, c["invocations"]
    med, mean = c["interval"]["estimate"], c["ticks"]["mean"]
    assert abs(med - agg[(name, "median")]) <= 1e-9 * med, (med, agg)
    assert abs(mean - agg[(name, "mean")]) <= 1e-9 * mean, (mean, agg)
    assert c["interval"]["lo"] <= med <= c["interval"]["hi"]
# The console table of the same run: "BM_memcpy/4096_median  75.3 ns ..."
printed = {}
for line in open(fx + "/gbench.printed"):
    m = re.match(r"(\S+)_(median|mean)\s+([0-9.]+) ns", line)
    if m:
        printed[(m.group(1), m.group(2))] = m.group(3)
assert len(printed) == 4, printed
for (name, what), p in printed.items():
    c = cells[name]
    got = c["interval"]["estimate"] if what == "median" else c["ticks"]["mean"]
    assert near(got, p), (name, what, got, p)
PYEOF

    sb_ok hf.json "analyze of hyperfine's JSON" \
        analyze "$fx/hyperfine.json" -f json
    within "hyperfine: mean and median of each command as hyperfine says" \
        "$tmp/hf.json" <<'PYEOF'
src = json.load(open(fx + "/hyperfine.json"))
assert d["unit"] == "s"
for r in src["results"]:
    c = cells[r["command"]]
    assert c["ticks"]["n"] == len(r["times"]) == 10
    assert abs(c["ticks"]["mean"] - r["mean"]) <= 1e-12, (c["ticks"], r["mean"])
    assert abs(c["interval"]["estimate"] - r["median"]) <= 1e-12
# "Time (mean ± σ):      10.9 ms ±   0.1 ms" for each command in turn.
means = re.findall(r"Time \(mean[^:]*:\s+([0-9.]+) ms", open(fx + "/hyperfine.printed", encoding="utf-8").read())
assert len(means) == 2, means
for r, p in zip(src["results"], means):
    assert near(cells[r["command"]]["ticks"]["mean"], p, 1e-3), (r["command"], p)
PYEOF

    sb_ok pp.json "analyze of pyperf's JSON" analyze "$fx/pyperf.json" -f json
    within "pyperf: median and mean as pyperf stats prints them, per process" \
        "$tmp/pp.json" <<'PYEOF'
text = open(fx + "/pyperf.printed").read()
scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "sec": 1.0}
def printed(label):
    m = re.search(label + r"[^:\n]*:\s+([0-9.]+) (ns|us|ms|sec)", text)
    assert m, label
    return m.group(1), scale[m.group(2)]
assert d["unit"] == "s"
c = cells["sort"]
src = json.load(open(fx + "/pyperf.json"))
runs = [r for r in src["benchmarks"][0]["runs"] if r.get("values")]
assert c["invocations"] == len(runs) == 4, (c["invocations"], len(runs))
p, s = printed("Mean")
assert near(c["ticks"]["mean"], p, s), (c["ticks"]["mean"], p)
p, s = printed("Median")
assert near(c["ticks"]["median_pooled"]["estimate"], p, s), (c["ticks"], p)
PYEOF

    # --- a round trip: exported and read back, the same figures -----------
    # exported SOURCE COMMAND NAME: SOURCE analyzed into $tmp/NAME.json,
    # then read back by COMMAND (report or analyze) into $tmp/NAME2.json.
    exported() {
        "$STATBENCH" analyze "$1" -f json -o "$tmp/$3.json" \
            >/dev/null 2>"$tmp/err"
        "$STATBENCH" "$2" "$tmp/$3.json" -f json >"$tmp/${3}2.json" \
            2>>"$tmp/err"
    }
    exported "$fx/gbench.json" report rt
    check_json "round trip: a gbench import saved and reported keeps its figures" \
        "$tmp/rt2.json" <<PYEOF
a = json.load(open("$tmp/gb.json"))
assert d["imported"] is True and d["unit"] == a["unit"] == "ns"
for x, y in zip(a["cells"], d["cells"]):
    assert x["kernel"] == y["kernel"] and x["invocations"] == y["invocations"]
    # The JSON keeps 10 significant digits of each sample.
    for k in ("estimate", "lo", "hi"):
        assert abs(x["interval"][k] - y["interval"][k]) <= 1e-9 * x["interval"][k], (k, x["interval"], y["interval"])
    assert abs(x["ticks"]["mean"] - y["ticks"]["mean"]) <= 1e-9 * x["ticks"]["mean"]
PYEOF

    # A statbench run of its own exported and read back: told from its
    # keys, the same figures.
    printf '1.5\n2.5\n2.0\n3.5\n1.0\n2.25\n' >"$tmp/own.txt"
    exported "$tmp/own.txt" analyze own
    check_json "round trip: a statbench run exported and read back by analyze" \
        "$tmp/own2.json" <<PYEOF
a = json.load(open("$tmp/own.json"))
x, y = a["cells"][0], d["cells"][0]
assert x["interval"] == y["interval"], (x["interval"], y["interval"])
assert x["ticks"]["mean"] == y["ticks"]["mean"] == 2.125
PYEOF
    # From a pipe: told by its first byte, and read whole.
    cat "$fx/pyperf.json" | "$STATBENCH" analyze - -f json >"$tmp/pipe.json" 2>"$tmp/err"
    check_json "analyze - reads a tool's JSON from stdin" "$tmp/pipe.json" <<'PYEOF'
assert d["cells"][0]["kernel"] == "sort" and d["cells"][0]["invocations"] == 4
PYEOF

    # --- comparisons between two files of one tool -----------------------
    sb_ok ppc.json "compare of two pyperf files" \
        compare "$fx/pyperf.json" "$fx/pyperf_b.json" -f json
    check_json "pyperf: sorting 4 times the list is slower, as pyperf says" \
        "$tmp/ppc.json" <<PYEOF
c = d["cells"][0]["comparison"]
assert c["verdict"] == "slower", c
assert c["ratio"]["lo"] > 1.5, c["ratio"]
printed = open("$fx/pyperf_b.printed").read()
assert "slower" in printed, printed
PYEOF
    sb_ok gbc.json "analyze of two Google Benchmark files" \
        analyze "$fx/gbench.json" "$fx/gbench_b.json" -f json
    check_json "gbench: each benchmark compared over its repetitions" \
        "$tmp/gbc.json" <<'PYEOF'
for c in d["cells"]:
    cmp = c["comparison"]
    assert cmp["verdict"] in ("faster", "slower", "equivalent", "inconclusive"), cmp
    assert cmp["ratio"]["lo"] <= cmp["ratio"]["estimate"] <= cmp["ratio"]["hi"]
PYEOF
    sb_ok mg.json "merge of two Google Benchmark files" \
        merge "$fx/gbench.json" "$fx/gbench_b.json" -f json
    check_json "merge: each benchmark's 12 repetitions, two runs" \
        "$tmp/mg.json" <<'PYEOF'
assert all(c["invocations"] == 12 for c in d["cells"]), [c["invocations"] for c in d["cells"]]
PYEOF
    sb_ok cpu.json "--gbench-time cpu" analyze "$fx/gbench.json" \
        --gbench-time cpu -f json
    check_json "--gbench-time cpu: the median of cpu_time" "$tmp/cpu.json" <<PYEOF
src = json.load(open("$fx/gbench.json"))
agg = {r["run_name"]: r["cpu_time"] for r in src["benchmarks"]
       if r.get("aggregate_name") == "median"}
for c in d["cells"]:
    assert abs(c["interval"]["estimate"] - agg[c["kernel"]]) <= 1e-9 * agg[c["kernel"]]
PYEOF
else
    skip "the tools' files against their printed figures" "no python3"
fi

sb_ok hf.txt "report of hyperfine's JSON" report "$fx/hyperfine.json"
check "the table names the unit and the commands" \
    sh -c 'grep -q "sleep 0.01" "$1" && grep -q "sleep 0.02" "$1" &&
        grep -qi "hyperfine" "$1"' sh "$tmp/hf.txt"
check "--from pyperf names the format" \
    sh -c '"$1" analyze --from pyperf "$2" >/dev/null' sh "$STATBENCH" \
    "$fx/pyperf.json"

# --- files refused, one line naming the field --------------------------------
gb() { # gb FILE ROWS: a Google Benchmark file of ROWS (JSON text)
    printf '{"context": {"date": "x", "host_name": "h"}, "benchmarks": [%s]}\n' \
        "$2" >"$tmp/$1"
}
# analyze_rc FILE OUT [OPTION...]: analyze of $tmp/FILE, its output in
# $tmp/OUT, its errors in $tmp/err and its status in rc.
analyze_rc() {
    file=$1 out=$2
    shift 2
    "$STATBENCH" analyze "$tmp/$file" "$@" >"$tmp/$out" 2>"$tmp/err"
    rc=$?
}
row='{"name": "B", "run_name": "B", "run_type": "iteration", "repetition_index": 0, "iterations": 10, "real_time": 5, "cpu_time": 5, "time_unit": "ns"}'
gb wrongtype.json '{"name": "B", "run_type": "iteration", "real_time": "fast"}'
check "gbench: real_time a string: refused, naming it" \
    bad_input "wrongtype.json: benchmarks[0].real_time: not a number" \
    analyze "$tmp/wrongtype.json"
gb negative.json "$row"', {"name": "B", "run_type": "iteration", "real_time": -4}'
check "gbench: a negative time: refused, naming it" \
    bad_input "benchmarks[1].real_time: -4 is not a positive time" \
    analyze "$tmp/negative.json"
gb unit.json '{"name": "B", "real_time": 4, "time_unit": "fortnights"}'
check "gbench: an unknown time_unit: refused, naming it" \
    bad_input "benchmarks[0].time_unit: 'fortnights' is not ns, us, ms or s" \
    analyze "$tmp/unit.json"
gb onlyagg.json '{"name": "B_mean", "run_name": "B", "run_type": "aggregate", "aggregate_name": "mean", "real_time": 4}'
check "gbench: aggregate rows alone: refused, saying so" \
    bad_input "benchmarks: no iteration rows (1 aggregate" \
    analyze "$tmp/onlyagg.json"
printf '{"context": {}, "benchmarks": [{"name": "B", "real_time": NaN}]}\n' \
    >"$tmp/nan.json"
check "a NaN: not JSON, naming the element" \
    bad_input "nan.json: benchmarks[0]: not JSON (invalid token near 'NaN')" \
    analyze "$tmp/nan.json"
cat "$tmp/nan.json" | "$STATBENCH" analyze - >/dev/null 2>"$tmp/err"
check "a NaN from a pipe (read whole): not JSON, naming the line" \
    grep -q "not JSON (line 1" "$tmp/err"
head -c 300 "$fx/gbench.json" >"$tmp/trunc.json"
check "a truncated file: not JSON, naming the line" \
    bad_input "trunc.json: not JSON (line" report "$tmp/trunc.json"
# A run whose "schema" key is written with an escape is still read by
# the reader that caps its cells as the bytes pass (not parsed whole
# first): 100,001 of them are refused there.
if [ -n "$PY" ]; then
    "$PY" -c 'import sys; sys.stdout.write("{\"\\u0073chema\":\"statbench-run\",\"schema_version\":1,\"cells\":[" + ",".join(["{}"] * 100001) + "]}")' \
        >"$tmp/cells.json"
    check "an escaped schema key: the cells' cap applies as they are read" \
        bad_input "more than 100000 cells (reading stopped at the one beyond)" \
        report "$tmp/cells.json"
else
    skip "an escaped schema key: the cells' cap" "no python3"
fi
# pyperf's non-time units may hold 0; a file naming any other unit (a
# hostile "ns") has times, and a negative one is refused.
printf '{"version":"1.0","metadata":{"unit":"ns","name":"x"},"benchmarks":[{"runs":[{"values":[-5,6,7]}]}]}\n' \
    >"$tmp/pneg.json"
check "pyperf in a unit it names 'ns': a negative value refused" \
    bad_input "pneg.json: benchmarks[0].runs[0].values[0]: -5 is not a positive time" \
    analyze "$tmp/pneg.json"
awk 'BEGIN { printf "{\"results\": "; for (i = 0; i < 5000; i++) printf "["; print "" }' \
    >"$tmp/deep.json"
check "nesting 5000 deep: refused, not a crash" \
    bad_input "deep.json: not JSON" analyze "$tmp/deep.json"
# The scanner that keeps a seekable file's lists on disk: truncated
# inside the list, nested past its depth inside an element, a list's key
# spelt with an escape, scalars as elements.
head -c 3000 "$fx/gbench.json" >"$tmp/trunc2.json"
check "truncated inside the benchmarks: not JSON, naming the line" \
    bad_input "trunc2.json: not JSON (line" analyze "$tmp/trunc2.json"
awk 'BEGIN { printf "{\"results\": [{\"command\": "; for (i = 0; i < 5000; i++) printf "["; print "" }' \
    >"$tmp/deep2.json"
check "an element nested 5000 deep: refused, not a crash" \
    bad_input "deep2.json: not JSON" analyze "$tmp/deep2.json"
printf '{"resul\\u0074s": [{"command": "a", "times": [0.1, 0.2]}]}\n' \
    >"$tmp/escaped.json"
analyze_rc escaped.json escaped.out
check "a list's key written with an escape: read all the same (rc $rc)" \
    sh -c '[ "$1" -eq 0 ] && grep -q "^a " "$2"' sh "$rc" "$tmp/escaped.out"
printf '{"results": [1, "x"]}\n' >"$tmp/scalars.json"
check "scalars as a list's elements: refused, naming the first" \
    bad_input "scalars.json: results[0]: not an object" analyze "$tmp/scalars.json"
# The commas between a list's elements never reach jansson when the
# elements stay on disk: an empty element is refused all the same, as it
# is in a document read whole, naming it.
gb comma2.json "$row,,$row"
check "gbench: two commas in a row: refused, naming the empty element" \
    bad_input "comma2.json: benchmarks[1]: missing (a stray ',' in the list)" \
    analyze "$tmp/comma2.json"
gb comma_lead.json ",$row"
check "gbench: a comma before the first element: refused, naming it" \
    bad_input "comma_lead.json: benchmarks[0]: missing (a stray ','" \
    analyze "$tmp/comma_lead.json"
gb comma_trail.json "$row, "
check "gbench: a comma after the last element: refused, naming it" \
    bad_input "comma_trail.json: benchmarks[1]: missing (a stray ','" \
    analyze "$tmp/comma_trail.json"
printf '{"results": [{"command": "a", "times": [0.1, 0.2]} ,\n ,{"command": "b", "times": [0.1]}]}\n' \
    >"$tmp/comma_hf.json"
check "hyperfine: two commas in a row: refused, naming the empty element" \
    bad_input "comma_hf.json: results[1]: missing (a stray ','" \
    report "$tmp/comma_hf.json"
cat "$tmp/comma2.json" | "$STATBENCH" analyze - >/dev/null 2>"$tmp/err"
check "two commas in a row from a pipe (read whole): not JSON" \
    grep -q "not JSON (line 1" "$tmp/err"
printf '{"foo": 1}\n' >"$tmp/unknown.json"
check "a JSON of no known tool: refused, naming the keys and --from" \
    bad_input 'unknown.json: not a statbench run, nor Google Benchmark' \
    analyze "$tmp/unknown.json"
printf '{"context": {}, "benchmarks": [], "results": []}\n' >"$tmp/ambig.json"
check "a JSON that could be two tools: refused, naming both" \
    bad_input "ambig.json: could be gbench or hyperfine JSON" \
    analyze "$tmp/ambig.json"
check "--from hyperfine on a Google Benchmark file: the missing field" \
    bad_input "gbench.json: results: missing" \
    analyze --from hyperfine "$fx/gbench.json"
check "--from numbers on report: refused" \
    bad_input "--from numbers: only analyze" report --from numbers "$fx/gbench.json"
check "--from nonsense: refused, listing the formats" \
    bad_input "--from 'tsv': unknown format (use auto, statbench, numbers" \
    analyze --from tsv "$fx/gbench.json"
check "--gbench-time wall: refused" \
    bad_input "--gbench-time 'wall': unknown time (use real or cpu)" \
    analyze --gbench-time wall "$fx/gbench.json"
printf '1\n2\n3\n' >"$tmp/n.txt"
check "analyze of numbers and JSON together: refused" \
    bad_input "holds numbers and" analyze "$tmp/n.txt" "$fx/gbench.json"
check "compare of ns with seconds: refused, naming both units" \
    bad_input "in 'ns' with samples in 's'" \
    compare "$fx/gbench.json" "$fx/hyperfine.json"

printf '{"results": [{"command": "a", "times": [0.1, 0.2]}, {"command": "a", "times": [0.1]}]}\n' \
    >"$tmp/twice.json"
check "hyperfine: a command twice: refused, naming both" \
    bad_input "results[1].command: 'a' repeats results[0]" analyze "$tmp/twice.json"
printf '{"results": [{"command": "a", "times": [0.1, 0.2], "exit_codes": "none"}]}\n' \
    >"$tmp/codes.json"
check "hyperfine: exit_codes not a list: refused" \
    bad_input "results[0].exit_codes: not a list" analyze "$tmp/codes.json"
printf '{"results": [{"command": "a", "times": {"x": 1}}]}\n' >"$tmp/times.json"
check "hyperfine: times not a list: refused" \
    bad_input "results[0].times: not a list" analyze "$tmp/times.json"
printf '{"version": "2.0", "metadata": {"name": "x"}, "benchmarks": [{"runs": []}]}\n' \
    >"$tmp/ppver.json"
check "pyperf: a version it does not know: refused, naming it" \
    bad_input "version: '2.0'" analyze "$tmp/ppver.json"
printf '{"version": "1.0", "metadata": {"name": "x"}, "benchmarks": [{"runs": [{"metadata": {}}]}]}\n' \
    >"$tmp/ppcal.json"
check "pyperf: calibration runs alone: refused, saying so" \
    bad_input "benchmarks[0].runs: no run with values" analyze "$tmp/ppcal.json"
printf '{"version": "1.0", "metadata": {"name": "x"}, "benchmarks": [{"runs": [{"values": [1e-6, 0]}]}]}\n' \
    >"$tmp/ppzero.json"
check "pyperf: a time of 0: refused, naming it" \
    bad_input "benchmarks[0].runs[0].values[1]: 0 is not a positive time" \
    analyze "$tmp/ppzero.json"

# More benchmarks than a run holds: refused as they are counted.
awk 'BEGIN { printf "{\"context\": {}, \"benchmarks\": [";
    for (i = 0; i < 100001; i++) printf "%s{\"name\": \"b%d\", \"real_time\": 1}", (i ? "," : ""), i
    print "]}" }' >"$tmp/cells.json"
check "gbench: 100,001 benchmarks: refused, naming the cap" \
    bad_input "cells.json: more than 100000 cells" analyze "$tmp/cells.json"

# Names with escape sequences: cleaned wherever they are shown; two that
# clean to one name are refused.
printf '{"results": [{"command": "evil \\u001b]0;pwned\\u0007 \\u001b[31mred", "times": [0.1, 0.2, 0.3]}]}\n' \
    >"$tmp/esc.json"
analyze_rc esc.json esc.out
check "a command with escape sequences: read (rc $rc), printed cleaned" \
    sh -c '[ "$1" -eq 0 ] && grep -q "evil ?\]0;pwned? ?\[31mred" "$2" &&
        ! grep -q "$(printf "\033")" "$2" "$3"' sh "$rc" "$tmp/esc.out" "$tmp/err"
printf '{"results": [{"command": "a\\u001b", "times": [0.1]}, {"command": "a\\u001c", "times": [0.2]}]}\n' \
    >"$tmp/clash.json"
check "two names that clean to one: refused, naming both" \
    bad_input "results[0].command and results[1].command both read 'a?'" \
    analyze "$tmp/clash.json"
long=$(awk 'BEGIN { for (i = 0; i < 5000; i++) printf "x" }')
printf '{"results": [{"command": "%s", "times": [0.1, 0.2]}]}\n' "$long" \
    >"$tmp/long.json"
analyze_rc long.json long.csv -f csv
check "a name of 5000 bytes: read (rc $rc), cut to 200" \
    sh -c '[ "$1" -eq 0 ] && awk -F, "NR == 2 { exit !(length(\$1) <= 202) }" "$2"' \
    sh "$rc" "$tmp/long.csv"

# Benchmarks in different units: all in ns.
gb mixed.json '{"name": "A", "real_time": 2, "time_unit": "us"}, {"name": "A", "real_time": 3, "time_unit": "us"}, {"name": "B", "real_time": 500, "time_unit": "ns"}, {"name": "B", "real_time": 700, "time_unit": "ns"}'
analyze_rc mixed.json mixed.csv -f csv
check "gbench in us and ns: read (rc $rc), both in ns" \
    sh -c '[ "$1" -eq 0 ] && grep -q "^A,.*,ns," "$2" && grep -q "2500" "$2"' \
    sh "$rc" "$tmp/mixed.csv"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/err" "$tmp/mixed.csv")"

done_testing
