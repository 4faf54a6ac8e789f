/*
 * cmd_profile.c: statbench profile [--reset]: this host's profile, the
 * quiet figures of its recent runs that a measuring run is judged
 * against (src/profile.c; README, "The host profile"), shown or deleted.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

int cli_profile_dir(char *buf, size_t len, char *why, size_t wlen)
{
    const char *off = getenv("STATBENCH_NO_PROFILE");
    const char *st = getenv("STATBENCH_STATE"), *xdg, *home, *from;
    int w;

    if (off && *off)
        return 1;
    if (st && *st) {
        w = snprintf(buf, len, "%s", st);
        from = "STATBENCH_STATE";
    } else if ((xdg = getenv("XDG_STATE_HOME")) && xdg[0] == '/') {
        /* A relative XDG_STATE_HOME is invalid (the XDG spec): ignored. */
        w = snprintf(buf, len, "%s/statbench", xdg);
        from = "XDG_STATE_HOME";
    } else if ((home = getenv("HOME")) && *home) {
        w = snprintf(buf, len, "%s/.local/state/statbench", home);
        from = "HOME";
    } else {
        snprintf(why, wlen, "host profile: HOME is not set: set "
                            "STATBENCH_STATE to its directory, or give "
                            "--no-profile");
        return -1;
    }
    /* Never a shortened path: it would name another directory. */
    if (w < 0 || (size_t)w >= len) {
        snprintf(why, wlen, "host profile: the directory from %s is longer "
                            "than %zu bytes",
                 from, len - 1);
        return -1;
    }
    return 0;
}

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
        /* Through the one cleaning of strings for the terminal: the host
         * name and the directory are anybody's. */
        snprintf(text, sizeof text,
                 "host profile: none yet for this host (%s, %s) in %s: the "
                 "next measuring run starts one",
                 host.hostname, host.cpu_model, dir);
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
