/*
 * test_loaded.c: kernels loaded from shared objects (sb_kernel_load_new)
 * and their byte check (sb_kernel_verify), on the objects built from
 * tests/kernel_so.c: the refusals and their messages (constructors that
 * print, exit or wait among them), the warning for a file others may
 * write, one namespace per
 * file (the same file twice shares one), the origin a kernel and a run
 * record (also after the file is gone, through the JSON), init and fini
 * around the cells, a byte check that passes a right kernel at every
 * offset and refuses a short, an overrunning and a crashing one naming
 * the cell, and two builds measured in one run: the one that does three
 * times the work is the slower by far.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statbench.h"
#include "tap.h"

static char dir[4096];

/* The object NAME.so as libtool built it, in buf. */
static const char *so(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s.so", dir, name);
    return buf;
}

/* sb_kernel_load_new must fail with SB_EINVAL, *out NULL, and a message
 * containing needle, without a control character. */
static void refused(const char *path, const char *symbol, const char *name,
                    int family, const char *needle, const char *what)
{
    sb_kernel *k = (sb_kernel *)&k; /* not NULL: the call must clear it */
    sb_error err = {0};
    int rc = sb_kernel_load_new(path, symbol, name, family, &k, &err);
    int clean = 1;

    for (const char *p = err.text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            clean = 0;
    if (!tap_ok(rc == SB_EINVAL && !k && strstr(err.text, needle) && clean,
                "refused: %s", what))
        tap_diag("  rc %d, out %p, message: %s (want '%s')", rc, (void *)k,
                 err.text, needle);
    if (rc == SB_OK)
        sb_kernel_load_free(k);
}

static sb_kernel *load(const char *obj, const char *symbol, const char *name,
                       int family)
{
    char path[4200];
    sb_kernel *k = NULL;
    sb_error err = {0};
    int rc = sb_kernel_load_new(so(path, sizeof path, obj), symbol, name,
                                family, &k, &err);
    if (!tap_ok(rc == SB_OK && k, "%s from %s.so loads as %s", symbol, obj,
                name ? name : symbol))
        tap_diag("  %s", err.text);
    return k;
}

static void test_refusals(const char *tmp)
{
    char path[4200], text[4300];
    FILE *f;

    so(path, sizeof path, "kplain");
    refused("kplain.so", "sbk_copy", NULL, SB_FAMILY_COPY,
            "must contain a '/'", "a path without '/'");
    refused("/nonexistent/x.so", "sbk_copy", NULL, SB_FAMILY_COPY,
            "No such file", "a missing file");
    snprintf(text, sizeof text, "%s/not_elf.so", tmp);
    f = fopen(text, "w");
    if (f) {
        fputs("not an ELF file\n", f);
        fclose(f);
    }
    refused(text, "sbk_copy", NULL, SB_FAMILY_COPY, "no ELF header",
            "a text file");
    refused(tmp, "sbk_copy", NULL, SB_FAMILY_COPY, "not a regular file",
            "a directory");
    refused(path, "nope", NULL, SB_FAMILY_COPY, "no symbol 'nope'",
            "a missing symbol");
    refused(path, "sbk_table", NULL, SB_FAMILY_COPY, "is not a function",
            "a symbol that is data");
    refused(so(text, sizeof text, "kprint"), "sbk_copy", NULL,
            SB_FAMILY_COPY, "(a constructor that prints: \"sbk: hello",
            "an object whose constructor prints");
    refused(so(text, sizeof text, "kexit"), "sbk_copy", NULL, SB_FAMILY_COPY,
            "ended the process, exit status 7",
            "an object whose constructor calls exit (this process lives)");
    refused(so(text, sizeof text, "kwait"), "sbk_copy", NULL, SB_FAMILY_COPY,
            "did not finish in 10 s",
            "an object whose constructor waits (killed after 10 s)");
    refused(path, "sbk copy", NULL, SB_FAMILY_COPY, "not a C identifier",
            "a symbol that is no identifier");
    refused(path, "sbk_copy", "libc", SB_FAMILY_COPY, "built-in",
            "a built-in kernel's name");
    refused(path, "sbk_copy", "a,b", SB_FAMILY_COPY, "letters, digits",
            "a name with a comma");
    refused(path, "sbk_copy", NULL, SB_FAMILY_ALLOC, "copy or a clear",
            "the alloc family");
    refused("./x\033[2J\n.so", "sbk_copy", NULL, SB_FAMILY_COPY,
            "./x?[2J?.so", "a path with an escape and a newline, cleaned");
    {
        sb_kernel *k = (sb_kernel *)&k;
        tap_ok(sb_kernel_load_new(NULL, "s", NULL, 0, &k, NULL) ==
                       SB_EINVAL &&
                   !k,
               "a NULL path is SB_EINVAL and clears out");
        tap_ok(sb_kernel_load_new(path, "sbk_copy", NULL, 0, NULL, NULL) ==
                   SB_EINVAL,
               "a NULL out is SB_EINVAL");
    }
    tap_ok(sb_kernel_loaded(sb_kernel_find("libc")) == NULL &&
               sb_kernel_loaded(NULL) == NULL,
           "a built-in kernel is no loaded one");
    sb_kernel_load_free(NULL); /* harmless */
}

/* path loaded as sbk_copy once the step before it (a copy, a chmod) went
 * well (ready), and freed: 0, with *warn its origin's warning copied into
 * buf (NULL when it has no record of one); -1 after a failed check "what
 * loads: why" when it does not load. */
static int load_warning(const char *path, int ready, const char *what,
                        char *buf, size_t len, const char **warn)
{
    sb_kernel *k = NULL;
    sb_error err = {0};
    const sb_kernel_origin *o;

    if (!ready || sb_kernel_load_new(path, "sbk_copy", "w", SB_FAMILY_COPY,
                                     &k, &err) != SB_OK) {
        tap_ok(0, "%s loads: %s", what, err.text);
        return -1;
    }
    o = sb_kernel_loaded(k);
    *warn = NULL;
    if (o && o->warning) {
        snprintf(buf, len, "%s", o->warning);
        *warn = buf;
    }
    sb_kernel_load_free(k);
    return 0;
}

/* Who may write the file: loaded either way, the warning says so, and
 * the run's record keeps it. */
static void test_writable(const char *tmp)
{
    char src[4200], path[4300], sub[4300], cmd[13000], buf[8192];
    const char *w;

    so(src, sizeof src, "kplain");
    snprintf(path, sizeof path, "%s/open.so", tmp);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, path);
    if (!tap_ok(system(cmd) == 0 && chmod(path, 0644) == 0,
                "a private copy of kplain.so"))
        return;
    if (load_warning(path, 1, "mode 0644", buf, sizeof buf, &w) == 0)
        tap_ok(w && w[0] == '\0',
               "mode 0644 in a private directory: no warning (%s)",
               w ? w : "NULL");
    if (load_warning(path, chmod(path, 0666) == 0, "mode 0666", buf,
                     sizeof buf, &w) == 0)
        tap_ok(w && strstr(w, "writable by others (mode 0666)") &&
                   strstr(w, path),
               "mode 0666: loaded, with a warning naming it: %s",
               w ? w : "?");
    /* A directory anyone may write, without the sticky bit: anyone may
     * rename another file over this one. */
    snprintf(sub, sizeof sub, "%s/open", tmp);
    snprintf(path, sizeof path, "%s/open/k.so", tmp);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", sub, src,
             path);
    if (load_warning(path, system(cmd) == 0 && chmod(sub, 0777) == 0,
                     "in a directory of mode 0777 it", buf, sizeof buf,
                     &w) == 0)
        tap_ok(w && strstr(w, "directory is writable by others without "
                              "the sticky bit"),
               "in a directory of mode 0777: a warning: %s", w ? w : "?");
    if (load_warning(path, chmod(sub, 01777) == 0,
                     "in a directory of mode 01777 it", buf, sizeof buf,
                     &w) == 0)
        tap_ok(w && w[0] == '\0',
               "with the sticky bit (01777, as /tmp): no warning (%s)",
               w ? w : "?");
}

