#!/bin/sh
# manpage.sh: the man page renders every option.  groff with macro
# warnings on is silent (a line starting with '.' that is no macro, as
# ".txt)" once was, is dropped from the page with its text), every long
# option of statbench --help (the option table) has an entry in the
# rendered page, and the -o entry's text after its ".txt)" survives.
. "${top_srcdir:-.}/tests/lib.sh"
run_scratch sbman

if ! command -v groff >/dev/null 2>&1; then
    skip "the man page renders" "no groff"
    done_testing
    exit $?
fi
man="$top_srcdir/statbench.1"
groff -man -Tutf8 -wmac "$man" 2>"$tmp/warn" |
    sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g' >"$tmp/page"
check "groff -man -wmac is silent ($(head -n 1 "$tmp/warn"))" \
    test ! -s "$tmp/warn"
"$STATBENCH" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$tmp/opts"
check "statbench --help lists long options ($(wc -l <"$tmp/opts"))" \
    test "$(wc -l <"$tmp/opts")" -ge 20
missing=
for o in $(cat "$tmp/opts"); do
    # An entry: the option at the start of an indented tagged paragraph,
    # alone or after its short form ("-o, --output FILE").
    grep -qE -- "^ +(-[a-zA-Z], )?$o([ ,=]|$)" "$tmp/page" ||
        missing="$missing $o"
done
check "every long option has an entry in the page (missing:$missing)" \
    test -z "$missing"
check "the -o entry keeps its text after '.txt)'" \
    grep -q '\.txt) or else FMT' "$tmp/page"
done_testing
