#!/bin/sh
# cli.sh: the statbench command end to end: the headline sweep, the
# machine formats, --list/--help, and every kind of bad input.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbcli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PY=$(command -v python3 || true)


# --- the headline command, bounded in time -------------------------------
# (Its kernel is rep movsl where the build has it: $SB_COPY, tests/lib.sh.)
"$STATBENCH" --kernel "$SB_COPY" --align 0..32 --ci 95 --max-time 4 -q \
    >"$tmp/table" 2>"$tmp/err"
rc=$?
check "headline sweep exits 0 (rc $rc)" test "$rc" -eq 0
main_rows "$tmp/table" >"$tmp/rows"
rows=$(awk -v k="$SB_COPY" '$1 == k' "$tmp/rows" | wc -l)
check "headline sweep prints 33 rows (got $rows)" test "$rows" -eq 33
check "header names the timer and its overhead" \
    grep -q '^timer: .*MHz' "$tmp/table"
check "header reports the overhead in ticks" \
    grep -q '^overhead: .* per sample, subtracted (bare timer pair' "$tmp/table"
check "header states the precision target" \
    grep -q 'precision target +-1%' "$tmp/table"
check "header states 1 MB = 10^6 bytes" grep -q '1 MB = 10^6 bytes' "$tmp/table"
check "header states the counters" grep -q '^counters: ' "$tmp/table"
check "alignments 0..32 in order" sh -c "
    awk -v k='$SB_COPY' '\$1 == k { printf \"%s \", \$3 }' '$tmp/rows' |
    grep -qx '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 '"
# Every row: CI low <= median <= CI high, positive, samples kept > 0;
# with a core clock, the same for the core cycles per call and per byte,
# and the per-byte interval the per-call one over the size (to the
# table's five digits).
bad=$(rows_by_name "$tmp/table" '$1 == "'"$SB_COPY"'" &&
    !($c("MB/s-lo") <= $c("MB/s") && $c("MB/s") <= $c("MB/s-hi") &&
      $c("MB/s-lo") > 0 && $c("kept") > 0) { print }' | wc -l)
check "every row has median inside its CI (bad rows: $bad)" test "$bad" -eq 0
[ "$bad" -eq 0 ] || cat "$tmp/table" | sed 's/^/# /'
if grep -q '^kernel .* core/call ' "$tmp/table"; then
    bad=$(rows_by_name "$tmp/table" 'function off(a, b) {
            # Printed to 0.1 per call and to five digits per byte.
            return a - b > 0.06 + 1e-4 * b || b - a > 0.06 + 1e-4 * b
        }
        $1 == "'"$SB_COPY"'" && $c("core/call") != "-" &&
        !($c("core/call-lo") <= $c("core/call") &&
          $c("core/call") <= $c("core/call-hi") &&
          $c("core/B-lo") <= $c("core/B") && $c("core/B") <= $c("core/B-hi") &&
          !off($c("core/B-lo") * $2, $c("core/call-lo")) &&
          !off($c("core/B-hi") * $2, $c("core/call-hi"))) { print }' |
        wc -l)
    check "core cycles per call and per byte inside their CIs, per byte \
the per-call over the size (bad rows: $bad)" test "$bad" -eq 0
    [ "$bad" -eq 0 ] || cat "$tmp/table" | sed 's/^/# /'
elif sb_arch; then
    skip "core cycles in the headline" "no core clock on this machine"
else
    skip "core cycles in the headline" "$sb_no_arch: no core clock probe"
fi

# --- JSON and CSV ----------------------------------------------------------
"$STATBENCH" -k "$SB_COPY,libc" -a 0..2 -s 4K --max-time 2 -q -f json \
    -o "$tmp/run.json" >"$tmp/table2" 2>"$tmp/err"
rc=$?
check "--format json -o FILE exits 0 (rc $rc)" test "$rc" -eq 0
check "the table still goes to stdout with -o" \
    grep -q '^libc ' "$tmp/table2"