/* The namespaces: sbk_count bumps its object's own counter. */
static void test_namespaces(const char *tmp)
{
    sb_kernel *a = load("kplain", "sbk_count", "a", SB_FAMILY_COPY);
    sb_kernel *b = load("kplain", "sbk_count", "b", SB_FAMILY_COPY);
    sb_kernel *c = load("kheavy", "sbk_count", "c", SB_FAMILY_COPY);
    sb_kernel *d = NULL;
    char path[4200], link[4300];
    size_t va = 0, vb = 0, vc = 0, vd = 0;
    sb_error err = {0};

    so(path, sizeof path, "kplain");
    snprintf(link, sizeof link, "%s/link.so", tmp);
    if (symlink(path, link) != 0 ||
        sb_kernel_load_new(link, "sbk_count", "d", SB_FAMILY_COPY, &d,
                           &err) != SB_OK)
        tap_diag("  the link: %s", err.text);
    if (!a || !b || !c || !d) {
        tap_ok(0, "namespaces: the kernels load");
    } else {
        a->fn(&va, NULL, 0, NULL);
        b->fn(&vb, NULL, 0, NULL);
        c->fn(&vc, NULL, 0, NULL);
        d->fn(&vd, NULL, 0, NULL);
        TAP_IS_INT(vb, va + 1, "one file loaded twice shares a namespace");
        TAP_IS_INT(vd, vb + 1, "the same file by another path shares it");
        TAP_IS_INT(vc, 1, "another file counts in a namespace of its own");
    }
    sb_kernel_load_free(a);
    sb_kernel_load_free(b);
    sb_kernel_load_free(d);
    /* The object stays open for c, and a new load of plain starts anew
     * (its namespace closed with its last kernel). */
    a = load("kplain", "sbk_count", "a2", SB_FAMILY_COPY);
    if (a && c) {
        va = vc = 0;
        a->fn(&va, NULL, 0, NULL);
        c->fn(&vc, NULL, 0, NULL);
        TAP_IS_INT(va, 1, "the last free closes the object: counted anew");
        TAP_IS_INT(vc, 2, "another object's kernel is untouched by it");
    }
    sb_kernel_load_free(a);
    sb_kernel_load_free(c);
}

