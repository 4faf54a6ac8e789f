/*
 * fuzz_parse.c: libFuzzer harness for the command line's value parsers
 * (src/cli/cli_parse.c): cli_parse_value, cli_parse_list and cli_parse_double.
 *
 * The first byte of the input picks the parser, the rest is the text it
 * parses (copied and NUL-terminated, so an embedded NUL ends it early):
 *   'v' value, CLI_SIZE    'V' value, CLI_INT
 *   'l' list,  CLI_SIZE    'L' list,  CLI_INT
 *   'd' double
 * Any other byte picks one of the five by its value modulo 5, so that
 * every input reaches a parser.  Besides the sanitizers, the harness
 * checks what the header promises: a failure leaves a message, a list has
 * 1 to CLI_LIST_MAX values, a value printed and parsed again is the same
 * value, a double lies strictly inside its bounds.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure leaves a one-line message that fits its buffer. */
static void check_msg(int rc, const char *msg, size_t msglen)
{
    if (rc == 0)
        return;
    CHECK(rc == -1);
    CHECK(msg[0] != '\0');
    CHECK(strlen(msg) < msglen);
    CHECK(strchr(msg, '\n') == NULL);
}

static void value(const char *s, enum cli_value_kind kind)
{
    char msg[256] = "", tiny[8] = "", again[32], fmt[64];
    uint64_t v = 0, w = 0;
    int rc = cli_parse_value(s, kind, &v, msg, sizeof msg);

    check_msg(rc, msg, sizeof msg);
    /* The same input with a short message buffer: truncated, not
     * overrun, and the same verdict. */
    CHECK(cli_parse_value(s, kind, &w, tiny, sizeof tiny) == rc);
    if (rc != 0)
        return;
    CHECK(w == v);
    snprintf(again, sizeof again, "%" PRIu64, v);
    CHECK(cli_parse_value(again, kind, &w, msg, sizeof msg) == 0 && w == v);
    cli_format_size(v, fmt, sizeof fmt);
    CHECK(strlen(fmt) > 0);
    cli_format_size(v, tiny, sizeof tiny);
}

static void list(const char *s, enum cli_value_kind kind)
{
    char msg[256] = "";
    uint64_t *vals = NULL;
    size_t n = 0;
    int rc = cli_parse_list(s, kind, &vals, &n, msg, sizeof msg);

    check_msg(rc, msg, sizeof msg);
    if (rc != 0)
        return;
    CHECK(vals != NULL);
    CHECK(n >= 1 && n <= CLI_LIST_MAX);
    free(vals);
}

static void number(const char *s)
{
    static const double bounds[][2] = {
        {0, 1}, {0, 100}, {-1e300, 1e300}, {1, 1}};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        char msg[256] = "";
        double v = NAN;
        int rc = cli_parse_double(s, bounds[i][0], bounds[i][1], &v, msg,
                                  sizeof msg);
        check_msg(rc, msg, sizeof msg);
        if (rc == 0)
            CHECK(isfinite(v) && v > bounds[i][0] && v < bounds[i][1]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char pick[] = "vVlLd";
    char *s;
    char which;

    if (size == 0)
        return 0;
    which = strchr(pick, data[0]) && data[0] ? (char)data[0]
                                             : pick[data[0] % 5];
    s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    /* Lower case: CLI_SIZE, upper case: CLI_INT. */
    if (which == 'v' || which == 'V')
        value(s, which == 'v' ? CLI_SIZE : CLI_INT);
    else if (which == 'l' || which == 'L')
        list(s, which == 'l' ? CLI_SIZE : CLI_INT);
    else
        number(s);
    free(s);
    return 0;
}
