/* validate_fit.c - the network calibration's fit (see validate_fit.h). */
#include "validate_fit.h"

#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define FIT_ROUNDS 7    /* simulations per fit: the first uncalibrated, then secant steps */
#define FIT_MIN    0.02 /* the factor's range: a dilation cannot remove the wires' latency */
#define FIT_MAX    100.0
#define FIT_TOL \
    1e-9 /* a size simulated within this (relative) of its measured time is \
            fitted: later rounds leave it (its simulation depends on its own factor \
            only). Far below the printed digits: the fit is the one of every round \
            (1e-4 would save another round and move calibrated times by 4e-5) */

/* The most measurements (rows of collectives, copies) one validate or fit simulates, over all
 * its jobs: each is simulated up to FIT_ROUNDS + 1 times, about 0.13 s a row for 16 GPUs on 2
 * nodes at message level, so 1,024 rows are minutes and a 50 MB log (230,000 rows) would be
 * hours. Beyond it the log is refused before any simulation. */
#define VALIDATE_MAX_ROWS 1024

/* A fit's rounds, then validate's calibrated run (its first round is the uncalibrated one). */
#define SIMS_PER_ROW (FIT_ROUNDS + 1)

enum dmlsim_err validate_fit_check_rows(const struct validate_job *jobs, size_t njobs,
                                        const char *path, struct dmlsim_error *err)
{
    size_t total = 0, big = 0;
    for (size_t k = 0; k < njobs; k++) {
        total += jobs[k].n;
        if (jobs[k].n > jobs[big].n) big = k;
    }
    if (total <= VALIDATE_MAX_ROWS) return DMLSIM_OK;
    const struct validate_job *j = &jobs[big];
    char what[128];
    if (j->coll)
        snprintf(what, sizeof what, "%s on %d GPU(s), %d node(s)", collective_op_name(j->op),
                 j->nranks, j->nodes);
    else
        snprintf(what, sizeof what, "copy %s", j->kind);
    return dmlsim_fail(err, DMLSIM_EVALUE,
                       "%s:0: %zu measured rows to simulate (%zu of them %s); expected at most %d "
                       "(each is simulated up to %d times): keep the runs to compare, e.g. one "
                       "nccl-tests sweep per collective",
                       path, total, j->n, what, VALIDATE_MAX_ROWS, SIMS_PER_ROW);
}

/* The curve of job j at the sizes selected by use (NULL: all) with factors f, into cur (whose
 * arrays x and y the caller provides). */
static void curve_of(const struct validate_job *j, const bool *use, const double *f,
                     struct netcal_curve *cur, double *x, double *y)
{
    cur->n = 0;
    for (size_t i = 0; i < j->n; i++)
        if (!use || use[i]) x[cur->n] = j->sizes[i], y[cur->n++] = f[i];
    cur->size_B = x;
    cur->factor = y;
}

/* The next factor of one size: proportional after the uncalibrated run, then a secant step on
 * simulated time as a function of the factor (monotone: the factor dilates bytes and protocol
 * latencies), clamped. */
static double next_factor(double meas, double f, double sim, double fp, double sp, int round)
{
    double fn = f * meas / sim;
    if (round > 0 && fabs(sim - sp) > 1e-9 * meas && f != fp)
        fn = f + (meas - sim) * (f - fp) / (sim - sp);
    return fmin(FIT_MAX, fmax(FIT_MIN, fn));
}

/* The state of one fit: per size, the factor tried, the one before and their simulations, the
 * best so far and its error, whether the size still takes part. */
struct fit {
    double *f, *fp, *sim, *sp, *best, *err;
    bool *open;
    double *best_sim; /* the simulation at the best factor (the caller's, or NULL) */
};

/* One round's results into the fit: the best factors kept, the next ones chosen; a size that
 * came within FIT_TOL, or whose factor stopped moving, is closed. */
static void fit_update(const struct validate_job *j, struct fit *s, int round)
{
    for (size_t i = 0; i < j->n; i++) {
        if (!s->open[i]) continue;
        double e = fabs(s->sim[i] - j->measured[i]);
        if (e < s->err[i]) {
            s->err[i] = e, s->best[i] = s->f[i];
            if (s->best_sim) s->best_sim[i] = s->sim[i];
        }
        double fn = next_factor(j->measured[i], s->f[i], s->sim[i], s->fp[i], s->sp[i], round);
        s->fp[i] = s->f[i], s->sp[i] = s->sim[i], s->f[i] = fn;
        if (e <= FIT_TOL * j->measured[i] || fn == s->fp[i]) s->open[i] = false;
    }
}

bool validate_fit_job(const struct validate_job *j, const struct validate_machine *mc,
                      const bool *use, const double *uncal, const struct calib *c,
                      struct netcal *nc, double *best_sim)
{
    struct netcal_curve cur = {
            .op = (int)j->op, .multinode = j->nodes > 1, .nranks = j->nranks, .nodes = j->nodes};
    snprintf(cur.gpu, sizeof cur.gpu, "%s", mc->gpu->name);
    size_t n = j->n;
    struct fit s = {
            xbt_new0(double, n), xbt_new0(double, n), xbt_new0(double, n), xbt_new0(double, n),
            xbt_new0(double, n), xbt_new0(double, n), xbt_new0(bool, n),   best_sim};
    struct validate_sim_out *out = xbt_new0(struct validate_sim_out, n);
    double *x = xbt_new0(double, n), *y = xbt_new0(double, n);
    for (size_t i = 0; i < n; i++)
        s.f[i] = s.best[i] = 1, s.err[i] = INFINITY, s.open[i] = !use || use[i];
    bool ok = true;
    for (int round = 0; round < FIT_ROUNDS && ok; round++) {
        struct netcal trial = {0};
        curve_of(j, use, s.f, &cur, x, y);
        if (round > 0) netcal_add(&trial, &cur);
        if (round == 0 && uncal)
            for (size_t i = 0; i < n; i++)
                out[i].time_s = uncal[i];
        else
            ok = validate_sim_run_some(j, mc, round > 0 ? &trial : NULL, s.open, out);
        netcal_release(&trial);
        for (size_t i = 0; ok && i < n; i++)
            if (s.open[i]) s.sim[i] = out[i].time_s;
        if (ok) fit_update(j, &s, round);
    }
    if (ok) {
        curve_of(j, use, s.best, &cur, x, y);
        netcal_add(nc, &cur);
    }
    snprintf(nc->source, sizeof nc->source, "%.200s", c->source);
    double *arrays[] = {s.f, s.fp, s.sim, s.sp, s.best, s.err, x, y};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(arrays[i]);
    free(s.open);
    free(out);
    return ok;
}