# The temporary file is run.json.XXXXXX (mkstemp): nothing but run.json
# itself may start with that name.
check "no temporary file left beside the output" \
    sh -c "! ls '$tmp' | grep -q '^run\\.json\\..'"
if [ -n "$PY" ]; then
    check "JSON parses and holds 6 cells with raw samples and metadata" \
        "$PY" - "$tmp/run.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "statbench-run" and d["schema_version"] == 1
m = d["meta"]
for k in ("cpu_model", "kernel_version", "statbench_version", "command",
          "seed", "timer", "start_time", "counters"):
    assert k in m, k
assert m["timer"]["hz"] > 0 and m["timer"]["overhead_ticks"] >= 0
assert "-f json" in m["command"]
cells = d["cells"]
assert len(cells) == 6, len(cells)
assert [c["src_align"] for c in cells] == [0, 1, 2, 0, 1, 2]
for c in cells:
    assert c["samples"] == len(c["samples_ticks"]) > 0
    med = c["interval"]
    assert med["lo"] <= med["estimate"] <= med["hi"]
    # Six invocations at least by default: the interval is over their medians.
    assert c["invocations"] >= 6 and len(c["invocation_samples"]) == c["invocations"]
    assert sum(c["invocation_samples"]) == c["samples"]
    # Order statistics over six medians or more reach 95%; a budget of 2 s
    # on a busy machine can leave an invocation without samples of a cell:
    # two to five medians take the t interval, one its own samples'.
    groups = sum(1 for s in c["invocation_samples"] if s > 0)
    want = ("order statistics over invocation medians" if groups >= 6
            else "t over log invocation medians (a geometric mean)" if groups >= 2
            else "order statistics (exact binomial)")
    assert c["method"] == want, (c["method"], c["invocation_samples"])
    mb = c["mbps"]
    assert mb["lo"] <= mb["estimate"] <= mb["hi"]
    # MB/s is the size over the median time, 1 MB = 10^6 bytes.
    want = c["size"] * m["timer"]["hz"] / med["estimate"] / 1e6
    assert abs(mb["estimate"] - want) <= 1e-6 * want
PYEOF
else
    skip "JSON parses" "no python3"
fi

sb_ok run.csv "--format csv" -k duff -a 0,3 -s 1K --max-time 1 -q -f csv
if [ -n "$PY" ]; then
    check "CSV parses: a header row and 2 cells of equal width" \
        "$PY" - "$tmp/run.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][:3] == ["kernel", "family", "size"], rows[0]
assert len(rows) == 3, len(rows)
assert all(len(r) == len(rows[0]) for r in rows)
d = [dict(zip(rows[0], r)) for r in rows[1:]]
assert [r["src_align"] for r in d] == ["0", "3"]
for r in d:
    assert float(r["mbps_ci_lo"]) <= float(r["mbps_median"]) <= float(r["mbps_ci_hi"])
    assert int(r["samples"]) > 0
PYEOF
else
    skip "CSV parses" "no python3"
fi

# --- one command: the table, JSON, LaTeX and an SVG figure of a sweep -------
"$STATBENCH" -k "$SB_COPY,duff" -a 0..4 --max-time 2 --invocations 2 -q \
    -o "$tmp/all.json" -o "$tmp/all.tex" --plot "$tmp/all.svg" \
    >"$tmp/all.txt" 2>"$tmp/err"
rc=$?
check "one command writes table, JSON, LaTeX and a figure (rc $rc)" test "$rc" -eq 0
check "  the table" sh -c "main_rows() { awk '/^kernel .*MB\\/s/ { on = 1; next } on && /^\$/ { on = 0 } on' \"\$1\"; };
    [ \$(main_rows '$tmp/all.txt' | wc -l) -eq 10 ]"
check "  the JSON (by its ending)" grep -q '"schema": "statbench-run"' "$tmp/all.json"
check "  the LaTeX (by its ending)" grep -q 'toprule' "$tmp/all.tex"
check "  the figure's script and data" test -s "$tmp/all.gp" -a -s "$tmp/all.dat"
if command -v gnuplot >/dev/null; then
    check "  the SVG" grep -q '</svg>' "$tmp/all.svg"
