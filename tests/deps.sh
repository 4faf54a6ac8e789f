#!/bin/sh
# deps.sh: no two source files of the library call each other, directly
# or round a longer loop (docs/design.md, "Who owns what": calls go down
# the data flow).  tools/deps.py reads the calls from the built objects'
# symbols; a cycle is listed with the functions that close it.
. "${top_srcdir:-.}/tests/lib.sh"

PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    skip "calls between the library's files" "no $PY or nm"
    done_testing
    exit $?
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbdeps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$PY" "$top_srcdir/tools/deps.py" "$top_builddir" -v >"$tmp/out" 2>&1
rc=$?
check "tools/deps.py reads the objects (rc $rc)" test "$rc" -eq 0
files=$(grep -c '^[a-z/_]*\.c: includes' "$tmp/out")
# src/, src/report/, stats/ and kernels/: tens of files, or it read none.
check "it found the library's files ($files)" test "$files" -ge 30
check "no cycle of calls between files" grep -qx '0 cycle(s)' "$tmp/out"
grep -q '^0 cycle(s)$' "$tmp/out" || diag "$(grep -A12 '^cycle' "$tmp/out")"
# The folders of src/ (docs/design.md's diagram) go one way too.
nfold=$(sed -n 's/^folders: \([0-9]*\) folder(s), .*/\1/p' "$tmp/out")
check "it found the library's folders (${nfold:-none})" \
    test "${nfold:-0}" -ge 8
check "no cycle of calls between folders" \
    grep -qx "folders: $nfold folder(s), 0 cycle(s)" "$tmp/out"
# stats/ is pure: its files include the public header and their own,
# nothing of the library above them.
leak=$(cd "$top_srcdir/stats" || { echo "no stats/"; exit; }
    grep -o '#include "[^"]*"' *.c *.h |
    sed 's/#include "\(.*\)"/\1/' | while IFS=: read -r f h; do
        case $h in
        */*) echo "$f:$h" ;; # a path: nothing of stats/ names one
        config.h | statbench.h) ;;
        *) [ -f "$h" ] || echo "$f:$h" ;;
        esac; done)
check "stats/ includes only statbench.h and its own headers (${leak:-none})" \
    test -z "$leak"
# The command (src/cli/): the same rule, and messages.c at the bottom.
cli=$(sed -n 's/^command: \([0-9]*\) file(s), .*/\1/p' "$tmp/out")
check "it found the command's files (${cli:-none})" test "${cli:-0}" -ge 10
check "no cycle of calls between the command's files" \
    grep -qx "command: $cli file(s), 0 cycle(s)" "$tmp/out"
check "messages.c calls no other file of the command" \
    grep -qx 'src/cli/messages.c: calls ' "$tmp/out"
# A subcommand calls no other subcommand's file (ab is a measurement:
# cmd_ab.c calls cmd_measure, and main.c dispatches to them all).
cross=$(grep '^src/cli/cmd_[a-z_]*\.c: calls' "$tmp/out" |
    grep -v '^src/cli/cmd_ab\.c:' | grep 'calls.*src/cli/cmd_' || true)
check "no subcommand calls another's file (${cross:-none})" test -z "$cross"
done_testing
