#!/bin/sh
# codegen.sh: the compiler kept the kernels as written.  The integer
# kernels (duff, int64, csum_copy, clear_movl) must stay scalar: no vector
# register (auto-vectorisation), no call to memcpy, memset or memmove
# (idiom recognition), the scalar moves of their width present, and for
# the 32-bit streams no 64-bit store to the buffers (two moves merged into
# one).  The SIMD kernels must contain the instructions they are named for,
# leave their state clean (emms, vzeroupper) and fence their non-temporal
# stores (sfence), and must not call the C library either.
#
# What is read is the built library's disassembly: the kernels are hidden
# symbols, absent from the dynamic symbol table but present in .symtab
# until the library is stripped.  objdump (binutils 2.32 or later, for
# --disassemble=SYMBOL) is needed; without it, or without the library, the
# test is skipped.
. "${top_srcdir:-.}/tests/lib.sh"

OBJDUMP=${OBJDUMP:-objdump}
NM=${NM:-nm}

lib=
for f in "$top_builddir/.libs/libstatbench.so" \
         "$top_builddir/.libs/libstatbench.a" \
         "$top_builddir/.libs/libsbcore.a"; do
    if [ -f "$f" ]; then
        lib=$f
        break
    fi
done
if ! command -v "$OBJDUMP" >/dev/null 2>&1; then
    skip "generated code of the kernels" "no $OBJDUMP"
    done_testing
    exit $?
fi
if [ -z "$lib" ]; then
    skip "generated code of the kernels" \
        "no libstatbench.so or .a in $top_builddir/.libs"
    done_testing
    exit $?
fi
if ! "$OBJDUMP" --help 2>&1 | grep -q -- '--disassemble='; then
    skip "generated code of the kernels" \
        "$OBJDUMP has no --disassemble=SYMBOL (binutils < 2.32)"
    done_testing
    exit $?
fi
diag "library: $lib"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbcodegen.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The symbols a function's code may live in: the function itself and any
# clone or part the compiler split off or renamed (sym.cold, sym.part.0,
# sym.lto_priv.0, ...).
if command -v "$NM" >/dev/null 2>&1; then
    "$NM" "$lib" 2>/dev/null | awk '{ print $NF }' | sort -u >"$tmp/syms"
    if ! grep -q '^sb__copy_duff$' "$tmp/syms"; then
        skip "generated code of the kernels" \
            "no local symbols in $lib (stripped?)"
        done_testing
        exit $?
    fi
    # Sanitizers, coverage and profiling add calls to every function.
    instr='^(__asan_|__tsan_|__msan_|__ubsan_|__gcov_|__llvm_profile|__llvm_gcov'
    instr="$instr|_?mcount(@|\$)|__fentry__(@|\$)|__cyg_profile)"
    if grep -E -q "$instr" "$tmp/syms"; then
        skip "generated code of the kernels" \
            "instrumented build (sanitizer, coverage or profiling)"
        done_testing
        exit $?
    fi
else
    : >"$tmp/syms"
fi

# dis SYMBOL: the disassembly of SYMBOL and its clones into $tmp/SYMBOL,
# instructions only (mnemonic and operands, one per line).  Returns 1 when
# SYMBOL is not in the library.
dis() {
    sym=$1
    out=$tmp/$sym
    : >"$out"
    found=1
    for s in "$sym" $(grep "^$sym\\." "$tmp/syms"); do
        "$OBJDUMP" -d --no-show-raw-insn --disassemble="$s" "$lib" \
            >"$tmp/raw" 2>/dev/null
        if grep -q "<$s>:\$" "$tmp/raw"; then
            found=0
            # Instruction lines are "  addr:<TAB>mnemonic operands".
            awk -F'\t' 'NF >= 2 && $1 ~ /^ *[0-9a-f]+:$/ { print $2 }' \
                "$tmp/raw" >>"$out"
        fi
    done
    return $found
}

