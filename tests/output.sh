#!/bin/sh
# output.sh: where statbench writes and what it prints, on hostile ground
# -o over special files, terminal escapes in loaded strings,
# nonsense in a loaded run, and the baselines of --save and --against.
. "${top_srcdir:-.}/tests/lib.sh"
PY=$(command -v python3 || true)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbout.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
TO=$(command -v timeout || true)
to() { # to CMD...: a blocking open (a FIFO) must not hang the suite
    if [ -n "$TO" ]; then "$TO" 20 "$@"; else "$@"; fi
}

# A small run without measuring: analyze of a file of numbers.
seq 100 300 >"$tmp/n.txt"
"$STATBENCH" analyze "$tmp/n.txt" -o "$tmp/run.json" >/dev/null 2>&1
check "a run to work with" test -s "$tmp/run.json"

# one_line FILE: exactly one line in FILE (the error message).
one_line() { [ "$(wc -l <"$1")" -eq 1 ] || { diag "$(cat "$1")"; false; }; }
# err_line NEEDLE: $tmp/err is one line holding NEEDLE.
err_line() { grep -qF -- "$1" "$tmp/err" && one_line "$tmp/err"; }

# --- -o over special files (security 3) ----------------------------------
# A FIFO is written in place, never replaced by a regular file.
mkfifo "$tmp/fifo"
to cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
to "$STATBENCH" report "$tmp/run.json" -f csv -o "$tmp/fifo" >/dev/null \
    2>"$tmp/err"
rc=$?
wait "$reader"
check "-o FIFO exits 0 (rc $rc)" test "$rc" -eq 0
check "-o FIFO: still a FIFO" test -p "$tmp/fifo"
check "-o FIFO: the reader got the CSV" grep -q '^kernel,family' \
    "$tmp/fifo.out"

# A link to our own standard output (what /dev/stdout is) writes there.
ln -s /proc/self/fd/1 "$tmp/mystdout"
"$STATBENCH" report "$tmp/run.json" -f csv -o "$tmp/mystdout" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
check "-o link to stdout exits 0 (rc $rc)" test "$rc" -eq 0
check "-o link to stdout: the CSV on stdout" grep -q '^kernel,family' \
    "$tmp/out"
check "-o link to stdout: still a link" test -L "$tmp/mystdout"
"$STATBENCH" report "$tmp/run.json" -f csv -o /dev/stdout >"$tmp/out" \
    2>"$tmp/err"
rc=$?
check "-o /dev/stdout into a file exits 0 (rc $rc)" test "$rc" -eq 0
check "-o /dev/stdout: CSV and table in the file" sh -c \
    "grep -q '^kernel,family' '$tmp/out' && grep -q '^statbench .*analyze' '$tmp/out'"
check "/dev/stdout is still a link" test -L /dev/stdout

# /dev/null and /dev/full are written, never replaced; the write error
# of /dev/full is one line and exit 1.  Guard: both stay character
# devices (a regression here would break them for the whole machine).
if [ -c /dev/null ]; then
    "$STATBENCH" report "$tmp/run.json" -o /dev/null >/dev/null 2>"$tmp/err"
    rc=$?
    check "-o /dev/null exits 0 (rc $rc)" test "$rc" -eq 0
    check "/dev/null is still a character device" test -c /dev/null
fi
if [ -c /dev/full ]; then
    "$STATBENCH" report "$tmp/run.json" -o /dev/full >/dev/null 2>"$tmp/err"
    rc=$?
    check "-o /dev/full exits 1 (rc $rc)" test "$rc" -eq 1
    check "-o /dev/full: one line naming the error" \
        err_line "/dev/full: writing failed: No space left"
    check "/dev/full is still a character device" test -c /dev/full
else
    skip "-o /dev/full" "no /dev/full"
fi
# Our own character device (a copy of /dev/null), where mknod works.
if mknod "$tmp/mynull" c 1 3 2>/dev/null; then
    "$STATBENCH" report "$tmp/run.json" -o "$tmp/mynull" >/dev/null \
        2>"$tmp/err"
    rc=$?
    check "-o own character device exits 0 (rc $rc)" test "$rc" -eq 0
    check "-o own character device: still one" test -c "$tmp/mynull"
else
    skip "-o own character device" "mknod needs root"
fi

