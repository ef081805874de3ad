/* expect.c - the metric table and the checks (see expect.h). */
#include "expect.h"

#include "scenario.h"
#include "train.h"

#include <math.h>
#include <string.h>

struct metric {
    const char *name;
    double (*get)(const struct train_result *r, int batch);
};

#define FIELD_METRIC(fn, field) \
    static double fn(const struct train_result *r, int batch) \
    { \
        (void)batch; \
        return r->field; \
    }
FIELD_METRIC(m_steps, steps_completed)
FIELD_METRIC(m_time, total_s)
FIELD_METRIC(m_idle, idle_frac)
FIELD_METRIC(m_changes, membership_changes)
FIELD_METRIC(m_detected, failures_detected)
FIELD_METRIC(m_final, final_workers)
FIELD_METRIC(m_removed, removed_stragglers)
FIELD_METRIC(m_lost_steps, lost_steps)
FIELD_METRIC(m_lost_grad, lost_gradients)
FIELD_METRIC(m_lost_upd, lost_updates)
FIELD_METRIC(m_applied, applied)
FIELD_METRIC(m_stale, dropped_stale)
FIELD_METRIC(m_late, dropped_late)
FIELD_METRIC(m_consumed, consumed_samples)
FIELD_METRIC(m_skipped, skipped_samples)
FIELD_METRIC(m_replayed, replayed_samples)
FIELD_METRIC(m_ckpts, checkpoints)
FIELD_METRIC(m_ckpt_over, ckpt_overhead_s)
FIELD_METRIC(m_spread, spread_max)
FIELD_METRIC(m_detect, max_detect_s)
FIELD_METRIC(m_recover, max_recover_s)
FIELD_METRIC(m_failed_coll, failures)

static double m_throughput(const struct train_result *r, int batch)
{
    (void)batch;
    return train_throughput(r);
}

static double m_goodput(const struct train_result *r, int batch)
{
    (void)batch;
    return r->total_s > 0 ? r->consumed_samples / r->total_s : 0;
}

static double m_mean_step(const struct train_result *r, int batch)
{
    (void)batch;
    return r->steps > 0 ? r->total_s / r->steps : 0;
}

static double m_efficiency(const struct train_result *r, int batch)
{
    return train_efficiency(r, batch);
}

static double m_accounting(const struct train_result *r, int batch)
{
    (void)batch;
    return train_identities_hold(r) ? 1 : 0;
}

static const struct metric metrics[] = {
        {"accounting_ok", m_accounting},
        {"steps_completed", m_steps},
        {"time_s", m_time},
        {"throughput", m_throughput},
        {"goodput", m_goodput},
        {"mean_step_s", m_mean_step},
        {"efficiency", m_efficiency},
        {"idle_fraction", m_idle},
        {"membership_changes", m_changes},
        {"failures_detected", m_detected},
        {"final_workers", m_final},
        {"removed_stragglers", m_removed},
        {"lost_steps", m_lost_steps},
        {"lost_gradients", m_lost_grad},
        {"lost_updates", m_lost_upd},
        {"applied", m_applied},
        {"dropped_stale", m_stale},
        {"dropped_late", m_late},
        {"consumed_samples", m_consumed},
        {"skipped_samples", m_skipped},
        {"replayed_samples", m_replayed},
        {"checkpoints", m_ckpts},
        {"checkpoint_overhead_s", m_ckpt_over},
        {"version_spread", m_spread},
        {"max_detect_s", m_detect},
        {"max_recover_s", m_recover},
        {"failed_collectives", m_failed_coll},
};

#define NMETRICS (sizeof metrics / sizeof metrics[0])

static const struct metric *find(const char *name)
{
    for (size_t i = 0; name && i < NMETRICS; i++)
        if (strcmp(metrics[i].name, name) == 0) return &metrics[i];
    return NULL;
}

bool expect_metric_known(const char *name)
{
    return find(name) != NULL;
}

const char *expect_metric_names(void)
{
    static char buf[1024];
    if (buf[0] == '\0') {
        size_t used = 0;
        for (size_t i = 0; i < NMETRICS; i++) {
            int k = snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", metrics[i].name);
            if (k > 0 && (size_t)k < sizeof buf - used) used += (size_t)k;
        }
    }
    return buf;
}

double expect_metric_value(const char *name, const struct train_result *res, int batch)
{
    const struct metric *m = find(name);
    return m ? m->get(res, batch) : NAN;
}

int expect_check(const struct scenario *sc, const struct train_result *res, FILE *out)
{
    int failed = 0;
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct expect_spec *e = &sc->expects[i];
        double v = expect_metric_value(e->metric, res, sc->train.batch);
        bool ok = v >= e->min && v <= e->max;
        failed += !ok;
        fprintf(out, "# expect %-22s in [%g, %g]: %.9g %s (%s:%d)\n", e->metric, e->min, e->max, v,
                ok ? "ok" : "FAILED", sc->path, e->line);
    }
    return failed;
}
