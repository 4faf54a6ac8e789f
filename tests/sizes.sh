#!/bin/sh
# sizes.sh: the structure's measures hold (docs/design.md, "Who owns
# what"): no source file of the library (src/, stats/; not the public
# header) over 900 lines, no function (src/, stats/, examples/,
# bench/*.c) over 100.
# tools/sizes.py measures the git-tracked files, or, in a tree without
# .git (a distcheck build), the files below $top_srcdir; each offender
# is named.  It is first run on a made-up tree of one of each, so that a
# measure that finds nothing cannot pass unnoticed.
. "${top_srcdir:-.}/tests/lib.sh"

need_python "sizes of files and functions"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbsizes.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
sizes=$top_srcdir/tools/sizes.py

# ---- the measure can fail ----------------------------------------------
# A made-up tree: a file of 901 lines, a function of 101 lines (its body
# holds a '}' in a string and a comment, which end nothing), one of 100,
# a data table of 150 lines (no function) and a long function in a file
# the measures do not cover.
mkdir -p "$tmp/t/src" "$tmp/t/stats" "$tmp/t/bench/sub" "$tmp/t/tests" ||
    exit 1
"$PY" - "$tmp/t" <<'EOF'
import sys
t = sys.argv[1]
def func(name, lines):
    body = ['    x++; /* } */', '    s = "}";'] + ['    x++;'] * (lines - 5)
    return ['static int ' + name + '(void)', '{'] + body + ['}']
def write(path, lines):
    with open(f'{t}/{path}', 'w') as f:
        f.write('\n'.join(lines) + '\n')
write('src/long.c', ['int x;'] * 901)
write('stats/f.c', ['static int x;', 'static const char *s;']
      + func('too_long', 101) + [''] + func('just_right', 100) + ['']
      + ['static const int table[] = {'] + ['    1,'] * 148 + ['};'])
write('bench/sub/deep.c', func('not_measured', 200))
write('tests/t.c', func('not_measured', 200))
EOF
"$PY" "$sizes" "$tmp/t" >"$tmp/made" 2>&1
rc=$?
check "on a made-up tree it fails (rc $rc)" test "$rc" -eq 1
check "it names the file of 901 lines" \
    grep -qx 'src/long.c: 901 lines (over 900)' "$tmp/made"
check "it names the function of 101 lines" \
    grep -qx 'stats/f.c:3: too_long: 101 lines (over 100)' "$tmp/made"
check "nothing else (a function of 100, a table, files not covered)" \
    grep -qx 'sizes: 2 file(s), 2 function(s), 2 offender(s)' "$tmp/made"
diag "$(cat "$tmp/made")"

# ---- the tree ------------------------------------------------------------
# The tracked files where git knows the tree; a distcheck build has no
# .git and its tree holds the distributed files alone.
if [ -e "$top_srcdir/.git" ] && command -v git >/dev/null 2>&1; then
    (cd "$top_srcdir" && git ls-files src stats examples bench) \
        >"$tmp/files" || exit 1
    from="git-tracked files"
else
    (cd "$top_srcdir" && find src stats examples bench -type f) \
        >"$tmp/files" || exit 1
    from="files below $top_srcdir"
fi
# File names with no space or newline (the tree's rule): one a line.
# shellcheck disable=SC2046
"$PY" "$sizes" "$top_srcdir" $(cat "$tmp/files") >"$tmp/out" 2>&1
rc=$?
check "tools/sizes.py measures the $from (rc $rc)" test "$rc" -le 1
counts=$(tail -n 1 "$tmp/out")
nfiles=$(echo "$counts" | sed -n 's/^sizes: \([0-9]*\) file(s), .*/\1/p')
nfuncs=$(echo "$counts" | sed -n 's/.*, \([0-9]*\) function(s), .*/\1/p')
# Over a hundred files and a thousand functions, or it read few.
check "it found the sources (${nfiles:-none} files)" \
    test "${nfiles:-0}" -ge 100
check "it found the functions (${nfuncs:-none})" test "${nfuncs:-0}" -ge 1000
files=$(grep ' lines (over 900)$' "$tmp/out" | grep -v '^[^:]*:[0-9]*:' |
    sed 's/: .*//')
check "no library file over 900 lines (over: $(echo ${files:-none}))" \
    test -z "$files"
funcs=$(grep '^[^:]*:[0-9]*: .* lines (over 100)$' "$tmp/out" |
    sed 's/^\([^:]*:[0-9]*\): \([^:]*\): \([0-9]*\) lines.*/\1 \2 (\3)/')
check "no function over 100 lines (over: $(echo ${funcs:-none}))" \
    test -z "$funcs"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/out")"
done_testing