# refused TARGET NEEDLE DESC: -o TARGET fails with one line naming it.
refused() {
    "$STATBENCH" report "$tmp/run.json" -o "$1" >/dev/null 2>"$tmp/err"
    rc=$?
    check "-o $3: exit 1 (rc $rc)" test "$rc" -eq 1
    check "-o $3: one line naming the path" err_line "$1: $2"
}
mkdir "$tmp/dir"
refused "$tmp/dir" "a directory" "directory"
check "-o directory: still a directory" test -d "$tmp/dir"
echo keep >"$tmp/ro.json"
chmod 444 "$tmp/ro.json"
refused "$tmp/ro.json" "read-only" "read-only file"
check "-o read-only file: content kept (even as root)" \
    grep -qx keep "$tmp/ro.json"
check "-o read-only file: still read-only" test "$(stat -c %a \
    "$tmp/ro.json")" = 444
echo target >"$tmp/target"
ln -s target "$tmp/link"
refused "$tmp/link" "a symbolic link" "link to a regular file"
check "-o link: still a link" test -L "$tmp/link"
check "-o link: target untouched" grep -qx target "$tmp/target"
ln -s nothing "$tmp/dangling"
refused "$tmp/dangling" "a symbolic link to nothing" "dangling link"
check "-o dangling link: nothing created" test ! -e "$tmp/nothing"
ln -s dir "$tmp/dirlink"
refused "$tmp/dirlink" "a symbolic link to a directory" "link to a directory"
# A link of another user's to a FIFO: refused, the FIFO never opened
# (it could as well point at /dev/port or a terminal).  Needs root to give
# the link away (chown -h).
mkfifo "$tmp/their.fifo"
ln -s their.fifo "$tmp/theirlink"
if [ "$(id -u)" -eq 0 ] && chown -h 65534:65534 "$tmp/theirlink" 2>/dev/null
then
    to "$STATBENCH" report "$tmp/run.json" -o "$tmp/theirlink" >/dev/null \
        2>"$tmp/err"
    rc=$?
    check "-o another user's link to a FIFO: exit 1, not blocked (rc $rc)" \
        test "$rc" -eq 1
    check "-o another user's link: one line naming it" \
        err_line "$tmp/theirlink: a symbolic link of another user's"
else
    skip "-o another user's link to a FIFO" "not root, or no chown -h"
    skip "-o another user's link: one line naming it" "not root"
fi
# A socket cannot be opened for writing: refused by its type.
if [ -n "$(command -v python3)" ] &&
    python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
        "$tmp/sock" 2>/dev/null; then
    refused "$tmp/sock" "a socket" "socket"
    check "-o socket: still a socket" test -S "$tmp/sock"
else
    skip "-o socket" "no python3 to make one"
fi
# A replaced file keeps its permission bits, never a set-user-ID bit.
echo old >"$tmp/suid.csv"
chmod 4755 "$tmp/suid.csv"
"$STATBENCH" report "$tmp/run.json" -o "$tmp/suid.csv" >/dev/null 2>&1
check "-o over a set-user-ID file: replaced as 755, no set-user-ID bit" \
    test "$(stat -c %a "$tmp/suid.csv")" = 755

# A regular file is replaced atomically and keeps its permissions.
echo old >"$tmp/private.csv"
chmod 600 "$tmp/private.csv"
"$STATBENCH" report "$tmp/run.json" -o "$tmp/private.csv" >/dev/null 2>&1
rc=$?
check "-o existing file exits 0 (rc $rc)" test "$rc" -eq 0
check "-o existing file: replaced" grep -q '^kernel,family' "$tmp/private.csv"
check "-o existing file: still private (600)" \
    test "$(stat -c %a "$tmp/private.csv")" = 600
# Several -o: a refused one does not stop the others, and the exit is 1.
"$STATBENCH" report "$tmp/run.json" -o "$tmp/dir" -o "$tmp/ok.csv" \
    >/dev/null 2>"$tmp/err"
rc=$?
check "two -o, one refused: exit 1 (rc $rc)" test "$rc" -eq 1
check "two -o, one refused: the other written" test -s "$tmp/ok.csv"

