/*
 * command.h: the internal names of command.c and command_exec.c, never
 * installed: what the CLI and the tests share with the runner of whole
 * commands.
 */
#ifndef SB_COMMAND_H
#define SB_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "sb_internal.h"

/* The room for a command run's notes: what sb_meta.notes holds. */
#define SB__COMMAND_NOTES 4096

/* s split into words as sb_command_options.no_shell splits a command:
 * SB_OK and *out a NULL-terminated array of new strings (free each and
 * the array); else SB_EINVAL (or SB_ENOMEM) with the reason in why: an
 * unclosed quote, a trailing \, a character only a shell understands, or
 * no word at all. */
int sb__split_words(const char *s, char ***out, char *why, size_t wlen);

/* When a run of budget max_time seconds kills the command under way:
 * max(1.2 max_time, max_time + 2) seconds from its start. */
double sb__command_deadline(double max_time);

/* order[0..n) in a fresh random order (Fisher-Yates) from the splitmix64
 * generator of state *s: the round orders of a seed. */
void sb__command_shuffle(size_t *order, size_t n, uint64_t *s);

/* Non-zero: wait for every command by polling waitid, as on a kernel
 * without pidfd_open; for the tests of that path. */
extern int sb__command_poll_only;

#endif
