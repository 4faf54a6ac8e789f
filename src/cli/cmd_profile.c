/*
 * cmd_profile.c: statbench profile [--reset]: this host's profile, the
 * quiet figures of its recent runs that a measuring run is judged
 * against (src/machine/profile*.c; README, "The host profile"), shown or
 * deleted.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

#define MAX_KEYS 16

int cmd_profile(int argc, char **argv, struct cli *cli)
{
    char dir[4000], why[256], text[8192];
    sb_profile_key host = {.size = sizeof host},
                   keys[MAX_KEYS] = {{.size = sizeof keys[0]}};
    sb_error err = {0};
    size_t n = 0;
    int rc;

    if (optind < argc)
        die_usage("profile: unexpected argument '%s' (see %s --help)",
                  argv[optind], progname);
    rc = cli_profile_dir(dir, sizeof dir, why, sizeof why);
    if (rc < 0)
        die_usage("%s", why);
    if (rc > 0)
        die_usage("profile: STATBENCH_NO_PROFILE is set: no profile is "
                  "read or kept");
    if (sb_profile_key_this_host(&host, &err) != SB_OK ||
        sb_profile_find(dir, &host, keys, MAX_KEYS, &n, &err) != SB_OK)
        die_usage("%s", err.text);
    if (cli->profile_reset) {
        size_t removed = 0, got = 0;
        /* MAX_KEYS at a time, until none of this host's is left (or one
         * would not go: then the loop would not end). */
        do {
            got = 0;
            for (size_t i = 0; i < n && i < MAX_KEYS; i++) {
                int r = 0;
                if (sb_profile_reset(dir, &keys[i], &r, &err) != SB_OK) {
                    say("%s", err.text);
                    return 1;
                }
                got += (size_t)r;
            }
            removed += got;
            if (sb_profile_find(dir, &host, keys, MAX_KEYS, &n, &err) !=
                SB_OK)
                die_usage("%s", err.text);
        } while (n && got);
        /* The directory is anybody's: through the one cleaning. */
        snprintf(text, sizeof text,
                 "host profile: %zu profile%s of this host removed from %s",
                 removed, removed == 1 ? "" : "s", dir);
        sb__clean_text(text);
        printf("%s\n", text);
        return 0;
    }
    if (n == 0) {
        /* A build without a contention probe has no core clock either
         * (both are the architecture's chains): a run has no figure of
         * the core to keep. */
        const char *next = host.contention_probe[0]
                               ? "the next measuring run starts one"
                               : "no run of this build starts one (it "
                                 "has no figure of the core: no core "
                                 "clock, no reference copy)";
        /* Through the one cleaning of strings for the terminal: the host
         * name and the directory are anybody's. */
        snprintf(text, sizeof text,
                 "host profile: none yet for this host (%s, %s) in %s: %s",
                 host.hostname, host.cpu_model, dir, next);
        sb__clean_text(text);
        printf("%s\n", text);
        return 0;
    }
    if (n > MAX_KEYS)
        printf("host profile: %zu profiles of this host; the first %d "
               "shown\n", n, MAX_KEYS);
    for (size_t i = 0; i < n && i < MAX_KEYS; i++) {
        sb_profile *p = NULL;
        if (sb_profile_load(dir, &keys[i], &p, &err) != SB_OK)
            die_usage("%s", err.text);
        sb_profile_describe(p, text, sizeof text);
        fputs(text, stdout);
        sb_profile_free(p);
    }
    return 0;
}
