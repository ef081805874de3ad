/* plan_est.h - a layout's first-order step time, in microseconds of CPU, to rank thousands of
 * layouts before `dmlsim plan` simulates the best few.
 *
 * No simulation: each layer's forward and backward for a microbatch is the sum of its kernels'
 * times from the same compute model the simulation uses (kcost.h, on the model split by tp with
 * sequence parallelism and experts as parallel.h splits it), so the estimate and the simulation
 * agree on compute; communication is the textbook ring on the cluster's classes (an all-reduce of
 * S bytes over n ranks 2 (n - 1)/n S / B + 2 (n - 1) hop latencies; a reduce-scatter or an
 * all-gather half of it), at the inter-node rate per GPU (a NIC's rate x NICs per node / GPUs per
 * node) when the group spans nodes, else the intra-node class's. A stage's microbatch is its
 * layers' forward and backward (with recomputation's extra forward work), plus four
 * tensor-parallel collectives of b s h elements a block (six under full recomputation) and the
 * experts' four all-to-alls; the pipeline phase is (m + (p - 1)/v) times the slowest stage's
 * microbatch (Narayanan et al. SC'21, section 2.2: the bubble (p - 1)/v of a microbatch's time)
 * plus 2 (p v - 1) messages of the activations; after it the data-parallel collectives (an
 * all-reduce of the stage's gradients, ZeRO-1 a reduce-scatter and an all-gather, ZeRO-2 one
 * reduce-scatter a microbatch, ZeRO-3 three passes a microbatch hidden behind the compute as far
 * as it lasts) and the optimizer over its share at the calibrated memory rate. What it leaves out
 * (contention between groups, NCCL's protocols, the placement's hops beyond one class) is what
 * the simulation of the best K adds.
 */
#ifndef DMLSIM_PLAN_EST_H
#define DMLSIM_PLAN_EST_H

#include "calib.h"
#include "parallel.h"
#include "scenario.h"

struct plan_est {
    double compute_s; /* the slowest stage's kernels, all microbatches */
    double tp_s;      /* its tensor-parallel collectives and all-to-alls */
    double bubble_s;  /* the pipeline's fill and drain, and its messages */
    double dp_s;      /* the data-parallel collectives not hidden */
    double update_s;  /* the optimizer */
    double step_s;    /* the sum */
};

struct plan_estimator;

/* An estimator for sc's model, cluster and training on calibration cal (both outlive it). */
struct plan_estimator *plan_est_new(const struct scenario *sc, const struct calib *cal);

/* Layout p with microbatches of b sequences. */
void plan_est_run(struct plan_estimator *e, const struct parallel_spec *p, int b,
                  struct plan_est *out);

void plan_est_free(struct plan_estimator *e);

#endif
