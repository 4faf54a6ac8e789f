#!/bin/sh
# optguard.sh: SB_DO_NOT_OPTIMIZE and SB_CLOBBER_MEMORY (statbench.h) keep
# at -O3 the work the optimiser deletes or transforms without them.  Read
# in the assembly the compiler writes (-S) for a tiny file, with gcc and
# clang where installed: a byte loop that gcc vectorises or turns into a
# memcpy call stays a loop of byte moves under SB_CLOBBER_MEMORY, and a
# sum whose result is unused, deleted whole without a guard, is computed
# (the bytes are loaded) under SB_DO_NOT_OPTIMIZE.  The unguarded twin of
# each function is the control that the guard made the difference: where
# a compiler keeps it anyway, that check is skipped, not passed.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbguard.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/g.c" <<'SRC'
#include <stddef.h>
#include <statbench.h>
void copy_plain(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}
void copy_guarded(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        d[i] = s[i];
        SB_CLOBBER_MEMORY();
    }
}
void sum_plain(const unsigned char *s, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
}
void sum_guarded(const unsigned char *s, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    SB_DO_NOT_OPTIMIZE(sum);
}
struct pair { double a, b; };
void struct_guarded(void)
{
    /* Any type: an object too large for a register takes "m". */
    struct pair p = {1, 2};
    SB_DO_NOT_OPTIMIZE(p);
}
SRC

# body FUNCTION: the instructions of FUNCTION in $tmp/g.s (no labels or
# directives).
body() {
    awk -v f="$1" '$1 == f":" { on = 1; next }
        on && /^[ \t]*\.size/ { on = 0 } on' "$tmp/g.s" |
        grep -v '^[ \t]*[.#]' | grep -v '^[.A-Za-z_0-9]*:' || true
}

ran=0
for cc in gcc clang; do
    command -v "$cc" >/dev/null 2>&1 || continue
    ran=1
    # -pedantic -Werror: the guards are strict C11 (with gcc's __asm__).
    if ! "$cc" -std=c11 -pedantic -Werror -O3 -fno-asynchronous-unwind-tables \
        -I"$top_builddir/src" -I"$top_srcdir/src" \
        -S -o "$tmp/g.s" "$tmp/g.c" 2>"$tmp/err"; then
        check "$cc -O3 -S compiles the guards" false
        diag "$(cat "$tmp/err")"
        continue
    fi
    check "$cc -O3 -S compiles the guards" true
    case $(uname -m) in
    x86_64 | amd64) ;;
    *)
        skip "$cc: the guards in x86-64 assembly" "not x86-64"
        continue
        ;;
    esac
    plain=$(body copy_plain)
    guarded=$(body copy_guarded)
    if printf '%s\n' "$plain" | grep -qE '%[xyz]mm|call.*mem(cpy|move)'; then
        check "$cc: the unguarded byte loop is vectorised or a call" true
        check "$cc: SB_CLOBBER_MEMORY keeps the byte loop scalar" \
            sh -c "! printf '%s\n' \"\$1\" | grep -qE '%[xyz]mm|call'" \
            _ "$guarded"
    else
        skip "$cc: SB_CLOBBER_MEMORY keeps the byte loop scalar" \
            "$cc keeps even the unguarded loop scalar (no control)"
    fi
    check "$cc: the guarded byte loop stores bytes" \
        sh -c "printf '%s\n' \"\$1\" | grep -q 'movb'" _ "$guarded"
    plain=$(body sum_plain)
    guarded=$(body sum_guarded)
    if ! printf '%s\n' "$plain" | grep -q '(%'; then
        check "$cc: an unused sum is deleted without a guard" true
        check "$cc: SB_DO_NOT_OPTIMIZE keeps the sum (loads the bytes)" \
            sh -c "printf '%s\n' \"\$1\" | grep -q '(%'" _ "$guarded"
    else
        skip "$cc: SB_DO_NOT_OPTIMIZE keeps the sum" \
            "$cc keeps even the unguarded sum (no control)"
    fi
    [ -n "$(body struct_guarded)" ] ||
        diag "$cc: struct_guarded has no instructions"
done
[ "$ran" -eq 1 ] || skip "the optimiser guards" "neither gcc nor clang"
done_testing
