#!/bin/sh
# profile_cli.sh: the host profile from the command line: the first run
# says there is none yet, the next is judged, `statbench profile` shows
# it, --no-profile leaves it alone, a hostile file stops a run in one
# line, a profile planted with a far lower level makes a run "measured
# on a shared core" with inconclusive verdicts, and --reset deletes it.
# Which of quiet and shared a real run here is depends on the machine's
# neighbours: only the planted profile's verdict is asserted.  A build
# without the x86-64 code writes no profile: that, and the refusals of
# the state directory, are what it checks.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sb_profile_cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# The suite turns the profile off for every other test; this one needs it.
unset STATBENCH_NO_PROFILE
STATBENCH_STATE=$tmp/state
export STATBENCH_STATE

run() { # run OUT ARGS...: a short measuring run into OUT, stderr OUT.err
    out=$1
    shift
    "$STATBENCH" -q -k libc -s 4K --max-time 2 --invocations 2 "$@" \
        >"$out" 2>"$out.err"
}
seen() { # the "seen" count of the one profile file
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seen"])' \
        "$tmp"/state/profile-*.json
}

"$STATBENCH" profile >"$tmp/p0" 2>&1
rc=$?
check "profile without one: exit 0 (rc $rc)" test "$rc" -eq 0
check "profile without one: none yet" grep -q "none yet for this host" "$tmp/p0"

run "$tmp/r1"
rc=$?
check "first run (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || diag "$(cat "$tmp/r1.err")"
check "first run: the header says there is no profile yet" \
    grep -q '^profile: none yet for this host' "$tmp/r1"

# Where the state directory is refused, whatever the build.
long=$(printf '%04096d' 0)
STATBENCH_STATE=$long
check "a state directory over 4000 bytes is refused, never shortened" \
    bad_input "longer than" profile
STATBENCH_STATE=$tmp/state
(unset STATBENCH_STATE XDG_STATE_HOME HOME
 "$STATBENCH" profile >"$tmp/nohome" 2>&1; echo $? >"$tmp/nohome.rc")
check "without HOME: exit 2 asking for STATBENCH_STATE" \
    sh -c "[ \$(cat '$tmp/nohome.rc') -eq 2 ] && grep -q STATBENCH_STATE '$tmp/nohome'"

# A build without the x86-64 code has no figure of the core to keep (no
# core clock, no contention probe, no reference copy): no profile is ever
# written, so there is none to judge by, show, plant or reset.
if ! sb_arch; then
    check "profile without one: no run of this build starts one" \
        grep -q 'no run of this build starts one' "$tmp/p0"
    check "no figure of the core: the header promises no profile" \
        grep -q '^profile: none yet for this host, and this run starts none' \
        "$tmp/r1"
    check "no figure of the core: no profile written" \
        sh -c "! ls -A '$tmp/state' 2>/dev/null | grep -q ."
    run "$tmp/r3" --no-profile
    check "--no-profile: no profile line" \
        sh -c "! grep -q '^profile:' '$tmp/r3'"
    skip "the host profile kept, judged, shown, planted and reset" \
        "$sb_no_arch: no figure of the core"
    done_testing
    exit $?
fi

check "the state directory is made 0700" \
    sh -c "ls -ld '$tmp/state' | grep -q '^drwx------'"
check "one profile file, named by a hash" \
    sh -c "ls '$tmp/state' | grep -Eqx 'profile-[0-9a-f]{16}\.json'"

run "$tmp/r2" -o "$tmp/r2.json"
rc=$?
check "second run (rc $rc)" test "$rc" -eq 0
check "second run: judged against the profile" \
    grep -Eq '^profile: (quiet core|measured on a shared core|not judged)' \
    "$tmp/r2"
check "the JSON records the verdict" \
    python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["meta"]
assert m["profile"].startswith("profile: "), m["profile"]
assert m["profile_shared"] in (True, False)
assert m["probes"]["contention_probe"] and m["online_cpus"] >= 1' \
    "$tmp/r2.json"

