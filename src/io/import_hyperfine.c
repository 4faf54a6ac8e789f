/*
 * import_hyperfine.c: hyperfine's --export-json read as imported samples
 * (import_tools.h): each result a command's cell, its times one
 * invocation of samples in seconds, its failed runs and its user and
 * system times in the notes.
 */
#include "config.h"

#include <stdio.h>

#include <jansson.h>

#include "import_tools.h"

/* Each result a cell, its times one invocation of samples in seconds:
 * hyperfine runs one command's runs one after another, so there are no
 * rounds to pair. */
int sb__imp_read_hyperfine(struct imp *im, json_t *root,
                           const struct spans *sp)
{
    json_t *r;
    size_t i;
    int rc;

    im->name_list = "results";
    im->name_key = ".command";
    if ((rc = sb__imp_use_list(im, root, sp)) != SB_OK)
        return rc;
    sb__imp_note(im, "hyperfine JSON: %zu commands, each run a sample, all "
                     "of a command's runs one invocation, in seconds",
                 sb__imp_el_count(im));
    for (i = 0; i < sb__imp_el_count(im); i++) {
        json_t *times, *codes, *t;
        struct imp_set *s;
        const char *cmd;
        size_t j, failed = 0;
        char path[64];
        if (!(r = sb__imp_el_get(im, "results", i)))
            return im->el_rc;
        if (!json_is_object(r))
            return sb__imp_bad(im, "results[%zu]: not an object", i);
        if (!(cmd = sb__imp_str(r, "command")))
            return sb__imp_bad(im, "results[%zu].command: %s", i,
                               json_object_get(r, "command") ? "not a string"
                                                             : "missing");
        times = json_object_get(r, "times");
        if (!json_is_array(times) || json_array_size(times) == 0)
            return sb__imp_bad(im, "results[%zu].times: %s", i,
                               !times ? "missing"
                               : !json_is_array(times) ? "not a list"
                                                       : "empty");
        if ((rc = sb__imp_new_set(im, cmd, i, &s)) != SB_OK)
            return rc;
        json_array_foreach(times, j, t)
        {
            double x;
            snprintf(path, sizeof path, "results[%zu].times[%zu]", i, j);
            if ((rc = sb__imp_number_at(im, t, path, 1, &x)) != SB_OK ||
                (rc = sb__imp_push_value(im, s, x)) != SB_OK)
                return rc;
        }
        if ((rc = sb__imp_push_invocation(im, s, s->n)) != SB_OK)
            return rc;
        codes = json_object_get(r, "exit_codes");
        if (codes && !json_is_array(codes))
            return sb__imp_bad(im, "results[%zu].exit_codes: not a list", i);
        json_array_foreach(codes, j, t)
        {
            /* null: killed by a signal. */
            if (!json_is_integer(t) && !json_is_null(t))
                return sb__imp_bad(im, "results[%zu].exit_codes[%zu]: not "
                                       "an integer",
                                   i, j);
            failed += !json_is_integer(t) || json_integer_value(t) != 0;
        }
        if (failed)
            sb__imp_note(im, "%s: %zu of %zu runs failed (a non-zero exit "
                             "code or a signal), their times kept as "
                             "hyperfine kept them",
                         s->name, failed, json_array_size(codes));
        {
            json_t *u = json_object_get(r, "user"),
                   *sy = json_object_get(r, "system");
            if (json_is_number(u) && json_is_number(sy))
                sb__imp_note(im, "%s: user %.3g s, system %.3g s "
                                 "(hyperfine's means)",
                             s->name, json_number_value(u),
                             json_number_value(sy));
        }
    }
    snprintf(im->unit, sizeof im->unit, "s");
    return SB_OK;
}
