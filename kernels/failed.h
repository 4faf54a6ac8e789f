/*
 * failed.h: the count of failed kernel calls (kernels/failed.c), private
 * to libstatbench; kernels report with sb_kernel_failed() of statbench.h.
 */
#ifndef SB_KERNELS_FAILED_H
#define SB_KERNELS_FAILED_H

#include <stddef.h>

#include "sb_internal.h"

/* How many calls sb_kernel_failed() has counted in this thread so far (it
 * only grows); *last_errno (optional) receives the errnum of the last. */
size_t sb__kernel_failures(int *last_errno);

#endif