# --- terminal escapes (security 4) ---------------------------------------
# clean FILE: no C0 control but the newline, no DEL, no C1 control
# (U+0080..U+009F, which 8-bit terminals obey), and valid UTF-8.
C1="$(printf '\302')[$(printf '\200')-$(printf '\237')]"
clean() {
    bad=$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$1" | wc -c)
    [ "$bad" -eq 0 ] || { diag "$1: $bad control bytes"; return 1; }
    if LC_ALL=C grep -q "$C1" "$1"; then
        diag "$1: a C1 control"
        return 1
    fi
    if command -v iconv >/dev/null &&
        ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; then
        diag "$1: not UTF-8"
        return 1
    fi
}
# Every string field of esc.json holds ESC, OSC, BEL, CSI as C1, DEL,
# CR, BS and NEL.
esc="$top_srcdir/tests/fixtures/esc.json"
for fmt in table csv json markdown latex; do
    "$STATBENCH" report "$esc" -f "$fmt" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "report esc.json -f $fmt exits 0 (rc $rc)" test "$rc" -eq 0
    check "report esc.json -f $fmt: no control characters" clean "$tmp/out"
    check "report esc.json -f $fmt: none on stderr" clean "$tmp/err"
done
"$STATBENCH" report "$esc" >"$tmp/out" 2>&1
check "report esc.json: the strings are there, cleaned" \
    grep -qF 'machine:  cpu_model?[31m?]0;pwn??2J????; kernel_version?' \
    "$tmp/out"
"$STATBENCH" report "$esc" -o "$tmp/esc.md" -o "$tmp/esc.json" \
    -o "$tmp/esc.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "report esc.json with three -o: exit 0 (rc $rc)" test "$rc" -eq 0
for f in esc.md esc.json esc.csv; do
    check "report esc.json -o $f: written" \
        sh -c 'test -s "$1"' _ "$tmp/$f"
    check "report esc.json -o $f: no control characters" clean "$tmp/$f"
done
"$STATBENCH" compare "$esc" "$esc" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "compare esc.json esc.json: exit 0 (rc $rc)" test "$rc" -eq 0
check "compare esc.json esc.json: a table written" \
    sh -c 'test -s "$1"' _ "$tmp/out"
check "compare esc.json esc.json: no control characters" clean "$tmp/out"
# File names: in messages, in an analyze table, in a run's command.
bad_name="$tmp/$(printf 'e\033[2J\302\233x\177')"
"$STATBENCH" report "$bad_name.json" >"$tmp/out" 2>"$tmp/err"
check "a missing file's name in the message: no control characters" \
    clean "$tmp/err"
cp "$tmp/n.txt" "$bad_name.txt"
for fmt in table csv json markdown latex; do
    "$STATBENCH" analyze "$bad_name.txt" -f "$fmt" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "analyze of a hostile file name -f $fmt: exit 0 (rc $rc)" \
        test "$rc" -eq 0
    check "analyze of a hostile file name -f $fmt: no control characters" \
        clean "$tmp/out"
done
"$STATBENCH" analyze "$bad_name.txt" >"$tmp/out" 2>"$tmp/err"
check "analyze of a hostile file name: the name shown, cleaned" \
    grep -qF 'e?[2J' "$tmp/out"
"$STATBENCH" -k "$SB_COPY" -s 1K --max-time 0.2 --invocations 1 -q \
    --reject none -o "$bad_name.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a run with a hostile -o name: exit 0 (rc $rc)" test "$rc" -eq 0
check "a run's command with a hostile -o name: shown, cleaned" \
    grep -qF 'e?[2J' "$tmp/out"
check "a run's command with a hostile -o name: clean header" clean "$tmp/out"

# --- loaded nonsense (item 8) ----------------------------------------------
# The first sample of each cell of esc.json made negative, then zero.
awk '/"samples_ticks": \[/ { print; getline; sub(/[0-9.e+]+/, "-4.2") } 1' \
    "$esc" >"$tmp/neg.json"
check "bad_input: a negative sample names file and field" bad_input \
    "neg.json: cells[0].samples_ticks[0]: -4.2 is not a positive time" \
    report "$tmp/neg.json"
sed 's/-4\.2/0/' "$tmp/neg.json" >"$tmp/zero.json"
check "bad_input: a zero sample names file and field" bad_input \
    "zero.json: cells[0].samples_ticks[0]: 0 is not a positive time" \
    report "$tmp/zero.json"
check "bad_input: compare refuses it too" bad_input "is not a positive time" \
    compare "$tmp/zero.json" "$esc"
