/*
 * loaded.h: what the rest of the library needs of the kernels loaded from
 * shared objects (kernel_load.c) and of their byte check
 * (kernel_check.c); never installed.
 */
#ifndef SB_LOADED_H
#define SB_LOADED_H

#include "sb_internal.h"

struct sb_run;

/* A copy of o (its strings cleaned of control characters) in the run's
 * records of loaded kernels, once per name: what the JSON writes and a
 * loaded run reads back.  SB_OK or SB_ENOMEM. */
int sb__run_add_loaded(struct sb_run *run, const sb_kernel_origin *o);

/* The run's records freed (sb_run_free). */
void sb__run_free_loaded(struct sb_run *run);

#endif
