/* sweep_export.c - a sweep's merged table as CSV and JSON (see sweep_export.h). */
#include "sweep_export.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The next blank-separated word of *c (its start and length); false at the end of the line. */
static bool next_word(const char **c, const char **word, size_t *len)
{
    while (**c == ' ')
        (*c)++;
    if (**c == '\0') return false;
    *word = *c;
    while (**c != ' ' && **c != '\0')
        (*c)++;
    *len = (size_t)(*c - *word);
    return true;
}

/* One CSV field (RFC 4180): double-quoted when it holds a comma, a quote, a line break or a
 * blank at either end, its quotes doubled. */
static void csv_field(FILE *out, const char *s, size_t len)
{
    bool quote = len > 0 && (isspace((unsigned char)s[0]) || isspace((unsigned char)s[len - 1]));
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (quote) fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"') fputc('"', out);
        fputc(s[i], out);
    }
    if (quote) fputc('"', out);
}

/* A JSON string (RFC 8259 section 7): quote, backslash and control characters escaped. */
static void json_string(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

/* A summary value as a JSON number: verbatim when it is one (report_summary's %.Nf gives
 * -?digits[.digits]), null when not finite ("nan", "inf"), else as strtod reads it. */
static void json_number(FILE *out, const char *s, size_t len)
{
    size_t i = s[0] == '-';
    bool plain = i < len && isdigit((unsigned char)s[i]);
    for (bool dot = false; plain && i < len; i++) {
        if (s[i] == '.' && !dot && i + 1 < len) {
            dot = true;
            continue;
        }
        plain = isdigit((unsigned char)s[i]);
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)len, s);
    double v = strtod(buf, NULL);
    if (plain)
        fwrite(s, 1, len, out);
    else if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

void sweep_export_csv(const void *ctx, FILE *out)
{
    const struct sweep_table *t = ctx;
    const struct sweep *sw = t->sw;
    const char *c = t->header ? t->header : "", *w;
    size_t len;
    for (int a = 0; a < sw->naxes; a++) {
        csv_field(out, sw->axes[a].path, strlen(sw->axes[a].path));
        fputc(',', out);
    }
    while (next_word(&c, &w, &len)) {
        csv_field(out, w, len);
        fputc(',', out);
    }
    fputs("status,message\n", out);
    for (int p = 0; p < sw->npoints; p++) {
        for (int a = 0; a < sw->naxes; a++) {
            const char *v = sweep_grid_value(sw, p, a);
            csv_field(out, v, strlen(v));
            fputc(',', out);
        }
        const char *h = t->header ? t->header : "", *r = t->rows[p] ? t->rows[p] : "", *rw;
        size_t rlen;
        while (next_word(&h, &w, &len)) { /* a value per column, empty where the point has none */
            if (next_word(&r, &rw, &rlen)) csv_field(out, rw, rlen);
            fputc(',', out);
        }
        const char *msg = sw->msg[p] ? sw->msg[p] : "";
        fprintf(out, "%s,", sweep_status_name(sw->status[p]));
        csv_field(out, msg, strlen(msg));
        fputc('\n', out);
    }
}

/* Point p as one JSON object. */
static void json_point(const struct sweep_table *t, int p, FILE *out)
{
    const struct sweep *sw = t->sw;
    const char *h = t->header ? t->header : "", *r = t->rows[p] ? t->rows[p] : "", *w, *rw;
    size_t len, rlen;
    fputs("  {", out);
    for (int a = 0; a < sw->naxes; a++) {
        const char *v = sweep_grid_value(sw, p, a);
        json_string(out, sw->axes[a].path, strlen(sw->axes[a].path));
        fputs(": ", out);
        json_string(out, v, strlen(v));
        fputs(", ", out);
    }
    while (next_word(&h, &w, &len)) {
        json_string(out, w, len);
        fputs(": ", out);
        if (next_word(&r, &rw, &rlen))
            json_number(out, rw, rlen);
        else
            fputs("null", out);
        fputs(", ", out);
    }
    const char *msg = sw->msg[p] ? sw->msg[p] : "";
    fprintf(out, "\"status\": \"%s\", \"message\": ", sweep_status_name(sw->status[p]));
    json_string(out, msg, strlen(msg));
    fputc('}', out);
}

void sweep_export_json(const void *ctx, FILE *out)
{
    const struct sweep_table *t = ctx;
    fputs("[\n", out);
    for (int p = 0; p < t->sw->npoints; p++) {
        json_point(t, p, out);
        fputs(p + 1 < t->sw->npoints ? ",\n" : "\n", out);
    }
    fputs("]\n", out);
}
