#!/bin/sh
# shellcheck disable=SC2086 # $fz below is split into words on purpose.
# tests/fuzz/run.sh [SECONDS [HARNESS...]]: build the libFuzzer harnesses
# with clang and run each for SECONDS (default 10) on a copy of its seed
# corpus; exit 1 when one of them finds a crash, a leak, undefined
# behaviour or a hang, after printing the reproducer's path.
#
#   fuzz_parse    cli_parse_value, cli_parse_list, cli_parse_double
#   fuzz_numbers  cli_read_numbers (the analyze reader), then the numbers
#                 through sb_run_from_samples_new and every reporter
#   fuzz_json     sb_run_load_new (the JSON reader), sb_run_compare_to and
#                 every reporter
#   fuzz_plot     sb_plot (the figure writer) with hostile names, CPU
#                 model, command and file name: the gnuplot script must
#                 stay inert (tests/gp_check.h)
#   fuzz_history  sb_history_new over several saved runs and the
#                 history's writers (table, CSV, JSON, the figure's
#                 script), with hostile file names
#
# SECONDS 0 replays the seed corpora only (a regression check).  HARNESS
# names (parse, numbers, json, plot, history) select some of the five.
#
# Needs clang with the libFuzzer runtime (Debian: clang libclang-rt-14-dev)
# and the build dependencies of statbench.  The build goes to
# $SB_FUZZ_BUILD (default build-fuzz/ at the top of the tree): a copy of
# the build system and the sources, configured once with CC=clang (or
# $FUZZ_CC) and the sanitizers, so that it never touches an in-tree or
# other build; later runs rebuild what changed (remove the directory to
# configure afresh).  The
# committed corpus under tests/fuzz/corpus/ is only read; what the
# fuzzers add stays in a temporary copy.  Reproducers are kept in
# $SB_FUZZ_BUILD/artifacts/DATE-TIME/; replay one with
#   build-fuzz/fuzz_json build-fuzz/artifacts/DATE-TIME/fuzz_json-crash-...
# and, once fixed, add it to tests/fuzz/corpus/json/ as a regression seed.
set -eu

secs=${1:-10}
[ $# -gt 0 ] && shift
harnesses=${*:-parse numbers json plot history}
case $secs in
'' | *[!0-9]*)
    echo "usage: $0 [SECONDS [parse|numbers|json|plot|history]...]" >&2
    exit 2
    ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bld=${SB_FUZZ_BUILD:-$top/build-fuzz}
