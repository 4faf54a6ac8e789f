/* error.c: status texts, error filling, version, GSL handler. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "sb_internal.h"

const char *sb_strerror(int code)
{
    switch (code) {
#define SB__CASE(name, value, text) \
    case value:                     \
        return text;
        SB_ERRNO_MAP(SB__CASE)
#undef SB__CASE
    }
    return "unknown error";
}

int sb__error(sb_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    /* Messages quote file names and loaded strings: one clean line. */
    sb__clean_text(err->text);
    return code;
}

int sb__out_size(size_t size, const size_t *known, size_t nknown,
                 const char *what, const char *who, sb_error *err)
{
    for (size_t i = 0; i < nknown; i++)
        if (size == known[i])
            return SB_OK;
    return sb__error(err, SB_EINVAL,
                     "%s: %s.size %zu: unknown to this library (%zu; set it "
                     "to sizeof(%s) before the call)",
                     who, what, size, nknown ? known[0] : 0, what);
}

void sb__out_put(void *out, size_t size, const void *full)
{
    memcpy(out, full, size);
    /* The size field comes first in every layout, and keeps saying
     * which one the caller has. */
    memcpy(out, &size, sizeof size);
}

size_t sb__out_size_of(const void *out)
{
    size_t size;
    memcpy(&size, out, sizeof size);
    return size;
}

static void init_once(void)
{
    /* GSL's default handler aborts the process; the library must not.
     * Every GSL call's return value is checked instead. */
    gsl_set_error_handler_off();
}

void sb_init(void)
{
    /* Once per process, so that threads calling the library at the same
     * time do not race on GSL's global handler. */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

const char *sb_version(void)
{
    /* From AC_INIT through configure, as PACKAGE_VERSION is:
     * tests/test_version checks that the two agree. */
    return SB_VERSION_STRING;
}