"$STATBENCH" profile >"$tmp/p1" 2>&1
check "profile shows the file, key and runs" \
    sh -c "grep -q '^host profile: $tmp/state/profile-' '$tmp/p1' &&
           grep -q '  key: host ' '$tmp/p1' &&
           grep -q '  runs: ' '$tmp/p1' &&
           grep -q 'resting on' '$tmp/p1'"
before=$(seen)
run "$tmp/r3" --no-profile
check "--no-profile: no profile line" sh -c "! grep -q '^profile:' '$tmp/r3'"
check "--no-profile: the profile is not updated" test "$(seen)" = "$before"

# A profile whose level is far below this core's: the next run is
# measured on a shared core according to it, and its verdicts are
# inconclusive.  The file keeps its key (and so its name).
file=$(ls "$tmp"/state/profile-*.json)
pending=$(python3 -c 'import json, sys
print(len(json.load(open(sys.argv[1]))["pending"]))' "$file")
python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
for r in p["runs"]:
    if r["contention_quiet"] is not None:
        r["contention_quiet"] = 1.0
    if r["reference_cycles"] is not None:
        r["reference_cycles"] = 1.0
p["runs"] = p["runs"][:1] * 2
json.dump(p, open(sys.argv[1], "w"))' "$file"
"$STATBENCH" -q -k libc,duff -s 4K --max-time 3 --invocations 2 \
    --baseline libc -o "$tmp/r4.json" >"$tmp/r4" 2>"$tmp/r4.err"
rc=$?
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$tmp/r4.err"
check "a run against a far lower profile (rc $rc)" test "$rc" -eq 0
check "its header: measured on a shared core, with the figures" \
    grep -Eq '^profile: measured on a shared core: .*(probe|reference) [0-9.]+ core cycles' \
    "$tmp/r4"
check "its verdicts are inconclusive" \
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["meta"]["profile_shared"] is True
v = [c["comparison"]["verdict"] for c in d["cells"] if c["comparison"]]
assert v and all(x == "inconclusive" for x in v), v' "$tmp/r4.json"
check "a shared run is not kept: it counts towards a move" \
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
assert len(p["runs"]) == 2, p
assert len(p["pending"]) == int(sys.argv[2]) + 1, p' "$file" "$pending"
"$STATBENCH" compare "$tmp/r2.json" "$tmp/r4.json" -f csv >"$tmp/c.csv" \
    2>"$tmp/c.err"
check "compare with the saved shared run: inconclusive" \
    python3 -c 'import csv, sys
v = [r["verdict"] for r in csv.DictReader(open(sys.argv[1])) if r["verdict"]]
assert v and all(x == "inconclusive" for x in v), v' "$tmp/c.csv"

# Hostile files: one line naming the file, exit 2, nothing measured.
cp "$file" "$tmp/good.json"
printf '{"schema": "statbench-profile", "version": 1, "key": ' >"$file"
check "a truncated profile stops a run in one line" \
    bad_input "profile-" -q -k libc -s 4K --max-time 2
check "... and profile" bad_input "not JSON" profile
rm -f "$file"
cp "$tmp/good.json" "$tmp/good.orig"
ln -s "$tmp/good.json" "$file"
check "a planted link is refused" bad_input "symbolic link" \
    -q -k libc -s 4K --max-time 2
check "... its target never written" cmp -s "$tmp/good.json" "$tmp/good.orig"
check "... the link left in place" test -L "$file"
rm -f "$file"
if mkfifo "$file" 2>/dev/null; then
    check "a FIFO in its place is refused, not waited on" \
        bad_input "not a regular file" profile
    rm -f "$file"
fi
cp "$tmp/good.json" "$file"
chmod 0600 "$file"
chmod 0777 "$tmp/state"
check "a state directory others may write is refused" \
    bad_input "writable by others" profile
chmod 0700 "$tmp/state"

"$STATBENCH" profile --reset >"$tmp/reset" 2>&1
rc=$?
[ "$rc" -eq 0 ] || sed 's/^/#   output: /' "$tmp/reset"
check "profile --reset (rc $rc)" test "$rc" -eq 0
check "profile --reset says it removed one" grep -q "1 profile of this host removed" "$tmp/reset"
"$STATBENCH" profile >"$tmp/p2" 2>&1
check "after --reset: none yet" grep -q "none yet for this host" "$tmp/p2"
done_testing
