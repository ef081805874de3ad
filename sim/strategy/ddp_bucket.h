/* ddp_bucket.h - PyTorch DDP's gradient buckets: which layers each holds, and what each costs.
 *
 * Assignment (torch/csrc/distributed/c10d/reducer.cpp, rebuild_buckets and
 * compute_bucket_assignment_by_size): after the first iteration DDP rebuilds its buckets in the
 * order the gradients became ready (the reverse of the forward), filling each until it holds at
 * least its limit; the limits are [kDefaultFirstBucketBytes = 1 MiB, bucket_cap_mb] (reducer.hpp),
 * so the first bucket reduced holds the first gradients ready, about 1 MiB, the others `bucket`
 * bytes each, and what is left (the first layers) is the last. PyTorch issue #48880 shows the
 * result on the ImageNet example: all-reduces of 2052000 B (the fc layer alone), 28852224 B and
 * the remaining 15853824 B. A parameter is never split; here a layer is never split.
 *
 * Costs, as the reducer runs them (same file): after a parameter's gradient is computed, its
 * autograd hook (mark_variable_ready_dense), on the thread that issues the backward's kernels,
 * launches one kernel on the compute stream that reads the gradient and writes it divided by the
 * world size: into the flat bucket (at::mul_out(bucket_view, grad, 1/N)), or, with
 * gradient_as_bucket_view once the gradient is a view of the bucket, in place (bucket_view.div_).
 * When the last gradient of the bucket is in, the same thread launches the bucket's collective
 * (ProcessGroupNCCL: an event on the compute stream, the NCCL stream waits on it, ncclAllReduce):
 * the collective starts when both the GPU has finished the bucket's gradients and the host has
 * launched it. After the backward, finalize_backward makes the compute stream wait for every
 * bucket and, without gradient_as_bucket_view (the default), copies each bucket back into the
 * gradients (copy_bucket_to_grad): kernels after the last all-reduce, before the optimizer.
 * The host runs ahead of the GPU (kcost.h's stream), so the hooks' host time costs the step only
 * where the host falls behind; the kernels' GPU time always does. NCCL's own per-call latency is
 * the collective model's (collective.h), not counted here.
 *
 * Granularity: the model's layers (a preset layer's tensors: its weight and its norm's or bias's
 * parameters) are one gradient each, one kernel and one hook; models without kernels (explicit
 * layers, outside the host model) get no hook costs, only the collective's launch.
 */
#ifndef DMLSIM_DDP_BUCKET_H
#define DMLSIM_DDP_BUCKET_H

#include "kcost.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>

/* kDefaultFirstBucketBytes (torch/csrc/distributed/c10d/reducer.hpp): the first bucket's limit. */
#define DDP_FIRST_BUCKET_B (1024.0 * 1024)

/* The buckets of model m with gradients of elem_B bytes per parameter, in the order they are
 * reduced: the first holds at least first_B bytes, the others at least cap_B (0: one layer's
 * gradient each); the last holds what is left. Fills size_B[], close[] (the layer whose backward
 * completes it) and off[] (its first parameter), each with room for m->nlayers + 1 entries;
 * returns the number of buckets. */
size_t ddp_buckets_assign(const struct model *m, double elem_B, double first_B, double cap_B,
                          double *size_B, int *close, size_t *off);

/* What one worker's DDP hooks cost (kernel_costs.after_bwd's context). */
struct ddp_hooks {
    const struct model *m;
    const int *close; /* layer completing each bucket */
    size_t nbuckets;  /* buckets a step */
    double elem_B;    /* gradient bytes per parameter */
    double mem_Bps;   /* the GPU's calibrated memory rate */
    double launch_s;  /* host time to launch a bucket's collective (<training bucket-overhead>) */
    double *launch_at_s; /* out, per bucket: when the host has launched its collective, in seconds
                            from the start of the step's forward (the host and the GPU start a
                            step together, kcost.h) */
};

/* kernel_costs.after_bwd for DDP (ctx: a struct ddp_hooks): after layer l's backward, its hook's
 * kernel, then the launch of each bucket l completes (recorded in launch_at_s); returns the GPU
 * time added. A collective starts when the GPU has finished its bucket, the previous collective
 * is done and the host has launched it, whichever is last. */
double ddp_after_backward(void *ctx, size_t l, struct kstream *st, const struct kernel_costs *kc);

/* Seconds of GPU time of the copies back from the buckets into the gradients after the last
 * all-reduce (one kernel a layer with parameters and kernels, reading and writing its gradient at
 * mem_Bps); 0 with gradient_as_bucket_view. */
double ddp_copy_out_s(const struct model *m, double elem_B, double mem_Bps, bool as_view);

#endif
