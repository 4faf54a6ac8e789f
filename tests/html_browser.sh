#!/bin/sh
# html_browser.sh: the HTML page in a real browser: Debian's chromium,
# headless, driven by chromedriver through the W3C WebDriver HTTP API
# from python3's standard library (tests/html_browser.py, which says what
# it checks: no console error, no request but the page, no script
# element, no sideways overflow on a phone, screenshots at phone and
# desktop width, the DOM's cells against the JSON's figures).  Skipped
# where chromium or chromedriver is absent; CI installs both (chromium,
# chromium-driver) and fails when this test was skipped.
. "${top_srcdir:-.}/tests/lib.sh"

CHROMIUM=${SB_CHROMIUM:-/usr/bin/chromium}
DRIVER=${SB_CHROMEDRIVER:-/usr/bin/chromedriver}
# Skipped as the suite skips (an "ok ... # SKIP" line and status 0: the
# TAP driver counts a status of 77 as an error, not a skip).
if [ ! -x "$CHROMIUM" ] || [ ! -x "$DRIVER" ]; then
    skip "the page in a browser" "chromium not installed (needs $CHROMIUM \
and $DRIVER: apt-get install chromium chromium-driver)"
    done_testing
    exit $?
fi
python_scratch sbbrowser "the page in a browser"

check "the fixture runs are written as HTML and JSON" \
    "$top_builddir/tests/html_fixture" "$tmp"
# The browser's own TAP lines, renumbered after ours.
"$PY" "$top_srcdir/tests/html_browser.py" "$CHROMIUM" "$DRIVER" "$tmp" \
    >"$tmp/tap" 2>"$tmp/err"
rc=$?
while IFS= read -r line; do
    case $line in
    "ok "*) n=$((n + 1)); echo "ok $n ${line#ok * }" ;;
    "not ok "*) n=$((n + 1)); failed=$((failed + 1))
                echo "not ok $n ${line#not ok * }" ;;
    "#"*) echo "$line" ;;
    esac
done <"$tmp/tap"
check "the browser's checks ran to their end (status $rc)" \
    sh -c '[ "$1" -eq 0 ] && grep -q "^1\.\." "$2"' _ "$rc" "$tmp/tap"
[ -s "$tmp/err" ] && diag "$(head -n 20 "$tmp/err")"
done_testing
