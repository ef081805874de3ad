/* campaign_stats.c - mean, quantiles and confidence interval of replications (campaign_stats.h). */
#include "campaign_stats.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void campaign_stat(double *x, int n, struct camp_stat *out)
{
    assert(n >= 1);
    gsl_sort(x, 1, (size_t)n);
    out->n = n;
    out->mean = gsl_stats_mean(x, 1, (size_t)n);
    out->sd = n > 1 ? gsl_stats_sd_m(x, 1, (size_t)n, out->mean) : 0;
    out->p50 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.5);
    out->p90 = gsl_stats_quantile_from_sorted_data(x, 1, (size_t)n, 0.9);
    double h = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * out->sd / sqrt((double)n) : 0;
    out->ci_lo = out->mean - h;
    out->ci_hi = out->mean + h;
}

/* The statistic of one field over the replications. */
static void field_stat(const struct camp_rep *reps, int n,
                       double (*get)(const struct camp_rep *, double), double arg,
                       struct camp_stat *out)
{
    double *x = malloc(sizeof *x * (size_t)n);
    assert(x != NULL);
    for (int i = 0; i < n; i++)
        x[i] = get(&reps[i], arg);
    campaign_stat(x, n, out);
    free(x);
}

static double get_wall(const struct camp_rep *r, double a)
{
    (void)a;
    return r->wall_s;
}

static double get_ettr(const struct camp_rep *r, double a)
{
    (void)a;
    return campaign_ettr(r);
}

static double get_steps(const struct camp_rep *r, double a)
{
    (void)a;
    return (double)r->steps;
}

static double get_goodput(const struct camp_rep *r, double tokens_per_step)
{
    return r->wall_s > 0 ? (double)r->steps * tokens_per_step / r->wall_s : 0;
}

void campaign_aggregate(const struct camp_config *cfg, const struct camp_costs *costs,
                        const struct camp_rep *reps, int n, struct camp_agg *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    field_stat(reps, n, get_wall, 0, &out->wall_s);
    field_stat(reps, n, get_ettr, 0, &out->ettr);
    field_stat(reps, n, get_steps, 0, &out->steps);
    field_stat(reps, n, get_goodput, cfg->tokens_per_step, &out->goodput);
    for (int i = 0; i < n; i++) {
        const struct camp_rep *r = &reps[i];
        out->productive_s += r->productive_s / n;
        out->ckpt_s += r->ckpt_s / n;
        out->shrunk_s += r->shrunk_s / n;
        for (int c = 0; c < cfg->ncauses; c++) {
            out->lost_s[c] += r->lost_s[c] / n;
            out->down_s[c] += r->down_s[c] / n;
            out->slow_s[c] += r->slow_s[c] / n;
            out->failures[c] += (double)r->failures[c] / n;
        }
        out->restarts += (double)r->restarts / n;
        out->checkpoints += (double)r->checkpoints / n;
        out->gpu_hours += r->gpu_reserved_s / 3600 / n;
        out->busy_gpu_hours += r->gpu_busy_s / 3600 / n;
        out->energy_j += campaign_energy_j(r, costs) / n;
        out->reached += r->reached;
    }
}
