/* expect.c - the checks of <expect> (see expect.h). */
#include "expect.h"

#include "metrics.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum dmlsim_err expect_validate(const struct scenario *sc, struct dmlsim_error *err)
{
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct expect_spec *e = &sc->expects[i];
        if (!metrics_known(e->metric))
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <expect metric=\"%s\">: unknown metric; expected one of: %s",
                               sc->path, e->line, e->metric, metrics_names());
    }
    return DMLSIM_OK;
}

bool expect_eval(const struct scenario *sc, const struct run_record *rec, size_t i, double *value)
{
    assert(i < sc->nexpects);
    const struct expect_spec *e = &sc->expects[i];
    *value = 0;
    bool known = metrics_value(e->metric, rec, value);
    assert(known); /* checked by expect_validate */
    (void)known;
    return *value >= e->min && *value <= e->max;
}

int expect_check(const struct scenario *sc, const struct run_record *rec, FILE *out)
{
    int failed = 0;
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct expect_spec *e = &sc->expects[i];
        double v;
        bool ok = expect_eval(sc, rec, i, &v);
        failed += !ok;
        fprintf(out, "# expect %-22s in [%g, %g]: %.9g %s (%s:%d)\n", e->metric, e->min, e->max, v,
                ok ? "ok" : "FAILED", sc->path, e->line);
    }
    return failed;
}

bool expect_names(const struct scenario *sc, const char *metric)
{
    for (size_t i = 0; i < sc->nexpects; i++)
        if (strcmp(sc->expects[i].metric, metric) == 0) return true;
    return false;
}

bool expect_job_error(const struct scenario *sc, const struct run_record *rec)
{
    return rec->job_failed && !expect_names(sc, "job_failed");
}

void expect_num(double v, char *buf)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, EXPECT_NUM_LEN, "%.*g", digits, v);
        if (!isfinite(v) || strtod(buf, NULL) == v) break;
    }
}

void expect_bounds(const struct expect_spec *e, char *buf)
{
    char lo[EXPECT_NUM_LEN], hi[EXPECT_NUM_LEN];
    expect_num(e->min, lo);
    expect_num(e->max, hi);
    if (e->min == e->max)
        snprintf(buf, EXPECT_BOUNDS_LEN, "== %s", lo);
    else if (e->max == INFINITY)
        snprintf(buf, EXPECT_BOUNDS_LEN, ">= %s", lo);
    else if (e->min == -INFINITY)
        snprintf(buf, EXPECT_BOUNDS_LEN, "<= %s", hi);
    else
        snprintf(buf, EXPECT_BOUNDS_LEN, "in [%s, %s]", lo, hi);
}
