/* allreduce_metrics.h - the all-reduce strategy's own metric rows: buckets, failed collectives,
 * split brain.
 *
 * Its rows join the common ones (metric.h) through the strategy's row of the strategy table
 * (strategy.h); metrics.h merges them by order. A metric of this strategy alone is one row here
 * (and its field of the run record).
 */
#ifndef DMLSIM_ALLREDUCE_METRICS_H
#define DMLSIM_ALLREDUCE_METRICS_H

#include "metric.h"

extern const struct metric_table allreduce_metrics; /* rows and families, in order */

#endif
