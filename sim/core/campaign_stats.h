/* campaign_stats.h - a figure over a campaign's replications: mean, median, 90th percentile and
 * the mean's 95% confidence interval (Student's t with n - 1 degrees of freedom: the
 * replications are independent and identically distributed, and their mean is close to normal
 * by the central limit theorem). */
#ifndef DMLSIM_CAMPAIGN_STATS_H
#define DMLSIM_CAMPAIGN_STATS_H

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

#endif
