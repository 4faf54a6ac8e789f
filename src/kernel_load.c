/*
 * kernel_load.c: kernels taken from shared objects (sb_kernel_load_new).
 *
 * Each file is opened with dlmopen(LM_ID_NEWLM) in a link-map namespace
 * of its own, so that two builds of one library, with the same symbol
 * names and the same soname, load side by side and each kernel calls
 * into its own build.  A file loaded twice (the same device and inode,
 * by any path) shares its namespace: a process has only about 16 of
 * them.  The objects are counted here and closed with their last kernel.
 *
 * A loaded kernel is an sb_kernel inside a struct of this file, first,
 * so that the kernel pointer a cell holds leads back to its origin and
 * its optional SYMBOL_init / SYMBOL_fini; its setup hook tells loaded
 * kernels from all others (sb_kernel_loaded).
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loaded.h"
#include "plan.h"
#include "run_internal.h"

/* One shared object, opened once for all its kernels. */
struct sb__object {
    dev_t dev;
    ino_t ino;
    void *handle;
    size_t refs;
    struct sb__object *next;
};

static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sb__object *objects;

/* The optional hooks of a loaded kernel, in the object's own words: no
 * statbench type, so that the object needs no statbench header. */
typedef int (*init_fn)(void **state, size_t n);
typedef void (*fini_fn)(void *state);

struct sb__loaded {
    sb_kernel k; /* first: a cell's kernel pointer leads back here */
    sb_kernel_origin origin;
    struct sb__object *obj;
    init_fn init;
    fini_fn fini;
    char description[256];
    char build_id[2 * 64 + 1];
};

/* ---- setup and teardown ------------------------------------------------- */

/* Which loaded kernel each state came from (sb__pending): two whose
 * init gives the same state (NULL, say) each get their own fini. */
static _Thread_local sb__pending *pending_head;

