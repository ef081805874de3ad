/* sweep_merge.c - a sweep's points as files, and their merge (see sweep_merge.h). */
#include "sweep_merge.h"

#include "cmdline.h"
#include "outfile.h"
#include "sweep_grid.h"
#include "sweep_table.h"

#include <xbt/sysdep.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A point's file: "# dmlsim sweep point K of N", the scenario, each axis as given (values
 * re-escaped), each option passed to every point ("# pass --calib FILE"), then the summary's two
 * lines. dmlsim merge reads the axes back with sweep_grid_add_axis and requires the rest to be the
 * same in every file, so points of sweeps run with other options are never joined. */
struct point_file {
    const struct sweep *sw;
    int point; /* 1 .. npoints */
    const char *header, *row;
};

static void write_axes(const struct sweep *sw, FILE *out)
{
    fprintf(out, "# file %s\n", sw->file);
    for (int a = 0; a < sw->naxes; a++) {
        fprintf(out, "# %s %s=", sw->axes[a].zip ? "zip" : "set", sw->axes[a].path);
        for (int v = 0; v < sw->axes[a].nvalues; v++) {
            if (v) fputc(',', out);
            for (const char *c = sw->axes[a].values[v]; *c; c++)
                fprintf(out, "%s%c", *c == ',' || *c == '\\' ? "\\" : "", *c);
        }
        fputc('\n', out);
    }
    for (int e = 0; e + 1 < sw->nextra; e += 2)
        if (!sweep_grid_is_file_option(sw->extra[e]))
            fprintf(out, "# pass %s %s\n", sw->extra[e], sw->extra[e + 1]);
}

static void write_point_to(const void *ctx, FILE *out)
{
    const struct point_file *pf = ctx;
    fprintf(out, "# dmlsim sweep point %d of %d\n", pf->point, pf->sw->npoints);
    write_axes(pf->sw, out);
    fprintf(out, "%s\n%s\n", pf->header, pf->row);
}

