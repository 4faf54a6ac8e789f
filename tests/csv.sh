#!/bin/sh
# csv.sh: the CSV as R and pandas read it: safe and unique
# column names (counters mapped), one missing value (the empty field),
# RFC 4180 quoting of exactly the fields that need it, LF line ends, the
# unit and timer_hz columns; read back by Python's csv module and, when
# it is installed, pandas.  Kernel and counter names are hostile.
. "${top_srcdir:-.}/tests/lib.sh"

python_scratch sbcsv "CSV read back"

# The checks every CSV passes, whatever made it: csvcheck.py FILE.
cat >"$tmp/csvcheck.py" <<'PYEOF'
import csv, io, re, sys

TEXT = {"kernel", "family", "ci_method", "verdict", "test", "metric", "unit",
        "run_level"}


def load(path):
    raw = open(path, "rb").read().decode("utf-8")
    # LF line ends, no CR anywhere (a CR in a name is written as '?').
    assert "\r" not in raw, "a CR in the file"
    assert raw.endswith("\n"), "no final LF"
    rows = list(csv.reader(io.StringIO(raw, newline="")))
    head = rows[0]
    for c in head:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", c), "unsafe column %r" % c
    assert len(set(head)) == len(head), "repeated column names"
    for r in rows[1:]:
        assert len(r) == len(head), "a row of %d fields, header %d" % (
            len(r), len(head))
    # Quoting: exactly what RFC 4180 asks (QUOTE_MINIMAL: a field with a
    # comma, a quote, CR or LF), the same way everywhere: written again
    # by Python, the file is the same, byte for byte.
    again = io.StringIO()
    csv.writer(again, lineterminator="\n").writerows(rows)
    assert again.getvalue() == raw, "quoting differs from RFC 4180 minimal"
    cells = [dict(zip(head, r)) for r in rows[1:]]
    for d in cells:
        for k, v in d.items():
            assert v.strip().lower().lstrip("+-") != "nan", (k, v)
            if k not in TEXT and v != "":
                float(v)  # raises on a field that is not a number
    return head, cells


if __name__ == "__main__":
    load(sys.argv[1])
PYEOF
chk() { # chk DESCRIPTION FILE PYTHON...: the common checks, then PYTHON
    desc=$1
    file=$2
    shift 2
    # The folder and the file as arguments: $TMPDIR may hold a quote.
    check "$desc" "$PY" -c "
import sys; sys.path.insert(0, sys.argv[1])
from csvcheck import load
head, cells = load(sys.argv[2])
$*" "$tmp" "$file"
}

# --- a loaded run with hostile kernel and counter names ----------------------
"$PY" - "$tmp" <<'PYEOF'
import json, random, sys
rnd = random.Random(5)
names = ["plain", "co,mma", 'qu"ote', "new\nline", "cr\rx", " sp ace ",
         '"', ","]
ctr = ["perf::CONTEXT-SWITCHES", "PAPI_TOT_CYC", "9lives",
       "perf::context switches", "ticks", "caf\u00e9 x"]
cells = []
for i, k in enumerate(names):
    s = [1000 * (1 + 0.1 * i) * rnd.lognormvariate(0, 0.01)
         for _ in range(300)]
    cells.append({"kernel": k, "size": 4096, "src_align": 0, "dst_align": 0,
                  "samples_ticks": s, "invocation_samples": [100] * 3,
                  "samples_counters": {c: [j % 7 for j in range(300)]
                                       for c in ctr}})
for kind, hz, path in (("tsc", 2.0e9, "h.json"),
                       ("clock_monotonic_raw", 1e9, "c.json")):
    json.dump({"schema": "statbench-run", "schema_version": 1,
               "meta": {"timer": {"hz": hz, "kind": kind},
                        "counter_names": ctr},
               "cells": cells}, open(sys.argv[1] + "/" + path, "w"))
PYEOF
"$STATBENCH" report "$tmp/h.json" -f csv >"$tmp/h.csv" 2>"$tmp/err"
rc=$?
check "report of hostile names -f csv exits 0 (rc $rc)" test "$rc" -eq 0
chk "hostile names: safe columns, quoting, empty missing values" "$tmp/h.csv" "
k = [d['kernel'] for d in cells]
assert k == ['plain', 'co,mma', 'qu\"ote', 'new?line', 'cr?x', ' sp ace ',
             '\"', ','], k
cc = [c for c in head if c.endswith('_per_call')]
assert cc[2:] == ['perf_context_switches_per_call', 'papi_tot_cyc_per_call',
                  'counter_9lives_per_call',
                  'perf_context_switches_2_per_call', 'ticks_2_per_call',
                  'caf_x_per_call'], cc
assert head[-4:] == ['caf_x_per_call', 'caf_x_per_call_lo',
                     'caf_x_per_call_hi', 'caf_x_per_byte'], head[-4:]
