/* test_parse.c: the size, list and range parser, good and bad inputs. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "tap.h"

static void value_ok(const char *s, enum cli_value_kind kind, uint64_t want)
{
    uint64_t v = 0;
    char msg[200] = "";
    int rc = cli_parse_value(s, kind, &v, msg, sizeof msg);
    if (!tap_ok(rc == 0 && v == want, "value '%s' -> %llu", s,
                (unsigned long long)want))
        tap_diag("  rc %d, got %llu, msg '%s'", rc, (unsigned long long)v,
                 msg);
}

/* A bad value must fail with a message that quotes the bad text. */
static void value_bad(const char *s, enum cli_value_kind kind,
                      const char *needle)
{
    uint64_t v = 0;
    char msg[200] = "";
    int rc = cli_parse_value(s, kind, &v, msg, sizeof msg);
    if (!tap_ok(rc == -1 && strstr(msg, needle) != NULL,
                "bad value '%s' rejected naming '%s'", s, needle))
        tap_diag("  rc %d, msg '%s'", rc, msg);
}

/* want is a comma-separated list of the expected values. */
static void list_ok(const char *s, enum cli_value_kind kind, const char *want)
{
    uint64_t *v = NULL;
    size_t n = 0;
    char msg[200] = "", got[1024] = "";
    size_t used = 0;
    int rc = cli_parse_list(s, kind, &v, &n, msg, sizeof msg);
    for (size_t i = 0; rc == 0 && i < n && used < sizeof got - 24; i++)
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%llu",
                                 i ? "," : "", (unsigned long long)v[i]);
    if (!tap_ok(rc == 0 && !strcmp(got, want), "list '%s'", s))
        tap_diag("  rc %d, got '%s', want '%s', msg '%s'", rc, got, want,
                 msg);
    free(v);
}

static void list_bad(const char *s, enum cli_value_kind kind,
                     const char *needle)
{
    uint64_t *v = NULL;
    size_t n = 0;
    char msg[200] = "";
    int rc = cli_parse_list(s, kind, &v, &n, msg, sizeof msg);
    if (!tap_ok(rc == -1 && v == NULL && strstr(msg, needle) != NULL,
                "bad list '%s' rejected: %s", s, msg))
        tap_diag("  rc %d, want a message containing '%s'", rc, needle);
    free(v);
}

/* cli_read_numbers over len bytes of text: its status, the message. */
static int read_text(const char *text, size_t len, double *first, size_t *n,
                     char *msg, size_t msglen)
{
    FILE *f = tmpfile();
    double *v = NULL;
    int rc;

    msg[0] = '\0';
    if (!f || fwrite(text, 1, len, f) != len) {
        snprintf(msg, msglen, "tmpfile failed");
        if (f)
            fclose(f);
        return -9;
    }
    rewind(f);
    rc = cli_read_numbers(f, "in", &v, n, msg, msglen);
    if (rc == 0)
        *first = v[0];
    free(v);
    fclose(f);
    return rc;
}

static void numbers_checks(void)
{
    char msg[256], line[600];
    double d = 0, first = 0;
    size_t n = 0;
    int rc;

    /* Hexadecimal, "inf" and "nan" go through strtod; refused, naming
     * the value. */
    rc = cli_parse_double("0x10", 0, 1e6, &d, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "'0x10'") && strstr(msg, "hexadecimal"),
           "double '0x10' refused as hexadecimal: %s", msg);
    rc = cli_parse_double("0x1p3", 0, 1e6, &d, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "hexadecimal"),
           "double '0x1p3' refused as hexadecimal: %s", msg);
    rc = cli_parse_double("inf", 0, INFINITY, &d, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "not a finite number"),
           "double 'inf' refused as not finite: %s", msg);
    rc = cli_parse_double("1e999", 0, INFINITY, &d, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "too large"),
           "double '1e999' refused as too large: %s", msg);
    /* A subnormal is a finite number. */
    rc = cli_parse_double("1e-320", 0, 1, &d, msg, sizeof msg);
    tap_ok(rc == 0 && d > 0 && d < 1e-310, "double '1e-320' accepted (%s)",
           msg);
    rc = cli_parse_double("1e-400", -1, 1, &d, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "rounds to 0"),
           "double '1e-400' refused as rounding to 0: %s", msg);
    TAP_IS_INT(cli_parse_double(".5", 0, 1, &d, msg, sizeof msg), 0,
               "double '.5' accepted");
    value_bad("0x10", CLI_INT, "hexadecimal");
    value_bad("0X10", CLI_SIZE, "hexadecimal");

    rc = read_text("1\n2\0\n3\n", 7, &first, &n, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "NUL byte in line 2"),
           "a NUL byte is named as such: %s", msg);
    memset(line, ' ', sizeof line);
    line[0] = '7';
    line[CLI_LINE_MAX] = '\n';
    rc = read_text(line, CLI_LINE_MAX + 1, &first, &n, msg, sizeof msg);
    tap_ok(rc == 0 && n == 1 && first == 7,
           "a line of exactly %d characters is read (%s)", CLI_LINE_MAX,
           msg);
    line[CLI_LINE_MAX] = ' ';
    line[CLI_LINE_MAX + 1] = '\n';
    rc = read_text(line, CLI_LINE_MAX + 2, &first, &n, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "longer than 511"),
           "a line of %d characters is refused: %s", CLI_LINE_MAX + 1, msg);
    rc = read_text("1e-320\n", 7, &first, &n, msg, sizeof msg);
    tap_ok(rc == 0 && first > 0 && first < 1e-310,
           "a subnormal line is read (%s)", msg);
    rc = read_text("1e-400\n", 7, &first, &n, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "'1e-400'") && strstr(msg, "rounds to 0"),
           "a line underflowing to 0 is refused: %s", msg);
    rc = read_text("0x10\n", 5, &first, &n, msg, sizeof msg);
    tap_ok(rc == -1 && strstr(msg, "hexadecimal"),
           "a hexadecimal line is refused: %s", msg);
    rc = read_text("5", 1, &first, &n, msg, sizeof msg);
    tap_ok(rc == 0 && n == 1 && first == 5,
           "a last line without newline is read (%s)", msg);
}

