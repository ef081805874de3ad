/* hybrid_num.h - real training (<numerics>) under the hybrid strategy: each data-parallel
 * replica's gradient computed on its own batch through the MLP split by tensor and pipeline
 * parallelism (tpnum.h), summed over the replicas, applied, evaluated.
 *
 * Timing and learning are apart, as with the all-reduce's <numerics cost-model>: the simulated
 * ranks time the transformer preset the cost-model names (scen_train.c puts it where <model
 * preset> would be), while the MLP of <numerics> is what learns; its pipeline stages own
 * consecutive MLP layers (pp <= its weight layers) and its tensor ranks split their widths.
 * The simulated collectives carry bytes only; the sums they stand for are computed here at the
 * step's end: a tensor group's all-reduces inside tpnum, the data-parallel all-reduce as a sum
 * over replicas in replica order.
 *
 * Synchronous data parallelism keeps the replicas' parameters equal, so one copy stands for all
 * of them: a replica's batch is its own (numerics.h's data order with dp workers, each of
 * microbatches x batch examples), its gradient is the mean over its samples, and the update is
 * the sum over replicas / dp (the all-reduce's mean), lr scaled by dp x microbatches
 * (numerics_averaged). With tp = pp = 1 and one microbatch that is the all-reduce's training of
 * dp workers, up to the order in which its collective adds the gradients. */
#ifndef DMLSIM_HYBRID_NUM_H
#define DMLSIM_HYBRID_NUM_H

#include "error.h"
#include "job.h"
#include "run.h"

struct hynum;

/* <numerics> against <parallel>: pp at most the MLP's weight layers, tp at most its narrowest
 * layer; DMLSIM_OK without <numerics>. Errors name <parallel>'s line. */
enum dmlsim_err hynum_check(const struct job *j, struct dmlsim_error *err);

/* The training state of job j (after hynum_check), or NULL without <numerics>; free with
 * hynum_free (NULL: a no-op). */
struct hynum *hynum_new(const struct job *j);
void hynum_free(struct hynum *h);

/* Step `step` (0-based) ended at simulated time now_s, its batches from data position pos (the
 * step, unless batches were skipped): every replica's gradient, the sum, the update, and an
 * evaluation into rec at the all-reduce's points (every eval-every steps and the last). good:
 * the dp replicas' good samples (0: the replica's batch was skipped, adding nothing to the sum;
 * otherwise its samples outside the pipeline's corrupt shards count), or NULL: all good. A no-op
 * when h is NULL. */
void hynum_step(struct hynum *h, struct run_record *rec, int step, long long pos, const int *good,
                double now_s);

/* The parameters every replica holds now (nparams floats, nn.h's layout), owned by h. */
const float *hynum_params(const struct hynum *h);

/* The final parameters' fingerprint (params_fnv) into rec; nothing when h is NULL. */
void hynum_finish(const struct hynum *h, struct run_record *rec);

#endif
