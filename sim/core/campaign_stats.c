/* campaign_stats.c - mean, quantiles and confidence interval of replications (campaign_stats.h). */
#include "campaign_stats.h"

#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

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