/* A plan of kernel k: sizes sz at every source offset in 0..nsa-1 and
 * destination offset in 0..nda-1. */
static sb_plan *plan_of(sb_kernel *k, const size_t *sz, size_t nsz,
                        size_t nsa, size_t nda)
{
    sb_plan *p = sb_plan_new();
    for (size_t i = 0; p && i < nsz; i++)
        for (size_t d = 0; d < nda; d++)
            for (size_t s = 0; s < nsa; s++)
                if (sb_plan_add(p, k, sz[i], s, d, NULL) != SB_OK) {
                    sb_plan_free(p);
                    return NULL;
                }
    return p;
}

/* sb_kernel_verify on k over the plan must say rc, with needle in the
 * message when it fails. */
static void verify(sb_kernel *k, const size_t *sz, size_t nsz, size_t nsa,
                   size_t nda, int want, const char *needle, const char *what)
{
    sb_plan *p = k ? plan_of(k, sz, nsz, nsa, nda) : NULL;
    sb_error err = {0};
    int rc = p ? sb_kernel_verify(k, p, &err) : -100;

    if (!tap_ok(rc == want && (!needle || strstr(err.text, needle)),
                "byte check: %s", what))
        tap_diag("  rc %d (want %d): %s (want '%s')", rc, want, err.text,
                 needle ? needle : "");
    sb_plan_free(p);
}