static int loaded_setup(void **state, const sb_cell *cell, sb_error *err)
{
    const struct sb__loaded *l = (const struct sb__loaded *)cell->kernel;

    *state = NULL;
    if (l->init) {
        int rc = l->init(state, cell->size);
        if (rc != 0) {
            char why[128];
            snprintf(why, sizeof why, "%s",
                     rc > 0 ? strerror(rc) : "not an errno value");
            return sb__error(err, SB_EINVAL,
                             "kernel %s: %s_init(n = %zu) returned %d (%s)",
                             l->k.name, l->origin.symbol, cell->size, rc,
                             why);
        }
    }
    if (sb__pending_push(&pending_head, *state, l) != SB_OK) {
        if (l->fini)
            l->fini(*state);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    return SB_OK;
}

static void loaded_teardown(void *state)
{
    const struct sb__loaded *l = sb__pending_pop(&pending_head, state);
    if (l && l->fini)
        l->fini(state);
}

const sb_kernel_origin *sb_kernel_loaded(const sb_kernel *k)
{
    if (!k || k->size != sizeof(sb_kernel) || k->setup != loaded_setup)
        return NULL;
    return &((const struct sb__loaded *)k)->origin;
}

/* ---- the file ------------------------------------------------------------ */

/* The GNU build-id of the ELF file fd (the native class and byte order
 * only: another one dlmopen refuses anyway) into hex, "" when it has
 * none or the file cannot be read as such.  Every offset and size is
 * checked against the file: it is input. */
static void read_build_id(int fd, off_t fsize, char *hex, size_t len)
{
    ElfW(Ehdr) eh;

    hex[0] = '\0';
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64
                                                      : ELFCLASS32) ||
        eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum > 4096 ||
        eh.e_phoff == 0 || (off_t)eh.e_phoff > fsize)
        return;
    for (size_t i = 0; i < eh.e_phnum; i++) {
        ElfW(Phdr) ph;
        unsigned char note[4096];
        size_t at = 0, n;

        if (pread(fd, &ph, sizeof ph,
                  (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
            return;
        if (ph.p_type != PT_NOTE || ph.p_filesz < sizeof(ElfW(Nhdr)) ||
            (off_t)ph.p_offset > fsize)
            continue;
        n = ph.p_filesz < sizeof note ? (size_t)ph.p_filesz : sizeof note;
        if (pread(fd, note, n, (off_t)ph.p_offset) != (ssize_t)n)
            continue;
        while (at + sizeof(ElfW(Nhdr)) <= n) {
            ElfW(Nhdr) nh;
            size_t name_at, desc_at, next;
            memcpy(&nh, note + at, sizeof nh);
            name_at = at + sizeof nh;
            desc_at = name_at + ((nh.n_namesz + 3u) & ~3u);
            next = desc_at + ((nh.n_descsz + 3u) & ~3u);
            if (nh.n_namesz > n || nh.n_descsz > n || desc_at > n ||
                desc_at + nh.n_descsz > n)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                !memcmp(note + name_at, "GNU", 4) && nh.n_descsz > 0 &&
                2 * (size_t)nh.n_descsz < len) {
                for (size_t b = 0; b < nh.n_descsz; b++)
                    snprintf(hex + 2 * b, 3, "%02x", note[desc_at + b]);
                return;
            }
            at = next;
        }
    }
}

/* The object at path, opened in a namespace of its own or shared with an
 * earlier load of the same file; its counted reference.  Called with
 * objects_lock held. */
static int object_open(const char *path, const char *shown,
                       struct sb__object **out, char *build_id, size_t blen,
                       sb_kernel_origin *o, sb_error *err)
{
    struct stat st;
    unsigned char magic[18];
    struct sb__object *obj;
    void *h;
    int fd;

    *out = NULL;
    /* O_NONBLOCK: a FIFO planted under the name must not hold the call;
     * it is refused below as not a regular file. */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return sb__error(err, SB_EINVAL, "%s: %s", shown, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sb__error(err, SB_EINVAL, "%s: not a regular file", shown);
    }
    /* The ELF header's magic and its type: dlmopen's own message for a
     * text file ("invalid ELF header") does not say what was wrong. */
    if (pread(fd, magic, sizeof magic, 0) != (ssize_t)sizeof magic ||
        memcmp(magic, ELFMAG, SELFMAG)) {
        close(fd);
        return sb__error(err, SB_EINVAL,
                         "%s: not a shared object (no ELF header)", shown);
    }
    {
        /* e_type, in the file's byte order (offset 16). */
        unsigned type = magic[EI_DATA] == ELFDATA2MSB
                            ? (unsigned)magic[16] << 8 | magic[17]
                            : (unsigned)magic[17] << 8 | magic[16];
        if (type != ET_DYN) {
            close(fd);
            return sb__error(err, SB_EINVAL,
                             "%s: an ELF file but not a shared object "
                             "(e_type %u; build it with -shared -fPIC)",
                             shown, type);
        }
    }
    read_build_id(fd, st.st_size, build_id, blen);
    close(fd);
    o->file_size = (uint64_t)st.st_size;
    o->file_mtime = (int64_t)st.st_mtime;

    for (obj = objects; obj; obj = obj->next)
        if (obj->dev == st.st_dev && obj->ino == st.st_ino) {
            obj->refs++;
            *out = obj;
            return SB_OK;
        }
    obj = calloc(1, sizeof *obj);
    if (!obj)
        return sb__error(err, SB_ENOMEM, "out of memory");
    dlerror();
    h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        char why[200];
        snprintf(why, sizeof why, "%s", e ? e : "unknown reason");
        sb__clean_text(why);
        free(obj);
        /* glibc's message names the path again: say ours first. */
        return sb__error(err, SB_EINVAL,
                         "%s: cannot be loaded in a namespace of its own: "
                         "%s", shown, why);
    }
    *obj = (struct sb__object){.dev = st.st_dev, .ino = st.st_ino,
                               .handle = h, .refs = 1, .next = objects};
    objects = obj;
    *out = obj;
    return SB_OK;
}

