/*
 * busy.c: the command bench/ab.sh times whole (statbench cmd, hyperfine):
 * a fixed amount of CPU work, no I/O.
 *   busy ITER         ITER steps of a multiply-add chain, then exit 0
 *   busy --calibrate  print the ITER that takes about 10 ms here
 *                     (--calibrate MS: about MS milliseconds)
 * The same ITER is the same work in every run, so two copies of the
 * program given the same ITER are an A/A pair.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Each step reads and writes a volatile: the chain can be neither folded
 * into a closed form nor dropped, so the work is ITER steps whatever the
 * optimiser does. */
static volatile uint64_t sink = 1;

static void work(uint64_t iter)
{
    for (uint64_t i = 0; i < iter; i++)
        sink = sink * 6364136223846793005u + 1442695040888963407u;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The count that takes ms milliseconds: the fastest of several timings
 * of a count long enough to dwarf the clock's resolution (the fastest,
 * since a disturbance only ever adds time), scaled. */
static uint64_t calibrate(double ms)
{
    uint64_t n = 1000;
    double best = 0;

    for (;;) {
        double t0 = now_s(), t;
        work(n);
        t = now_s() - t0;
        if (t >= 2e-3 || n > UINT64_MAX / 4)
            break;
        n *= 2;
    }
    for (int k = 0; k < 7; k++) {
        double t0 = now_s(), t;
        work(n);
        t = now_s() - t0;
        if (k == 0 || t < best)
            best = t;
    }
    if (best <= 0)
        return n;
    return (uint64_t)((double)n * ms * 1e-3 / best + 0.5);
}

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s ITER | --calibrate [MS]\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    char *end;
    unsigned long long v;

    if (argc < 2)
        return usage(argv[0]);
    if (!strcmp(argv[1], "--calibrate")) {
        double ms = 10;
        if (argc > 3)
            return usage(argv[0]);
        if (argc == 3) {
            errno = 0;
            ms = strtod(argv[2], &end);
            if (errno || *end || end == argv[2] || !(ms > 0))
                return usage(argv[0]);
        }
        printf("%llu\n", (unsigned long long)calibrate(ms));
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-')
        return usage(argv[0]);
    errno = 0;
    v = strtoull(argv[1], &end, 10);
    if (errno || *end || end == argv[1])
        return usage(argv[0]);
    work((uint64_t)v);
    return 0;
}
