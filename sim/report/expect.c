/* expect.c - the checks of <expect> (see expect.h). */
#include "expect.h"

#include "metrics.h"

#include <assert.h>
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

int expect_check(const struct scenario *sc, const struct run_record *rec, FILE *out)
{
    int failed = 0;
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct expect_spec *e = &sc->expects[i];
        double v = 0;
        bool known = metrics_value(e->metric, rec, &v);
        assert(known); /* checked by expect_validate */
        (void)known;
        bool ok = v >= e->min && v <= e->max;
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
