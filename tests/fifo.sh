#!/bin/sh
# fifo.sh: FIFOs where statbench writes or reads a run.  Another user's
# FIFO in a shared directory (a name planted in a sticky, world-writable
# baseline directory) is refused for -o and --save, as a link to one is,
# and nothing is sent to that user's reader; one's own FIFO with no
# reader is refused at once rather than blocking the run's end; --against
# reads regular files only, so a FIFO under a baseline's name cannot hold
# the run before it starts.  Every run is bounded (timeout 60).
. "${top_srcdir:-.}/tests/lib.sh"

run_scratch sbfifo
SHORT="-k libc -s 4K --max-time 0.3 --invocations 2 --max-invocations 2 -q"
T=
command -v timeout >/dev/null 2>&1 && T="timeout 60"

# refused_first OPTION NAME WHAT TEXT: statbench OPTION NAME (a baseline
# of $tmp/bl) exits 2 before measuring: nothing on stdout, one line on
# stderr, holding TEXT.
refused_first() {
    # shellcheck disable=SC2086
    $T env STATBENCH_BASELINES="$tmp/bl" "$STATBENCH" $SHORT "$1" "$2" \
        >"$tmp/rf.out" 2>"$tmp/rf.err"
    rc=$?
    check "$1 $2 onto $3: refused first (rc $rc)" sh -c \
        "test $rc -eq 2 && test ! -s '$tmp/rf.out' &&
         test \$(wc -l <'$tmp/rf.err') -eq 1 &&
         grep -q '$4' '$tmp/rf.err'"
}

# --- one's own FIFO without a reader ---------------------------------------
mkfifo "$tmp/own.json"
# shellcheck disable=SC2086
$T "$STATBENCH" $SHORT -o "$tmp/own.json" >/dev/null 2>"$tmp/own.err"
rc=$?
check "-o onto a FIFO that no one reads: status 1, not a hang (rc $rc)" \
    test "$rc" -eq 1
check "  one line that says so" grep -q "no process reads" "$tmp/own.err"

# --- --against a FIFO ------------------------------------------------------
mkdir "$tmp/bl"
mkfifo "$tmp/bl/pipe.json"
# shellcheck disable=SC2086
$T env STATBENCH_BASELINES="$tmp/bl" "$STATBENCH" $SHORT --against pipe \
    >/dev/null 2>"$tmp/ag.err"
rc=$?
check "--against a FIFO: refused at once (rc $rc)" test "$rc" -eq 2
check "  as not a regular file" grep -q "not a regular file" "$tmp/ag.err"
mkdir "$tmp/bl/dir.json"
# shellcheck disable=SC2086
$T env STATBENCH_BASELINES="$tmp/bl" "$STATBENCH" $SHORT --against dir \
    >/dev/null 2>"$tmp/dir.err"
rc=$?
check "--against a directory: refused (rc $rc)" \
    sh -c "test $rc -eq 2 && grep -q 'not a regular file' '$tmp/dir.err'"
# A link under a baseline's name is refused whatever it points to, as
# --save refuses one: the descriptor checked is the one read, and it is
# never opened through a link (a FIFO behind one would block, a file
# behind one is not the baseline's).
ln -s pipe.json "$tmp/bl/topipe.json"
: >"$tmp/plain.json"
ln -s ../plain.json "$tmp/bl/tofile.json"
for name in topipe tofile; do
    refused_first --against "$name" "a symbolic link" \
        "$name.json is a symbolic link"
done
rm "$tmp/bl/tofile.json"

# --- --save onto what is no file --------------------------------------------
# A baseline is read back later: "saved" into a device, a FIFO or through
# a link it is saved nowhere (a root-owned link to /dev/zero did, exit 0).
# Each is refused before anything is measured, with one line.
ln -s /dev/zero "$tmp/bl/zero.json"
: >"$tmp/real.json"
ln -s ../real.json "$tmp/bl/tofile.json"
for spec in pipe:FIFO zero:"symbolic link" tofile:"symbolic link" \
    dir:directory; do
    name=${spec%%:*}
    what=${spec#*:}
    refused_first --save "$name" "a $what" "is a $what, not a baseline file"
done
check "  the link's target untouched" test ! -s "$tmp/real.json"

# --- another user's FIFO in a shared directory ------------------------------
if [ "$(id -u)" -ne 0 ] || [ -z "$PY" ] || ! id nobody >/dev/null 2>&1; then
    skip "another user's FIFO" "needs root, python3 and a user nobody"
    done_testing
    exit $?
fi
# The scratch directory is private: nobody must be able to reach the
# shared one inside it.
chmod 0711 "$tmp"
mkdir -m 1777 "$tmp/shared"
"$PY" - "$tmp/shared" <<'PYEOF'
import os, pwd, sys
pw = pwd.getpwnam("nobody")
os.setgid(pw.pw_gid)
os.setuid(pw.pw_uid)
for n in ("nf.json", "out.json"):
    os.mkfifo(os.path.join(sys.argv[1], n), 0o666)
PYEOF
check "nobody made two FIFOs in the shared directory" \
    test -p "$tmp/shared/nf.json" -a -p "$tmp/shared/out.json"
# A reader of nobody's, which must get nothing: it counts the bytes.
( cat "$tmp/shared/nf.json" | wc -c >"$tmp/got.txt" ) &
reader=$!
# shellcheck disable=SC2086
$T env STATBENCH_BASELINES="$tmp/shared" "$STATBENCH" $SHORT --save nf \
    >/dev/null 2>"$tmp/nf.err"
rc=$?
check "--save onto another user's FIFO: refused before measuring (rc $rc)" \
    test "$rc" -eq 2
check "  as no baseline file" grep -q "is a FIFO, not a baseline file" \
    "$tmp/nf.err"
# shellcheck disable=SC2086
$T "$STATBENCH" $SHORT -o "$tmp/shared/out.json" >/dev/null 2>"$tmp/out.err"
rc=$?
check "-o onto another user's FIFO: refused (rc $rc)" \
    sh -c "test $rc -eq 1 && grep -q \"another user's\" '$tmp/out.err'"
# End the reader (opening the FIFO for writing ourselves, with nothing).
: >"$tmp/shared/nf.json"
wait "$reader"
check "  nobody's reader got nothing ($(cat "$tmp/got.txt") bytes)" \
    test "$(cat "$tmp/got.txt")" -eq 0
done_testing