static void test_verify(void)
{
    static const size_t sizes[] = {1, 7, 64, 4097};
    static const size_t one[] = {100};
    sb_kernel *plain = load("kplain", "sbk_copy", "plain", SB_FAMILY_COPY);
    sb_kernel *shrt = load("kshort", "sbk_copy", "short", SB_FAMILY_COPY);
    sb_kernel *over = load("kover", "sbk_copy", "over", SB_FAMILY_COPY);
    sb_kernel *clr = load("kplain", "sbk_clear", NULL, SB_FAMILY_CLEAR);
    sb_kernel *asclr = load("kplain", "sbk_copy", "ascl", SB_FAMILY_CLEAR);
    sb_kernel *crash = load("kplain", "sbk_crash", NULL, SB_FAMILY_COPY);

    verify(plain, sizes, 4, 9, 4, SB_OK, NULL,
           "a right copy passes at every size and offset pair");
    verify(clr, sizes, 4, 9, 4, SB_OK, NULL,
           "a right clear passes at every size and offset pair");
    verify(shrt, one, 1, 1, 1, SB_EINVAL,
           "kernel short, 100 bytes, offsets 0/0: dst[99] is 0x00",
           "a copy that skips the last byte, naming cell and byte");
    verify(over, one, 1, 1, 1, SB_EINVAL,
           "kernel over, 100 bytes, offsets 0/0: dst[100] (a guard byte 1 "
           "past the end)",
           "a copy that writes a byte past the end");
    verify(over, sizes, 4, 9, 4, SB_EINVAL,
           "kernel over, 1 bytes, offsets 0/0: dst[1]",
           "the first wrong cell of the plan is named");
    verify(asclr, one, 1, 1, 1, SB_EINVAL, "(a clear zeroes dst)",
           "a copy loaded as a clear");
    verify(crash, one, 1, 1, 1, SB_EINVAL,
           "kernel sbk_crash, 100 bytes, offsets 0/0: died of signal",
           "a kernel that crashes is refused, and this process lives");
    {
        /* 5000 cells: the representative set, which still holds the
         * smallest size at every offset pair. */
        static const size_t big[] = {64, 128};
        verify(shrt, big, 2, 50, 50, SB_EINVAL, "dst[63] is 0x00",
               "a huge plan: the representative set refuses the short copy");
        verify(plain, big, 2, 50, 50, SB_OK, NULL,
               "a huge plan: the representative set passes a right copy");
    }
    {
        sb_plan *p = sb_plan_new();
        sb_error err = {0};
        tap_ok(plain && p && sb_kernel_verify(plain, p, &err) == SB_EINVAL &&
                   strstr(err.text, "no cell of kernel plain"),
               "byte check: a plan without the kernel is refused");
        tap_ok(sb_kernel_verify(sb_kernel_find("mmap_touch"), p, NULL) ==
                       SB_EINVAL ||
                   !sb_kernel_find("mmap_touch"),
               "byte check: a kernel of its own memory is refused");
        sb_plan_free(p);
    }
    sb_kernel_load_free(plain);
    sb_kernel_load_free(shrt);
    sb_kernel_load_free(over);
    sb_kernel_load_free(clr);
    sb_kernel_load_free(asclr);
    sb_kernel_load_free(crash);
}

/* The options of a short run of exactly two invocations, unpinned. */
static void options(sb_measure_options *o)
{
    sb_measure_options_init(o);
    o->invocations = o->max_invocations = 2;
    o->max_time = 4;
    o->min_samples = 30;
    o->max_samples = 300;
    o->no_pin = 1;
    o->mlock = 0;
}

/* The lines of the fini marker file: each "fini n=4096 calls=K" with K
 * above 0; their number into *lines. */
static int marks_ok(const char *mark, size_t *lines)
{
    FILE *f = fopen(mark, "r");
    char line[128];
    int ok = f != NULL;

    *lines = 0;
    while (f && fgets(line, sizeof line, f)) {
        size_t n = 0, calls = 0;
        if (sscanf(line, "fini n=%zu calls=%zu", &n, &calls) != 2 ||
            n != 4096 || calls == 0)
            ok = 0;
        (*lines)++;
    }
    if (f)
        fclose(f);
    return ok && *lines > 0;
}