# A subnormal time: its MB/s was inf.
sed 's/-4\.2/1e-310/' "$tmp/neg.json" >"$tmp/tiny.json"
check "bad_input: a subnormal sample names file and field" bad_input \
    "tiny.json: cells[0].samples_ticks[0]: 1e-310 is too small to be a time" \
    report "$tmp/tiny.json"
sed 's/"hz": [0-9.e+]*/"hz": -1/' "$esc" >"$tmp/hz.json"
check "bad_input: a negative clock rate" bad_input '"meta.timer.hz"' \
    report "$tmp/hz.json"
# Imported values (analyze) may be negative; a reloaded one keeps its
# own unit (no MB/s of a size-0 cell).
printf -- '-3\n-1\n0\n2\n' >"$tmp/neg.txt"
"$STATBENCH" analyze "$tmp/neg.txt" -o "$tmp/an.json" >/dev/null 2>&1
"$STATBENCH" report "$tmp/an.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a reloaded analyze run with negative values: exit 0 (rc $rc)" \
    test "$rc" -eq 0
check "a reloaded analyze run: values in their own unit, no MB/s" sh -c \
    "grep -q '^data ' '$tmp/out' && ! grep -q 'MB/s' '$tmp/out'"
# A cell of no size has no throughput: the JSON's mbps and
# ticks_per_byte are null (they were 0 MB/s), the CSV's empty, and a
# measured size-0 row shows "-" under MB/s and tsc/B (tsc/B was "nan";
# ns/B when the timer is the clock, as in a build without the TSC).
"$STATBENCH" report -f csv "$tmp/an.json" >"$tmp/an.csv" 2>/dev/null
if [ -n "$PY" ]; then
    check_json "an imported cell: no MB/s in the JSON" "$tmp/an.json" <<'PYEOF'
c = d["cells"][0]
assert [c["mbps"][k] for k in ("estimate", "lo", "hi")] == [None] * 3, c
assert c["ticks_per_byte"] is None, c["ticks_per_byte"]
PYEOF
fi
check "  nor in the CSV (mbps_median empty)" sh -c \
    "sed -n 2p '$tmp/an.csv' | cut -d, -f6-8 | grep -qx ',,'"
"$STATBENCH" -k libc -s 0 --max-time 0.2 --invocations 1 --reject none \
    >"$tmp/zero.out" 2>&1
zero_row() { # FILE UNIT: the row, its per-byte column UNIT/B
    grep -Eq '^libc +0 +0 +0 +- +- +- ' "$1" &&
        [ "$(rows_by_name "$1" '$1 == "libc" {
                 print ($c("'"$2"'/B") == "-" ? "dash" : $c("'"$2"'/B")) }')" \
            = dash ] &&
        no_nan "$1"
}
tk=$(tick_column "$tmp/zero.out")
check "a measured size-0 row: '-' for MB/s and $tk/B, no nan" \
    zero_row "$tmp/zero.out" "$tk"

# --- baselines: --against, --save (item 7 and smaller) ---------------------
STATBENCH_BASELINES="$tmp/bl"
export STATBENCH_BASELINES
mkdir "$tmp/bl"
# A measured run of other cells (libc and duff at 256 bytes): imported
# values are refused as a baseline for another reason (stats_cli.sh).
cp "$top_srcdir/tests/fixtures/reanalyse_a.json" "$tmp/bl/other.json"
check "bad_input: --against with no cell in common exits 2, as compare" \
    bad_input "--against other: no cell in common" -k "$SB_COPY" -s 1K \
    --max-time 1 -q --against other
check "bad_input: compare with no cell in common exits 2" \
    bad_input "have no cell in common" compare "$tmp/bl/other.json" "$esc"
# An interrupted baseline is marked in its file; --against says so.  (Its
# movsl cell is renamed to the build's copy kernel, $SB_COPY, so that the
# run has a cell in common with it in any build.)
sed -e 's/"interrupted": false/"interrupted": true/' \
    -e "s/\"kernel\": \"movsl\"/\"kernel\": \"$SB_COPY\"/" "$esc" \
    >"$tmp/bl/cut.json"
"$STATBENCH" -k "$SB_COPY" -s 1K -a 0 --max-time 0.3 --invocations 1 -q \
    --against cut >/dev/null 2>"$tmp/err"
check "--against an interrupted baseline: a warning" \
    grep -q "against cut: this baseline was interrupted" "$tmp/err"