# count FILE ERE: lines of FILE matching the extended regex.
count() { grep -E -c -- "$2" "$1" || true; }

# The checks on one disassembled function.
no_vector() { ! grep -E -q '%[xyz]mm[0-9]' "$1"; }
no_libc_call() { ! grep -E -q '<(memcpy|memset|memmove)(@plt)?>' "$1" &&
                 ! grep -E -q '(call|jmp) .*<(__)?mem(cpy|set|move)' "$1"; }
no_rep() { ! grep -E -q '^rep' "$1"; }
# No call at all, but the stack protector's (a build with
# -fstack-protector-all guards every function).
no_call() { ! grep -E '^call' "$1" | grep -v -q '__stack_chk_fail'; }
at_least() { [ "$(count "$1" "$3")" -ge "$2" ]; } # FILE N ERE

# x86-64 operands in AT&T syntax: a memory operand is "disp(%base...)".
R32='%(e(ax|bx|cx|dx|si|di|bp)|r(8|9|1[0-5])d)'
R64='%(r(ax|bx|cx|dx|si|di|bp)|r(8|9|1[0-5]))'
MEM='[-0-9a-fx]*\(%r[a-z0-9]+(,%r[a-z0-9]+(,[1248])?)?\)'
LOAD32="^mov(l)? +$MEM,$R32\$"
STORE32="^mov(l)? +($R32|\\\$0x0),$MEM\$"
LOAD64="^mov(q)? +$MEM,$R64\$"
STORE64="^mov(q)? +($R64|\\\$0x0),$MEM\$"

# No 64-bit store to the buffers: stores based on %rsp or %rbp are spills
# to the stack (at -O0, say), not the copy.
no_store64_buf() {
    ! grep -E -- "$STORE64" "$1" | grep -E -v -q '\(%r[sb]p[,)]'
}

arch=$("$OBJDUMP" -f "$lib" 2>/dev/null |
    sed -n 's/.*architecture: *\([^,]*\).*/\1/p' | head -n 1)
diag "architecture: $arch"

# --- the integer kernels -------------------------------------------------
for k in sb__copy_duff sb__copy_int64 sb__copy_csum sb__clear_movl; do
    if ! dis "$k"; then
        check "$k is in the library (not stripped)" false
        continue
    fi
    f=$tmp/$k
    failed_before=$failed
    check "$k: no call to memcpy, memset or memmove" no_libc_call "$f"
    if [ "$arch" != "i386:x86-64" ]; then
        skip "$k: scalar moves only" "not x86-64 ($arch)"
        continue
    fi
    check "$k: no xmm, ymm or zmm register (not vectorised)" no_vector "$f"
    check "$k: no call (not even to a helper)" no_call "$f"
    check "$k: no rep string instruction" no_rep "$f"
    case $k in
    sb__copy_duff)
        check "$k: 32-bit loads (at least 8: $(count "$f" "$LOAD32"))" \
            at_least "$f" 8 "$LOAD32"
        check "$k: 32-bit stores (at least 8: $(count "$f" "$STORE32"))" \
            at_least "$f" 8 "$STORE32"
        check "$k: no 64-bit store to the buffers (no merged moves)" \
            no_store64_buf "$f"
        ;;
    sb__clear_movl)
        check "$k: 32-bit stores (at least 8: $(count "$f" "$STORE32"))" \
            at_least "$f" 8 "$STORE32"
        check "$k: no 64-bit store to the buffers (no merged moves)" \
            no_store64_buf "$f"
        ;;
    sb__copy_int64)
        check "$k: 64-bit loads (at least 8: $(count "$f" "$LOAD64"))" \
            at_least "$f" 8 "$LOAD64"
        check "$k: 64-bit stores (at least 8: $(count "$f" "$STORE64"))" \
            at_least "$f" 8 "$STORE64"
        ;;
    sb__copy_csum)
        check "$k: 64-bit loads (at least 4: $(count "$f" "$LOAD64"))" \
            at_least "$f" 4 "$LOAD64"
        check "$k: 64-bit stores (at least 4: $(count "$f" "$STORE64"))" \
            at_least "$f" 4 "$STORE64"
        ;;
    esac
    if [ "$failed" -ne "$failed_before" ]; then
        diag "disassembly of $k:"
        sed 's/^/#   /' "$f"
    fi
