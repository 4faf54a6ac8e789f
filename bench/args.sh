# bench/args.sh: the option checks the bench/ scripts share, sourced by
# them (. "$(dirname "$0")/args.sh"); each refusal is one line naming the
# script, the option and the value, and exits 2.

# need_arg OPTION [VALUE...]: the option has a value.
need_arg() {
    [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }
}
# is_count OPTION VALUE: VALUE is a whole number.
is_count() {
    case $2 in
    '' | *[!0-9]*) echo "$0: $1 '$2': not a whole number" >&2; exit 2 ;;
    esac
}
# is_positive OPTION VALUE: VALUE is a whole number of at least 1.
is_positive() {
    is_count "$@"
    [ "$2" -ge 1 ] || { echo "$0: $1 '$2': at least 1" >&2; exit 2; }
}