# An -o into a directory that is not there: refused before measuring,
# nothing saved.
check "-o into a missing directory: refused before measuring" \
    bad_input "-o $tmp/nodir/x.csv: its directory '$tmp/nodir' is not there" \
    -k "$SB_COPY" -s 1K --max-time 0.2 --invocations 1 -q \
    -o "$tmp/nodir/x.csv" --save s2
check "  and --save saved nothing" test ! -e "$tmp/bl/s2.json"
check "-o under a file: its directory is not a directory" \
    bad_input "is not a directory" -k "$SB_COPY" -o "$tmp/bl/cut.json/x.csv"
# An -o that fails while writing (a full device) does not silently drop
# the --save.
if [ -w /dev/full ]; then
    "$STATBENCH" -k "$SB_COPY" -s 1K --max-time 0.2 --invocations 1 -q \
        --reject none -o /dev/full --save s2 >/dev/null 2>"$tmp/err"
    rc=$?
    check "-o /dev/full with --save: exit 1 (rc $rc)" test "$rc" -eq 1
    check "-o failed, --save still saved" test -s "$tmp/bl/s2.json"
    check "-o failed, --save: a line says what was saved and what not" \
        grep -q "saved as baseline 's2' .*an output above was not written" \
        "$tmp/err"
    check "the failed -o is named" grep -q "/dev/full: writing failed" \
        "$tmp/err"
else
    skip "-o failing while written, with --save" "no writable /dev/full"
fi
# A file where the baseline directory should be: refused before measuring.
: >"$tmp/notadir"
check "STATBENCH_BASELINES naming a file: refused before measuring" sh -c '
    STATBENCH_BASELINES="$2/notadir" "$1" -k "$3" --save x >"$2/out" \
        2>"$2/err"
    [ $? -eq 2 ] && [ ! -s "$2/out" ] &&
        grep -q "notadir (from STATBENCH_BASELINES) is not a directory" \
            "$2/err"' sh "$STATBENCH" "$tmp" "$SB_COPY"
# A relative XDG_DATA_HOME is ignored (the XDG specification): HOME's.
mkdir "$tmp/xhome" "$tmp/xcwd"
sbx=$(cd "$(dirname "$STATBENCH")" && pwd)/$(basename "$STATBENCH")
(cd "$tmp/xcwd" && env -u STATBENCH_BASELINES XDG_DATA_HOME=rel \
    HOME="$tmp/xhome" "$sbx" -k "$SB_COPY" -s 1K --max-time 0.2 \
    --invocations 1 --reject none -q --save xr >/dev/null 2>"$tmp/err")
check "a relative XDG_DATA_HOME is ignored: saved under HOME" sh -c '
    [ -s "$1/xhome/.local/share/statbench/baselines/xr.json" ] &&
        [ ! -e "$1/xcwd/rel" ]' sh "$tmp"
# Without HOME (and XDG_DATA_HOME, STATBENCH_BASELINES) no baseline goes
# to the current directory: refused before measuring.
mkdir "$tmp/cwd"
sb=$(cd "$(dirname "$STATBENCH")" && pwd)/$(basename "$STATBENCH")
(cd "$tmp/cwd" && env -u HOME -u XDG_DATA_HOME -u STATBENCH_BASELINES \
    "$sb" -k "$SB_COPY" --save h >"$tmp/out" 2>"$tmp/err")
rc=$?
check "--save without HOME: exit 2 (rc $rc)" test "$rc" -eq 2
check "--save without HOME: one line asking for STATBENCH_BASELINES" \
    err_line "set STATBENCH_BASELINES"
check "--save without HOME: nothing in the current directory" \
    test -z "$(ls -A "$tmp/cwd")"
# A baseline directory too long for a path is refused, never shortened.
long=$tmp/$(printf '%05000d' 0)
STATBENCH_BASELINES=$long
check "bad_input: a STATBENCH_BASELINES over 4095 bytes" \
    bad_input "longer than 4095 bytes" -k "$SB_COPY" --save x
STATBENCH_BASELINES="$tmp/bl"

# --- outputs that collide, options that would be ignored ----------------
check "bad_input: -o onto --plot's figure" bad_input "are one file" \
    report "$esc" --plot "$tmp/col.svg" -o "$tmp/col.svg"
check "bad_input: -o onto --plot's script, through ./" bad_input \
    "--plot's script" report "$esc" --plot "$tmp/col.svg" -o "$tmp/./col.gp"
