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

#if defined(__SANITIZE_ADDRESS__)
#define SB_LOAD_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_LOAD_UNDER_ASAN 1
#endif
#endif

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loaded.h"
#include "pending.h"
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
    char warning[512];
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
    return sb__pending_push(&pending_head, *state, l, l->fini, err);
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

/* How long a trial load may take: a constructor that waits on something
 * that never comes must not hold the caller. */
#define TRIAL_SECONDS 10

/* What a file's mode and its directory's allow others: "" when nothing,
 * else a warning for the record.  Anyone who may write the file may
 * change the code measured between two runs, or between the check and
 * the run; anyone who may write a directory without the sticky bit may
 * replace the file. */
static void others_may_write(const char *path, const char *shown,
                             const struct stat *st, char *buf, size_t len)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t dlen = slash && slash > path ? (size_t)(slash - path) : 1;
    struct stat ds;

    buf[0] = '\0';
    if (st->st_mode & S_IWOTH) {
        snprintf(buf, len,
                 "%s is writable by others (mode %04o): anyone on this "
                 "host may change the code measured",
                 shown, (unsigned)(st->st_mode & 07777));
        return;
    }
    if (dlen >= sizeof dir)
        return;
    memcpy(dir, path, dlen);
    dir[dlen] = '\0';
    if (stat(dir, &ds) == 0 && (ds.st_mode & S_IWOTH) &&
        !(ds.st_mode & S_ISVTX))
        snprintf(buf, len,
                 "%s: its directory is writable by others without the "
                 "sticky bit (mode %04o): anyone on this host may replace "
                 "the file",
                 shown, (unsigned)(ds.st_mode & 07777));
}

/* The name dlmopen is given for the file open at fd: the descriptor's
 * own name under /proc, so that the file loaded is the one checked,
 * whatever the path names by then; the path itself where /proc is not
 * mounted. */
static const char *load_name(int fd, const char *path, char *buf,
                             size_t len)
{
    snprintf(buf, len, "/proc/self/fd/%d", fd);
    return access(buf, F_OK) == 0 ? buf : path;
}

/* The trial child: the load, its standard output and error on the pipe
 * out, then whether it loaded ('y' or 'n') on the pipe done.  It flushes
 * the new namespace's own stdio (a libc of its own: its buffers are not
 * the caller's) and leaves with _exit, so that no handler of the caller
 * runs there. */
