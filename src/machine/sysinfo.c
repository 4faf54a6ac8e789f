/*
 * sysinfo.c: the machine as /proc and /sys describe it (see sysinfo.h and
 * docs/design.md, "Who owns what").  One reader of each fact, so that the
 * audit, the run's record and the figures cannot disagree about the CPU
 * they describe.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysinfo.h"
#include "arch/arch.h"

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

/* root followed by the formatted path into path; 0, or -1 when it does
 * not fit (a path that does not fit is not read). */
static int vpath(char *path, size_t len, const char *root, const char *fmt,
                 va_list ap)
{
    int r = snprintf(path, len, "%s", root), s;
    if (r < 0 || (size_t)r >= len)
        return -1;
    s = vsnprintf(path + r, len - (size_t)r, fmt, ap);
    return s < 0 || (size_t)s >= len - (size_t)r ? -1 : 0;
}

FILE *sb__sys_vopen(const char *root, const char *fmt, va_list ap)
{
    char path[512];
    if (vpath(path, sizeof path, root, fmt, ap) != 0)
        return NULL;
    return fopen(path, "re");
}

static FILE *sys_open(const char *root, const char *fmt, ...)
    SB__PRINTF(2, 3);
static FILE *sys_open(const char *root, const char *fmt, ...)
{
    va_list ap;
    FILE *f;
    va_start(ap, fmt);
    f = sb__sys_vopen(root, fmt, ap);
    va_end(ap);
    return f;
}

int sb__sys_vline(const char *root, char *buf, size_t len, const char *fmt,
                  va_list ap)
{
    FILE *f;
    int ok;

    buf[0] = '\0';
    f = sb__sys_vopen(root, fmt, ap);
    if (!f)
        return -1;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    ok = !ferror(f);
    fclose(f);
    if (!ok)
        buf[0] = '\0';
    trim(buf);
    return ok ? 0 : -1;
}

int sb__sys_line(const char *root, char *buf, size_t len, const char *fmt,
                 ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = sb__sys_vline(root, buf, len, fmt, ap);
    va_end(ap);
    return r;
}

int sb__sys_long(const char *root, long *out, const char *fmt, ...)
{
    char v[32], *end;
    va_list ap;
    long x;
    int r;

    va_start(ap, fmt);
    r = sb__sys_vline(root, v, sizeof v, fmt, ap);
    va_end(ap);
    if (r != 0 || !v[0])
        return -1;
    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || *end)
        return -1;
    *out = x;
    return 0;
}

int sb__sys_vexists(const char *root, const char *fmt, va_list ap)
{
    char path[512];
    if (vpath(path, sizeof path, root, fmt, ap) != 0)
        return 0;
    return access(path, F_OK) == 0;
}

/* ---- /proc/cpuinfo ------------------------------------------------------ */

/* The key of the next line of /proc/cpuinfo, up to its ':' (cut at len,
 * trimmed), a character at a time: the flags line of a current x86 CPU is
 * longer than any sensible buffer.  Returns the character that ended it:
 * ':', '\n' (a line without a value) or EOF. */
static int cpuinfo_key(FILE *f, char *key, size_t len)
{
    size_t kn = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != ':' && ch != '\n')
        if (kn + 1 < len)
            key[kn++] = (char)ch;
    key[kn] = '\0';
    trim(key);
    return ch;
}

/* The key of the next line of /proc/cpuinfo that has a value (the lines
 * without one skipped): ':', or EOF at the end. */
static int cpuinfo_next(FILE *f, char *key, size_t len)
{
    int ch;
    while ((ch = cpuinfo_key(f, key, len)) == '\n')
        ;
    return ch;
}

/* The rest of the line after a key's ':' into buf (cut at len, trimmed);
 * returns '\n' or EOF. */
