/* hybrid_metrics.h - the hybrid strategy's own metric rows: MFU, the step breakdown, the bytes
 * of each group.
 *
 * Its rows join the common ones (metric.h) through the strategy's row of the strategy table
 * (strategy.h); metrics.h merges them by order. A metric of this strategy alone is one row here
 * (and its field of the run record).
 */
#ifndef DMLSIM_HYBRID_METRICS_H
#define DMLSIM_HYBRID_METRICS_H

#include "metric.h"

extern const struct metric_table hybrid_metrics; /* rows and families, in order */

#endif
