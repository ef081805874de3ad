/* sweep_grid.c - a sweep's grid and options (see sweep_grid.h). */
#include "sweep_grid.h"

#include "cmdline.h"

#include <xbt/sysdep.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sweep_usage(const char *why)
{
    return cli_error(cli_find("sweep"), why);
}

const char *sweep_grid_value(const struct sweep *sw, int p, int a)
{
    const struct sweep_axis *ax = &sw->axes[a];
    return ax->values[(p / ax->stride) % ax->nvalues];
}

/* Splits LIST at its unescaped commas ("\\," is a comma, "\\\\" a backslash) into ax's values;
 * false with why for a trailing lone backslash or an empty value. */
static bool split_values(struct sweep_axis *ax, const char *list, char *why, size_t len)
{
    char *v = xbt_malloc(strlen(list) + 1);
    size_t n = 0;
    bool empty = false;
    for (const char *c = list;; c++) {
        if (*c == '\\' && (c[1] == ',' || c[1] == '\\')) {
            v[n++] = *++c;
            continue;
        }
        empty |= *c == '\\' && c[1] == '\0'; /* a lone backslash at the end: refused */
        if (*c != ',' && *c != '\0') {
            v[n++] = *c;
            continue;
        }
        v[n] = '\0';
        empty |= n == 0;
        ax->values = xbt_realloc(ax->values, (ax->nvalues + 1) * sizeof *ax->values);
        ax->values[ax->nvalues++] = xbt_strdup(v);
        n = 0;
        if (*c == '\0') break;
    }
    free(v);
    snprintf(why, len,
             "--%s %s: an empty value or a lone backslash at the end; expected V1,V2,... (\\, for "
             "a comma inside one, \\\\ for a backslash)",
             ax->zip ? "zip" : "set", ax->path);
    return !empty;
}

bool sweep_grid_add_axis(struct sweep *sw, const char *spec, bool zip, char *why, size_t len)
{
    const char *eq = strchr(spec, '=');
    size_t klen = eq ? (size_t)(eq - spec) : 0;
    if (eq == NULL || klen == 0 || eq[1] == '\0' || sw->naxes == SWEEP_MAX_AXES ||
        klen >= sizeof sw->axes[0].path || strchr(spec, '\n') != NULL) {
        snprintf(why, len, "--%s expects ELEM.ATTR=V1,V2,... on one line (at most 8 axes)",
                 zip ? "zip" : "set");
        return false;
    }
    for (int a = 0; a < sw->naxes; a++)
        if (strlen(sw->axes[a].path) == klen && strncmp(sw->axes[a].path, spec, klen) == 0) {
            snprintf(why, len, "--%s %.*s is given twice; expected each axis once",
                     zip ? "zip" : "set", (int)klen, spec);
            return false;
        }
    struct sweep_axis *ax = &sw->axes[sw->naxes++];
    snprintf(ax->path, sizeof ax->path, "%.*s", (int)klen, spec);
    ax->zip = zip;
    return split_values(ax, eq + 1, why, len);
}

/* The --zip axes' common length; false with why when they differ. */
static bool zip_length(const struct sweep *sw, int *len, char *why, size_t wlen)
{
    *len = 0;
    for (int a = 0; a < sw->naxes; a++) {
        if (!sw->axes[a].zip) continue;
        if (*len != 0 && sw->axes[a].nvalues != *len) {
            snprintf(why, wlen, "--zip %s has %d value(s), another --zip axis %d; expected as many",
                     sw->axes[a].path, sw->axes[a].nvalues, *len);
            return false;
        }
        *len = sw->axes[a].nvalues;
    }
    return true;
}

/* Each axis's stride: the dimensions are the --set axes and, where the first --zip axis
 * stands, the --zip axes together (zip values each); the last dimension is the fastest. */
static void set_strides(struct sweep *sw, int zip)
{
    int stride = 1, first_zip = -1;
    for (int a = 0; a < sw->naxes && first_zip < 0; a++)
        if (sw->axes[a].zip) first_zip = a;
    for (int a = sw->naxes - 1; a >= 0; a--) {
        if (sw->axes[a].zip && a != first_zip) continue;
        if (a == first_zip) {
            for (int b = 0; b < sw->naxes; b++)
                if (sw->axes[b].zip) sw->axes[b].stride = stride;
            stride *= zip;
        } else {
            sw->axes[a].stride = stride;
            stride *= sw->axes[a].nvalues;
        }
    }
}

const char *sweep_status_name(enum sweep_status s)
{
    static const char *const names[] = {"ok", "job-failed", "expect-failed", "refused", "error"};
    return names[s];
}

int sweep_exit_status(const struct sweep *sw)
{
    enum sweep_status worst = SWEEP_OK;
    for (int p = 0; p < sw->npoints; p++)
        if (sw->status[p] > worst) worst = sw->status[p];
    return worst <= SWEEP_JOB_FAILED ? 0 : worst == SWEEP_EXPECT_FAILED ? 3 : 1;
}

