#!/bin/sh
# tools/refout.sh STATBENCH OUTDIR [RUNDIR]: write a reference set of
# statbench's outputs that do not depend on the machine or the moment
# (reports of recorded runs in every format, comparisons, merges, the help
# texts, and the lines that refuse bad input), one file per output, so
# that a change meant to leave the output alone (moving code, splitting a
# file) can be checked.  The recorded runs are the tree's fixtures, and
# every *.json in RUNDIR: measured once, by either binary, they are the
# same input to both.
#
#     tools/refout.sh --make-runs ./statbench /tmp/runs   # a few seconds
#     tools/refout.sh ./statbench-before /tmp/ref-a /tmp/runs
#     tools/refout.sh ./statbench-after /tmp/ref-b /tmp/runs
#     diff -r /tmp/ref-a /tmp/ref-b
#
# Each file holds the command's standard output, then its standard error
# and its exit status, so a changed message or status shows as well.  Run
# it from anywhere: fixtures are found beside this script.
set -u
usage() {
    echo "usage: tools/refout.sh STATBENCH OUTDIR [RUNDIR]" >&2
    echo "       tools/refout.sh --make-runs STATBENCH RUNDIR" >&2
    exit 2
}
if [ "${1:-}" = --make-runs ]; then
    [ $# -eq 3 ] || usage
    mkdir -p "$3" || exit 2
    # Small plans of several shapes: an alignment sweep, a matrix, sizes
    # with a baseline, cold cache, a clear and an alloc kernel.
    sbm=$2 dir=$3
    m() { f=$1; shift
          "$sbm" -q --no-profile --max-time 3 -o "$dir/$f.json" "$@" >/dev/null ||
              exit 1; }
    m sweep -k movsl -a 0..4
    m matrix -k libc -a 0,1 --dst-align 0,3 -s 1K
    m sizes -k libc,movsl -s 1K,4K --baseline libc
    m cold -k libc -s 8K --cache cold
    m clear --family clear -s 4K
    m alloc -k mmap_touch -s 1M
    echo "refout: runs in $dir"
    exit 0
fi
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
sb=$1
out=$2
rundir=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
fx=$here/tests/fixtures
case $sb in
/*) ;;
*) sb=$(pwd)/$sb ;;
esac
[ -x "$sb" ] || { echo "refout: '$sb' is not an executable" >&2; exit 2; }
mkdir -p "$out" || exit 2
n=0

# one NAME ARGS...: the output of statbench ARGS into OUTDIR/NAME.  Runs in
# a scratch directory so that files a command writes stay out of the way.
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
one() {
    name=$1
    shift
    (cd "$work" && LC_ALL=C TZ=UTC "$sb" "$@" >"$out/$name" 2>"$work/err"
     echo "== status $?" >>"$out/$name"
     echo "== stderr" >>"$out/$name"
     cat "$work/err" >>"$out/$name")
    n=$((n + 1))
}

runs="$fx/reanalyse_a.json $fx/reanalyse_b.json $fx/esc.json
      $fx/hosts/intel-xeon-kvm-libc4k.json"
[ -z "$rundir" ] || runs="$runs $(ls "$rundir"/*.json)"
for f in $runs; do
    b=$(basename "$f" .json)
    for fmt in table csv json markdown latex; do
        one "report-$b.$fmt" report -q -f "$fmt" "$f"
    done
done

one compare-ab.table compare "$fx/reanalyse_a.json" "$fx/reanalyse_b.json"
one compare-ab.json compare -f json "$fx/reanalyse_a.json" \
    "$fx/reanalyse_b.json"
one merge-ab.table merge "$fx/reanalyse_a.json" "$fx/reanalyse_b.json"
one merge-ab.json merge -f json "$fx/reanalyse_a.json" "$fx/reanalyse_b.json"
one merge-self merge "$fx/reanalyse_a.json" "$fx/reanalyse_a.json"
if [ -n "$rundir" ] && [ -f "$rundir/sizes.json" ]; then
    one compare-sizes-self compare "$rundir/sizes.json" "$rundir/sizes.json"
    one compare-a-sizes compare "$fx/hosts/intel-xeon-kvm-libc4k.json" \
        "$rundir/sizes.json"
fi

for c in "" report compare merge analyze ab cmd profile noise check-env; do
    one "help-${c:-main}" $c --help
done
one version --version

# Refusals: one line naming the bad value, and the status.
one bad-kernel --kernel nosuch
one bad-size --size 12Q
one bad-align --align 0..5000
one bad-ci --ci 100
one bad-option --bogus
one bad-format report -f yaml "$fx/reanalyse_a.json"
one bad-file report /nonexistent/run.json
one bad-json report "$fx/hosts/README.md"
one bad-threshold --threshold -3
one bad-cpu --cpu 4096

echo "refout: $n outputs in $out"
