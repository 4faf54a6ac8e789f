/*
 * meta.h: meta.c's internal functions, never installed.
 */
#ifndef SB_META_H
#define SB_META_H

#include "sb_internal.h"

/* Fill the machine part of a run's metadata. */
void sb__meta_fill(sb_meta *meta);

/* The L2 size of the CPU meta->cpu (CPU 0 when not pinned) into
 * meta->l2_bytes, 0 when sysfs does not say: what SB_METRIC_AUTO compares
 * a cell's buffers with (sb_metric_choose). */
void sb__meta_l2(sb_meta *meta);
/* The probes' figures unknown (NAN; probe.c fills them): a run made or
 * loaded without them must not show zeros.  Also sets the size fields of
 * the structs a meta embeds (timer, env): every meta passes here. */
void sb__meta_probe_unknown(sb_meta *meta);

/* Append one line, printf-style, to meta->notes (cut at its size). */
void sb__meta_note(sb_meta *meta, const char *fmt, ...) SB__PRINTF(2, 3);

#endif
