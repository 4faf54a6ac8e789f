#!/bin/sh
# bench/import.sh: how fast statbench reads a large Google Benchmark
# JSON, against jq parsing the same file, and the memory it takes.  A
# benchmark, not a test: it prints figures and asserts nothing.  The
# goal: statbench analyze in at most twice jq's time, in memory bounded
# by a small multiple of the file.
#   bench/import.sh [STATBENCH [MB]]    (default ./statbench, 100 MB)
# Needs awk and GNU time (/usr/bin/time, Debian's "time"); jq for the
# ratio (apt-get install jq: without it the ratio is skipped).
set -u
sb=${1:-./statbench}
mb=${2:-100}
if [ ! -x "$sb" ]; then
    echo "import.sh: $sb is not an executable statbench" >&2
    exit 2
fi
if [ ! -x /usr/bin/time ]; then
    echo "import.sh: /usr/bin/time not found (apt-get install time)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbimport.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
f=$tmp/big.json

# 1000 benchmarks, as many repetitions each as fill MB megabytes (a row
# is about 400 bytes), their order shuffled as random interleaving
# leaves it, each repetition beside an aggregate row every 6.
awk -v mb="$mb" 'BEGIN {
    srand(7)
    nb = 1000
    rows = int(mb * 1e6 / 400)
    reps = int(rows / nb)
    if (reps < 2) reps = 2
    printf "{\n  \"context\": {\n    \"date\": \"2026-12-07T20:00:00+00:00\",\n"
    printf "    \"host_name\": \"bench\",\n    \"executable\": \"./bm\",\n"
    printf "    \"num_cpus\": 2,\n    \"mhz_per_cpu\": 2400,\n"
    printf "    \"cpu_scaling_enabled\": false,\n"
    printf "    \"library_build_type\": \"release\"\n  },\n"
    printf "  \"benchmarks\": [\n"
    first = 1
    for (r = 0; r < reps; r++)
        for (b = 0; b < nb; b++) {
            t = (100 + b) * (1 + 0.05 * rand())
            if (!first) printf ",\n"
            first = 0
            printf "    {\n      \"name\": \"BM_copy/%d\",\n", b
            printf "      \"family_index\": 0,\n"
            printf "      \"per_family_instance_index\": %d,\n", b
            printf "      \"run_name\": \"BM_copy/%d\",\n", b
            printf "      \"run_type\": \"iteration\",\n"
            printf "      \"repetitions\": %d,\n", reps
            printf "      \"repetition_index\": %d,\n", r
            printf "      \"threads\": 1,\n      \"iterations\": 1000000,\n"
            printf "      \"real_time\": %.10e,\n", t
            printf "      \"cpu_time\": %.10e,\n", t * 0.999
            printf "      \"time_unit\": \"ns\",\n"
            printf "      \"bytes_per_second\": %.10e\n    }", 4096e9 / t
        }
    printf "\n  ]\n}\n"
}' >"$f"
size=$(wc -c <"$f")
echo "file: $(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }') MB of Google Benchmark JSON"

# run NAME COMMAND...: its wall time and peak RSS, printed and kept in
# $secs and $rss_kb.
run() {
    name=$1
    shift
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"
    st=$?
    read -r secs rss_kb <"$tmp/time"
    echo "$name: ${secs} s, max RSS $((rss_kb / 1024)) MB (exit $st)"
    [ "$st" -eq 0 ] || sed 's/^/    /' "$tmp/err"
}

run "statbench analyze" "$sb" analyze "$f"
sb_secs=$secs
sb_rss=$rss_kb
if command -v jq >/dev/null 2>&1; then
    run "jq . >/dev/null" jq . "$f"
    awk -v a="$sb_secs" -v b="$secs" 'BEGIN {
        if (b > 0) printf "ratio: statbench %.2f x jq (goal: at most 2)\n", a / b
    }'
else
    echo "jq not found: no ratio (apt-get install jq)"
fi
awk -v r="$sb_rss" -v s="$size" 'BEGIN {
    printf "memory: statbench peak RSS %.1f x the file\n", r * 1024 / s
}'
