/* hybrid_metrics.h - the hybrid strategy's own metric rows: MFU, the step breakdown, the bytes
 * of each group.
 *
 * Its rows join the common ones (metric.h) through the strategy's row of the strategy table
 * (strategy.h); metrics.h merges them by order. A metric of this strategy alone is one row here
 * (and its field of struct hybrid_record).
 */
#ifndef DMLSIM_HYBRID_METRICS_H
#define DMLSIM_HYBRID_METRICS_H

#include "metric.h"

#include <stddef.h>

extern const struct metric_table hybrid_metrics; /* rows and families, in order */

/* The hybrid strategy's part of the run record (run.h's own): a step's breakdown, a rank's mean
 * over the steps, and the bytes of each group. */
struct hybrid_record {
    double par_compute_s;     /* its kernels */
    double par_tp_s;          /* its tensor-parallel collectives (on the critical path) */
    double par_bubble_s;      /* the pipeline phase not spent on those: the bubble, p2p waits */
    double par_dp_s;          /* the data-parallel collectives, or with overlap-grad-reduce
                                 (hy_dpov.h) the waits for them: only what is exposed */
    double par_update_s;      /* the optimizer */
    double par_pipe_s;        /* the pipeline phase: the step's start to its last backward */
    double par_bubble_frac;   /* par_bubble_s / par_pipe_s */
    double mfu;               /* model FLOPs a second (forward and backward, no recomputation)
                                 over the GPUs' peak in the dtype */
    double tokens_s;          /* tokens trained a second */
    double par_bytes[4];      /* bytes the tensor, pipeline, data and expert-parallel messages
                                 carried */
    /* ... and on each link class (run_group_names' order; the placement's cost) */
    char group_class[4][RUN_CLASSES][32];
    double group_class_B[4][RUN_CLASSES];
    size_t group_nclasses[4];
};

/* Gives rec (a hybrid record, after run_init) its part, zeroed (run_release frees it); returns
 * it. */
struct hybrid_record *hybrid_metrics_attach(struct run_record *rec);

/* rec's hybrid part, or NULL (another strategy's record, or none attached). */
struct hybrid_record *hybrid_metrics_of(const struct run_record *rec);

#endif