else
    skip "  the SVG" "no gnuplot"
fi
check "--plot with an unknown ending" bad_input "'x.jpg'" --plot x.jpg
# A timer kind's name that --timer does not take (aarch64's counter is
# its "tsc", the architecture's counter) is refused, not read as a flag.
check "--timer cntvct is refused, with the two it takes" \
    bad_input "--timer 'cntvct': unknown timer (use tsc or clock)" \
    --timer cntvct
mkdir "$tmp/plain"
check "--plot with no ending" sh -c "cd '$tmp/plain' &&
    '$STATBENCH' --plot noext -k libc -s 64 --max-time 1 >out 2>err;
    [ \$? -eq 2 ] && grep -q 'the file must end in' err && [ ! -s out ]"

# --- interruption: SIGTERM ends a long run early, with its data -------------
# The run below would take 60 s (--precision 0 and a sample count out of
# reach: nothing it could reach early, however quiet the machine: with
# the default 10000 samples a quiet core filled both cells in under 4 s);
# SIGTERM after 4 s must end it with
# status 143 and the samples measured so far written, marked interrupted.
# (4 s: a sanitizer build on a loaded machine took over 2 s to set up its
# first invocation.)  The bound of 30 s only catches a run that ignores
# the request.
"$STATBENCH" -k duff -a 0,1 --max-time 60 --invocations 2 --precision 0 \
    --min-samples 100000000 --max-samples 100000000 \
    -q -f json -o "$tmp/int.json" >"$tmp/int.txt" 2>"$tmp/int.err" &
pid=$!
sleep 4
kill -TERM $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
wait $pid
rc=$?
check "SIGTERM: exit status 143 (rc $rc)" test "$rc" -eq 143
check "SIGTERM: the run ended well before its budget" test "$i" -lt 300
check "SIGTERM: the table says INTERRUPTED" grep -q 'INTERRUPTED' "$tmp/int.txt"
if [ -n "$PY" ]; then
    check "SIGTERM: the JSON holds the samples, marked interrupted" "$PY" -c "
import json
d = json.load(open('$tmp/int.json'))
assert d['interrupted'] is True
assert all(c['samples'] > 0 for c in d['cells'])
"
fi

# --- SIGTERM to one forked invocation: status 143, like SIGTERM to the parent
# Every invocation lasts its whole budget (the minimum sample count is out of
# reach), so the second one is certain to start; it gets the SIGTERM.
if command -v pgrep >/dev/null && [ -d /proc/self ]; then
    "$STATBENCH" -k libc -s 4K --invocations 3 --max-time 6 \
        --min-samples 100000000 --max-samples 100000000 -q \
        >"$tmp/cterm.txt" 2>"$tmp/cterm.err" &
    pid=$!
    first=
    killed=
    i=0
    # 10 s of polls, times the budgets' scale under emulation (where the
    # first invocation alone lasts 40 s of its 120).
    while [ $i -lt $((200 * SB_TEST_TIME_SCALE)) ] && kill -0 $pid 2>/dev/null; do
        # Children only count once the libtool wrapper has exec'd (under
        # qemu-user by binfmt, the program's exe is qemu's).
        case $(readlink "/proc/$pid/exe" 2>/dev/null) in
        *statbench* | *aarch64-binfmt* | *qemu-aarch64*)
            c=$(pgrep -P $pid | head -n 1)
            if [ -n "$c" ] && [ -z "$first" ]; then
                first=$c
            elif [ -n "$c" ] && [ "$c" != "$first" ]; then
                kill -TERM "$c" && killed=$c
                break
            fi ;;
        esac
        sleep 0.05
        i=$((i + 1))
    done
    wait $pid
    rc=$?
    check "SIGTERM to a forked invocation was sent" test -n "$killed"
    check "SIGTERM to a forked invocation: exit status 143 (rc $rc)" \
        test "$rc" -eq 143