/* Called with objects_lock held. */
static void object_close(struct sb__object *obj)
{
    if (!obj || --obj->refs)
        return;
    for (struct sb__object **at = &objects; *at; at = &(*at)->next)
        if (*at == obj) {
            *at = obj->next;
            break;
        }
    dlclose(obj->handle);
    free(obj);
}

/* A symbol name as C spells one: the loader looks up nothing else, and a
 * name with '/' or '=' is a slip in the command line that built it. */
static int is_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
              (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* A kernel name that every list and option can carry: letters, digits,
 * '_', '.' and '-' (no ',' of --kernel's lists, no '=' of --baseline's
 * align=N), not a built-in kernel's. */
static int name_refused(const char *name, sb_error *err)
{
    if (!*name)
        return sb__error(err, SB_EINVAL,
                         "sb_kernel_load_new: the kernel's name is empty");
    if (strlen(name) > 64 ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.-") != strlen(name)) {
        char shown[80];
        snprintf(shown, sizeof shown, "%s", name);
        sb__clean_text(shown);
        return sb__error(err, SB_EINVAL,
                         "kernel name '%s': use at most 64 letters, digits, "
                         "'_', '.' and '-'", shown);
    }
    if (sb_kernel_find(name))
        return sb__error(err, SB_EINVAL,
                         "kernel name '%s': the name of a built-in kernel "
                         "(choose another)", name);
    return SB_OK;
}

static char *dup_clean_len(const char *s, size_t max)
{
    char *d = strndup(s, max);
    if (d)
        sb__clean_text(d);
    return d;
}

int sb_kernel_load_new(const char *path, const char *symbol,
                       const char *name, int family, sb_kernel **out,
                       sb_error *err)
{
    struct sb__loaded *l;
    char shown[200], hook[300];
    void *fn;
    int rc;

    if (out)
        *out = NULL;
    if (!path || !symbol || !out)
        return sb__error(err, SB_EINVAL, "sb_kernel_load_new: %s is NULL",
                         !path ? "path" : !symbol ? "symbol" : "out");
    /* What messages show of the path: cut, and its control characters
     * (an escape sequence in a file name) made '?'. */
    snprintf(shown, sizeof shown, "%.150s%s", path,
             strlen(path) > 150 ? "..." : "");
    sb__clean_text(shown);
    if (!name)
        name = symbol;
    if (!strchr(path, '/'))
        return sb__error(err, SB_EINVAL,
                         "%s: the path must contain a '/' (./%s for a file "
                         "here): a bare name would be looked up in the "
                         "library search path",
                         shown, shown);
    if (!is_identifier(symbol) || strlen(symbol) > 128) {
        char s[80];
        snprintf(s, sizeof s, "%s", symbol);
        sb__clean_text(s);
        return sb__error(err, SB_EINVAL,
                         "symbol '%s': not a C identifier of at most 128 "
                         "characters", s);
    }
    if ((rc = name_refused(name, err)) != SB_OK)
        return rc;
    if (family != SB_FAMILY_COPY && family != SB_FAMILY_CLEAR)
        return sb__error(err, SB_EINVAL,
                         "sb_kernel_load_new: family %d: a loaded kernel is "
                         "a copy or a clear (SB_FAMILY_COPY, "
                         "SB_FAMILY_CLEAR)", family);
    l = calloc(1, sizeof *l);
    if (!l)
        return sb__error(err, SB_ENOMEM, "out of memory");
    l->origin.name = strdup(name);
    l->origin.path = dup_clean_len(path, 4096);
    l->origin.symbol = strdup(symbol);
    l->origin.build_id = l->build_id;
    if (!l->origin.name || !l->origin.path || !l->origin.symbol) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto fail;
    }
    pthread_mutex_lock(&objects_lock);
    rc = object_open(path, shown, &l->obj, l->build_id, sizeof l->build_id,
                     &l->origin, err);
    if (rc == SB_OK) {
        dlerror();
        fn = dlsym(l->obj->handle, symbol);
        if (!fn) {
            rc = sb__error(err, SB_EINVAL, "%s: no symbol '%s' in it",
                           shown, symbol);
        } else {
            snprintf(hook, sizeof hook, "%s_init", symbol);
            *(void **)&l->init = dlsym(l->obj->handle, hook);
            snprintf(hook, sizeof hook, "%s_fini", symbol);
            *(void **)&l->fini = dlsym(l->obj->handle, hook);
            *(void **)&l->k.fn = fn;
        }
    }
    if (rc != SB_OK) {
        object_close(l->obj);
        l->obj = NULL;
    }
    pthread_mutex_unlock(&objects_lock);
    if (rc != SB_OK)
        goto fail;
    {
        const char *base = strrchr(l->origin.path, '/') + 1;
        snprintf(l->description, sizeof l->description,
                 "%.64s from %.100s%s%.40s%s", symbol, base,
                 l->build_id[0] ? " (build-id " : "",
                 l->build_id[0] ? l->build_id : "",
                 l->build_id[0] ? ")" : "");
    }
    l->k = (sb_kernel){.size = sizeof(sb_kernel),
                       .name = l->origin.name,
                       .family = (enum sb_family)family,
                       .description = l->description,
                       .features = 0,
                       .fn = l->k.fn,
                       .setup = loaded_setup,
                       .teardown = loaded_teardown,
                       .available = NULL,
                       .flags = 0};
    *out = &l->k;
    return SB_OK;
fail:
    free((char *)l->origin.name);
    free((char *)l->origin.path);
    free((char *)l->origin.symbol);
    free(l);
    return rc;
}