static int cpuinfo_value(FILE *f, char *buf, size_t len)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) == ' ' || ch == '\t')
        ;
    for (; ch != EOF && ch != '\n'; ch = getc(f))
        if (n + 1 < len)
            buf[n++] = (char)ch;
    if (len) {
        buf[n] = '\0';
        trim(buf);
    }
    return ch;
}

/* One pass over root's /proc/cpuinfo: the first "model name" into model
 * (when not NULL), whether the first "flags" line holds flag into *has
 * (1, 0; -1 when there is no flags line or no file), and, when native is
 * not NULL, whether some line's key is archkey into *native (1, 0; -1
 * when there is no file or archkey is NULL).  It stops as soon as it has
 * them all. */
static void cpuinfo_scan(const char *root, const char *flag, char *model,
                         size_t mlen, int *has, const char *archkey,
                         int *native)
{
    FILE *f = sys_open(root, "%s", "/proc/cpuinfo");
    int have_model = model == NULL, ch, want_key = native && archkey;

    if (model)
        model[0] = '\0';
    *has = -1;
    if (native)
        *native = f && archkey ? 0 : -1;
    if (!f)
        return;
    for (;;) {
        char key[32];
        if ((ch = cpuinfo_next(f, key, sizeof key)) == EOF)
            break;
        if (want_key && !strcmp(key, archkey)) {
            *native = 1;
            want_key = 0;
        }
        if (!have_model && !strcmp(key, "model name")) {
            ch = cpuinfo_value(f, model, mlen);
            have_model = 1;
        } else if (*has < 0 && !strcmp(key, "flags")) {
            char tok[32];
            size_t tn = 0;
            int over = 0;
            *has = 0;
            do {
                ch = getc(f);
                if (ch == ' ' || ch == '\t' || ch == '\n' || ch == EOF) {
                    tok[tn] = '\0';
                    if (tn && !over && !strcmp(tok, flag))
                        *has = 1;
                    tn = 0;
                    over = 0;
                } else if (tn + 1 < sizeof tok) {
                    tok[tn++] = (char)ch;
                } else {
                    over = 1;
                }
            } while (ch != '\n' && ch != EOF);
        } else {
            while (ch != '\n' && ch != EOF)
                ch = getc(f);
        }
        if (ch == EOF || (have_model && *has >= 0 && !want_key))
            break;
    }
    fclose(f);
}

void sb__cpuinfo_read(const char *root, sb__cpuinfo *out)
{
    cpuinfo_scan(root, "hypervisor", out->model, sizeof out->model,
                 &out->hypervisor, sb__arch_cpuinfo_key(), &out->native);
}

int sb__cpuinfo_flag(const char *root, const char *flag)
{
    int has;
    cpuinfo_scan(root, flag, NULL, 0, &has, NULL, NULL);
    return has;
}

void sb__cpuinfo_model(const char *root, const sb__cpuinfo *ci, char *buf,
                       size_t len)
{
    snprintf(buf, len, "%s", ci->model[0] ? ci->model : "unknown");
    /* CPUID describes this machine only, never a fake root. */
    if (root[0] == '\0' && !ci->model[0] &&
        sb__arch_cpu_brand(buf, len) == 0)
        trim(buf);
}

void sb__cpu_model(char *buf, size_t len)
{
    sb__cpuinfo ci;
    sb__cpuinfo_read("", &ci);
    sb__cpuinfo_model("", &ci, buf, len);
}

int sb__cpuinfo_microcode(const char *root, char *buf, size_t len)
{
    FILE *f = sys_open(root, "%s", "/proc/cpuinfo");
    int ch, found = 0;

    if (len)
        buf[0] = '\0';
    if (!f)
        return -1;
    while (!found) {
        char key[32];
        if ((ch = cpuinfo_next(f, key, sizeof key)) == EOF)
            break;
        if (!strcmp(key, "microcode")) {
            ch = cpuinfo_value(f, buf, len);
            found = len && buf[0] != '\0';
        } else {
            while (ch != '\n' && ch != EOF)
                ch = getc(f);
        }
        if (ch == EOF)
            break;
    }
    fclose(f);
    return found ? 0 : -1;
}

