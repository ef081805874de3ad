/* expect.c - the checks of <expect> (see expect.h). */
#include "expect.h"

#include "metric.h"

#include <assert.h>
#include <string.h>

int expect_check(const struct scenario *sc, const struct run_record *rec, FILE *out)
{
    int failed = 0;
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct expect_spec *e = &sc->expects[i];
        double v = 0;
        bool known = metric_value(e->metric, rec, &v);
        assert(known); /* checked at load */
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
