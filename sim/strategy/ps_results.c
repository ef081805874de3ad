/* ps_results.c - what a parameter-server run records (see ps_results.h). */
#include "ps_results.h"

#include "loader.h"
#include "ps_account.h"
#include "ps_sparse.h"
#include "psnum.h"
#include "scen_emb.h"

#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ps_results_version_spread(struct ps_ctx *c, double total_s)
{
    int K = c->K, *idx = xbt_new0(int, K), *ver = xbt_new0(int, K);
    double last = 0, disagree = 0;
    for (;;) {
        int next = -1;
        for (int k = 0; k < K; k++)
            if (idx[k] + 1 < c->shards[k].nversions &&
                (next < 0 ||
                 c->shards[k].version_s[idx[k] + 1] < c->shards[next].version_s[idx[next] + 1]))
                next = k;
        if (next < 0) break;
        double t = c->shards[next].version_s[idx[next] + 1];
        int lo = ver[0], hi = ver[0];
        for (int k = 1; k < K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        if (hi > lo) disagree += t - last;
        last = t;
        idx[next]++;
        ver[next]++;
        lo = hi = ver[0];
        for (int k = 1; k < K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        if (hi - lo > ps_metrics_of(c->res)->spread_max)
            ps_metrics_of(c->res)->spread_max = hi - lo;
    }
    ps_metrics_of(c->res)->spread_frac = total_s > 0 ? disagree / total_s : 0;
    free(idx);
    free(ver);
}

/* When row s ends (< 0: there is none). Sync: when every shard has reached version s + 1;
 * async: when every worker that did its iteration s has finished it. */
/* Did worker w finish its iteration s? */
static bool did(const struct ps_worker *w, int s)
{
    return s < w->cap && w->iter_end[s] > 0;
}

static double row_end(const struct ps_ctx *c, int s)
{
    double t = 0;
    if (c->sc->train.ps.mode == PS_SYNC) {
        for (int k = 0; k < c->K; k++) {
            if (s + 1 >= c->shards[k].nversions) return -1;
            t = fmax(t, c->shards[k].version_s[s + 1]);
        }
        return t;
    }
    t = -1;
    for (int r = 0; r < c->P; r++)
        if (did(&c->workers[r], s)) t = fmax(t, c->workers[r].iter_end[s]);
    return t;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The compute of row s: the quorum-th smallest compute of iteration s (sync: the version waits
 * for that many pushes, so a backup worker's slower compute is not on the step's path; async and
 * sync without backups: the slowest). Fills *done with the workers that did iteration s. */
static double row_compute(const struct ps_ctx *c, int s, int *done)
{
    double *v = xbt_new(double, c->P);
    int n = 0;
    for (int r = 0; r < c->P; r++)
        if (did(&c->workers[r], s)) v[n++] = c->workers[r].iter_busy[s];
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int need = c->P - c->sc->train.ps.backup; /* workers a version waits for */
    int q = c->sc->train.ps.mode == PS_SYNC && need < n ? need : n;
    double compute = n > 0 ? v[q - 1] : 0;
    free(v);
    *done = n;
    return compute;
}

void ps_results_sync_rows(struct ps_ctx *c)
{
    int rows = 0;
    double T = 0, prev = 0;
    while (rows < c->sc->train.steps && row_end(c, rows) >= 0)
        T = fmax(T, row_end(c, rows++));
    c->res->total_s = T;
    for (int s = 0; s < rows; s++) {
        double t = fmax(prev, row_end(c, s)), samples = 0;
        int done = 0, went;
        double compute = row_compute(c, s, &went);
        for (int r = 0; r < c->P; r++) {
            const struct ps_worker *w = &c->workers[r];
            if (did(w, s) && w->iter_tc[s] + w->iter_busy[s] <= T) {
                samples += w->iter_samples[s];
                done++;
            }
        }
        /* a PS worker's time off compute runs no kernel (RPCs, no NCCL): run_power.h */
        c->res->step_compute = "the compute of the last worker the version waited for";
        run_step_add(c->res, t, s + 1, t - prev, compute, samples, done, 0)->nccl_s = 0;
        prev = t;
    }
}

struct finished {
    double end_s, busy_s, samples;
    int rank;
};

static int by_end(const void *x, const void *y)
{
    const struct finished *a = x, *b = y;
    if (a->end_s != b->end_s) return a->end_s < b->end_s ? -1 : 1;
    return a->rank - b->rank;
}

void ps_results_async_rows(struct ps_ctx *c)
{
    size_t n = 0;
    for (int r = 0; r < c->P; r++)
        for (int it = 0; it < c->workers[r].cap; it++)
            n += did(&c->workers[r], it);
    struct finished *f = xbt_new0(struct finished, n ? n : 1);
    n = 0;
    for (int r = 0; r < c->P; r++)
        for (int it = 0; it < c->workers[r].cap; it++)
            if (did(&c->workers[r], it))
                f[n++] = (struct finished){c->workers[r].iter_end[it], c->workers[r].iter_busy[it],
                                           c->workers[r].iter_samples[it], r};
    qsort(f, n, sizeof *f, by_end);
    double prev = 0;
    bool *in = xbt_new0(bool, c->P);
    for (size_t i = 0, row = 0; i < n; row++) {
        double samples = 0, compute = 0;
        int workers = 0;
        memset(in, 0, (size_t)c->P * sizeof *in);
        size_t end = i + (size_t)c->P < n ? i + (size_t)c->P : n;
        for (; i < end; i++) {
            samples += f[i].samples;
            compute = fmax(compute, f[i].busy_s);
            workers += !in[f[i].rank];
            in[f[i].rank] = true;
        }
        double t = f[end - 1].end_s;
        c->res->step_compute = "the longest compute among the row's pushes";
        run_step_add(c->res, t, (int)row + 1, t - prev, compute, samples, workers, 0)->nccl_s = 0;
        prev = t;
        c->res->total_s = t;
    }
    free(in);
    free(f);
}

/* The job's verdict with the PS's reasons (run_verdict applies the same rule): it completed only
 * if every shard reached every version, with at least one gradient applied, and some worker got
 * through. */
static void verdict(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    struct run_record *res = c->res;
    int died = c->P - c->workers_done - c->gave_up;
    char who[96];
    snprintf(who, sizeof who, "%d of %d workers finished (%d gave up, %d died)", c->workers_done,
             c->P, c->gave_up, died > 0 ? died : 0);
    double step_s = 0; /* the longest compute of an iteration */
    for (int r = 0; r < c->P; r++)
        for (int it = 0; it < c->workers[r].cap; it++)
            if (did(&c->workers[r], it)) step_s = fmax(step_s, c->workers[r].iter_busy[it]);
    if (res->steps_completed < ts->steps || c->workers_done == 0) {
        res->job_failed = true;
        snprintf(res->failure, sizeof res->failure,
                 "%.0f of %d versions reached by every shard when the run ended; %s",
                 res->steps_completed, ts->steps, who);
    } else if (res->applied <= 0) {
        res->job_failed = true;
        int n = snprintf(res->failure, sizeof res->failure,
                         "no gradient applied by the shards: %.0f computed, %.0f dropped stale, "
                         "%.0f dropped late, %.0f lost",
                         res->computed, res->dropped_stale, res->dropped_late, res->lost_gradients);
        if (res->dropped_late > 0 && step_s > ts->timeout_s && n > 0 &&
            (size_t)n < sizeof res->failure)
            snprintf(res->failure + n, sizeof res->failure - (size_t)n,
                     " (a step computes for %.3f ms, the <training timeout> is %.3f ms)",
                     step_s * 1e3, ts->timeout_s * 1e3);
    }
}

void ps_results_record(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    struct run_record *res = c->res;
    if (c->kit->loader) loader_report(c->kit->loader, res);
    for (int r = 0; r < c->P; r++) /* still inside an iteration when the run ended */
        ps_account_unfinished(&c->workers[r]);
    for (int k = 0; k < c->K; k++) {
        for (struct push_rec *r = c->shards[k].head; r; r = r->next)
            if (!r->empty) /* after the shard's last version */
                ps_account_drop_slice(c, &res->dropped_late, r->samples, r->rows);
        if (c->shards[k].in_port > 0) { /* ... or was still being deserialised */
            res->dropped_late += c->shards[k].in_port;
            res->dropped_samples += c->shards[k].in_port_smp;
            ps_metrics_of(res)->rows_dropped += c->shards[k].in_port_rows;
        }
    }
    res->steps_completed = INFINITY;
    for (int k = 0; k < c->K; k++) {
        res->steps_completed = fmin(res->steps_completed, c->shards[k].version);
        res->checkpoints += c->shards[k].ckpt->completed;
        res->ckpt_overhead_s += c->shards[k].ckpt->overhead_s;
        res->ckpt_B += c->shards[k].ckpt->size_B;
    }
    res->final_workers = c->workers_done;
    /* compute time within the run: a worker still computing after the last step (a backup
     * worker's late iteration) counts only what it did before */
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        res->busy_s[r] = 0;
        for (int it = 0; it < w->cap; it++)
            if (did(w, it))
                res->busy_s[r] += fmax(0, fmin(w->iter_tc[it] + w->iter_busy[it], res->total_s) -
                                                  w->iter_tc[it]);
    }
    res->grad_B = ps_sparse_grad_B(c);
    res->mem = model_memory_placed(c->m, ts->dtype, ts->opt, ts->batch, scen_emb_tables_on_gpu(ts),
                                   ts->ps.cache_rows);
    job_record_compute(res, &c->workers[0].amt, c->pf->models[0], ts->dtype);
    job_record_nominal(res, &c->workers[0].amt);
    verdict(c);
}

void ps_results_fingerprint(struct ps_ctx *c)
{
    if (c->j->nm == NULL) return;
    for (int k = 0; k < c->K; k++)
        pslice_scatter(&c->shards[k].num.sl, c->shards[k].num.w, c->eval_params);
    c->res->params_fnv = numerics_fingerprint(c->eval_params, c->j->nm->net.nparams);
}
