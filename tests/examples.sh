#!/bin/sh
# examples.sh: the examples build (make check builds them) and run.
. "${top_srcdir:-.}/tests/lib.sh"

out=$("$top_builddir/examples/basic" 1 2>&1)
rc=$?
check "examples/basic exits 0 (rc $rc)" test "$rc" -eq 0
rows=$(printf '%s\n' "$out" | awk '($1 == "libc" || $1 == "duff") && NF == 5' | wc -l)
check "examples/basic prints 4 cells (got $rows)" test "$rows" -eq 4
[ "$rows" -eq 4 ] || printf '%s\n' "$out" | sed 's/^/# /'
done_testing
