/* safefile.c: a file written anew beside its name and renamed into place
 * (safefile.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "safefile.h"

/* Random bits for a temporary name; the clock when the kernel has none
 * to give (O_EXCL keeps the name safe either way: the randomness only
 * keeps another user from taking every name in advance). */
static uint64_t random_bits(void)
{
    static _Atomic uint64_t counter; /* sb_plot may run in threads */
    uint64_t r = 0;
    struct timespec ts;

    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
        ((uint64_t)getpid() << 16) ^ ++counter * 0x9e3779b97f4a7c15ull;
    r ^= r >> 31;
    return r * 0xbf58476d1ce4e5b9ull;
}

int sb__replace_begin(const char *path, mode_t mode, char **tmp)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t len = strlen(path);
    char *t = malloc(len + 8);
    int fd = -1, e = EEXIST;

    *tmp = NULL;
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(t, path, len);
    t[len] = '.';
    t[len + 7] = '\0';
    for (int tries = 0; tries < 100 && e == EEXIST; tries++) {
        uint64_t r = random_bits();
        for (int i = 0; i < 6; i++, r /= 62)
            t[len + 1 + i] = chars[r % 62];
        /* A file that replaces one is made private (0600) and only then
         * given the old file's bits: another user must not open it while
         * it is readable and keep reading what follows. */
        fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  mode != (mode_t)-1 ? 0600 : 0666);
        if (fd >= 0) {
            /* The permission bits only: a set-user-ID bit planted on the
             * old file must not come back on a file we wrote.  A file
             * system that refuses chmod (vfat) leaves it 0600: stricter,
             * and the write goes on. */
            if (mode != (mode_t)-1)
                (void)fchmod(fd, mode & 0777);
            *tmp = t;
            return fd;
        }
        e = errno;
    }
    free(t);
    errno = e;
    return -1;
}

int sb__replace_commit(char **tmp, const char *path)
{
    if (rename(*tmp, path) != 0)
        return -1;
    free(*tmp);
    *tmp = NULL;
    return 0;
}

void sb__replace_abort(char **tmp)
{
    int e = errno;
    if (*tmp)
        unlink(*tmp);
    free(*tmp);
    *tmp = NULL;
    errno = e;
}