check "bad_input: -o onto --plot's data" bad_input "--plot's data" \
    report "$esc" --plot "$tmp/col.svg" -o "$tmp/col.dat"
check "bad_input: one file given twice as -o" bad_input "are one file" \
    report "$esc" -o "$tmp/x.json" -o "$tmp/../$(basename "$tmp")/x.json"
check "  nothing written" sh -c "! ls '$tmp' | grep -q '^col\\.\\|^x\\.json'"
"$STATBENCH" report "$esc" -o /dev/null -o /dev/null -q >/dev/null 2>&1
rc=$?
check "-o /dev/null twice: a device may take both (rc $rc)" test "$rc" -eq 0
check "bad_input: an empty -o" bad_input "an empty file name" report "$esc" \
    -o ""
check "bad_input: an ambiguous abbreviation names its options" \
    bad_input "'--max' is ambiguous: --max-time" -k libc --max 0.2
check "bad_input: check-env -f json (its report is text)" \
    bad_input "'--format' is not an option" check-env -f json
check "bad_input: noise -o FILE" bad_input "'--output' is not an option" \
    noise -o "$tmp/n.csv"
check "bad_input: noise --plot FILE" bad_input "'--plot' is not an option" \
    noise --plot "$tmp/n.svg"

# --- the format of each output ----------------------------------------------
# An -o file takes the format of its ending (its last '.': .txt is the
# table's, which is format 0), --format only when the ending names none;
# standard output then gets the table, not --format.
"$STATBENCH" analyze "$tmp/n.txt" -o "$tmp/fmt.txt" -o "$tmp/fmt.v2.json" \
    -o "$tmp/fmt.out.csv" --format csv >"$tmp/fmt.stdout" 2>/dev/null
is_table() { grep -q '^data: ' "$1" && ! grep -q '^kernel,' "$1"; }
check "-o FILE.txt with --format csv: the table" is_table "$tmp/fmt.txt"
check "-o FILE.v2.json: JSON, by the last '.'" \
    sh -c "head -c 1 '$tmp/fmt.v2.json' | grep -q '{'"
check "-o FILE.out.csv: CSV" grep -q '^kernel,' "$tmp/fmt.out.csv"
check "standard output beside -o: the table, not --format" \
    is_table "$tmp/fmt.stdout"
check "--format md, the alias: a Markdown table" sh -c \
    "'$STATBENCH' analyze '$tmp/n.txt' --format md 2>/dev/null |
     grep -q '^| data '"
check "--format tex, the alias: a LaTeX table" sh -c \
    "'$STATBENCH' analyze '$tmp/n.txt' --format tex 2>/dev/null |
     grep -q '^.begin{tabular}'"

# --- two runs that are one ---------------------------------------------------
# compare warns of one run given twice (same start and host): its ratios
# are 1 by construction.  Two hosts started in the same second are two runs.
if [ -n "$PY" ]; then
    "$PY" - "$tmp/run.json" "$tmp" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["meta"]["start_time"] = "2026-01-02T00:00:00Z"
for name, host in (("h1", "hosta"), ("h2", "hostb"), ("h3", "hosta")):
    d["meta"]["hostname"] = host
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
PYEOF
    "$STATBENCH" compare "$tmp/h1.json" "$tmp/h3.json" >/dev/null 2>"$tmp/same.err"
    check "compare of one run twice: said" \
        grep -q "h3.json are the same run (host 'hosta', started 2026-01-02T00:00:00Z)" \
        "$tmp/same.err"
    "$STATBENCH" compare "$tmp/h1.json" "$tmp/h2.json" >/dev/null 2>"$tmp/two.err"
    check "  two hosts started in the same second: not one run" \
        sh -c "! grep -q 'the same run' '$tmp/two.err'"
else
    skip "compare of one run twice" "no python3"
fi

# --- values out of range -----------------------------------------------------
check "bad_input: --run-sd below 0" bad_input "--run-sd '-0.5'" \
    analyze "$tmp/n.txt" --run-sd -0.5
ncpu=$(getconf _NPROCESSORS_CONF 2>/dev/null || echo)
if [ -n "$ncpu" ]; then
    check "bad_input: noise --cpu $ncpu, one past the last CPU" \
        bad_input "cpu $ncpu: no such CPU on this machine" noise --cpu "$ncpu"
else
    skip "noise --cpu past the last CPU" "no getconf _NPROCESSORS_CONF"
fi

done_testing
