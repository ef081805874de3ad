/* metrics.c - the merged list of metrics (see metrics.h). */
#include "metrics.h"

#include "strategy.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#define MAX_ROWS     256 /* rows of all tables together */
#define MAX_FAMILIES 32  /* families of all tables together */

static const struct metric *rows[MAX_ROWS];
static size_t nrows;
static const struct metric_family *families[MAX_FAMILIES];
static size_t nfamilies;

/* Adds table t's rows and families, each at its place by order (insertion: tables are short). */
static void merge(const struct metric_table *t)
{
    for (size_t i = 0; t != NULL && i < t->nrows; i++) {
        const struct metric *m = &t->rows[i];
        size_t k = nrows++;
        assert(nrows <= MAX_ROWS);
        for (; k > 0 && rows[k - 1]->order > m->order; k--)
            rows[k] = rows[k - 1];
        assert(k == 0 || rows[k - 1]->order != m->order); /* one place each */
        rows[k] = m;
    }
    for (size_t i = 0; t != NULL && i < t->nfamilies; i++) {
        const struct metric_family *f = &t->families[i];
        size_t k = nfamilies++;
        assert(nfamilies <= MAX_FAMILIES);
        for (; k > 0 && families[k - 1]->order > f->order; k--)
            families[k] = families[k - 1];
        assert(k == 0 || families[k - 1]->order != f->order);
        families[k] = f;
    }
}

/* Builds the list on first use: the common table, then every strategy's. */
static void build(void)
{
    if (nrows > 0) return;
    merge(metric_common());
    for (int id = STRAT_NONE + 1; id < STRAT_COUNT; id++) {
        const struct strategy *st = strategy_get((enum strategy_id)id);
        if (st != NULL) merge(st->metrics);
    }
    for (size_t i = 0; i < nrows; i++) /* one name each */
        for (size_t k = 0; k < i; k++)
            assert(strcmp(rows[i]->name, rows[k]->name) != 0);
}

size_t metrics_count(void)
{
    build();
    return nrows;
}

const struct metric *metrics_at(size_t i)
{
    build();
    return i < nrows ? rows[i] : NULL;
}

const struct metric *metrics_find(const char *name)
{
    build();
    for (size_t i = 0; name && i < nrows; i++)
        if (strcmp(rows[i]->name, name) == 0) return rows[i];
    return NULL;
}

size_t metrics_family_count(void)
{
    build();
    return nfamilies;
}

const struct metric_family *metrics_family_at(size_t i)
{
    build();
    return i < nfamilies ? families[i] : NULL;
}

bool metrics_value(const char *name, const struct run_record *r, double *out)
{
    const struct metric *m = metrics_find(name);
    if (m != NULL) {
        *out = m->get(r);
        return true;
    }
    for (size_t i = 0; name && i < nfamilies; i++) {
        size_t n = strlen(families[i]->prefix);
        if (strncmp(name, families[i]->prefix, n) == 0) return families[i]->get(r, name + n, out);
    }
    return false;
}

bool metrics_known(const char *name)
{
    struct run_record empty;
    double v;
    memset(&empty, 0, sizeof empty);
    return metrics_value(name, &empty, &v);
}

const char *metrics_names(void)
{
    static char buf[2048];
    build();
    if (buf[0] == '\0') {
        size_t used = 0;
        for (size_t i = 0; i < nrows; i++) {
            int k = snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", rows[i]->name);
            if (k > 0 && (size_t)k < sizeof buf - used) used += (size_t)k;
        }
        for (size_t i = 0; i < nfamilies; i++) {
            int k = snprintf(buf + used, sizeof buf - used, ", %s%s", families[i]->prefix,
                             families[i]->arg);
            if (k > 0 && (size_t)k < sizeof buf - used) used += (size_t)k;
        }
    }
    return buf;
}