static void test_run(const char *tmp)
{
    sb_kernel *old = load("kplain", "sbk_copy", "old", SB_FAMILY_COPY);
    sb_kernel *new = load("kheavy", "sbk_copy", "new", SB_FAMILY_COPY);
    sb_kernel *noinit = load("kplain", "sbk_noinit", NULL, SB_FAMILY_COPY);
    sb_measure_options o;
    sb_plan *p = sb_plan_new();
    sb_run *run = NULL, *back = NULL;
    sb_error err = {0};
    char mark[4200], json[4200];
    size_t lines = 0;
    const sb_kernel_origin *oo = old ? sb_kernel_loaded(old) : NULL;
    struct stat st;
    char path[4200];

    so(path, sizeof path, "kplain");
    tap_ok(oo && !strcmp(oo->name, "old") && !strcmp(oo->symbol, "sbk_copy") &&
               !strcmp(oo->path, path) && stat(path, &st) == 0 &&
               oo->file_size == (uint64_t)st.st_size &&
               oo->file_mtime == (int64_t)st.st_mtime,
           "the origin: name, symbol, path, the file's size and mtime");
    tap_ok(oo && (oo->build_id[0] == '\0' ||
                  strspn(oo->build_id, "0123456789abcdef") ==
                      strlen(oo->build_id)),
           "the build-id is hex, or empty without one (%s)",
           oo ? oo->build_id : "?");
    snprintf(mark, sizeof mark, "%s/fini.txt", tmp);
    remove(mark); /* the byte checks above wrote theirs */
    options(&o);
    if (!old || !new || !p || sb_plan_add(p, old, 4096, 0, 0, &err) ||
        sb_plan_add(p, new, 4096, 0, 0, &err) ||
        sb_run_execute_new(p, &o, NULL, &run, &err) != SB_OK) {
        tap_ok(0, "two builds measured in one run: %s", err.text);
    } else {
        const sb_cell_result *a = sb_run_cell(run, 0), *b = sb_run_cell(run, 1);
        double ratio = b->interval.estimate / a->interval.estimate;
        tap_ok(!strcmp(a->cell.kernel->name, "old") &&
                   !strcmp(b->cell.kernel->name, "new") && a->nsamples &&
                   b->nsamples,
               "both builds have samples in the one run");
        /* Three times the work: ~3 on a quiet machine; 1.5 leaves room
         * for any noise that treats the two alike, as shared rounds do. */
        if (!tap_ok(ratio > 1.5, "the heavy build is the slower by far "
                                 "(ratio %.2f > 1.5)", ratio))
            tap_diag("  old %g, new %g ticks", a->interval.estimate,
                     b->interval.estimate);
        int marked = marks_ok(mark, &lines);
        tap_ok(marked && lines == 4,
               "init and fini around each cell in each invocation: %zu "
               "lines, each with its size and counted calls", lines);
        TAP_IS_INT(sb_run_loaded_count(run), 2, "the run records both");
    }
    sb_plan_free(p);
    /* The run outlives its kernels, as it outlives its plan. */
    sb_kernel_load_free(old);
    sb_kernel_load_free(new);
    if (run) {
        const sb_kernel_origin *r0 = sb_run_loaded(run, 0);
        FILE *f;
        snprintf(json, sizeof json, "%s/run.json", tmp);
        f = fopen(json, "w");
        tap_ok(r0 && !strcmp(r0->name, "old") && !strcmp(r0->path, path) &&
                   sb_run_loaded(run, 2) == NULL,
               "its records stay after the kernels are freed");
        tap_ok(f && sb_report(run, SB_FORMAT_JSON, f, &err) == SB_OK,
               "written as JSON");
        if (f)
            fclose(f);
        f = fopen(json, "r");
        if (!f || sb_run_load_new(f, json, NULL, &back, &err) != SB_OK)
            tap_ok(0, "read back: %s", err.text);
        if (f)
            fclose(f);
    }
    if (back) {
        const sb_kernel_origin *x = sb_run_loaded(run, 1),
                               *y = sb_run_loaded(back, 1);
        tap_ok(sb_run_loaded_count(back) == 2 && x && y &&
                   !strcmp(x->name, y->name) && !strcmp(x->path, y->path) &&
                   !strcmp(x->symbol, y->symbol) &&
                   !strcmp(x->build_id, y->build_id) &&
                   x->file_size == y->file_size &&
                   x->file_mtime == y->file_mtime,
               "the records read back from the JSON, equal");
        tap_ok(!strcmp(sb_run_cell(back, 1)->cell.kernel->name, "new") &&
                   sb_run_cell(back, 1)->cell.kernel->family ==
                       SB_FAMILY_COPY,
               "the cells read back under their names and family");
    }
    sb_run_free(back);
    sb_run_free(run);
    run = NULL;
    p = sb_plan_new();
    o.invocations = 1;
    o.max_invocations = 1;
    if (noinit && p && sb_plan_add(p, noinit, 4096, 0, 0, NULL) == SB_OK) {
        int rc = sb_run_execute_new(p, &o, NULL, &run, &err);
        tap_ok(rc != SB_OK && !run && strstr(err.text, "sbk_noinit_init") &&
                   strstr(err.text, strerror(ENOSPC)),
               "an init that fails fails the run, naming it and its errno "
               "value (%s)", err.text);
    }
    sb_run_free(run);
    sb_plan_free(p);
    sb_kernel_load_free(noinit);
}

