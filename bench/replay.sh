#!/bin/sh
# bench/replay.sh: the contention probe's quiet model replayed over every
# recorded host, printed as figures (tests/test_replay.c asserts the
# goals on the tree's own recordings).
#
# For each hosttrace CSV (tests/fixtures/hosts/*.csv, and every
# hosts/*/hosttrace.csv of the shared notes when they sit beside the
# tree, or the folders given): the quiet windows, the model's quiet level
# and margin, and for an offline decision (one model over the recording)
# and an online one (1 s invocations deciding as measure.c does) the
# share of the quiet rows and of the quiet windows' rows kept, and each
# kernel's median over the kept rows against its median over the quiet
# rows; then the Zen 3 host's ten recorded runs judged by the host
# profile.  A benchmark, not a test: nothing asserts.
#   bench/replay.sh [DIR|FILE.csv ...]
# Run from a built tree (it runs tests/test_replay, which make check
# builds).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
replay=${REPLAY:-$top/tests/test_replay}
if [ ! -x "$replay" ]; then
    echo "replay.sh: $replay is not built (make check builds it)" >&2
    exit 2
fi
files=""
add() { files="$files
$1"; }
if [ "$#" -eq 0 ]; then
    for f in "$top"/tests/fixtures/hosts/*.csv; do [ -f "$f" ] && add "$f"; done
    for f in "$top"/../shared/hosts/*/hosttrace.csv; do [ -f "$f" ] && add "$f"; done
else
    for a in "$@"; do
        if [ -d "$a" ]; then
            for f in "$a"/*.csv "$a"/*/hosttrace.csv; do [ -f "$f" ] && add "$f"; done
        else
            add "$a"
        fi
    done
fi
if [ -z "$files" ]; then
    echo "replay.sh: no recording found" >&2
    exit 2
fi
# One file a line: names with spaces stay whole.
printf '%s\n' "$files" | while IFS= read -r f; do
    [ -n "$f" ] || continue
    "$replay" --bench "$f"
    echo
done
# The ten recorded runs of the Zen 3 host (tests/fixtures/amd), each
# judged by the host profile against a profile of the other nine, as
# tests/test_profile replays them: what run 10 now reports.
if [ -x "$top/tests/test_profile" ]; then
    echo "amd-epyc-zen3-kvm: ten default runs of -k libc -s 4K, each against a profile of the other nine"
    "$top/tests/test_profile" 2>/dev/null | sed -n 's/^# \(run [0-9][0-9]*:\)/  \1/p'
fi
