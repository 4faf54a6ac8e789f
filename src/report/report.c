/*
 * report/report.c: sb_report and the one table of writers it dispatches
 * on, which also gives the formats their names and file endings (the
 * command's --format and -o ask it through sb_format_parse and
 * sb_format_for_path).  The questions every writer asks the same way are
 * in ask.c, below both this dispatcher and the writers.
 * See docs/design.md, "Where a new thing goes": a new writer is a file in
 * src/report/ and a line in the table below.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

typedef struct writer {
    int format;
    const char *name;
    const char *alias;  /* another name --format accepts, or NULL */
    const char *ending; /* the file ending that selects it */
    int (*write)(const sb_run *run, FILE *f, sb_error *err);
} writer;

static const writer writers[] = {
    {SB_FORMAT_TABLE, "table", NULL, ".txt", sb__write_table},
    {SB_FORMAT_CSV, "csv", NULL, ".csv", sb__write_csv},
    {SB_FORMAT_JSON, "json", NULL, ".json", sb__write_json},
    {SB_FORMAT_MARKDOWN, "markdown", "md", ".md", sb__write_markdown},
    {SB_FORMAT_LATEX, "latex", "tex", ".tex", sb__write_latex},
    /* No file ending: .txt is the table's, and a gate's log is read,
     * not opened. */
    {SB_FORMAT_COMPACT, "compact", NULL, NULL, sb__write_compact},
    {SB_FORMAT_HTML, "html", NULL, ".html", sb__write_html},
};
#define NWRITERS (sizeof writers / sizeof writers[0])

static const writer *writer_of(int format)
{
    for (size_t i = 0; i < NWRITERS; i++)
        if (writers[i].format == format)
            return &writers[i];
    return NULL;
}

int sb_format_parse(const char *name)
{
    for (size_t i = 0; name && i < NWRITERS; i++)
        if (!strcmp(name, writers[i].name) ||
            (writers[i].alias && !strcmp(name, writers[i].alias)))
            return writers[i].format;
    return -1;
}

int sb_format_for_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    for (size_t i = 0; dot && i < NWRITERS; i++)
        if (writers[i].ending && !strcmp(dot, writers[i].ending))
            return writers[i].format;
    return -1;
}

const char *sb_format_name(int format)
{
    const writer *w = writer_of(format);
    return w ? w->name : "?";
}

int sb_report(const sb_run *run, int format, FILE *f, sb_error *err)
{
    const writer *w = writer_of(format);
    int rc;
    locale_t c_locale, old = (locale_t)0;

    if (!run || !f)
        return sb__error(err, SB_EINVAL, "sb_report: %s is NULL",
                         !run ? "run" : "f");
    if (!w)
        return sb__error(err, SB_EINVAL, "unknown report format %d", format);
    /* Numbers in the C locale whatever the caller's LC_NUMERIC: a decimal
     * comma would break CSV and JSON.  uselocale is per thread. */
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c_locale)
        old = uselocale(c_locale);
    rc = w->write(run, f, err);
    if (c_locale) {
        uselocale(old);
        freelocale(c_locale);
    }
    return rc;
}
