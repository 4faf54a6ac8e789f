#!/bin/sh
# loaded.sh: --kernel-from, kernels from shared objects (the objects of
# tests/kernel_so.c, built by make check).  Two builds with the same
# symbol load side by side under two names and share one run, the heavy
# one slower by far (a relation within the run, never a time); init and
# fini are called; the byte check refuses a kernel that skips the last
# byte and one that writes past the end, naming the cell; bad specs are
# one line and exit 2, hostile paths shown cleaned; --baseline on a
# loaded kernel gives ratios; the JSON records path, symbol and build;
# a saved run reads back when the objects are gone.
. "${top_srcdir:-.}/tests/lib.sh"

python_scratch sbloaded "kernels from shared objects"

libs="$top_builddir/tests/.libs"
# AddressSanitizer cannot follow a dlmopen namespace (the C library a new
# namespace loads comes before its runtime there, and it stops the
# process): a sanitizer build skips.
if grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize' \
        "$top_builddir/Makefile" 2>/dev/null; then
    if [ -f "$libs/kplain.so" ] && grep -Eq '^(CFLAGS|LDFLAGS|AM_CFLAGS) *=.*-fsanitize=[a-z,]*address' \
            "$top_builddir/Makefile"; then
        "$STATBENCH" --kernel-from "$libs/kplain.so:sbk_copy" -s 4096 \
            --max-time 1 -q >"$tmp/asan.out" 2>"$tmp/asan.err"
        rc=$?
        check "an AddressSanitizer build refuses --kernel-from in one line, exit 2 (rc $rc)" \
            sh -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/asan.err') -eq 1 ] && grep -q 'has AddressSanitizer' '$tmp/asan.err'"
        [ "$rc" -eq 2 ] || diag "$(cat "$tmp/asan.err")"
    fi
    skip "kernels from shared objects" \
        "sanitizer build (-fsanitize in the Makefile's flags)"
    done_testing
    exit $?
fi
if [ ! -f "$libs/kplain.so" ]; then
    skip "kernels from shared objects" "no tests/.libs/kplain.so (no shared libraries)"
    done_testing
    exit $?
fi
# Copies of their own: the saved run must read back once they are gone.
cp "$libs/kplain.so" "$libs/kheavy.so" "$libs/kshort.so" "$libs/kover.so" \
    "$libs/kprint.so" "$libs/kexit.so" "$tmp/" || exit 1
quick="-s 4096 --max-time 3 --invocations 2 --max-invocations 2 --no-profile -q"
SBK_MARK="$tmp/fini.txt"
export SBK_MARK

# ---- two builds in one run ----------------------------------------------
# shellcheck disable=SC2086
sb_ok run.txt "two builds of one symbol under two names" \
    --kernel-from "$tmp/kplain.so:sbk_copy=old" \
    --kernel-from "$tmp/kheavy.so:sbk_copy=new" $quick --baseline old \
    -o "$tmp/run.json" -o "$tmp/run.csv"
check_json "both in the run, the heavy one the slower by far, with a ratio" \
    "$tmp/run.json" <<'EOF'
cells = {c["kernel"]: c for c in d["cells"]}
assert sorted(cells) == ["new", "old"], sorted(cells)
assert all(c["family"] == "copy" and c["samples"] > 0 for c in cells.values())
old, new = cells["old"]["interval"]["estimate"], cells["new"]["interval"]["estimate"]
# Three times the work (~3 quietly); shared rounds treat both alike.
assert new / old > 1.5, (old, new)
r = cells["new"]["comparison"]["ratio"]["estimate"]
assert r > 1.5, r
assert cells["old"]["comparison"] is None or "ratio" not in (cells["old"]["comparison"] or {})
EOF
check_json "the JSON records each loaded kernel's path, symbol and build" \
    "$tmp/run.json" <<EOF
lk = {k["name"]: k for k in d["loaded_kernels"]}
assert sorted(lk) == ["new", "old"], lk
assert lk["old"]["path"] == "$tmp/kplain.so", lk["old"]["path"]
assert lk["new"]["path"] == "$tmp/kheavy.so"
assert all(k["symbol"] == "sbk_copy" for k in lk.values())
import os
for k in lk.values():
    st = os.stat(k["path"])
    assert k["file_size"] == st.st_size and k["file_mtime"] == int(st.st_mtime), k
    assert k["build_id"] is None or len(k["build_id"]) >= 8, k
