/* worker.h - services every strategy's workers share: the exec amounts of a batch, timed
 * execution that counts compute time in the run record, and the hook before the forward where an
 * input pipeline can make a worker wait for its batch.
 *
 * Exec amounts: a layer's forward (backward) of one batch on `host` is FLOPs x batch x the host's
 * speed / (peak of the dtype x the calibrated GEMM efficiency at the layer's GEMM size), so it
 * lasts FLOPs / effective rate on an unloaded host and a slowed host slows exactly the compute.
 * The optimizer update streams its bytes at the calibrated memory rate.
 */
#ifndef DMLSIM_WORKER_H
#define DMLSIM_WORKER_H

#include "calib.h"
#include "catalog.h"
#include "inject.h"
#include "kcost.h"
#include "model.h"
#include "run.h"

#include <simgrid/forward.h>

#define WORKER_CLASSES (KC_COUNT + 2) /* the kernel classes, the optimizer update, and ... */
#define WORKER_HOST    (KC_COUNT + 1) /* ... the GPU's time waiting for the host to issue */

struct worker_amounts {
    double *fwd;     /* per layer: exec amount of its forward for one batch */
    double *bwd;     /* per layer: exec amount of its backward */
    double fwd_all;  /* sum of fwd */
    double update;   /* exec amount of the optimizer update of the whole model */
    double class_s[WORKER_CLASSES];     /* seconds of one step per kernel class (unloaded host) */
    double class_flops[WORKER_CLASSES]; /* FLOPs of one step per class (GEMMs; 0 otherwise) */
    double class_bytes[WORKER_CLASSES]; /* bytes moved of one step per memory-bound class */
    double sm_s;  /* of one step's kernels: each one's seconds x the fraction of the SMs it
                     occupies (kcost's sm_frac), summed: SM activity's numerator */
    double act_s; /* ... each one's seconds x its dynamic power activity (power.h), summed */
};

/* Fills `a` for one batch of `m` on `host` of `gpu` (release with worker_amounts_release). A
 * preset's step is its kernels in execution order (the forward's layers, the backward's in
 * reverse, the update), each costed by kcost.h and issued by the host (eager, graphs or
 * compiled): a layer's amount is the GPU time its kernels add, waiting for the host included, and
 * what kc->after_bwd adds after its backward (DDP's hooks, ddp_bucket.h). A
 * layer without kernels (explicit layers) is one GEMM of its FLOPs at its GEMM size. The update
 * streams the optimizer's bytes at the calibrated memory rate: one fused kernel, or one per
 * parameter tensor; mixed precision adds its per-step kernel (kcost_amp_bytes_per_param). */
void worker_amounts(const struct calib *cal, const struct gpu_model *gpu, sg_host_t host,
                    enum gpu_dtype dtype, enum optimizer opt, const struct model *m, int batch,
                    const struct kernel_costs *kc, struct worker_amounts *a);

/* The class of slot i of class_s: a kernel class, or "optimizer". */
const char *worker_class_name(int i);
void worker_amounts_release(struct worker_amounts *a);

/* Runs `amount` on the current host (skipping empty work), adds the time it took to worker
 * `rank`'s compute time in `rec`, and returns it. */
double worker_exec(struct run_record *rec, int rank, double amount);

/* The hook before each forward: an input pipeline blocks the worker there until its batch is
 * ready (NULL wait: batches are always ready), and names the samples of a batch that sit in
 * corrupt shards (NULL corrupt: none). */
struct input_hook {
    void (*wait)(void *ctx, int rank, int step);
    /* samples of worker rank's batch at data position `step` in corrupt shards (logged the first
     * time a shard is met in an epoch; members: workers training now) */
    int (*corrupt)(void *ctx, int rank, int step, int members);
    void *ctx;
};

/* Worker `rank` on the current host reads its batch of `step` (data position `pos`): counts its
 * samples as read and, when the plan makes the batch corrupt, or the pipeline's corrupt shards
 * hold some of its samples, those as skipped, with an event (members: workers training now).
 * Returns the samples it trains on: 0 for a corrupt batch (its compute is then skipped). */
int worker_read_batch(struct run_record *rec, const struct injector *inj,
                      const struct input_hook *h, int rank, int step, int pos, int members);

void worker_before_forward(const struct input_hook *h, int rank, int step);

#endif