int sweep_merge_write_point(const struct sweep *sw, const char *row, const char *header)
{
    const struct point_file pf = {sw, sw->point, header, row};
    if (sw->out == NULL) {
        write_point_to(&pf, stdout);
        return 0;
    }
    struct dmlsim_error err = {0};
    const struct outfile o = {"-o", sw->out, write_point_to, &pf};
    if (outfile_write(&o, 1, &err) == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

/* The sweep a point file describes (its first file: t), into sw; false with why. */
static bool sweep_of(struct sweep *sw, const struct sweep_text *t, char *why, size_t len)
{
    memset(sw, 0, sizeof *sw);
    sw->file = t->line[1] + 7;
    for (int i = 2; i < t->n - 2; i++)
        if (strncmp(t->line[i], "# pass ", 7) != 0 &&
            !sweep_grid_add_axis(sw, t->line[i] + 6, t->line[i][2] == 'z', why, len))
            return false;
    return sw->naxes > 0 && sweep_grid_count(sw, why, len);
}

/* Checks point file `path` (t) against the first one and files its row; 0, or 1 with the
 * message printed. */
static int merge_one(const struct sweep *sw, const char *path, const struct sweep_text *t,
                     const struct sweep_text *first, char **rows)
{
    int k = 0, of = 0, end = 0;
    bool same = t->n == first->n &&
                sscanf(t->line[0], "# dmlsim sweep point %d of %d%n", &k, &of, &end) == 2 &&
                t->line[0][end] == '\0' && of == sw->npoints && k >= 1 && k <= of;
    for (int i = 1; same && i < t->n - 1; i++)
        same = strcmp(t->line[i], first->line[i]) == 0;
    if (!same) {
        fprintf(stderr,
                "%s:1: not a point of the same sweep as the first file (the same grid, "
                "options and columns); expected the files of one `dmlsim sweep --point` "
                "grid\n",
                path);
        return 1;
    }
    if (rows[k - 1] != NULL) {
        fprintf(stderr, "%s:1: point %d is given twice; expected each point once\n", path, k);
        return 1;
    }
    rows[k - 1] = xbt_strdup(t->line[t->n - 1]);
    return 0;
}

/* The first point file, checked for the shape sweep_merge_write_point gives it; 0 or 1. */
static int check_first(const char *path, const struct sweep_text *t, int rc)
{
    bool ok = rc == 0 && t->n >= 5 && strncmp(t->line[0], "# dmlsim sweep point ", 21) == 0 &&
              strncmp(t->line[1], "# file ", 7) == 0;
    for (int i = 2; ok && i < t->n - 2; i++)
        ok = strncmp(t->line[i], "# set ", 6) == 0 || strncmp(t->line[i], "# zip ", 6) == 0 ||
             strncmp(t->line[i], "# pass ", 7) == 0;
    if (ok) return 0;
    fprintf(stderr,
            "%s:1: not a sweep point's file (or cut short); expected the -o file of "
            "`dmlsim sweep --point K`\n",
            path);
    return 1;
}

/* Reads and files every point; 0, or 1 with the message printed. */
static int merge_all(const struct sweep *sw, const struct cli_args *a,
                     const struct sweep_text *first, char **rows)
{
    int status = 0;
    for (int i = 0; i < a->nargs && status == 0; i++) {
        struct sweep_text t = {0};
        if (sweep_table_read_text(a->args[i], SWEEP_POINT_LINES, &t) != 0) {
            fprintf(stderr,
                    "%s:0: cannot read it whole as a sweep point's file; expected the -o "
                    "file of `dmlsim sweep --point K`\n",
                    a->args[i]);
            status = 1;
        } else {
            status = merge_one(sw, a->args[i], &t, first, rows);
        }
        sweep_table_text_free(&t);
    }
    for (int p = 0; p < sw->npoints && status == 0; p++)
        if (rows[p] == NULL) {
            fprintf(stderr,
                    "dmlsim merge: point %d of %d is missing; expected every point of "
                    "the grid\n",
                    p + 1, sw->npoints);
            status = 1;
        }
    return status;
}

/* merge -o must not be one of the files it reads; 0 or 1. */
static int check_merge_output(const struct cli_args *a, const char *out)
{
    struct dmlsim_error err = {0};
    struct outfile_input *in = xbt_new0(struct outfile_input, (size_t)a->nargs);
    for (int i = 0; i < a->nargs; i++)
        in[i] = (struct outfile_input){"point file", a->args[i]};
    const struct outfile o = {"-o", out, sweep_table_write_to, NULL};
    enum dmlsim_err rc = outfile_check(&o, 1, in, (size_t)a->nargs, &err);
    free(in);
    if (rc == DMLSIM_OK) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return 1;
}

int sweep_merge_main(const struct cli_args *a)
{
    char why[256];
    struct sweep sw;
    struct sweep_text first = {0};
    memset(&sw, 0, sizeof sw);
    const char *out = cli_value(a, CLI_OUT); /* sw.out once sweep_of has filled sw */
    int status = out ? check_merge_output(a, out) : 0;
    if (status == 0)
        status = check_first(a->args[0], &first,
                             sweep_table_read_text(a->args[0], SWEEP_POINT_LINES, &first));
    if (status == 0 && !sweep_of(&sw, &first, why, sizeof why)) {
        fprintf(stderr, "%s:1: %s\n", a->args[0], why);
        status = 1;
    }
    char **rows = xbt_new0(char *, sw.npoints + 1);
    if (status == 0) status = merge_all(&sw, a, &first, rows);
    sw.out = out;
    if (status == 0) {
        sweep_table_print(&sw, stdout, rows, first.line[first.n - 2]);
        if (sw.out) status = sweep_table_write(&sw, rows, first.line[first.n - 2]);
    }
    for (int p = 0; p < sw.npoints; p++)
        free(rows[p]);
    free(rows);
    sweep_grid_release(&sw);
    sweep_table_text_free(&first);
    return status;
}
