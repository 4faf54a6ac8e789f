/*
 * meta.h: meta.c's internal functions, never installed.
 */
#ifndef SB_META_H
#define SB_META_H

#include "sb_internal.h"

#include <time.h>

/* Fill the machine part of a run's metadata: sb__meta_machine's, the
 * probes unknown and the counters described. */
void sb__meta_fill(sb_meta *meta);
/* The machine alone: CPU model and features, microcode, kernel, host
 * name, online CPUs, this statbench, and start (UTC) as the start time.
 * Reads only sysfs, /proc and uname: no counter is started. */
void sb__meta_machine(sb_meta *meta, time_t start);

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