_Noreturn static void trial_child(const char *name, int out, int done)
{
    void *h;
    char mark;

    if (dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(125);
    h = dlmopen(LM_ID_NEWLM, name, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        /* The namespace's own fflush, from its own libc. */
        int (*ff)(FILE *);
        *(void **)&ff = dlsym(h, "fflush");
        if (ff)
            ff(NULL);
    }
    mark = h ? 'y' : 'n';
    if (write(done, &mark, 1) != 1)
        _exit(124);
    _exit(0);
}

/* The parent's side of the trial: the read ends out[0] and done[0] read
 * until both are closed or TRIAL_SECONDS have passed.  What the child
 * printed goes into got (at most len - 1 bytes, *ngot of them, *said set
 * when anything came), its word into *mark; a pipe read to its end is
 * closed and its descriptor made -1.  1 when both pipes ended, 0 when
 * the time ran out or nothing more could be read. */
static int trial_wait(int out[2], int done[2], char *got, size_t len,
                      size_t *ngot, int *said, char *mark)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        struct pollfd p[2] = {{.fd = out[0], .events = POLLIN},
                              {.fd = done[0], .events = POLLIN}};
        long left;
        clock_gettime(CLOCK_MONOTONIC, &t);
        left = TRIAL_SECONDS * 1000L - ((t.tv_sec - t0.tv_sec) * 1000L +
                                        (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            return 0;
        /* A closed pipe is -1 here, which poll skips. */
        if (poll(p, 2, (int)left) < 0) {
            if (errno == EINTR)
                continue;
            return 0; /* nothing more can be read: the child goes */
        }
        if (p[0].revents) {
            char b[256];
            ssize_t n = read(out[0], b, sizeof b);
            if (n > 0) {
                size_t take = (size_t)n < len - 1 - *ngot
                                  ? (size_t)n
                                  : len - 1 - *ngot;
                memcpy(got + *ngot, b, take);
                *ngot += take;
                *said = 1;
            } else if (n == 0 || errno != EINTR) {
                close(out[0]);
                out[0] = -1;
            }
        }
        if (p[1].revents) {
            ssize_t n = read(done[0], mark, 1);
            if (n != 0 && n != 1 && errno == EINTR)
                continue;
            close(done[0]);
            done[0] = -1;
        }
        if (out[0] < 0 && done[0] < 0)
            return 1;
    }
}

/* The trial's outcome, from what the child printed (got, when said), its
 * word (mark), whether it finished in time and its wait status. */
static int trial_verdict(const char *shown, char *got, int said, char mark,
                         int finished, int status, sb_error *err)
{
    if (said) {
        char *nl = strchr(got, '\n');
        if (nl)
            *nl = '\0';
        sb__clean_text(got);
        return sb__error(err, SB_EINVAL,
                         "%s: loading it writes to standard output or error "
                         "(a constructor that prints: \"%.80s\"), which "
                         "would mix with the run's output",
                         shown, got);
    }
    if (mark == 'y' && finished && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0)
        return SB_OK;
    if (mark == 'n')
        return SB_OK; /* dlmopen's own reason follows, from the real load */
    if (!finished)
        return sb__error(err, SB_EINVAL,
                         "%s: loading it did not finish in %d s (a "
                         "constructor that waits), in a trial process",
                         shown, TRIAL_SECONDS);
    if (WIFEXITED(status))
        return sb__error(err, SB_EINVAL,
                         "%s: loading it ended the process, exit status %d "
                         "(a constructor that calls exit), in a trial "
                         "process",
                         shown, WEXITSTATUS(status));
    return sb__error(err, SB_EINVAL,
                     "%s: loading it killed the process with signal %d "
                     "(%s), in a trial process",
                     shown, WTERMSIG(status), strsignal(WTERMSIG(status)));
}

/* Load the file at name in a child first, its standard output and error
 * caught: a constructor that prints (into the caller's output: a table,
 * JSON), calls exit (which would end the caller's process) or never
 * returns is refused before it runs in the caller. */
static int trial_load(const char *name, const char *shown, sb_error *err)
{
    int out[2], done[2];
    pid_t pid;
    char got[256], mark = 0;
    size_t ngot = 0;
    int status = 0, finished, said = 0;

    if (pipe2(out, O_CLOEXEC) != 0)
        return sb__error(err, SB_ESYS, "%s: cannot try the load: pipe: %s",
                         shown, strerror(errno));
    if (pipe2(done, O_CLOEXEC) != 0) {
        int e = errno;
        close(out[0]);
        close(out[1]);
        return sb__error(err, SB_ESYS, "%s: cannot try the load: pipe: %s",
                         shown, strerror(e));
    }
    fflush(NULL); /* nothing of the caller's buffered output twice */
    pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out[0]);
        close(out[1]);
        close(done[0]);
        close(done[1]);
        return sb__error(err, SB_ESYS, "%s: cannot try the load: fork: %s",
                         shown, strerror(e));
    }
    if (pid == 0)
        trial_child(name, out[1], done[1]);
    close(out[1]);
    close(done[1]);
    finished = trial_wait(out, done, got, sizeof got, &ngot, &said, &mark);
    if (out[0] >= 0)
        close(out[0]);
    if (done[0] >= 0)
        close(done[0]);
    /* Both pipes closed: the child has left, or is leaving (its
     * descriptors close before it can be waited for), so it is waited
     * for; past its time it is killed first. */
    if (!finished)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    got[ngot] = '\0';
    return trial_verdict(shown, got, said, mark, finished, status, err);
}

/* The object at path, opened in a namespace of its own or shared with an
 * earlier load of the same file; its counted reference.  The file is
 * opened once: what is checked (a regular file, an ELF shared object,
 * its build-id, who may write it) is what is loaded.  Called with
 * objects_lock held. */
