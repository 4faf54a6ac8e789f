#!/bin/sh
# html.sh: the HTML page (--format html, -o FILE.html) without a browser,
# read by python3's html.parser (tests/html_check.py): the page is
# self-contained and inert (a doctype, a language, UTF-8, a policy that
# forbids every fetch, a viewport, every tag closed, no script, no
# reference outside the page, every table in its scrolling box), the
# hostile strings of tests/html_fixture's runs (a kernel named
# <script>alert(1)</script>, a host name with quotes, an ampersand and an
# ESC) appear escaped as text, and every cell of its tables is the JSON
# writer's figure for the same run.  The checker must catch a page
# doctored each way.  Then the command: -o by its ending, --format,
# compare, merge, a planted link refused, history refusing HTML.
. "${top_srcdir:-.}/tests/lib.sh"

python_scratch sbhtml "the HTML page"
CHECK="$top_srcdir/tests/html_check.py"
FIX="$top_srcdir/tests/fixtures/reanalyse_a.json"
FIX_B="$top_srcdir/tests/fixtures/reanalyse_b.json"

check "the fixture runs are written as HTML and JSON" \
    "$top_builddir/tests/html_fixture" "$tmp"
for run in measured imported; do
    check "$run: self-contained and inert" \
        "$PY" "$CHECK" safe "$tmp/$run.html"
    check "$run: every table cell is the JSON's figure" \
        "$PY" "$CHECK" cells "$tmp/$run.html" "$tmp/$run.json"
    check "$run: the <script> kernel is text in the page" \
        "$PY" "$CHECK" text "$tmp/$run.html" '<script>alert(1)</script>'
done
check "measured: the host name's quotes and & are text, its ESC '?'" \
    "$PY" "$CHECK" text "$tmp/measured.html" "host\"'&?[31m<b>"
check "measured: the comparison's method in words" \
    "$PY" "$CHECK" text "$tmp/measured.html" \
    "Method: paired t on log invocation medians"
check "measured: a figure of the lines over sizes, inline" \
    grep -q '<figure id="fig-lines">' "$tmp/measured.html"
check "measured: a figure of the ratios, with the threshold drawn" \
    grep -q '<figure id="fig-ratios">' "$tmp/measured.html"

# The checker catches each fault it looks for.
doctor() { # doctor SED-PROGRAM: measured.html changed, into bad.html
    sed "$1" "$tmp/measured.html" >"$tmp/bad.html"
}
fails() { ! "$PY" "$CHECK" "$@" 2>/dev/null; }
doctor 's|<main>|<main><script>alert(1)</script>|'
check "checker: a planted <script> fails" fails safe "$tmp/bad.html"
doctor 's|<main>|<main><a href="https://example.org/">x</a>|'
check "checker: a link outside the page fails" fails safe "$tmp/bad.html"
doctor 's|</h1>||'
check "checker: an unclosed tag fails" fails safe "$tmp/bad.html"
doctor 's|<svg |<svg onload="x()" |'
check "checker: an event handler fails" fails safe "$tmp/bad.html"
doctor '/Content-Security-Policy/d'
check "checker: a page without its policy fails" fails safe "$tmp/bad.html"
doctor 's|<td class="r">160</td>|<td class="r">161</td>|'
check "checker: a count changed fails" \
    fails cells "$tmp/bad.html" "$tmp/measured.json"
# The first median in MB/s, its last digit changed.
"$PY" - "$tmp/measured.html" "$tmp/bad.html" <<'PYEOF'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'(<td class="r">\d+</td><td class="r">\[)', s)
i = s.rfind('<td class="r">', 0, m.start()) + len('<td class="r">')
j = s.index("<", i)
v = s[i:j]
s = s[:i] + v[:-1] + str((int(v[-1]) + 3) % 10) + s[j:]
open(sys.argv[2], "w").write(s)
PYEOF
check "checker: a median off by 3 in its last digit fails" \
    fails cells "$tmp/bad.html" "$tmp/measured.json"

# The command: -o by its ending, and --format, give the same page.
check "report -o FILE.html writes the page, the table on stdout" \
    sh -c '"$1" report "$2" -o "$3/a.html" >"$3/a.txt" &&
           head -c 15 "$3/a.html" | grep -qx "<!doctype html>" &&
           grep -q "^kernel" "$3/a.txt"' _ "$STATBENCH" "$FIX" "$tmp"
check "report -f html on stdout is the same page" \
    sh -c '"$1" report "$2" -f html >"$3/b.html" &&
           cmp -s "$3/a.html" "$3/b.html"' _ "$STATBENCH" "$FIX" "$tmp"
check "report: the page's cells are the JSON's" \
    sh -c '"$1" report "$2" -o "$3/r.json" >/dev/null &&
           "$4" "$5" cells "$3/a.html" "$3/r.json"' \
    _ "$STATBENCH" "$FIX" "$tmp" "$PY" "$CHECK"
check "compare -o FILE.html: safe, cells as its JSON" \
    sh -c '"$1" compare "$2" "$3" -o "$4/c.html" -o "$4/c.json" \
               >/dev/null 2>&1 &&
           "$5" "$6" safe "$4/c.html" &&
           "$5" "$6" cells "$4/c.html" "$4/c.json"' \
    _ "$STATBENCH" "$FIX" "$FIX_B" "$tmp" "$PY" "$CHECK"
check "compare: the test and the widening in words" \
    "$PY" "$CHECK" text "$tmp/c.html" \
    "Method: bootstrap of the ratio of median invocation medians, widened"
check "merge -f html: safe" \
    sh -c '"$1" merge "$2" "$3" -f html >"$4/m.html" 2>/dev/null &&
           "$5" "$6" safe "$4/m.html"' \
    _ "$STATBENCH" "$FIX" "$FIX_B" "$tmp" "$PY" "$CHECK"

# A planted link at the name is refused, its target untouched.
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.html"
check "-o LINK.html: refused with a line naming it, target kept" \
    sh -c '! "$1" report "$2" -o "$3/link.html" >/dev/null 2>"$3/err" &&
           grep -q "link.html: a symbolic link" "$3/err" &&
           [ "$(cat "$3/target")" = keep ]' _ "$STATBENCH" "$FIX" "$tmp"

# history is written as table, CSV or JSON: HTML is refused, with 2.
check "history -f html: refused with 2 and a line" \
    sh -c '"$1" history "$2" -f html >/dev/null 2>"$3/err"
           [ $? -eq 2 ] && grep -q "table, csv or json" "$3/err"' \
    _ "$STATBENCH" "$FIX" "$tmp"
check "history -o FILE.html: refused with 2" \
    sh -c '"$1" history "$2" -o "$3/h.html" >/dev/null 2>&1
           [ $? -eq 2 ] && [ ! -e "$3/h.html" ]' _ "$STATBENCH" "$FIX" "$tmp"

done_testing