int main(void)
{
    char buf[64];
    double d = 0;
    char msg[200];

    /* Sizes and their suffixes (K = 1024). */
    value_ok("0", CLI_SIZE, 0);
    value_ok("4096", CLI_SIZE, 4096);
    value_ok("10K", CLI_SIZE, 10240);
    value_ok("10k", CLI_SIZE, 10240);
    value_ok("256KiB", CLI_SIZE, 262144);
    value_ok("16M", CLI_SIZE, 16777216);
    value_ok("1G", CLI_SIZE, 1073741824);
    value_ok("12B", CLI_SIZE, 12);
    value_ok("18446744073709551615", CLI_INT, UINT64_MAX);

    value_bad("", CLI_SIZE, "empty");
    value_bad("10Q", CLI_SIZE, "10Q");
    value_bad("10Q", CLI_SIZE, "suffix");
    value_bad("-1", CLI_SIZE, "-1");
    value_bad("1.5K", CLI_SIZE, "1.5K");
    value_bad("K", CLI_SIZE, "K");
    value_bad("18446744073709551616", CLI_INT, "too large");
    value_bad("17179869184G", CLI_SIZE, "too large");
    value_bad("8K", CLI_INT, "8K");
    value_bad(" 8", CLI_INT, "not a non-negative integer");

    /* Lists and ranges. */
    list_ok("0..4", CLI_INT, "0,1,2,3,4");
    list_ok("0..32:8", CLI_INT, "0,8,16,24,32");
    list_ok("0..10:4", CLI_INT, "0,4,8");
    list_ok("1,4,0", CLI_INT, "1,4,0");
    list_ok("7", CLI_INT, "7");
    list_ok("3..3", CLI_INT, "3");
    list_ok("512..4K:*2", CLI_SIZE, "512,1024,2048,4096");
    list_ok("1K..5K:*2", CLI_SIZE, "1024,2048,4096");
    list_ok("4K,10240,1M", CLI_SIZE, "4096,10240,1048576");
    list_ok("0..2,8..9", CLI_INT, "0,1,2,8,9");
    list_ok("18446744073709551614..18446744073709551615", CLI_INT,
            "18446744073709551614,18446744073709551615");
    list_ok("1..18446744073709551615:*4294967296", CLI_INT,
            "1,4294967296");

    {
        uint64_t *v = NULL;
        size_t n = 0;
        int rc = cli_parse_list("0..32", CLI_INT, &v, &n, msg, sizeof msg);
        TAP_IS_INT(rc == 0 ? n : 0, 33, "headline range 0..32 has 33 cells");
        free(v);
    }

    list_bad("", CLI_INT, "empty");
    list_bad("4..1", CLI_INT, "start is greater than end");
    list_bad("0..", CLI_INT, "end");
    list_bad("..4", CLI_INT, "start");
    list_bad("0..8:0", CLI_INT, "step must be at least 1");
    list_bad("0..8:x", CLI_INT, "step");
    list_bad("1..8:*1", CLI_INT, "at least 2");
    list_bad("0..8:*2", CLI_INT, "cannot start at 0");
    list_bad("1,,2", CLI_INT, "empty item");
    list_bad("1,2,", CLI_INT, "empty item");
    list_bad("0..1000000", CLI_INT, "more than 100000");
    list_bad("1..2..3", CLI_INT, "2..3");
    list_bad("4,abc", CLI_INT, "abc");
    list_bad("1K..2Z", CLI_SIZE, "2Z");

    /* Levels. */
    TAP_IS_INT(cli_parse_double("95", 0, 100, &d, msg, sizeof msg), 0,
               "--ci 95 accepted");
    TAP_IS_REL(d, 95.0, 0, "--ci 95 value");
    TAP_IS_INT(cli_parse_double("99.9", 0, 100, &d, msg, sizeof msg), 0,
               "--ci 99.9 accepted");
    TAP_IS_INT(cli_parse_double("100", 0, 100, &d, msg, sizeof msg), -1,
               "--ci 100 rejected");
    TAP_IS_INT(cli_parse_double("0", 0, 100, &d, msg, sizeof msg), -1,
               "--ci 0 rejected");
    TAP_IS_INT(cli_parse_double("-5", 0, 100, &d, msg, sizeof msg), -1,
               "--ci -5 rejected");
    TAP_IS_INT(cli_parse_double("nan", 0, 100, &d, msg, sizeof msg), -1,
               "--ci nan rejected");
    TAP_IS_INT(cli_parse_double("95x", 0, 100, &d, msg, sizeof msg), -1,
               "--ci 95x rejected");
    tap_ok(strstr(msg, "95x") != NULL, "message names '95x': %s", msg);

    TAP_IS_STR(cli_format_size(262144, buf, sizeof buf), "262144 B (256 KiB)",
               "format 256 KiB");
    TAP_IS_STR(cli_format_size(10240, buf, sizeof buf), "10240 B (10 KiB)",
               "format 10 KiB");
    TAP_IS_STR(cli_format_size(10000, buf, sizeof buf), "10000 B",
               "format 10000 B");
    TAP_IS_STR(cli_format_size(16777216, buf, sizeof buf),
               "16777216 B (16 MiB)", "format 16 MiB");
    numbers_checks();
    return tap_done();
}