static int object_open(const char *path, const char *shown,
                       struct sb__object **out, char *build_id, size_t blen,
                       sb_kernel_origin *o, char *warning, size_t wlen,
                       sb_error *err)
{
    struct stat st;
    unsigned char magic[18];
    struct sb__object *obj;
    char fdname[64];
    const char *name;
    void *h;
    int fd, rc;

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
    others_may_write(path, shown, &st, warning, wlen);
    o->file_size = (uint64_t)st.st_size;
    o->file_mtime = (int64_t)st.st_mtime;

    for (obj = objects; obj; obj = obj->next)
        if (obj->dev == st.st_dev && obj->ino == st.st_ino) {
            close(fd);
            obj->refs++;
            *out = obj;
            return SB_OK;
        }
    obj = calloc(1, sizeof *obj);
    if (!obj) {
        close(fd);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    name = load_name(fd, path, fdname, sizeof fdname);
    if ((rc = trial_load(name, shown, err)) != SB_OK) {
        close(fd);
        free(obj);
        return rc;
    }
    dlerror();
    h = dlmopen(LM_ID_NEWLM, name, RTLD_NOW | RTLD_LOCAL);
    close(fd); /* the loader has mapped what it needs */
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

/* Whether the symbol at addr is a function: its ELF symbol's type is
 * STT_FUNC or STT_GNU_IFUNC.  A symbol the loader cannot describe is
 * taken as one (dlsym found it; nothing says otherwise). */
static int is_function(void *addr)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;

    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
        return 1;
    return ELF64_ST_TYPE(sym->st_info) == STT_FUNC ||
           ELF64_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
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
        sb__clean_into(shown, sizeof shown, name);
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

/* The arguments of sb_kernel_load_new past their NULL checks: a path
 * with a '/', a symbol C can name, a name every list can carry, a copy or
 * clear family.  shown is the path as messages show it. */
static int load_args_refused(const char *path, const char *shown,
                             const char *symbol, const char *name,
                             int family, sb_error *err)
{
    int rc;

    if (!strchr(path, '/'))
        return sb__error(err, SB_EINVAL,
                         "%s: the path must contain a '/' (./%s for a file "
                         "here): a bare name would be looked up in the "
                         "library search path",
                         shown, shown);
    if (!is_identifier(symbol) || strlen(symbol) > 128) {
        char s[80];
        sb__clean_into(s, sizeof s, symbol);
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
    return SB_OK;
}

/* The kernel's function and its optional SYMBOL_init and SYMBOL_fini,
 * looked up in l's object; the function must be one.  Called with
 * objects_lock held. */
static int symbols_bind(struct sb__loaded *l, const char *symbol,
                        const char *shown, sb_error *err)
{
    char hook[300];
    void *fn;

    dlerror();
    fn = dlsym(l->obj->handle, symbol);
    if (!fn)
        return sb__error(err, SB_EINVAL, "%s: no symbol '%s' in it", shown,
                         symbol);
    if (!is_function(fn))
        return sb__error(err, SB_EINVAL,
                         "%s: symbol '%s' is not a function (data, or "
                         "another kind of symbol): a kernel is a "
                         "function of the sb_kernel_fn shape",
                         shown, symbol);
    snprintf(hook, sizeof hook, "%s_init", symbol);
    *(void **)&l->init = dlsym(l->obj->handle, hook);
    snprintf(hook, sizeof hook, "%s_fini", symbol);
    *(void **)&l->fini = dlsym(l->obj->handle, hook);
    *(void **)&l->k.fn = fn;
    return SB_OK;
}

/* The kernel l's object now holds, its function bound: its description
 * (the symbol, the file's name, its build-id) and the sb_kernel a plan
 * takes, whose hooks mark it as loaded. */
static void loaded_finish(struct sb__loaded *l, const char *symbol,
                          int family)
{
    const char *base = strrchr(l->origin.path, '/') + 1;

    snprintf(l->description, sizeof l->description,
             "%.64s from %.100s%s%.40s%s", symbol, base,
             l->build_id[0] ? " (build-id " : "",
             l->build_id[0] ? l->build_id : "",
             l->build_id[0] ? ")" : "");
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
}

int sb_kernel_load_new(const char *path, const char *symbol,
                       const char *name, int family, sb_kernel **out,
                       sb_error *err)
{
    struct sb__loaded *l;
    char shown[200];
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
    rc = load_args_refused(path, shown, symbol, name, family, err);
    if (rc != SB_OK)
        return rc;
#ifdef SB_LOAD_UNDER_ASAN
    /* AddressSanitizer stops the process when a new namespace loads its
     * own C library ahead of the runtime, inside the load: refused here,
     * with the reason, before anything is opened. */
    return sb__error(err, SB_EUNAVAIL,
                     "%s: this build has AddressSanitizer, which cannot "
                     "follow the link-map namespace a kernel is loaded in "
                     "(dlmopen): load kernels with a build without it",
                     shown);
#endif
    l = calloc(1, sizeof *l);
    if (!l)
        return sb__error(err, SB_ENOMEM, "out of memory");
    l->origin.name = strdup(name);
    l->origin.path = dup_clean_len(path, 4096);
    l->origin.symbol = strdup(symbol);
    l->origin.build_id = l->build_id;
    l->origin.warning = l->warning;
    if (!l->origin.name || !l->origin.path || !l->origin.symbol) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto fail;
    }
    pthread_mutex_lock(&objects_lock);
    rc = object_open(path, shown, &l->obj, l->build_id, sizeof l->build_id,
                     &l->origin, l->warning, sizeof l->warning, err);
    if (rc == SB_OK)
        rc = symbols_bind(l, symbol, shown, err);
    if (rc != SB_OK) {
        object_close(l->obj);
        l->obj = NULL;
    }
    pthread_mutex_unlock(&objects_lock);
    if (rc != SB_OK)
        goto fail;
    loaded_finish(l, symbol, family);
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
    n->warning = dup_clean_len(o->warning ? o->warning : "", 512);
    n->file_size = o->file_size;
    n->file_mtime = o->file_mtime;
    if (!n->name || !n->path || !n->symbol || !n->build_id || !n->warning) {
        free((char *)n->name);
        free((char *)n->path);
        free((char *)n->symbol);
        free((char *)n->build_id);
        free((char *)n->warning);
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
        free((char *)run->loaded[i].warning);
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