else
    skip "SIGTERM to a forked invocation" "no pgrep or /proc"
fi

# --- the alloc table shows "-" where a figure cannot be given, never "nan" ----
# (The user/sys split needs 0.1 s of CPU time: a short run has less.)
# --reject none: a cell left without samples fails the run, and this one
# is about the table, not about what else the machine runs.
"$STATBENCH" -k malloc_touch -s 64K --invocations 1 --max-time 0.05 -q \
    --reject none \
    >"$tmp/alloc.txt" 2>"$tmp/err"
rc=$?
check "a short alloc run exits 0 (rc $rc)" test "$rc" -eq 0
check "  and its table has no nan" no_nan "$tmp/alloc.txt"
check "  but a row with user and sys columns (a number or -)" \
    awk '$1 == "malloc_touch" && NF >= 12 &&
        ($8 == "-" || $8 + 0 == $8) && ($9 == "-" || $9 + 0 == $9) { ok = 1 }
        END { exit !ok }' "$tmp/alloc.txt"
# ns/page is the per-call time over the pages: 1000 x us/call / (64K / 4K),
# up to the printed digits (us/call to 0.01, ns/page to 0.1).
check "  its ns/page is 1000 x us/call / pages" \
    awk '/^kernel .*ns\/page/ { on = 1; next }
         on && /^$/ { on = 0 }
         on && $1 == "malloc_touch" {
            rows++
            want = 1000 * $3 / 16
            d = $7 - want
            if (d < 0) d = -d
            if (d > 0.05 + 1000 * 0.005 / 16 + 1e-9) {
                print "ns/page " $7 " for us/call " $3 ": want " want
                bad++
            }
         }
         END { exit !(rows == 1 && !bad) }' "$tmp/alloc.txt"

# --- stdout on a full device: not a success ----------------------------------
if [ -c /dev/full ]; then
    for args in --help --version check-env --list; do
        "$STATBENCH" $args >/dev/full 2>"$tmp/full.err"
        rc=$?
        lines=$(wc -l <"$tmp/full.err")
        check "$args to /dev/full: status 1 (rc $rc), one line on stderr" \
            test "$rc" -eq 1 -a "$lines" -eq 1
        grep -q 'standard output' "$tmp/full.err" ||
            diag "$(cat "$tmp/full.err")"
    done
else
    skip "stdout to /dev/full" "no /dev/full"
fi

# --- check-env and noise ----------------------------------------------------
"$STATBENCH" check-env >"$tmp/env" 2>"$tmp/err"
rc=$?
check "check-env exits 0 (rc $rc)" test "$rc" -eq 0
for key in governor scaling-driver turbo smt-sibling virtual-machine \
    isolation load thp aslr clocksource; do
    check "check-env reports $key" grep -Eq "^(ok|WARN) +$key " "$tmp/env"
done
check "check-env gives advice for each warning" sh -c "
    w=\$(grep -c '^WARN' '$tmp/env'); a=\$(grep -c '^ *-> ' '$tmp/env');
    [ \$a -ge \$w ]"
"$STATBENCH" noise --max-time 3 --invocations 3 >"$tmp/noise" 2>"$tmp/err"
rc=$?
check "noise exits 0 (rc $rc)" test "$rc" -eq 0
check "noise reports the empty region's jitter" \
    grep -q '^empty .*' "$tmp/noise"
check "noise reports the between-invocation variation" \
    grep -q 'between invocations: the medians vary by' "$tmp/noise"
check "noise reports the smallest detectable change for a budget" \
    grep -q 'smallest change two runs can tell apart.*in 60 s' "$tmp/noise"
check "noise reports the interrupt rate" grep -q 'interrupts/s on CPU' "$tmp/noise"
"$STATBENCH" -k libc -s 4K --max-time 1 -q >"$tmp/hdr" 2>"$tmp/err"
# Load and the SMT sibling's business change from moment to moment; the
# other findings must be the same in check-env and in a run's header.
check "a run's header carries the environment warnings" sh -c "
    for k in \$(awk '\$1 == \"WARN\" && \$2 != \"load\" && \$2 != \"smt-sibling\" { print \$2 }' '$tmp/env'); do
        grep -q \"^warning:  \$k: \" '$tmp/hdr' || exit 1
    done"

