/* sweep_table.c - a sweep's merged table (see sweep_table.h). */
#include "sweep_table.h"

#include "outfile.h"
#include "sweep_export.h"

#include <xbt/sysdep.h>

#include <stdbool.h>
#include <stdlib.h>

void sweep_table_text_free(struct sweep_text *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->line[i]);
    free(t->line);
    t->line = NULL;
    t->n = 0;
}

int sweep_table_read_text(const char *path, int max, struct sweep_text *t)
{
    FILE *f = fopen(path, "r");
    t->line = xbt_new0(char *, (size_t)max);
    t->n = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len = 0;
    bool bad = f == NULL;
    while (!bad && (len = getline(&buf, &cap, f)) >= 0) {
        bad = t->n == max || len >= SWEEP_LINE_MAX || buf[len - 1] != '\n';
        if (bad) break;
        buf[len - 1] = '\0';
        t->line[t->n++] = xbt_strdup(buf);
    }
    bad = bad || (f != NULL && ferror(f));
    free(buf);
    if (f) fclose(f);
    if (bad) sweep_table_text_free(t);
    return bad ? -1 : 0;
}

/* A row of "-" under the header's columns: each column name's last character becomes "-", the
 * rest blanks, so the dashes stand where the values' right edges stand (they are right-aligned
 * to the same widths as the names: report_summary). */
static void print_dashes(FILE *out, const char *header)
{
    for (const char *c = header; *c; c++)
        fputc(*c == ' ' ? ' ' : (c[1] == ' ' || c[1] == '\0') ? '-' : ' ', out);
}

void sweep_table_print(const struct sweep *sw, FILE *out, char **rows, const char *header)
{
    fprintf(out, "# dmlsim sweep of %s over", sw->file);
    for (int a = 0; a < sw->naxes; a++)
        if (sw->axes[a].nvalues > 1) fprintf(out, " %s", sw->axes[a].path);
    for (int a = 0, first = 1; a < sw->naxes; a++)
        if (sw->axes[a].nvalues == 1) {
            fprintf(out, "%s%s=%s", first ? "; fixed: " : ", ", sw->axes[a].path,
                    sw->axes[a].values[0]);
            first = 0;
        }
    fprintf(out, "\n#");
    for (int a = 0, col = 0; a < sw->naxes; a++)
        if (sw->axes[a].nvalues > 1) fprintf(out, " %*s", col++ == 0 ? 23 : 24, sw->axes[a].path);
    if (header) fprintf(out, " %s", header);
    fprintf(out, " %13s message\n", "status");
    for (int p = 0; p < sw->npoints; p++) {
        fprintf(out, " ");
        for (int a = 0; a < sw->naxes; a++)
            if (sw->axes[a].nvalues > 1) fprintf(out, " %23s", sweep_grid_value(sw, p, a));
        if (header) fputc(' ', out);
        if (rows[p])
            fputs(rows[p], out);
        else if (header)
            print_dashes(out, header);
        fprintf(out, " %13s", sweep_status_name(sw->status[p]));
        if (sw->msg[p]) fprintf(out, " %s", sw->msg[p]);
        fputc('\n', out);
    }
}

void sweep_table_write_to(const void *ctx, FILE *out)
{
    const struct sweep_table *t = ctx;
    sweep_table_print(t->sw, out, t->rows, t->header);
}

int sweep_table_write(const struct sweep *sw, char **rows, const char *header)
{
    struct dmlsim_error err = {0};
    const struct sweep_table t = {sw, rows, header};
    const struct outfile o[] = {{"-o", sw->out, sweep_table_write_to, &t},
                                {"--csv", sw->csv, sweep_export_csv, &t},
                                {"--json", sw->json, sweep_export_json, &t}};
    if (outfile_write(o, 3, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

int sweep_table_check_path(const struct sweep *sw)
{
    struct dmlsim_error err = {0};
    struct outfile o[3 + SWEEP_MAX_EXTRA / 2] = {{"-o", sw->out, sweep_table_write_to, NULL},
                                                 {"--csv", sw->csv, sweep_export_csv, NULL},
                                                 {"--json", sw->json, sweep_export_json, NULL}};
    size_t n = 3;
    for (int e = 0; e + 1 < sw->nextra; e += 2) /* --point's own files: one file per output */
        if (sweep_grid_is_file_option(sw->extra[e]))
            o[n++] = (struct outfile){sw->extra[e], sw->extra[e + 1], sweep_table_write_to, NULL};
    const struct outfile_input in = {"scenario file", sw->file};
    if (outfile_check(o, n, &in, 1, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}