CC=${FUZZ_CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
CFLAGS="-g -O1 -fno-omit-frame-pointer $san"

command -v "$CC" >/dev/null 2>&1 || {
    echo "fuzz: $CC not found" \
        "(Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
}
[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh >/dev/null 2>&1) || {
    echo "fuzz: no configure and ./autogen.sh failed" >&2
    exit 1
}

# --- build ---------------------------------------------------------------
# A private copy of the build system and of the sources (only *.c and *.h:
# an in-tree build's objects must not be picked up), timestamps kept so
# that make rebuilds only what changed since the last run.
tree=$bld/tree
mkdir -p "$tree"
(
    cd "$top"
    for f in configure configure.ac Makefile.am Makefile.in aclocal.m4 \
        config.h.in statbench.pc.in statbench.1; do
        [ -f "$f" ] && cp -p "$f" "$tree/"
    done
    cp -pR build-aux m4 "$tree/"
    for d in src src/*/ stats kernels; do
        d=${d%/}
        mkdir -p "$tree/$d"
        # (src/ itself holds headers alone; src/statbench_version.h.in
        # too: configure makes the header.)
        for h in "$d"/*.c "$d"/*.h "$d"/*.h.in; do
            if [ -f "$h" ]; then cp -p "$h" "$tree/$d/"; fi
        done
    done
)
log=$bld/build.log
: >"$log"
if [ ! -f "$tree/config.status" ]; then
    echo "fuzz: configuring $tree with $CC and the sanitizers"
    (cd "$tree" && ./configure -q CC="$CC" \
        CFLAGS="$CFLAGS -fsanitize=fuzzer-no-link" >>"$log" 2>&1) || {
        tail -n 30 "$log"
        echo "fuzz: configure failed (log: $log)" >&2
        exit 1
    }
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -C "$tree" -j"$jobs" libsbcore.la >>"$log" 2>&1 || {
    tail -n 30 "$log"
    echo "fuzz: building libsbcore.la failed (log: $log)" >&2
    exit 1
}

# The harnesses: the parsers compiled in from src/cli/cli_parse.c; the analyze
# reader's, the JSON reader's, the figure writer's and the history's linked
# against the library too (libtool adds GSL, jansson and PAPI).
# (A path with blanks is not supported: $fz is split into words.)
fz="$CC $CFLAGS -fsanitize=fuzzer -std=c11 -D_GNU_SOURCE -I$tree -I$tree/src -I$top/src -I$top/src/cli"
# Every folder of src/, as Makefile.am's SB_FOLDERS names them: a
# header is named by its name alone.
for d in "$top"/src/*/; do fz="$fz -I${d%/}"; done
build() { # build COMMAND...
    "$@" >>"$log" 2>&1 || {
        tail -n 30 "$log"
        echo "fuzz: build step failed (log: $log): $*" >&2
        exit 1
    }
}
build $fz -o "$bld/fuzz_parse" "$here/fuzz_parse.c" "$top/src/cli/cli_parse.c" -lm
build $fz -c -o "$bld/cli_parse.o" "$top/src/cli/cli_parse.c"
for h in numbers json plot history; do
    build $fz -c -o "$bld/fuzz_$h.o" "$here/fuzz_$h.c"
    build "$tree/libtool" --tag=CC --mode=link $fz -o "$bld/fuzz_$h" \
        "$bld/fuzz_$h.o" "$bld/cli_parse.o" "$tree/libsbcore.la" -lm
done

# --- run -----------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbfuzz.XXXXXX")
art=$bld/artifacts/$(date +%Y%m%d-%H%M%S)
mkdir -p "$art"
trap 'rm -rf "$tmp"; rmdir "$art" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM
# UndefinedBehaviorSanitizer prints where, too.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS
status=0
for h in $harnesses; do
    exe=$bld/fuzz_$h
    seeds=$here/corpus/$h
    if [ ! -x "$exe" ] || [ ! -d "$seeds" ]; then
        echo "fuzz: no harness '$h' (parse, numbers, json, plot, history)" >&2
        exit 2
    fi
    mkdir -p "$tmp/$h"
    cp "$seeds"/* "$tmp/$h/"
    if [ "$secs" -eq 0 ]; then
        set -- -runs=0
    else
        set -- -max_total_time="$secs"
    fi
    # The dictionary gives the mutations the schema's names and the
    # parsers' tokens.  -timeout: an input that takes 10 s is a hang;
    # -max_len: runs and lists are small, longer inputs only slow it down.
    [ -f "$here/$h.dict" ] && set -- "$@" -dict="$here/$h.dict"
    if "$exe" "$@" -timeout=10 -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$art/fuzz_$h-" \
        "$tmp/$h" >"$tmp/$h.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$h.log")
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/$h.log")
        echo "fuzz_$h: ok, ${runs:-?} inputs in ${secs} s (${rate:-?}/s)," \
            "corpus $(find "$seeds" -type f | wc -l) seeds ->" \
            "$(find "$tmp/$h" -type f | wc -l)"
    else
        status=1
        echo "FAIL: fuzz_$h found a problem:"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*check failed)' \
            "$tmp/$h.log" | head -n 10
        grep -E '^    #[0-9]+ ' "$tmp/$h.log" | grep -v -e 'in fuzzer::' \
            -e '__sanitizer' -e 'libc.so' | head -n 12
        for a in "$art/fuzz_$h-"*; do
            [ -f "$a" ] || continue
            echo "reproducer: $a ($(wc -c <"$a") bytes); replay: $exe $a"
            # Small enough to carry in a CI log: rebuild it with base64 -d.
            if [ "$(wc -c <"$a")" -le 4096 ]; then
                echo "base64:"
                base64 "$a"
            fi
        done
        cp "$tmp/$h.log" "$art/fuzz_$h.log"
        echo "full log: $art/fuzz_$h.log"
    fi
done
exit $status
