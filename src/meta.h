/*
 * meta.h: meta.c's internal function, never installed.
 */
#ifndef SB_META_H
#define SB_META_H

#include "sb_internal.h"

/* Fill the machine part of a run's metadata. */
void sb__meta_fill(sb_meta *meta);

#endif
