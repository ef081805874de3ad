/* allreduce_metrics.h - the all-reduce strategy's own metric rows: buckets, failed collectives,
 * split brain.
 *
 * Its rows join the common ones (metric.h) through the strategy's row of the strategy table
 * (strategy.h); metrics.h merges them by order. A metric of this strategy alone is one row here
 * (and its field of struct allreduce_record).
 */
#ifndef DMLSIM_ALLREDUCE_METRICS_H
#define DMLSIM_ALLREDUCE_METRICS_H

#include "metric.h"

#include <stddef.h>

extern const struct metric_table allreduce_metrics; /* rows and families, in order */

/* The all-reduce strategy's part of the run record (run.h's own). */
struct allreduce_record {
    double nbuckets;     /* gradient buckets per step */
    double emb_sharded;  /* 1: embeddings="sharded" (ar_emb.h), 0: replicated or none */
    double emb_a2a_s;    /* sharded: the embeddings' all-to-alls a step (mean over ranks) */
    double emb_lookup_s; /* ... the owners' lookups for the global batch */
    double emb_update_s; /* ... the owners' fused backward and sparse updates */
    double emb_ids_B;    /* ... bytes of the IDs' all-to-all a step, sent per GPU (mean) */
    double emb_pooled_B; /* ... of the pooled embeddings' (forward; backward as many) */
};

/* Gives rec (an all-reduce record, after run_init) its part, zeroed (run_release frees it);
 * returns it. */
struct allreduce_record *allreduce_metrics_attach(struct run_record *rec);

/* rec's all-reduce part, or NULL (another strategy's record, or none attached). */
struct allreduce_record *allreduce_metrics_of(const struct run_record *rec);

#endif
