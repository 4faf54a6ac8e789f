# lib.sh: TAP helpers for the shell tests.  Source it; call ok/not_ok
# through check, then done_testing.
n=0
failed=0
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
STATBENCH="$top_builddir/statbench"

check() { # check DESCRIPTION COMMAND...
    desc=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $desc"
    else
        echo "not ok $n - $desc"
        failed=$((failed + 1))
    fi
}

skip() { # skip DESCRIPTION REASON
    n=$((n + 1))
    echo "ok $n - $1 # SKIP $2"
}

diag() { printf '# %s\n' "$*"; }

done_testing() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