long sb__online_cpus(const char *root)
{
    char list[256];
    long n;

    if (sb__sys_line(root, list, sizeof list, "%s",
                     "/sys/devices/system/cpu/online") != 0 ||
        sb__cpulist_empty(list))
        return -1;
    n = sb__cpulist_count(list);
    return n > 0 ? n : -1;
}

/* ---- CPU lists ("0-3,6") ------------------------------------------------ */

int sb__cpulist_empty(const char *s)
{
    return *s == '\0' || !strcmp(s, "(null)");
}

int sb__cpulist_next(const char **p, long *lo, long *hi)
{
    const char *s = *p;
    char *end;

    if (*s == '\0')
        return 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    *lo = strtol(s, &end, 10);
    *hi = *lo;
    if (*end == '-') {
        s = end + 1;
        if (!isdigit((unsigned char)*s))
            return -1;
        *hi = strtol(s, &end, 10);
    }
    if (errno || *hi < *lo || (*end != ',' && *end != '\0'))
        return -1;
    *p = *end == ',' ? end + 1 : end;
    return 1;
}

long sb__cpulist_count(const char *s)
{
    long lo, hi, n = 0;
    int r;
    if (sb__cpulist_empty(s))
        return 0;
    while ((r = sb__cpulist_next(&s, &lo, &hi)) == 1)
        n += hi - lo + 1;
    return r < 0 ? -1 : n;
}

int sb__cpulist_has(const char *s, long cpu)
{
    long lo, hi;
    int r;
    if (sb__cpulist_empty(s))
        return 0;
    while ((r = sb__cpulist_next(&s, &lo, &hi)) == 1)
        if (lo <= cpu && cpu <= hi)
            return 1;
    return r;
}

long sb__cpulist_first(const char *s)
{
    long lo, hi;
    return !sb__cpulist_empty(s) && sb__cpulist_next(&s, &lo, &hi) == 1
               ? lo
               : -1;
}

int sb__read_cpulist(const char *root, const char *path, cpu_set_t *set)
{
    char buf[512];
    const char *p = buf;
    long lo, hi;
    int r, any = 0;

    CPU_ZERO(set);
    if (sb__sys_line(root, buf, sizeof buf, "%s", path) != 0)
        return -1;
    while ((r = sb__cpulist_next(&p, &lo, &hi)) == 1)
        for (long c = lo; c <= hi && c < CPU_SETSIZE; c++) {
            CPU_SET((int)c, set);
            any = 1;
        }
    return r == 0 && any ? 0 : -1;
}

int sb__cpu_allowed(int cpu, char *set, size_t setlen)
{
    return sb__cpu_allowed_at("", cpu, set, setlen);
}

int sb__default_cpu(const char *root, const cpu_set_t *allowed,
                    int *isolated)
{
    cpu_set_t iso;

    if (isolated)
        *isolated = 0;
    if (sb__read_cpulist(root, "/sys/devices/system/cpu/isolated", &iso) ==
        0) {
        /* Isolated CPUs (isolcpus=) run no other tasks and take fewer
         * interrupts: the best place to measure, when online.  Not only
         * those in the inherited mask: with isolcpus= the kernel moves
         * init, and so every process, off the isolated CPUs. */
        for (int c = CPU_SETSIZE - 1; c >= 0; c--)
            if (CPU_ISSET(c, &iso) &&
                sb__cpu_allowed_at(root, c, NULL, 0) == 1) {
                if (isolated)
                    *isolated = 1;
                return c;
            }
    }
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, allowed))
            return c;
    return -1;
}