# --- kernels whose source or destination size matters -----------------------
# write reads a source of the cell's size, and --cache cold flushes both
# buffers: a clear or system-call kernel of 1 MiB must have them.
# Flushing takes the architecture's flush (clflush, dc civac): the
# portable build refuses cold.
if sb_can_flush; then
    cold_k=write
    sb_arch && cold_k=write,stosb
    "$STATBENCH" -k $cold_k -s 1M --cache cold --invocations 1 \
        --max-time 1 -q --reject none \
        >"$tmp/cold" 2>"$tmp/err"
    rc=$?
    check "cold 1 MiB $cold_k run (rc $rc)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || diag "$(cat "$tmp/err")"
else
    skip "cold 1 MiB write and stosb run" "$sb_no_arch: no clflush, no stosb"
    check "--cache cold is refused without clflush, before measuring" \
        bad_input "cache cold: flushing needs clflush" -k write -s 1M \
        --cache cold --invocations 1 --max-time 1 -q
fi
check "check-env refuses an option it does not take" \
    bad_input "'--kernel'" check-env --kernel movsl
check "check-env refuses a CPU that does not exist" \
    bad_input "cpu 99999" check-env --cpu 99999
check "noise refuses an option it does not take" bad_input "'--align'" noise --align 3
check "compare refuses --no-profile, a measuring option" \
    bad_input "'--no-profile' is an option of a measurement" \
    compare --no-profile a.json b.json
check "profile refuses an option it does not take" \
    bad_input "'--kernel' is not an option of this subcommand" \
    profile --kernel movsl
check "profile takes no argument" bad_input "unexpected argument 'x'" \
    profile x
check "a measuring run refuses profile's --reset" \
    bad_input "'--reset' is an option of 'statbench profile' only" --reset
check "check-env refuses profile's --reset" \
    bad_input "'--reset' is an option of 'statbench profile' only" \
    check-env --reset
check "--counters list still checks the other options" \
    bad_input "'--bogus'" --counters list --bogus
# A counter name nothing knows is bad input, where PAPI can tell (a build
# without PAPI, or PAPI not started, reports it missing at run time).
if "$STATBENCH" --counters list 2>&1 |
    grep -qE '^PAPI_TOT_CYC +(available|PAPI: )'; then
    check "--counters BOGUS is refused, naming it" \
        bad_input "no counter named 'BOGUS'" -k libc -s 4K --counters BOGUS
else
    skip "--counters BOGUS is refused" "PAPI did not start here"
fi
check "an alloc size too large for memory" \
    bad_input "too large for memory" -k mmap_touch -s 1024G

# --- output files: atomic, and a failed write leaves nothing behind ---------
mkdir "$tmp/outdir"
echo "old contents" >"$tmp/outdir/keep.json"
(trap '' XFSZ; ulimit -f 2; "$STATBENCH" -k libc,duff -s 4K --max-time 0.5 \
    --invocations 1 --reject none -q -o "$tmp/outdir/keep.json" \
    >/dev/null 2>"$tmp/err")
rc=$?
check "a write that fails (file size limit) exits 1 (rc $rc)" test "$rc" -eq 1
# (One line about the write; a loaded machine may add a line of its own,
# a cell stopped short, say.)
check "  and says so in one line" sh -c "[ \$(grep -c 'keep.json' '$tmp/err') -eq 1 ] && grep -q 'keep.json: writing failed' '$tmp/err'"
[ $? -eq 0 ] || diag "$(cat "$tmp/err")"
check "  the old file is untouched" grep -qx "old contents" "$tmp/outdir/keep.json"
check "  no temporary file is left" sh -c "[ \$(ls '$tmp/outdir' | wc -l) -eq 1 ]"
check "a path into no directory: refused before measuring, with its reason" \
    bad_input "its directory '$tmp/no/such/dir' is not there" -k libc -s 4K \
    --max-time 0.5 --invocations 1 -q -o "$tmp/no/such/dir/run.json"