bool sweep_grid_count(struct sweep *sw, char *why, size_t len)
{
    int zip;
    if (!zip_length(sw, &zip, why, len)) return false;
    uint64_t n = 1;
    int used = snprintf(why, len, "the grid has");
    for (int a = sw->naxes - 1, zip_seen = 0; a >= 0; a--) {
        struct sweep_axis *ax = &sw->axes[a];
        bool last_zip = ax->zip && !zip_seen++; /* the zip dimension, counted once */
        if (ax->zip && !last_zip) continue;
        if (n <= SWEEP_MAX_POINTS) n *= (uint64_t)ax->nvalues;
    }
    for (int a = 0; a < sw->naxes; a++)
        if (used >= 0 && (size_t)used < len)
            used += snprintf(why + used, len - (size_t)used, "%s%d", a ? " x " : " ",
                             sw->axes[a].nvalues);
    if (n > SWEEP_MAX_POINTS) {
        if (used >= 0 && (size_t)used < len)
            snprintf(why + used, len - (size_t)used,
                     " points, more than %d; expected at most %d points in one sweep",
                     SWEEP_MAX_POINTS, SWEEP_MAX_POINTS);
        return false;
    }
    sw->npoints = (int)n;
    set_strides(sw, zip);
    sw->pids = xbt_new0(pid_t, sw->npoints);
    sw->status = xbt_new0(enum sweep_status, sw->npoints);
    sw->msg = xbt_new0(char *, sw->npoints);
    return true;
}

/* The default -j: the online cores, 1 .. 256. */
static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

bool sweep_grid_is_file_option(const char *opt)
{
    return strcmp(opt, "--csv") == 0 || strcmp(opt, "--json") == 0 || strcmp(opt, "--trace") == 0;
}

/* An option of the sweep itself (sw); false with why it is refused. */
static bool sweep_option(struct sweep *sw, const struct cli_hit *h, char *why, size_t len)
{
    char *end;
    long v = h->value ? strtol(h->value, &end, 10) : 0;
    switch (h->key) {
    case CLI_SET:
    case CLI_ZIP:
        return sweep_grid_add_axis(sw, h->value, h->key == CLI_ZIP, why, len);
    case CLI_OUT:
        sw->out = h->value;
        return true;
    case CLI_LIST:
        sw->list = true;
        return true;
    case CLI_JOBS:
        sw->jobs = (int)v;
        snprintf(why, len, "-j expects a number from 1 to 256");
        return *end == '\0' && v >= 1 && v <= 256;
    case CLI_POINT:
        sw->point = (int)v;
        snprintf(why, len, "--point expects a point number from 1 to %d", SWEEP_MAX_POINTS);
        return *end == '\0' && v >= 1 && v <= SWEEP_MAX_POINTS;
    default: /* to the points: --calib, --cfg, --unset; with --point, the output files */
        snprintf(why, len, "at most %d options passed to the points, each on one line",
                 SWEEP_MAX_EXTRA / 2);
        if (sw->nextra == SWEEP_MAX_EXTRA || strchr(h->value, '\n') != NULL) return false;
        sw->files += h->key == CLI_CSV || h->key == CLI_JSON || h->key == CLI_TRACE ||
                     h->key == CLI_JUNIT;
        sw->extra[sw->nextra++] = h->key == CLI_CALIB   ? "--calib"
                                  : h->key == CLI_CFG   ? "--cfg"
                                  : h->key == CLI_UNSET ? "--unset"
                                  : h->key == CLI_CSV   ? "--csv"
                                  : h->key == CLI_JSON  ? "--json"
                                  : h->key == CLI_JUNIT ? "--junit"
                                                        : "--trace";
        sw->extra[sw->nextra++] = h->value;
        return true;
    }
}

/* Without --point, --csv and --json are the merged table's files, not the points': out of the
 * options passed to every point, into sw->csv and sw->json. */
static void take_table_files(struct sweep *sw)
{
    int n = 0;
    for (int e = 0; e + 1 < sw->nextra; e += 2) {
        bool csv = strcmp(sw->extra[e], "--csv") == 0, json = strcmp(sw->extra[e], "--json") == 0;
        if (csv) sw->csv = sw->extra[e + 1];
        if (json) sw->json = sw->extra[e + 1];
        sw->files -= csv || json;
        if (csv || json) continue;
        sw->extra[n++] = sw->extra[e];
        sw->extra[n++] = sw->extra[e + 1];
    }
    sw->nextra = n;
}

int sweep_grid_parse(struct sweep *sw, const struct cli_args *a)
{
    char why[256];
    memset(sw, 0, sizeof *sw);
    sw->jobs = default_jobs();
    sw->file = a->args[0];
    sw->extra = xbt_new0(const char *, SWEEP_MAX_EXTRA);
    for (int i = 0; i < a->nhits; i++)
        if (!sweep_option(sw, &a->hits[i], why, sizeof why)) return sweep_usage(why);
    if (sw->naxes == 0) return sweep_usage("expected at least one --set or --zip");
    if (!sweep_grid_count(sw, why, sizeof why)) return sweep_usage(why);
    if (sw->point > sw->npoints) {
        snprintf(why, sizeof why, "--point %d: the grid has %d points; expected 1 to %d", sw->point,
                 sw->npoints, sw->npoints);
        return sweep_usage(why);
    }
    if (!sw->point) take_table_files(sw);
    if (sw->files && !sw->point)
        return sweep_usage("--trace and --junit name one point's file; expected them with --point K");
    return sw->list && sw->point ? sweep_usage("--list and --point exclude each other") : 0;
}

void sweep_grid_release(struct sweep *sw)
{
    free(sw->pids);
    for (int p = 0; sw->msg && p < sw->npoints; p++)
        free(sw->msg[p]);
    free(sw->msg);
    free(sw->status);
    free(sw->extra);
    for (int a = 0; a < sw->naxes; a++) {
        for (int v = 0; v < sw->axes[a].nvalues; v++)
            free(sw->axes[a].values[v]);
        free(sw->axes[a].values);
    }
}
