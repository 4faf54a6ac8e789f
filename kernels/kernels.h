/*
 * kernels.h: the built-in kernels, private to libstatbench.
 *
 * Each kernel file defines its sb_kernel_fn functions; registry.c lists
 * them.  Kernels know nothing of timing or statistics.  Every kernel must
 * produce exactly the bytes its family promises (memcpy's or memset's
 * result) for every size, including 0, and every alignment.
 */
#ifndef SB_KERNELS_H
#define SB_KERNELS_H

#include "statbench.h"

/* kernels/copy_portable.c: build everywhere. */
void sb__copy_duff(void *dst, const void *src, size_t n, void *state);
void sb__copy_libc(void *dst, const void *src, size_t n, void *state);

#ifdef SB_HAVE_X86_64
/* kernels/copy_x86.c: rep string moves. */
void sb__copy_movsb(void *dst, const void *src, size_t n, void *state);
void sb__copy_movsl(void *dst, const void *src, size_t n, void *state);
void sb__copy_movsq(void *dst, const void *src, size_t n, void *state);
#endif

#endif