void sb_kernel_load_free(sb_kernel *k)
{
    struct sb__loaded *l;

    if (!sb_kernel_loaded(k))
        return;
    l = (struct sb__loaded *)k;
    pthread_mutex_lock(&objects_lock);
    object_close(l->obj);
    pthread_mutex_unlock(&objects_lock);
    free((char *)l->origin.name);
    free((char *)l->origin.path);
    free((char *)l->origin.symbol);
    free(l);
}

/* ---- what a run keeps ---------------------------------------------------- */

int sb__run_add_loaded(sb_run *run, const sb_kernel_origin *o)
{
    sb_kernel_origin *grown, *n;

    for (size_t i = 0; i < run->nloaded; i++)
        if (!strcmp(run->loaded[i].name, o->name))
            return SB_OK; /* one record per name */
    grown = realloc(run->loaded, (run->nloaded + 1) * sizeof *grown);
    if (!grown)
        return SB_ENOMEM;
    run->loaded = grown;
    n = &grown[run->nloaded];
    n->name = dup_clean_len(o->name, 256);
    n->path = dup_clean_len(o->path, 4096);
    n->symbol = dup_clean_len(o->symbol, 256);
    n->build_id = dup_clean_len(o->build_id ? o->build_id : "", 256);
    n->file_size = o->file_size;
    n->file_mtime = o->file_mtime;
    if (!n->name || !n->path || !n->symbol || !n->build_id) {
        free((char *)n->name);
        free((char *)n->path);
        free((char *)n->symbol);
        free((char *)n->build_id);
        return SB_ENOMEM;
    }
    run->nloaded++;
    return SB_OK;
}

void sb__run_free_loaded(sb_run *run)
{
    for (size_t i = 0; i < run->nloaded; i++) {
        free((char *)run->loaded[i].name);
        free((char *)run->loaded[i].path);
        free((char *)run->loaded[i].symbol);
        free((char *)run->loaded[i].build_id);
    }
    free(run->loaded);
    run->loaded = NULL;
    run->nloaded = 0;
}

size_t sb_run_loaded_count(const sb_run *run)
{
    return run ? run->nloaded : 0;
}

const sb_kernel_origin *sb_run_loaded(const sb_run *run, size_t i)
{
    return run && i < run->nloaded ? &run->loaded[i] : NULL;
}