# --- help, version, list ---------------------------------------------------
# The headline's kernel is the default: rep movsl, or duff in a build
# without the x86-64 kernels (a default it lacks would refuse every run
# that names no kernel).
if sb_arch; then default_kernel=movsl; else default_kernel=duff; fi
"$STATBENCH" --help >"$tmp/help" 2>&1
rc=$?
check "--help exits 0 and shows the headline" \
    sh -c "[ $rc -eq 0 ] && grep -q -- '--kernel $default_kernel --align 0..32 --ci 95' '$tmp/help'"
check "--help names the default kernel, $default_kernel" \
    grep -qF "or 'all' (default $default_kernel);" "$tmp/help"
check "--help names the default size and its reason" \
    grep -q 'default 10240' "$tmp/help"
check "--help lists every subcommand" \
    sh -c "[ \$('$STATBENCH' --help | grep -cE '^  statbench (check-env|noise|compare|report|merge|profile|analyze|cmd|ab) ') -eq 9 ]"
# A subcommand's help is its own: its usage, and only the options it
# takes (report re-renders: no --kernel; cmd: --runs, not --kernel).
"$STATBENCH" report --help >"$tmp/help" 2>&1
rc=$?
check "report --help: its own usage, exit 0 (rc $rc)" \
    sh -c "[ $rc -eq 0 ] && head -n 1 '$tmp/help' | grep -q '^Usage: statbench report RUN.json'"
check "  its options, not a measurement's" \
    sh -c "grep -q -- '--format FMT' '$tmp/help' && ! grep -q -- '--kernel' '$tmp/help'"
"$STATBENCH" cmd --help >"$tmp/help" 2>&1
check "cmd --help: its usage and --runs, no --kernel" \
    sh -c "head -n 1 '$tmp/help' | grep -q \"^Usage: statbench cmd 'A' 'B'\" &&
           grep -q -- '--runs N' '$tmp/help' && ! grep -q -- '--kernel' '$tmp/help'"
"$STATBENCH" ab --help >"$tmp/help" 2>&1
check "ab --help: its usage and the measuring options" \
    sh -c "head -n 1 '$tmp/help' | grep -q '^Usage: statbench ab OLD.so NEW.so --symbol S' &&
           grep -q -- '--max-time SEC' '$tmp/help'"
check "--version" sh -c "'$STATBENCH' --version | grep -q '^statbench [0-9]'"
"$STATBENCH" --list >"$tmp/list"
for k in movsb movsl movsq duff libc; do
    case $k in
    movs?)
        if ! sb_arch; then
            skip "--list shows $k with availability" "$sb_no_arch"
            continue
        fi ;;
    esac
    check "--list shows $k with availability" \
        grep -Eq "^$k +copy +(yes|no \\()" "$tmp/list"
done

# --- bad input: one line naming the value, exit 2, nothing on stdout --------
check "unknown kernel" bad_input "'nosuch'" --kernel nosuch
check "malformed size" bad_input "10Q" --size 10Q
check "malformed range" bad_input "4..1" --align 4..1
check "empty range step" bad_input "0..8:0" --align 0..8:0
check "alignment beyond a page" bad_input "5000" --align 5000
check "size too large for memory" bad_input "size 1099511627776 too large for memory" --size 1024G
check "CPU that does not exist" bad_input "cpu 9999" --cpu 9999
# A --cpu outside the mask the process was started with (taskset) was
# taken, leaving the mask; now refused.  Needs CPUs 0 and 1 online and 1
# not isolated (an isolated CPU is allowed outside the mask).
iso=$(tr -d '\n' </sys/devices/system/cpu/isolated 2>/dev/null)
if command -v taskset >/dev/null 2>&1 && [ -z "$iso" ] &&
    taskset -c 1 true 2>/dev/null && taskset -c 0 true 2>/dev/null; then
    taskset -c 0 "$STATBENCH" -k libc -s 4K --max-time 0.2 --cpu 1 \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "--cpu 1 under taskset -c 0: refused (rc $rc)" test "$rc" -eq 2
    check "  one line naming the CPU and the mask" grep -qF \
        "cpu 1: outside this process's CPU affinity mask (0," "$tmp/err"