/* A cpu list of set, as "0-3,6", into out. */
static void cpulist_text(const cpu_set_t *set, char *out, size_t len)
{
    int first = -1, last = -1;
    size_t used = 0;

    if (len)
        out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        int in = CPU_ISSET(c, set);
        if (in && first < 0)
            first = c;
        if (in)
            last = c;
        if (first >= 0 && (!in || c == CPU_SETSIZE - 1)) {
            if (used < len) {
                int w = last > first
                            ? snprintf(out + used, len - used, "%s%d-%d",
                                       used ? "," : "", first, last)
                            : snprintf(out + used, len - used, "%s%d",
                                       used ? "," : "", first);
                if (w > 0)
                    used += (size_t)w;
            }
            first = -1;
        }
    }
}

int sb__cpu_may_use(const char *root, int cpu, char *mask, size_t masklen)
{
    cpu_set_t own, iso;

    if (sched_getaffinity(0, sizeof own, &own) != 0)
        return -1;
    if (mask && masklen)
        cpulist_text(&own, mask, masklen);
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return 0;
    if (CPU_ISSET(cpu, &own))
        return 1;
    return sb__read_cpulist(root, "/sys/devices/system/cpu/isolated",
                            &iso) == 0 &&
           CPU_ISSET(cpu, &iso) &&
           sb__cpu_allowed_at(root, cpu, NULL, 0) == 1;
}

int sb__cpu_allowed_at(const char *root, int cpu, char *set, size_t setlen)
{
    cpu_set_t mask;
    int ok;

    /* Where the cpuset forbids an online CPU, sched_setaffinity says so
     * when the run pins. */
    if (sb__read_cpulist(root, "/sys/devices/system/cpu/online", &mask) !=
            0 &&
        sched_getaffinity(0, sizeof mask, &mask) != 0)
        return -1;
    if (set && setlen)
        cpulist_text(&mask, set, setlen);
    ok = cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &mask);
    return ok;
}

/* ---- Caches and the clocksource ----------------------------------------- */

size_t sb__caches(const char *root, int cpu, sb__cache *out, size_t max)
{
    size_t n = 0;
    for (int idx = 0; idx < 16 && n < max; idx++) {
        static const char dir[] = "/sys/devices/system/cpu/cpu%d/cache/"
                                  "index%d/%s";
        char level[16], type[32], size[32], label[8];
        unsigned long long bytes;
        char *end;
        int dup = 0;

        sb__sys_line(root, level, sizeof level, dir, cpu, idx, "level");
        sb__sys_line(root, type, sizeof type, dir, cpu, idx, "type");
        sb__sys_line(root, size, sizeof size, dir, cpu, idx, "size");
        if (!level[0] || !type[0] || !size[0] ||
            !strcmp(type, "Instruction") || level[0] < '1' ||
            level[0] > '9' || level[1])
            continue;
        bytes = strtoull(size, &end, 10);
        if (*end == 'K')
            bytes <<= 10;
        else if (*end == 'M')
            bytes <<= 20;
        else if (*end == 'G')
            bytes <<= 30;
        if (!bytes || bytes > SIZE_MAX)
            continue;
        snprintf(label, sizeof label, "L%c%s", level[0],
                 level[0] == '1' && !strcmp(type, "Data") ? "d" : "");
        for (size_t k = 0; k < n; k++)
            dup |= !strcmp(out[k].label, label);
        if (dup)
            continue;
        memcpy(out[n].label, label, sizeof label);
        out[n++].bytes = (size_t)bytes;
    }
    return n;
}

int sb__perf_paranoid(const char *root, long *out)
{
    return sb__sys_long(root, out, "%s",
                        "/proc/sys/kernel/perf_event_paranoid");
}

int sb__clocksource(const char *root, char *buf, size_t len)
{
    if (sb__sys_line(root, buf, len, "%s",
                     "/sys/devices/system/clocksource/clocksource0/"
                     "current_clocksource") != 0 ||
        !buf[0])
        return -1;
    return 0;
}
