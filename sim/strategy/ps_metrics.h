/* ps_metrics.h - the parameter server's own metric rows: shards, versions, the coordinator, lost
 * updates.
 *
 * Its rows join the common ones (metric.h) through the strategy's row of the strategy table
 * (strategy.h); metrics.h merges them by order. A metric of this strategy alone is one row here
 * (and its field of the run record).
 */
#ifndef DMLSIM_PS_METRICS_H
#define DMLSIM_PS_METRICS_H

#include "metric.h"

extern const struct metric_table ps_metrics; /* rows and families, in order */

#endif
