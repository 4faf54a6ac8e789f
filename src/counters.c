/*
 * counters.c: the performance-counter backend of this build.
 *
 * With PAPI the library is initialised once and probed for the hardware
 * cycle counter and for the perf software events; a machine without
 * hardware counters (a virtual machine, say) is named as such.  A build
 * configured --without-papi says that counters are off.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef SB_HAVE_PAPI
#include <papi.h>
#endif

#include "sb_internal.h"

#ifdef SB_HAVE_PAPI
static char cached[256];

/* PAPI is initialised once per process (pthread_once), so concurrent
 * runs do not race on PAPI_library_init. */
static void probe(void)
{
    {
        int v = PAPI_library_init(PAPI_VER_CURRENT);
        if (v != PAPI_VER_CURRENT) {
            snprintf(cached, sizeof cached,
                     "PAPI %d.%d: initialisation failed (%s)",
                     PAPI_VERSION_MAJOR(PAPI_VER_CURRENT),
                     PAPI_VERSION_MINOR(PAPI_VER_CURRENT),
                     v < 0 ? PAPI_strerror(v) : "version mismatch");
        } else {
            int cyc = PAPI_query_event(PAPI_TOT_CYC);
            char perf[160] = "perf_event component not found";
            for (int i = 0; i < PAPI_num_components(); i++) {
                const PAPI_component_info_t *ci = PAPI_get_component_info(i);
                if (ci && !strcmp(ci->name, "perf_event")) {
                    if (ci->disabled)
                        snprintf(perf, sizeof perf,
                                 "perf_event component disabled (%.100s)",
                                 ci->disabled_reason);
                    else
                        snprintf(perf, sizeof perf,
                                 "perf_event component enabled");
                    break;
                }
            }
            snprintf(cached, sizeof cached,
                     "PAPI %d.%d.%d: hardware counters %s; %s; not read per "
                     "sample yet",
                     PAPI_VERSION_MAJOR(PAPI_VER_CURRENT),
                     PAPI_VERSION_MINOR(PAPI_VER_CURRENT),
                     PAPI_VERSION_REVISION(PAPI_VER_CURRENT),
                     cyc == PAPI_OK ? "available"
                                    : "unavailable on this machine "
                                      "(PAPI_TOT_CYC: event does not exist)",
                     perf);
        }
    }
}
#endif

void sb__counters_describe(char *buf, size_t len)
{
#ifdef SB_HAVE_PAPI
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, probe);
    snprintf(buf, len, "%s", cached);
#else
    snprintf(buf, len, "counters off (built --without-papi)");
#endif
}
