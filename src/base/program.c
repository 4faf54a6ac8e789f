/* program.c: finding a program in $PATH (program.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program.h"

/* A regular file this process may execute: a directory of that name is
 * not a program, though access(X_OK) says yes to it. */
static int runnable(const char *file)
{
    struct stat st;
    return stat(file, &st) == 0 && S_ISREG(st.st_mode) &&
           access(file, X_OK) == 0;
}

char *sb__find_program(const char *name, const char *default_path)
{
    const char *path = getenv("PATH");
    char *found;

    errno = ENOENT;
    if (!name || !*name)
        return NULL;
    if (strchr(name, '/')) {
        if (!runnable(name))
            return NULL;
        if (!(found = strdup(name)))
            errno = ENOMEM;
        return found;
    }
    /* Unset or empty, the default: an empty PATH is not taken for the
     * current directory (execvp's reading), which would run whatever a
     * directory someone else can write holds under the name. */
    if (!path || !*path)
        path = default_path ? default_path : "/usr/bin:/bin";
    /* An empty entry of a PATH that has others, first, between two
     * colons or last, is the current directory, as execvp(3) reads it:
     * the user's own PATH says so. */
    for (;;) {
        size_t len = strcspn(path, ":"), size = len + strlen(name) + 3;
        char *cand = malloc(size);
        if (!cand) {
            errno = ENOMEM;
            return NULL;
        }
        snprintf(cand, size, "%.*s/%s", len ? (int)len : 1,
                 len ? path : ".", name);
        if (runnable(cand))
            return cand;
        free(cand);
        if (!path[len])
            break;
        path += len + 1;
    }
    errno = ENOENT;
    return NULL;
}
