#!/bin/sh
# busy_cli.sh: a 16 MiB mmap_touch on a busy CPU gets a figure, or a line
# that says the machine is too busy for it and what to do; never "no
# valid sample".  Its samples last milliseconds and cannot dodge another
# task on their CPU: at a load of 2.6 on 2 CPUs the run once rejected
# 426 of 438 samples for a wait and exited 1 with nothing.  The busy CPU
# is made here: a shell loop spins on the CPU the run is pinned to.  What
# is asserted is what the output says, never a time, and it holds
# whether or not the hog got the CPU during a sample (a quiet machine
# takes the normal path, which meets it too).
. "${top_srcdir:-.}/tests/lib.sh"

python_scratch sbbusy "mmap_touch on a busy CPU"

if ! command -v taskset >/dev/null 2>&1; then
    skip "mmap_touch on a busy CPU" "no taskset"
    done_testing
    exit 0
fi
cpu=$(($(nproc) - 1))

taskset -c "$cpu" sh -c 'i=0; while :; do i=$((i + 1)); done' &
pid=$!
"$STATBENCH" -k mmap_touch -s 16M --cpu "$cpu" --max-time 4 \
    --invocations 2 -f json -o "$tmp/busy.json" >"$tmp/busy.out" \
    2>"$tmp/busy.err"
rc=$?
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
diag "rc $rc: $(grep -E 'note:|^mmap_touch' "$tmp/busy.out")"
[ -s "$tmp/busy.err" ] && diag "$(cat "$tmp/busy.err")"

# A figure: exit 0, and the cell's row with a time a call, in the table
# (its first section: the rows of the second start with the offsets) and
# in the JSON.
figure() {
    [ "$rc" -eq 0 ] &&
        [ "$(awk '$1 == "mmap_touch" && $2 == 16777216 && $3 ~ /^[0-9.]+$/ &&
                  $3 + 0 > 0' "$tmp/busy.out" | wc -l)" -eq 1 ] &&
        "$PY" -c 'import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
assert c["samples"] > 0 and c["interval"]["estimate"] > 0, c' "$tmp/busy.json"
}
too_busy() {
    [ "$rc" -eq 1 ] &&
        grep -q "mmap_touch, 16777216 bytes, offsets 0/0: the machine is too busy for this cell: all [0-9]* samples taken were rejected (.*): measure it where no other task shares its CPU or core (--cpu), or keep them with --reject none" \
            "$tmp/busy.err"
}
check "a figure, or the line that says the machine is too busy (rc $rc)" \
    eval 'figure || too_busy'
check "  never 'no valid sample'" \
    sh -c "! grep -q 'no valid sample' '$tmp/busy.err'"

# Kept samples that waited (flag 32 in the JSON) are named in a note, and
# the row is marked w, with the mark's line below the table; without
# them, neither.
if figure; then
    waited=$("$PY" -c 'import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
print(sum(1 for f in c["samples_flags"] if f & 32))' "$tmp/busy.json")
    diag "$waited kept samples waited for the CPU"
    check_json "  kept samples that waited for the CPU are named in a note" \
        "$tmp/busy.json" <<'PYEOF'
c = d["cells"][0]
waited = sum(1 for f in c["samples_flags"] if f & 32)
note = [x for x in d["meta"]["notes"]
        if "mmap_touch, 16777216 bytes, offsets 0/0: measured on a busy "
           "CPU: %d of its " % waited in x]
assert (waited == 0 and not any("busy CPU" in x for x in d["meta"]["notes"])) \
    or note, (waited, d["meta"]["notes"])
PYEOF
    marked() {
        awk '$1 == "mmap_touch" && $2 == 16777216 && $NF == "w"' \
            "$tmp/busy.out" | grep -q . &&
            grep -q "^w 1 cell measured on a busy CPU: its samples could not dodge the waits for it" \
                "$tmp/busy.out"
    }
    if [ "$waited" -gt 0 ]; then
        check "  the row is marked w, and the mark explained" marked
    else
        check "  no kept sample waited: no w mark" sh -c "! grep -q '^w ' '$tmp/busy.out'"
    fi
else
    skip "  kept samples that waited for the CPU are named in a note" \
        "no figure (rc $rc)"
    skip "  the row is marked w" "no figure (rc $rc)"
fi
done_testing
