/*
 * copy_x86.c: copies by the x86 string moves (built only on x86-64).
 *
 * rep movs{b,l,q} copies rcx elements from [rsi] to [rdi], advancing both;
 * the direction flag is clear on entry to any function (SysV ABI), so the
 * copy runs upwards and no cld is needed.  Each asm names rdi, rsi and rcx
 * as read-write operands ("+D", "+S", "+c") because the instruction changes
 * all three, and clobbers "memory" because it reads and writes memory the
 * compiler cannot see through the operands.  rep with rcx == 0 does nothing,
 * so no size needs a special case.
 */
#include "config.h"

#include "kernels.h"

/* rep movsb of all n bytes: the one-instruction copy that ERMS (and FSRM
 * for short sizes) make fast on recent CPUs. */
void sb__copy_movsb(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* rep movsl of n / 4 dwords, then rep movsb of the n % 4 tail: the shape of
 * the i386 kernel's __copy_user, "rep; movsl; movl %3,%0; rep; movsb".
 * The compiler loads the tail count into ecx between the two asm
 * statements; rdi and rsi carry over from the first. */
void sb__copy_movsl(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t words = n >> 2, tail = n & 3;
    (void)state;
    __asm__ volatile("rep movsl" : "+D"(d), "+S"(s), "+c"(words) : : "memory");
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(tail) : : "memory");
}

/* rep movsq of n / 8 qwords, then rep movsb of the n % 8 tail. */
void sb__copy_movsq(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t words = n >> 3, tail = n & 7;
    (void)state;
    __asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(words) : : "memory");
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(tail) : : "memory");
}