done

# --- the x86-64 kernels: what each is named for --------------------------
# kernel symbol, then extended regexes that must each match some line
# (objdump writes "rep stos %eax,%es:(%rdi)" for rep stosl, and may write
# "rep stosl" elsewhere).
x86_kernels() {
    cat <<'EOF'
sb__copy_movsb	^rep movsb
sb__copy_movsl	^rep movsl	^rep movsb
sb__copy_movsq	^rep movsq	^rep movsb
sb__copy_mmx	^movq +[^,]*,%mm[0-7]$	^movq +%mm[0-7],	^emms
sb__copy_mmx_nt	^prefetchnta	^movntq +%mm[0-7],	^sfence	^emms
sb__copy_sse2	^movdqu +[^,]*,%xmm	^movdqa +%xmm[0-9]+,
sb__copy_sse2_nt	^movdqu +[^,]*,%xmm	^movntdq +%xmm[0-9]+,	^sfence
sb__copy_avx2	^vmovdqu +[^,]*,%ymm	^vmovdqa +%ymm[0-9]+,	^vzeroupper
sb__copy_avx2_nt	^vmovdqu +[^,]*,%ymm	^vmovntdq +%ymm[0-9]+,	^sfence	^vzeroupper
sb__copy_avx512	^vmovdqu64 +[^,]*,%zmm	^vmovdqa64 +%zmm[0-9]+,	^vzeroupper
sb__copy_avx512_nt	^vmovdqu64 +[^,]*,%zmm	^vmovntdq +%zmm[0-9]+,	^sfence	^vzeroupper
sb__clear_stosb	^rep stos(b| +%al,)
sb__clear_stosl	^rep stos(l| +%eax,)	^rep stos(b| +%al,)
sb__clear_stosq	^rep stos(q| +%rax,)	^rep stos(b| +%al,)
sb__clear_mmx	^pxor +%mm0,%mm0	^movq +%mm0,	^emms
sb__clear_mmx_nt	^pxor +%mm0,%mm0	^movntq +%mm0,	^sfence	^emms
sb__clear_sse2_nt	^movntdq +%xmm[0-9]+,	^sfence
sb__clear_avx2	^vmovdqa +%ymm[0-9]+,	^vzeroupper
sb__clear_avx512	^vmovdqa64 +%zmm[0-9]+,	^vzeroupper
EOF
}

# A build without the x86-64 code has none of them, whatever the CPU.
if [ "$arch" = "i386:x86-64" ] && sb_arch; then
    x86_kernels >"$tmp/list"
    tab=$(printf '\t')
    while IFS=$tab read -r k res; do
        if ! dis "$k"; then
            check "$k is in the library (not stripped)" false
            continue
        fi
        f=$tmp/$k
        check "$k: no call (so none to memcpy or memset)" no_call "$f"
        missing=
        old_ifs=$IFS
        IFS=$tab
        for re in $res; do
            grep -E -q -- "$re" "$f" || missing="$missing '$re'"
        done
        IFS=$old_ifs
        check "$k: has its instructions${missing:+ (missing:$missing)}" \
            test -z "$missing"
        if [ -n "$missing" ]; then
            diag "disassembly of $k:"
            sed 's/^/#   /' "$f"
        fi
    done <"$tmp/list"
elif [ "$arch" = "i386:x86-64" ]; then
    skip "the x86-64 kernels' instructions" "$sb_no_arch"
else
    skip "the x86-64 kernels' instructions" "not x86-64 ($arch)"
fi

done_testing