for d in cells:
    assert d['unit'] == 'ticks' and float(d['timer_hz']) == 2e9, d
    assert d['metric'] == 'time'
    # No core clock, no comparison, no CPU time: empty, not nan.
    for c in ('core_cycles_median', 'core_cycles_ci_lo', 'ratio', 'verdict',
              'a12', 'user_us_per_call'):
        assert d[c] == '', (c, d[c])
    assert float(d['perf_context_switches_per_call']) == 3
    assert 0 <= float(d['between_fraction']) <= 1
"
# Quoting is by content: the plain name and the fixed texts bare, only
# the names with a comma or a quote in quotes.
check "only fields with a comma or a quote are quoted" sh -c '
    grep -c "^\"" "$1" | grep -qx 4 &&
    grep -q "^plain,external," "$1" &&
    grep -q "^\"co,mma\"," "$1" &&
    grep -q "^\"qu\"\"ote\"," "$1" &&
    grep -q ",t over log invocation medians (a geometric mean)," "$1"' sh "$tmp/h.csv"

"$STATBENCH" compare "$tmp/h.json" "$tmp/h.json" -f csv >"$tmp/cmp.csv" \
    2>"$tmp/err"
chk "compare: verdict and test bare text, a12 empty when undefined" \
    "$tmp/cmp.csv" "
for d in cells:
    assert d['verdict'] in ('equivalent', 'inconclusive'), d['verdict']
    assert d['test'] != '' and float(d['ratio']) > 0
    assert d['a12'] == '' or 0 <= float(d['a12']) <= 1
"

"$STATBENCH" report "$tmp/c.json" -f csv >"$tmp/c.csv" 2>"$tmp/err"
chk "the clock timer: unit ns, timer_hz 1e9" "$tmp/c.csv" "
assert all(d['unit'] == 'ns' and float(d['timer_hz']) == 1e9 for d in cells)
"

printf '1\n2\n3\n4\n5\n6\n7\n8\n' >"$tmp/a,b\"c.txt"
"$STATBENCH" analyze "$tmp/a,b\"c.txt" -f csv >"$tmp/an.csv" 2>"$tmp/err"
chk "analyze: no unit and no timer rate (the file's own unit)" "$tmp/an.csv" "
assert len(cells) == 1 and cells[0]['kernel'].endswith('a,b\"c.txt')
assert cells[0]['unit'] == '' and cells[0]['timer_hz'] == ''
assert cells[0]['ticks_per_byte'] == ''
"

# --- a measured run: the CSV agrees with the JSON's timer --------------------
"$STATBENCH" -k duff -s 1K --max-time 0.5 -q -o "$tmp/m.json" -o "$tmp/m.csv" \
    >/dev/null 2>"$tmp/err"
rc=$?
check "a measured run with -o .json -o .csv exits 0 (rc $rc)" test "$rc" -eq 0
chk "measured: unit and timer_hz are the JSON's timer" "$tmp/m.csv" "
import json
t = json.load(open(sys.argv[1] + '/m.json'))['meta']['timer']
for d in cells:
    unit = {'tsc': 'ticks', 'cntvct': 'ticks',
            'clock_monotonic_raw': 'ns'}[t['kind']]
    assert d['unit'] == unit, (d['unit'], t['kind'])
    # The JSON keeps 10 digits, the CSV 17.
    assert abs(float(d['timer_hz']) / t['hz'] - 1) < 1e-9, (d['timer_hz'], t)
"

# --- pandas, when installed (never installed for this test) ------------------
# The first python3 on the PATH may not be the system's (a pyenv, a
# virtualenv), while Debian's python3-pandas is the system's: either will
# do.
PD=""
for p in "$PY" /usr/bin/python3; do
    if [ -x "$p" ] && "$p" -c 'import pandas' 2>/dev/null; then
        PD=$p
        break
    fi
done
if [ -n "$PD" ]; then
    check "pandas reads the hostile CSV: names, NA, numbers" "$PD" -c "
import pandas as pd
import sys
d = pd.read_csv(sys.argv[1])
assert list(d['kernel']) == ['plain', 'co,mma', 'qu\"ote', 'new?line', 'cr?x',
                             ' sp ace ', '\"', ','], list(d['kernel'])
assert d['core_cycles_median'].isna().all() and d['ratio'].isna().all()
assert (d['timer_hz'] == 2e9).all()
# Numbers as numbers: a count whose every value is whole reads as
# integers, the rest as floats; only the text columns are text (a 'nan'
# or a stray quote would make a numeric column text).
assert d['perf_context_switches_per_call'].dtype.kind in 'iuf'
assert (d['perf_context_switches_per_call'] == 3).all()
assert d['ticks_median'].dtype.kind == 'f'
text = {'kernel', 'family', 'ci_method', 'verdict', 'test', 'metric', 'unit'}
assert set(c for c in d.columns if d[c].dtype == object) <= text, \\
    [c for c in d.columns if d[c].dtype == object and c not in text]
assert not any('.' in c for c in d.columns), 'pandas renamed a repeat'
" "$tmp/h.csv"
else
    skip "pandas reads the CSV" "pandas not installed"
fi

done_testing
