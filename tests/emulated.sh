#!/bin/sh
# emulated.sh ARGS...: statbench ARGS with every time budget scaled for
# a test run under emulation (lib.sh makes it $STATBENCH when
# SB_TEST_EMULATED is set, as tools/aarch64.sh sets it for qemu-user).
# What no deadline can cut in an invocation (its fork, the timer's
# calibration and overhead of 2001 samples, PAPI's start) takes 10 to 30
# times its native time under qemu-user (1 to 1.4 s an invocation on a
# loaded 2-CPU machine here), so a budget that fits a plan natively is
# refused there up front.  Each --max-time N (or
# --max-time=N) whose N is a plain decimal number becomes N times
# $SB_TEST_TIME_SCALE; any other value (a hostile one a test means to be
# refused) is passed on unchanged, and so is every other argument.
# statbench cmd is left as it is: the commands it times are the host's,
# at the host's speed, and its tests set budgets by their durations.
# The real program is $SB_TEST_STATBENCH; lib.sh sets both.
scale=${SB_TEST_TIME_SCALE:-}
case $scale in
'' | *[!0-9]*)
    echo "emulated.sh: SB_TEST_TIME_SCALE '$scale' is not a whole number" >&2
    exit 2
    ;;
esac
scaled() { # scaled N: N * scale when N is a plain decimal number, else N
    case $1 in
    '' | *[!0-9.]* | *.*.* | . ) printf '%s\n' "$1" ;;
    *) awk -v n="$1" -v s="$scale" 'BEGIN { printf "%.6g\n", n * s }' ;;
    esac
}
[ "${1:-}" = cmd ] && exec "$SB_TEST_STATBENCH" "$@"
n=$#
budget=0
for a; do
    if [ "$budget" -eq 1 ]; then
        a=$(scaled "$a")
        budget=0
    else
        case $a in
        --max-time) budget=1 ;;
        --max-time=*) a=--max-time=$(scaled "${a#--max-time=}") ;;
        esac
    fi
    set -- "$@" "$a"
done
shift "$n"
exec "$SB_TEST_STATBENCH" "$@"