else
    skip "--cpu outside the taskset mask" "no taskset, or CPU 0 or 1 unusable"
fi
check "CI level 0" bad_input "'0'" --ci 0
check "CI level 100" bad_input "'100'" --ci 100
check "CI level 150" bad_input "'150'" --ci 150
check "CI level not a number" bad_input "'abc'" --ci abc
check "hexadecimal seconds refused" bad_input "'0x10': hexadecimal" \
    --max-time 0x10
check "hexadecimal size refused" bad_input "'0x10': hexadecimal" --size 0x10
check "hexadecimal seed refused" bad_input "'0x10': hexadecimal" --seed 0x10
check "a kernel listed twice is refused" \
    bad_input "libc is listed twice" -k libc,libc
check "a kernel named and in all is refused" \
    bad_input "libc is listed twice" -k all,libc
check "a family listed twice is refused, as a kernel is" \
    bad_input "--family 'copy,copy': copy is listed twice" --family copy,copy
check "a size listed twice is refused" \
    bad_input "4096 is listed twice" -k libc -s 4K,4096
check "a size in two ranges is refused" \
    bad_input "4096 is listed twice" -k libc -s '1K..8K:*2,4K..16K:*4'
check "an offset listed twice is refused" \
    bad_input "3 is listed twice" -k libc -a 0..4,3
check "a destination offset listed twice is refused" \
    bad_input "1 is listed twice" -k libc --dst-align 1,1

# --- a seed above 2^63 - 1 is written losslessly, and read back -------------
"$STATBENCH" -k libc -s 4K --invocations 1 --max-time 0.2 -q \
    --seed 18446744073709551615 -f json -o "$tmp/seed.json" >/dev/null 2>&1
check "a seed of 2^64 - 1 is written as its digits" \
    grep -q '"seed": "18446744073709551615"' "$tmp/seed.json"
"$STATBENCH" report "$tmp/seed.json" -f json >"$tmp/seed2.json" 2>/dev/null
check "  and read back as the same seed" \
    grep -q '"seed": "18446744073709551615"' "$tmp/seed2.json"
sed 's/"seed": "18446744073709551615"/"seed": -1/' "$tmp/seed.json" \
    >"$tmp/seed_old.json"
"$STATBENCH" report "$tmp/seed_old.json" -f json >"$tmp/seed3.json" 2>/dev/null
check "  and the old form (-1) is read as the same 64 bits" \
    grep -q '"seed": "18446744073709551615"' "$tmp/seed3.json"
# One past 2^64 - 1 must not wrap to 0 (nor any other seed): refused on
# the command line, and the default (1, with a note) when loaded.
check "--seed 2^64 is refused, not wrapped" \
    bad_input "18446744073709551616" -k libc --seed 18446744073709551616
check "--seed far past 2^64 is refused" \
    bad_input "99999999999999999999" -k libc --seed 99999999999999999999
sed 's/"seed": "18446744073709551615"/"seed": "18446744073709551616"/' \
    "$tmp/seed.json" >"$tmp/seed_big.json"
"$STATBENCH" report "$tmp/seed_big.json" -f json >"$tmp/seed4.json" \
    2>/dev/null
check "  a loaded seed of 2^64 is ignored: the default seed, and a note" \
    sh -c "grep -q '\"seed\": 1,' '$tmp/seed4.json' &&
           grep -q 'meta.seed is not a seed' '$tmp/seed4.json'"
check "--metric: an unknown metric refused" \
    bad_input "'flops': unknown metric (use auto, time or cycles)" \
    --metric flops
check "  in report too" bad_input "'Cycles': unknown metric" \
    report --metric Cycles "$tmp/seed.json"
