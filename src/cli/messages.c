/*
 * messages.c: what the command says on stderr, one line at a time and
 * with what it quotes cleaned, and the refusal of bad input (exit 2).
 * Every file of the command says things through here; this file calls
 * none of them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "text.h"

const char *progname = "statbench";

/* One message line on stderr, "statbench: ...", of at most size bytes:
 * the file names and values it quotes have their control characters as
 * '?' (sb__clean_text), so a hostile name cannot reach the terminal as an
 * escape sequence, and the message stays one line. */
static void vsay(size_t size, const char *fmt, va_list ap)
{
    char line[8192];

    vsnprintf(line, size < sizeof line ? size : sizeof line, fmt, ap);
    sb__clean_text(line);
    fprintf(stderr, "%s: %s\n", progname, line);
}

/* One line naming the bad value, then exit 2. */
void die_usage(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay(1024, fmt, ap);
    va_end(ap);
    exit(EXIT_USAGE);
}

void say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay(8192, fmt, ap);
    va_end(ap);
}

void say_lines(const char *prefix, char *text)
{
    char *end;

    while ((end = strchr(text, '\n')) != NULL) {
        *end = '\0';
        say("%s%s", prefix, text);
        text = end + 1;
    }
}