assert lk["old"]["build_id"] != lk["new"]["build_id"] or lk["old"]["build_id"] is None
EOF
if command -v readelf >/dev/null 2>&1; then
    want=$(readelf -n "$tmp/kplain.so" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
    check "the build-id is the one readelf reads ($want)" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
lk = {k["name"]: k for k in d["loaded_kernels"]}
sys.exit(lk["old"]["build_id"] != (sys.argv[2] or None))' "$tmp/run.json" "$want"
else
    skip "the build-id is the one readelf reads" "no readelf"
fi
check "the CSV has rows under the names" \
    sh -c 'cut -d, -f1 "$1" | sort | tr "\n" " " | grep -qx "kernel new old "' \
    sh "$tmp/run.csv"
check "init and fini around every cell (fini lines with size and calls)" \
    "$PY" -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
# The byte check (one per kernel) and each cell of each invocation.
assert len(lines) == 2 + 2 * 2, lines
for l in lines:
    m = re.fullmatch(r"fini n=4096 calls=(\d+)", l)
    assert m and int(m.group(1)) > 0, l' "$SBK_MARK"
check "the table header names the builds" \
    sh -c '"$1" report "$2" | grep -q "^loaded:   new = sbk_copy from $3/kheavy.so"' \
    sh "$STATBENCH" "$tmp/run.json" "$tmp"

# ---- merged: the records kept, another build under one name warned -----
# shellcheck disable=SC2086
sb_ok run2.txt "a second run, the builds swapped under the names" \
    --kernel-from "$tmp/kheavy.so:sbk_copy=old" \
    --kernel-from "$tmp/kplain.so:sbk_copy=new" $quick --seed 2 \
    -o "$tmp/run2.json"
"$STATBENCH" merge "$tmp/run.json" "$tmp/run2.json" -o "$tmp/merged.json" \
    >/dev/null 2>"$tmp/merge.err"
check "merge keeps the first run's records" "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
lk = {k["name"]: k["path"] for k in d["loaded_kernels"]}
assert lk == {"old": sys.argv[2] + "/kplain.so", "new": sys.argv[2] + "/kheavy.so"}, lk' \
    "$tmp/merged.json" "$tmp"
check "merge warns that a name is another build in the second run" \
    grep -q "run 2: kernel old is another build" "$tmp/merge.err"

# ---- the objects gone ----------------------------------------------------
mv "$tmp/kplain.so" "$tmp/kplain.keep"
mv "$tmp/kheavy.so" "$tmp/kheavy.keep"
sb_ok rep.json "report of the saved run with the objects gone" \
    report "$tmp/run.json" -f json
check_json "it keeps the cells and the records" "$tmp/rep.json" <<'EOF'
assert sorted(c["kernel"] for c in d["cells"]) == ["new", "old"]
assert sorted(k["name"] for k in d["loaded_kernels"]) == ["new", "old"]
EOF
sb_ok cmp.txt "compare of the saved run with the objects gone" \
    compare "$tmp/run.json" "$tmp/run.json"
mv "$tmp/kplain.keep" "$tmp/kplain.so"
mv "$tmp/kheavy.keep" "$tmp/kheavy.so"

# ---- clear, the alignment matrix, cold -----------------------------------
# Cold takes the architecture's flush: the portable build refuses it, and
# runs the same matrix hot.
if sb_can_flush; then
    cache=cold
else
    cache=hot
    skip "a loaded clear kernel, cold" "the portable build: no flush"
fi
# shellcheck disable=SC2086
sb_ok clear.csv "a clear kernel (:clear) over an alignment matrix, $cache" \
    --kernel-from "$tmp/kplain.so:sbk_clear:clear" -s 4096 --align 0..3 \
    --dst-align 0,5 --cache "$cache" --max-time 3 --invocations 1 \
    --no-profile -q -f csv
check "its 8 rows are of the clear family" sh -c \
    'test "$(grep -c "^sbk_clear,clear,4096," "$1")" -eq 8' sh "$tmp/clear.csv"

# refused_from SPEC DESCRIPTION NEEDLE [ARGS...]: the check DESCRIPTION
# that a quick run of --kernel-from SPEC (and ARGS) is refused as bad
# input naming NEEDLE.
refused_from() {
    rf_spec=$1 rf_desc=$2 rf_needle=$3
    shift 3
    # shellcheck disable=SC2086
    check "$rf_desc" bad_input "$rf_needle" --kernel-from "$rf_spec" \
        $quick "$@"
}

# ---- the byte check ------------------------------------------------------
refused_from "$tmp/kshort.so:sbk_copy" "a copy that skips its last byte is refused, naming the cell" \
    "kernel sbk_copy, 4096 bytes, offsets 0/0: dst[4095] is 0x00"
refused_from "$tmp/kover.so:sbk_copy" "a copy that writes a byte past the end is refused" \
    "kernel sbk_copy, 4096 bytes, offsets 0/0: dst[4096] (a guard byte 1 past the end)"
check "at another offset pair, that pair is named" \
    bad_input "kernel sbk_copy, 100 bytes, offsets 3/1: dst[100]" \
    --kernel-from "$tmp/kover.so:sbk_copy" -s 100 -a 3 --dst-align 1 \
    --max-time 3 --invocations 1 --no-profile -q
refused_from "$tmp/kplain.so:sbk_copy:clear" "a copy loaded as a clear is refused" \
    "(a clear zeroes dst)"
refused_from "$tmp/kplain.so:sbk_crash" "a kernel that crashes is refused, not fatal" \
    "died of signal"

# ---- bad specs -----------------------------------------------------------
refused_from "$tmp/none.so:sbk_copy" "a missing file" \
    "$tmp/none.so: No such file or directory"
printf 'not an object\n' >"$tmp/text.so"
refused_from "$tmp/text.so:sbk_copy" "a file that is no ELF object" \
    "not a shared object (no ELF header)"
refused_from "$tmp/kplain.so:nope" "a missing symbol" \
    "no symbol 'nope' in it"
refused_from "$tmp/kplain.so:sbk_table" "a symbol that is data, not a function" \
    "symbol 'sbk_table' is not a function"
# Constructors that print, exit or wait are refused from a trial load in
# a child, before they run in statbench: nothing of theirs on stdout.
refused_from "$tmp/kprint.so:sbk_copy" "an object whose constructor prints" \
    'loading it writes to standard output or error (a constructor that prints: "sbk: hello from a constructor")'
check "  nothing of it reached statbench's output" \
    sh -c '! grep -q "hello" "$1"' sh "$tmp/out"
refused_from "$tmp/kexit.so:sbk_copy" "an object whose constructor calls exit" \
    "loading it ended the process, exit status 7 (a constructor that calls exit)"
cp "$tmp/kplain.so" "$tmp/open.so" && chmod 0666 "$tmp/open.so"
# shellcheck disable=SC2086
sb_ok open.txt "a file writable by others is loaded" \
    --kernel-from "$tmp/open.so:sbk_copy" -f json $quick
check "  with a warning that says so" \
    grep -q "^statbench: warning: --kernel-from: $tmp/open.so is writable by others (mode 0666)" \
    "$tmp/err"
check "  kept in the run's record" "$PY" -c '
import json, sys
lk = json.load(open(sys.argv[1]))["loaded_kernels"]
assert "writable by others" in lk[0]["warning"], lk' "$tmp/open.txt"
refused_from "kplain.so:sbk_copy" "a path without '/'" \
    "the path must contain a '/'"
refused_from "$tmp/kplain.so" "no symbol" \
    "use PATH:SYMBOL[=NAME][:clear]"
check "one symbol twice without names: name them" \
    bad_input "given twice without a name: name them, e.g. PATH:sbk_copy=old and PATH:sbk_copy=new" \
    --kernel-from "$tmp/kplain.so:sbk_copy" \
    --kernel-from "$tmp/kheavy.so:sbk_copy" $quick
refused_from "$tmp/kplain.so:sbk_copy=libc" "a built-in kernel's name" \
    "the name of a built-in kernel"
refused_from "$tmp/kplain.so:sbk_noinit" "an init that fails" \
    "sbk_noinit_init(n = 4096) returned"
hostile=$(printf '%s/x\033[2J\nevil.so:f' "$tmp")
refused_from "$hostile" "a hostile path is shown cleaned, on one line" \
    "x?[2J?evil.so"
check "... without its escape" sh -c '! grep -q "$(printf "\033")" "$1"' \
    sh "$tmp/err"
refused_from "$tmp/kplain.so:sbk_copy" "--baseline names a loaded kernel that is not there" \
    "--baseline 'nobody'" \
    --baseline nobody

# ---- statbench ab: the gate form -----------------------------------------
# NEW three times OLD's work is slower beyond a 20% threshold: exit 1 and
# the gate's FAIL line; the other way round it is faster: exit 0, and
# without -q the PASS line.  Three times the work cannot come out below
# 1.2 nor above 1/1.2 in shared rounds, however busy the machine.
ab="-s 4096 --max-time 3 --no-profile --threshold 20"
# shellcheck disable=SC2086
"$STATBENCH" ab "$tmp/kplain.so" "$tmp/kheavy.so" --symbol sbk_copy $ab -q \
    -o "$tmp/ab.json" >"$tmp/ab.out" 2>"$tmp/ab.err"
rc=$?
check "ab OLD HEAVY: slower, exit 1 (rc $rc)" test "$rc" -eq 1
check "  the gate's line: new vs old, slower beyond the threshold" grep -q \
    "FAIL new vs old, 4096 B (0/0): slower, beyond the threshold; .*baseline: old, in the same rounds" \
    "$tmp/ab.err"
check "  and the run's figures, in the table and -o" sh -c \
    "grep -q '^new ' '$tmp/ab.out' && grep -q '^old ' '$tmp/ab.out' &&
     grep -q '\"kernel\": \"new\"' '$tmp/ab.json'"
# shellcheck disable=SC2086
"$STATBENCH" ab "$tmp/kheavy.so" "$tmp/kplain.so" --symbol sbk_copy $ab \
    >/dev/null 2>"$tmp/ab.err"
rc=$?
check "ab HEAVY OLD: faster, exit 0 (rc $rc)" test "$rc" -eq 0
check "  the PASS line says faster" grep -q "PASS new vs old, 4096 B (0/0): faster" \
    "$tmp/ab.err"
# --symbol S:copy names the copy kind as a --kernel-from spec would: the
# same copy kernel, not a clear (which a copy is refused as).
# shellcheck disable=SC2086
"$STATBENCH" ab "$tmp/kheavy.so" "$tmp/kplain.so" --symbol sbk_copy:copy $ab \
    -q -f csv >"$tmp/abc.csv" 2>"$tmp/ab.err"
rc=$?
check "ab --symbol sbk_copy:copy: the copy kernel, faster, exit 0 (rc $rc)" \
    sh -c "[ $rc -eq 0 ] && grep -q '^new,copy,4096,' '$tmp/abc.csv'"
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/ab.err")"
# One object against itself at a threshold of 0.5% with two invocations:
# the verdict is the machine's to make (most often inconclusive), so the
# check is that the exit status follows from the gate's line, each way:
# FAIL and slower 1, FAIL and inconclusive 3 (undecided), a pass 0.
i=0
while [ $i -lt 3 ]; do
    # shellcheck disable=SC2086
    "$STATBENCH" ab "$tmp/kplain.so" "$tmp/kplain.so" --symbol sbk_copy \
        -s 4096 --max-time 1 --invocations 2 --max-invocations 2 \
        --no-profile --threshold 0.5 --seed $((i + 1)) >/dev/null \
        2>"$tmp/aa.err"
    rc=$?
    if grep -q "FAIL new vs old.*: slower" "$tmp/aa.err"; then want=1
    elif grep -q "FAIL new vs old.*: inconclusive" "$tmp/aa.err"; then want=3
    elif grep -q "PASS new vs old\|WARN new vs old" "$tmp/aa.err"; then want=0
    else want=none
    fi
    check "ab OLD OLD, seed $((i + 1)): status $rc as its line says ($want)" \
        test "$rc" = "$want"
    if [ "$want" = 3 ]; then
        check "  undecided: the line that says what to do" \
            grep -q "cells undecided: a slowdown beyond the threshold is not ruled out" \
            "$tmp/aa.err"
    fi
    i=$((i + 1))
done
# Bad input: one line, exit 2, before anything is measured.
check "ab without --symbol" bad_input "ab: --symbol SYMBOL" \
    ab "$tmp/kplain.so" "$tmp/kheavy.so"
check "ab with one object" bad_input "ab takes two shared objects" \
    ab "$tmp/kplain.so" --symbol sbk_copy
check "ab with -k" bad_input "ab measures the two objects' SYMBOL only" \
    ab "$tmp/kplain.so" "$tmp/kheavy.so" --symbol sbk_copy -k libc
check "ab with --baseline" bad_input "--baseline and --against cannot be given" \
    ab "$tmp/kplain.so" "$tmp/kheavy.so" --symbol sbk_copy --baseline old
check "ab with a symbol neither has" bad_input "nosuch" \
    ab "$tmp/kplain.so" "$tmp/kheavy.so" --symbol nosuch
check "--symbol outside ab" bad_input "--symbol sbk_copy: an option of" \
    -k libc --symbol sbk_copy
# ab's copy of --symbol has room for 255 characters: one of 256 is
# refused, not cut to another name; one of 255 passes ab's check and
# meets --kernel-from's (a C identifier of at most 128 characters).
long=s$(printf '%0255d' 0)
check "ab with a --symbol of 256 characters" \
    bad_input "ab: --symbol of 256 characters, at most 255" \
    ab "$tmp/kplain.so" "$tmp/kheavy.so" --symbol "$long"
check "  one of 255 goes on to --kernel-from's check" \
    bad_input "not a C identifier of at most 128 characters" \
    ab "$tmp/kplain.so" "$tmp/kheavy.so" --symbol "${long%0}"
( cd "$tmp" && "$STATBENCH" ab kplain.so kheavy.so --symbol sbk_copy $ab -q \
    >/dev/null 2>"$tmp/rel.err" )
rc=$?
check "ab takes file names without '/' from the current directory (rc $rc)" \
    test "$rc" -eq 1
done_testing