check "a run records --metric auto and its L2 size" \
    sh -c "grep -q '\"metric\": \"auto\"' '$tmp/seed.json' &&
           grep -q '\"l2_bytes\": ' '$tmp/seed.json'"
"$STATBENCH" report "$tmp/seed.json" --metric cycles -f json \
    >"$tmp/metric.json" 2>/dev/null
check "  report --metric cycles records cycles" \
    grep -q '"metric": "cycles"' "$tmp/metric.json"
# The same run without its samples' clocks (an older file): a cell
# without a clock is judged in time whatever --metric asks.
if [ -n "$PY" ]; then
    "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cells"]:
    c["samples_clock"] = None
json.dump(d, open(sys.argv[2], "w"))' "$tmp/seed.json" "$tmp/noclock.json"
    "$STATBENCH" report "$tmp/noclock.json" --metric cycles -f json \
        >"$tmp/metric2.json" 2>/dev/null
    check "  and a cell without a clock is in time" \
        sh -c "grep -q '\"metric\": \"cycles\"' '$tmp/metric2.json' &&
               grep -q '\"metric\": \"time\"' '$tmp/metric2.json'"
else
    skip "  and a cell without a clock is in time" "no python3"
fi
check "infinite seconds refused" bad_input "'inf': not a finite" --max-time inf
check "unknown format" bad_input "'xml'" --format xml
check "unknown option" bad_input "'--frobnicate'" --frobnicate
check "a value given to an option that takes none" \
    bad_input "--no-pin takes no value" --no-pin=3
check "report refuses a measuring option, by the table" \
    bad_input "'--cache' is an option of a measurement" report --cache cold x.json
check "check-env refuses --max-time, which noise takes" \
    bad_input "'--max-time' is not an option" check-env --max-time 3
check "missing option value" bad_input "--size" --size
check "stray argument" bad_input "'extra'" extra
check "precision below 0" bad_input "'-1'" --precision -1
check "precision 100" bad_input "'100'" --precision 100
check "--max-invocations past its maximum (1000)" \
    bad_input "'1001': must be at most 1000" -k libc --max-invocations 1001
check "--invocations past its maximum (1000)" \
    bad_input "'1001': must be at most 1000" -k libc --invocations 1001
check "precision not a number" bad_input "'x'" --precision x

# --- --precision 0: no target --------------------------------------------
# The stop rule never holds, so every invocation takes exactly
# --max-samples rounds (a budget of 60 s is far more than 300 rounds of
# two 4 KiB cells need, and ends nothing), and exactly --invocations run.
# With a target, a quiet machine would stop at --min-samples: the count
# tells the two apart whatever the machine's noise.
"$STATBENCH" -k libc,duff -s 4K --precision 0 --invocations 2 \
    --min-samples 100 --max-samples 300 --max-time 60 -f json \
    -o "$tmp/p0.json" -q >"$tmp/p0.txt" 2>"$tmp/err"
rc=$?
check "--precision 0 runs (rc $rc)" test "$rc" -eq 0
check "  the header says there is no precision target" \
    grep -q 'no precision target' "$tmp/p0.txt"
check "  no cell is marked short of a target" \
    sh -c "! grep -q 'short of the precision target' '$tmp/p0.txt'"
if [ -n "$PY" ]; then
    check "  every invocation took --max-samples rounds; no extra invocation" \
        "$PY" -c "
import json
d = json.load(open('$tmp/p0.json'))
assert d['meta']['options']['precision'] == 0, d['meta']['options']
assert d['rounds'] == 2 * 300, d['rounds']
for c in d['cells']:
    assert c['invocations'] == 2, c['invocations']
    assert c['reached_precision'] is True
"
    check "  report re-renders it (the loader takes precision 0)" \
        sh -c "'$STATBENCH' report '$tmp/p0.json' >'$tmp/p0r.txt' 2>'$tmp/err' &&
               grep -q 'no precision target' '$tmp/p0r.txt'"
fi

done_testing
