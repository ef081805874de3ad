/* campaign_stats.h - a figure over a campaign's replications: mean, median, 90th percentile and
 * the mean's 95% confidence interval (Student's t with n - 1 degrees of freedom: the
 * replications are independent and identically distributed, and their mean is close to normal
 * by the central limit theorem). */
#ifndef DMLSIM_CAMPAIGN_STATS_H
#define DMLSIM_CAMPAIGN_STATS_H

#include "campaign.h"

struct camp_stat {
    double mean;  /* sample mean */
    double sd;    /* sample standard deviation (n - 1) */
    double p50;   /* median (GSL's interpolated quantile) */
    double p90;   /* 90th percentile */
    double ci_lo; /* mean - t(0.975, n - 1) sd / sqrt(n); the mean when n = 1 */
    double ci_hi; /* mean + the same */
    int n;        /* values */
};

/* The figure of x[0..n) (sorted in place); n >= 1. */
void campaign_stat(double *x, int n, struct camp_stat *out);

/* A campaign's replications together: figures with their spread, the rest as means. */
struct camp_agg {
    struct camp_stat wall_s;               /* wall time (s) */
    struct camp_stat ettr;                 /* productive / wall */
    struct camp_stat steps;                /* steps trained */
    struct camp_stat goodput;              /* tokens trained a second of wall time */
    double productive_s, ckpt_s, shrunk_s; /* means (s) */
    double lost_s[CAMP_MAX_CAUSES], down_s[CAMP_MAX_CAUSES], slow_s[CAMP_MAX_CAUSES];
    double failures[CAMP_MAX_CAUSES]; /* means */
    double restarts, checkpoints;     /* means */
    double gpu_hours;                 /* mean reserved GPU-hours (the job's and the spares') */
    double busy_gpu_hours;            /* mean GPU-hours running steps */
    double energy_j;                  /* mean IT energy of the GPUs (J) */
    int reached;                      /* replications that reached the target steps */
    int n;                            /* replications */
};

/* Aggregates reps[0..n) of cfg over costs. */
void campaign_aggregate(const struct camp_config *cfg, const struct camp_costs *costs,
                        const struct camp_rep *reps, int n, struct camp_agg *out);

#endif
