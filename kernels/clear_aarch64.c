/*
 * clear_aarch64.c: the clear by dc zva, aarch64's "data cache zero by
 * virtual address" (built only on aarch64).  It sets n bytes at dst to
 * zero and ignores src.
 *
 * dc zva zeroes one whole block, of the size DCZID_EL0 states (4 << BS
 * bytes, 64 on most cores), the block that holds the address it is given:
 * a cache line is zeroed without first being read.  That is Linux's arm64
 * clear_page of the first port (2012): read DCZID_EL0, then dc zva block
 * after block.  A page is whole blocks; an arbitrary range is not, so
 * here the head up to the first block boundary of the destination and the
 * tail after the last whole block are zeroed by ordinary stores (stp of
 * xzr pairs, then the scalar stores of kernels.h), and dc zva zeroes only
 * blocks that lie wholly inside [dst, dst + n).
 *
 * DCZID_EL0.DZP set means the instruction is prohibited: it is then
 * undefined at EL0 and would raise SIGILL.  The available() hook reports
 * the kernel unavailable so (registry.c), and the kernel, called anyway,
 * zeroes everything by ordinary stores, never executing dc zva.  EL0
 * may always read DCZID_EL0; Linux lets it execute dc zva too
 * (SCTLR_EL1.DZE), and where the kernel or a hypervisor forbids that
 * (DZE clear, HCR_EL2.TDZ set) DZP reads as set.
 *
 * For ordering dc zva behaves as a set of stores to the bytes of its
 * block (Arm ARM), so the zeroes are visible to this thread in program
 * order and no barrier is needed before the return, as clear_page has
 * none.
 */
#include "config.h"

#include <stdint.h>

#include "kernels.h"

static inline SB__INLINE uint64_t sb__dczid(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
    return v;
}

/* n zero bytes at d by ordinary stores: stp of xzr pairs, 16 bytes each,
 * then 0-15 bytes by the scalar stores of kernels.h. */
static inline SB__INLINE void sb__zero_stores(unsigned char *d, size_t n)
{
    for (; n >= 16; n -= 16, d += 16)
        __asm__ volatile("stp xzr, xzr, [%0]" : : "r"(d) : "memory");
    sb__zero_small(d, n);
}

/* Head by stores up to the first block boundary, dc zva of each whole
 * block, tail by stores. */
void sb__clear_dc_zva(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t block = sb__zva_block(sb__dczid()), head;
    (void)src;
    (void)state;

    if (block == 0) {
        sb__zero_stores(d, n);
        return;
    }
    head = sb__head(d, block, n);
    sb__zero_stores(d, head);
    d += head;
    n -= head;
    for (; n >= block; n -= block, d += block) {
        SB__CHECK_STORE(d, block);
        __asm__ volatile("dc zva, %0" : : "r"(d) : "memory");
    }
    sb__zero_stores(d, n);
}

int sb__clear_dc_zva_available(const char **why)
{
    if (sb__zva_block(sb__dczid()) == 0) {
        if (why)
            *why = "dc zva is prohibited (DCZID_EL0.DZP)";
        return 0;
    }
    return 1;
}
