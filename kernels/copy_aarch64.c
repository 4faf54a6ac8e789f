/*
 * copy_aarch64.c: copies through aarch64's load/store pair instructions,
 * its Advanced SIMD (NEON) registers and its non-temporal pair stores
 * (built only on aarch64).
 *
 * The shapes are those of Linux's arm64 routines, the counterparts on this
 * architecture of the x86 ones the threads compared:
 *
 *   ldp_stp  memcpy's (copy_template.S): ldp/stp of two x registers (16
 *            bytes) four times a loop, 64 bytes, then 16-byte pairs, then
 *            the scalar tail;
 *   neon     the same loop through four q registers, ld1/st1 of 64 bytes
 *            each, then single q registers;
 *   stnp     copy_page's of the first arm64 port (2012): ldp loads, stnp
 *            stores, 64 bytes a step, with prfm pldl1strm one line ahead
 *            of the loads.
 *
 * Head and tail are the scalar moves of kernels.h (sb__copy_small): the
 * head up to the alignment the body wants at the destination (16 bytes
 * for ldp_stp and neon, a 64-byte line for stnp), the tail the bytes left
 * after it, so that nothing outside [dst, dst + n) is touched.  The source
 * keeps its misalignment: ldp and ld1 on normal memory take any address.
 * (Linux's arm64 memcpy aligns the source instead; the destination is
 * aligned here as in the x86 kernels, so that the alignment sweeps of the
 * two architectures vary the same pointer and tests/test_kstores.c checks
 * the same promise.)
 *
 * The non-temporal kernel stores whole aligned lines only, as x86's do:
 * the head and tail, which share a line with bytes outside the copy, take
 * ordinary stores.  stnp is a hint and its stores are ordered like any
 * other to this thread; dmb ish at the end orders them before every later
 * load and store of the caller as seen by other observers, the job sfence
 * does after movnt on x86, so that a caller that publishes the buffer
 * (a flag another thread reads) needs no barrier of its own.
 *
 * The loops are C around one asm each: the asm names the instructions
 * measured, the registers it uses are clobbered, and "memory" tells the
 * compiler that the asm reads and writes memory it cannot see (so no
 * load or store of the caller moves across it).  The loop itself stays in
 * C so that the checking build (-DSB_KERNEL_CHECK, tests/test_kstores.c)
 * sees each store's address through SB__CHECK_STORE.  x8-x15 are
 * temporaries of the procedure call standard and v0-v3 are not preserved
 * across calls, so clobbering them costs no save (x18, the platform
 * register, and the frame and link registers are left alone).
 *
 * NEON is in the baseline of GCC's and clang's aarch64 targets, so the
 * file needs no target attribute; its kernel is still run only when
 * AT_HWCAP has HWCAP_ASIMD (registry.c, SB_FEAT_ASIMD): a CPU may be
 * built without it, and a kernel may hide it.
 */
#include "config.h"

#include <stdint.h>

#include "kernels.h"

/* 16 bytes with one ldp/stp pair of x registers. */
static inline SB__INLINE void sb__pair16(unsigned char *d,
                                         const unsigned char *s)
{
    SB__CHECK_STORE(d, 16);
    __asm__ volatile("ldp x8, x9, [%1]\n\t"
                     "stp x8, x9, [%0]"
                     :
                     : "r"(d), "r"(s)
                     : "memory", "x8", "x9");
}

/* ldp/stp of x-register pairs, 64 bytes a loop: four loads, four stores.
 * The destination is aligned to 16 first, so that no stp crosses a
 * 16-byte boundary, and so none a cache line; then 16-byte pairs while 16
 * bytes remain, then 0-15 bytes of scalar tail. */
void sb__copy_ldp_stp(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = sb__head(d, 16, n);
    (void)state;

    sb__copy_small(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        SB__CHECK_STORE(d, 16);
        SB__CHECK_STORE(d + 16, 16);
        SB__CHECK_STORE(d + 32, 16);
        SB__CHECK_STORE(d + 48, 16);
        __asm__ volatile("ldp x8,  x9,  [%1]\n\t"
                         "ldp x10, x11, [%1, #16]\n\t"
                         "ldp x12, x13, [%1, #32]\n\t"
                         "ldp x14, x15, [%1, #48]\n\t"
                         "stp x8,  x9,  [%0]\n\t"
                         "stp x10, x11, [%0, #16]\n\t"
                         "stp x12, x13, [%0, #32]\n\t"
                         "stp x14, x15, [%0, #48]"
                         :
                         : "r"(d), "r"(s)
                         : "memory", "x8", "x9", "x10", "x11", "x12", "x13",
                           "x14", "x15");
    }
    for (; n >= 16; n -= 16, d += 16, s += 16)
        sb__pair16(d, s);
    sb__copy_small(d, s, n);
}

/* NEON: ld1/st1 of four q registers (v0-v3), 64 bytes a loop, after
 * aligning the destination to 16; then single q registers while 16 bytes
 * remain, then 0-15 bytes of scalar tail.  A 64-byte st1 is one store of
 * the hook, as it is one instruction. */
void sb__copy_neon(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = sb__head(d, 16, n);
    (void)state;

    sb__copy_small(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        SB__CHECK_STORE(d, 64);
        __asm__ volatile("ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%1]\n\t"
                         "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%0]"
                         :
                         : "r"(d), "r"(s)
                         : "memory", "v0", "v1", "v2", "v3");
    }
    for (; n >= 16; n -= 16, d += 16, s += 16) {
        SB__CHECK_STORE(d, 16);
        __asm__ volatile("ld1 {v0.16b}, [%1]\n\t"
                         "st1 {v0.16b}, [%0]"
                         :
                         : "r"(d), "r"(s)
                         : "memory", "v0");
    }
    sb__copy_small(d, s, n);
}

/* ldp loads and stnp stores, 64 bytes (one line) a step, the destination
 * aligned to 64 first so that each step fills exactly one line, with
 * prfm pldl1strm (prefetch for one streaming use) of the source's next
 * line: Linux's arm64 copy_page of 2012, which assumed 64-byte lines as
 * this does (most Arm cores have them; where they are longer, each line
 * is filled by consecutive steps).  A prefetch past the end of the
 * source is harmless: prfm never faults.  Then the tail of 0-63 bytes by
 * ordinary stores, and dmb ish. */
void sb__copy_stnp(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = sb__head(d, 64, n);
    (void)state;

    sb__copy_small(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        SB__CHECK_STORE(d, 16);
        SB__CHECK_STORE(d + 16, 16);
        SB__CHECK_STORE(d + 32, 16);
        SB__CHECK_STORE(d + 48, 16);
        __asm__ volatile("prfm pldl1strm, [%1, #64]\n\t"
                         "ldp  x8,  x9,  [%1]\n\t"
                         "ldp  x10, x11, [%1, #16]\n\t"
                         "ldp  x12, x13, [%1, #32]\n\t"
                         "ldp  x14, x15, [%1, #48]\n\t"
                         "stnp x8,  x9,  [%0]\n\t"
                         "stnp x10, x11, [%0, #16]\n\t"
                         "stnp x12, x13, [%0, #32]\n\t"
                         "stnp x14, x15, [%0, #48]"
                         :
                         : "r"(d), "r"(s)
                         : "memory", "x8", "x9", "x10", "x11", "x12", "x13",
                           "x14", "x15");
    }
    sb__copy_small(d, s, n);
    __asm__ volatile("dmb ish" ::: "memory");
}
