/* netcal.c - network calibration curves (see netcal.h). */
#include "netcal.h"

#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double curve_at(const struct netcal_curve *c, double size_B)
{
    if (c->n == 0) return 1;
    if (size_B <= c->size_B[0]) return c->factor[0];
    if (size_B >= c->size_B[c->n - 1]) return c->factor[c->n - 1];
    size_t j = 1;
    while (c->size_B[j] < size_B)
        j++;
    double x0 = log(c->size_B[j - 1]), x1 = log(c->size_B[j]), x = log(size_B);
    double w = x1 > x0 ? (x - x0) / (x1 - x0) : 0;
    return c->factor[j - 1] + w * (c->factor[j] - c->factor[j - 1]);
}

double netcal_factor(const struct netcal *nc, int op, int nodes, double size_B)
{
    const struct netcal_curve *fallback = NULL;
    int multi = nodes > 1;
    for (size_t i = 0; nc && i < nc->ncurves; i++) {
        const struct netcal_curve *c = &nc->curves[i];
        if (c->multinode != multi) continue;
        if (c->op == op) return curve_at(c, size_B);
        if (c->op == 0) fallback = c;
    }
    return fallback ? curve_at(fallback, size_B) : 1.0;
}

void netcal_add(struct netcal *nc, const struct netcal_curve *c)
{
    nc->curves = mem_realloc(nc->curves, (nc->ncurves + 1) * sizeof *nc->curves);
    struct netcal_curve *d = &nc->curves[nc->ncurves++];
    *d = *c;
    d->size_B = mem_new(double, c->n ? c->n : 1);
    d->factor = mem_new(double, c->n ? c->n : 1);
    for (size_t i = 0; i < c->n; i++) { /* insertion by size */
        size_t j = i;
        for (; j > 0 && d->size_B[j - 1] > c->size_B[i]; j--) {
            d->size_B[j] = d->size_B[j - 1];
            d->factor[j] = d->factor[j - 1];
        }
        d->size_B[j] = c->size_B[i];
        d->factor[j] = c->factor[i];
    }
}

void netcal_release(struct netcal *nc)
{
    for (size_t i = 0; i < nc->ncurves; i++) {
        free(nc->curves[i].size_B);
        free(nc->curves[i].factor);
    }
    free(nc->curves);
    memset(nc, 0, sizeof *nc);
}
