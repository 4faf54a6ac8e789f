/*
 * load.h: the loader's internal names, never installed.  load.c reads a
 * saved run's document and its top level; it hands the meta to
 * load_meta.c and the cells to load_cells.c.  The small readers of one
 * JSON value that all three use are load_meta.c's, the lowest of them,
 * so that the calls go one way: load.c, then load_cells.c, then
 * load_meta.c.
 */
#ifndef SB_IO_LOAD_H
#define SB_IO_LOAD_H

#include <jansson.h>

#include "run_internal.h"

/* load.c: the JSON document of f in *root, read as a saved run is (a
 * document of more than SB__MAX_CELLS "cells" stops at the one beyond):
 * SB_OK, or SB_EIO naming the file and the JSON's line, SB_ENOMEM. */
int sb__load_read_json(FILE *f, const char *name, json_t **root,
                       sb_error *err);
/* load.c: the statbench run of a parsed document root into *out; fa: the
 * caller's analysis options, already checked (NULL: as saved).  The
 * statuses of sb_run_load_new; root stays the caller's. */
int sb__load_root(json_t *root, const char *name,
                  const sb_analysis_options *fa, sb_run **out,
                  sb_error *err);

/* The string at key of o, or NULL when it is absent or not a string. */
const char *sb__load_str(json_t *o, const char *key);
/* The number at key of o into *out (null is NAN): 0, or -1 when it is
 * neither. */
int sb__load_num(json_t *o, const char *key, double *out);
/* The integer >= 0 at key of o into *out: 0, or -1 when it is not one. */
int sb__load_size(json_t *o, const char *key, size_t *out);
/* The string at key of o (or "" without one) into dst of len bytes, its
 * control characters made '?'. */
void sb__load_copy(char *dst, size_t len, json_t *o, const char *key);

/* load_meta.c: root's "meta" into run (the fields of the schema's list,
 * the timer, the arrays, the seed and the options); file name in
 * messages.  SB_OK, or SB_EIO or SB_ENOMEM with err filled. */
int sb__load_meta(sb_run *run, json_t *root, const char *name,
                  sb_error *err);

/* load_cells.c: the cells of the file, each an object, into run's: their
 * fields, kept and held samples, and invocations.  The meta must be read
 * first (the counters' names, the timer's rate, the stand-ins). */
int sb__load_cells(sb_run *run, json_t *cells, const char *name,
                   sb_error *err);

#endif
