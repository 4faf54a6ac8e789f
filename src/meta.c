/* meta.c: the record of the machine a run measured on. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef SB_HAVE_X86_64
#include <cpuid.h>
#endif

#include "sb_internal.h"

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

static void cpu_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];

    snprintf(buf, len, "unknown");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    snprintf(buf, len, "%s", p);
                    trim(buf);
                }
                break;
            }
        }
        fclose(f);
    }
#ifdef SB_HAVE_X86_64
    if (!strcmp(buf, "unknown")) {
        unsigned r[12];
        if (__get_cpuid(0x80000004, &r[0], &r[1], &r[2], &r[3])) {
            for (unsigned i = 0; i < 3; i++)
                __cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1],
                        r[4 * i + 2], r[4 * i + 3]);
            snprintf(buf, len, "%.48s", (const char *)r);
            trim(buf);
        }
    }
#endif
}

void sb__meta_fill(sb_meta *meta)
{
    struct utsname u;
    time_t now = time(NULL);
    struct tm tm;

    cpu_model(meta->cpu_model, sizeof meta->cpu_model);
    if (uname(&u) == 0)
        snprintf(meta->kernel_version, sizeof meta->kernel_version,
                 "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(meta->kernel_version, sizeof meta->kernel_version,
                 "unknown");
    if (gethostname(meta->hostname, sizeof meta->hostname) != 0)
        snprintf(meta->hostname, sizeof meta->hostname, "unknown");
    meta->hostname[sizeof meta->hostname - 1] = '\0';
    snprintf(meta->statbench_version, sizeof meta->statbench_version, "%s",
             PACKAGE_VERSION);
    gmtime_r(&now, &tm);
    strftime(meta->start_time, sizeof meta->start_time,
             "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta->cpu_features = sb_cpu_features();
    sb__counters_describe(meta->counters, sizeof meta->counters);
}
