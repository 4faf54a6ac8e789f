#!/bin/sh
# mutants.sh: every mutant of tests/mutate/mutants.txt still finds its
# original snippet exactly once in its file, so that code moved between
# files does not leave mutation testing with mutants that apply nowhere
# (tests/mutate/run.sh --check; the mutants themselves run by hand).
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
    skip "the mutants' snippets" "no python3"
    done_testing
    exit $?
fi
out=$(cd "$top_srcdir" && python3 tests/mutate/mutate.py --check 2>&1)
rc=$?
check "tests/mutate/run.sh --check runs (rc $rc)" test "$rc" -eq 0
check "no stale mutant ($(printf '%s' "$out" | tail -n 1))" \
    sh -c 'printf "%s\n" "$1" | tail -n 1 | grep -q "mutants, 0 stale$"' _ "$out"
printf '%s\n' "$out" | grep -v '^[0-9]* mutants, 0 stale$' | sed 's/^/# /'
done_testing