/* AddressSanitizer cannot follow a dlmopen namespace: the C library
 * each new namespace loads comes before its runtime there, and the
 * runtime stops the process ("ASan runtime does not come first in
 * initial library list"). */
#if defined(__SANITIZE_ADDRESS__)
#define SB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_TEST_ASAN 1
#endif
#endif

int main(void)
{
    const char *top = getenv("top_builddir");
    char tmp[] = "/tmp/sbloaded.XXXXXX", probe[4200];
    char *real;

    snprintf(dir, sizeof dir, "%s/tests/.libs", top && *top ? top : ".");
#ifdef SB_TEST_ASAN
    {
        /* Refused before anything is opened, with the reason. */
        sb_kernel *k = NULL;
        sb_error e = {0};
        int rc = sb_kernel_load_new(so(probe, sizeof probe, "kplain"),
                                    "sbk_copy", NULL, SB_FAMILY_COPY, &k, &e);
        tap_ok(rc == SB_EUNAVAIL && !k &&
                   strstr(e.text, "has AddressSanitizer"),
               "an AddressSanitizer build refuses a loaded kernel, saying "
               "why: %s", e.text);
        tap_skip("loaded kernels: an AddressSanitizer build cannot load a "
                 "dlmopen namespace");
        return tap_done();
    }
#endif
    /* Absolute, for the symbolic link in tmp. */
    if ((real = realpath(dir, NULL))) {
        snprintf(dir, sizeof dir, "%s", real);
        free(real);
    }
    if (access(so(probe, sizeof probe, "kplain"), R_OK) != 0 ||
        !mkdtemp(tmp)) {
        tap_skip("loaded kernels: no tests/.libs/kplain.so (a build "
                 "without shared libraries)");
        return tap_done();
    }
    /* Before any object is loaded: the file the objects' fini writes to. */
    snprintf(probe, sizeof probe, "%s/fini.txt", tmp);
    setenv("SBK_MARK", probe, 1);
    test_refusals(tmp);
    test_writable(tmp);
    test_namespaces(tmp);
    test_verify();
    test_run(tmp);
    {
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            tap_diag("could not remove %s", tmp);
    }
    return tap_done();
}
