#!/bin/sh
# exports.sh: the shared library exports exactly the public sb_ functions
# that statbench.h declares, and nothing else.
. "${top_srcdir:-.}/tests/lib.sh"

lib=$(ls "$top_builddir"/.libs/libstatbench.so.* 2>/dev/null | head -n 1)
if [ -z "$lib" ] || ! command -v nm >/dev/null; then
    skip "export list" "no shared library or nm"
    done_testing
    exit $?
fi
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort)
declared=$(sed -n 's/^SB_API [^(]*[ *]\(sb_[a-z0-9_]*\)(.*/\1/p' \
    "$top_srcdir/src/statbench.h" | sort)
check "the header declares functions" test -n "$declared"
extra=$(printf '%s\n' "$exported" | grep -v '^sb_[a-z]' || true)
check "only sb_ names exported (extra: $(echo $extra))" test -z "$extra"
missing=$(printf '%s\n' "$declared" | while read -r f; do
    printf '%s\n' "$exported" | grep -qx "$f" || echo "$f"; done)
check "every declared function exported (missing: $(echo $missing))" \
    test -z "$missing"
undeclared=$(printf '%s\n' "$exported" | while read -r f; do
    printf '%s\n' "$declared" | grep -qx "$f" || echo "$f"; done)
check "no exported function left undeclared (undeclared: $(echo $undeclared))" \
    test -z "$undeclared"
done_testing
