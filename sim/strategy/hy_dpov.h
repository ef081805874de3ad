/* hy_dpov.h - the hybrid strategy's data-parallel gradient reduction and parameter gather in
 * buckets, overlapped with the backward and the next forward (Megatron's --overlap-grad-reduce
 * and --overlap-param-gather).
 *
 * What Megatron-Core does (megatron/core/distributed/distributed_data_parallel.py and
 * param_and_grad_buffer.py): each model chunk's gradients live in a contiguous buffer cut into
 * buckets of at least bucket_size parameters, in reverse parameter order (the order the backward
 * produces them); the default bucket_size is max(40,000,000, 1,000,000 x dp) parameters
 * (DistributedDataParallelConfig.bucket_size: "larger DP sizes need larger buckets to ensure
 * collectives do not become latency-bound"), and bucketing is off (one bucket a chunk) on a
 * pipeline stage other than the first ("data-parallel communication on these stages is not on
 * the critical path") and for model chunks after the first (training.py's get_model:
 * disable_bucketing=(model_chunk_idx > 0)), and altogether without overlap_grad_reduce. The
 * gradients are synchronised on the last microbatch only (no_sync for the others; with
 * interleaving, on the backward of a chunk's last microbatch, schedules.py); a bucket's
 * collective is launched asynchronously when every one of its parameters' gradients is ready
 * (register_grad_ready -> start_grad_sync); finish_grad_sync, before the optimizer, waits for
 * all. With the distributed optimizer (ZeRO-1 here) it is a reduce-scatter, else an all-reduce;
 * after the optimizer the updated parameters are all-gathered bucket by bucket: with
 * overlap_param_gather, asynchronously, the first bucket's dispatched after the optimizer and
 * each bucket's waited for by a forward pre-hook of its first layer in the next step, which
 * dispatches the next bucket's ("we don't want to block all-gathers for the first bucket behind
 * all-gathers for later buckets", finish_param_sync); without it, synchronously after the
 * optimizer; and at the end of training synchronously (training.py's
 * disable_forward_pre_hook(param_sync=True)). Megatron refuses --overlap-param-gather without
 * the distributed optimizer and without --overlap-grad-reduce (arguments.py).
 *
 * Here: a bucket is whole layers (the simulator's unit; a bucket closes on the layer that
 * brings it to bucket_size parameters, so a layer above it is a bucket of its own), ready at
 * the end of its last layer's backward (in reverse order: its lowest layer's). One DP-comm actor
 * a rank (a daemon on its GPU) takes the buckets' collectives from a FIFO queue and runs them,
 * one at a time as NCCL's one communicator stream does, in the rank's data groups (experts' bytes
 * in its expert-data groups); the rank runs none of its own while it has the actor, so the two
 * share the groups' worlds. The rank waits where Megatron does; only those waits are its
 * data-parallel time. The collectives' interference with the kernels (SM and memory bandwidth)
 * is left out.
 */
#ifndef DMLSIM_HY_DPOV_H
#define DMLSIM_HY_DPOV_H

#include "coll_op.h"
#include "run.h"
#include "scenario_types.h"

#include <simgrid/forward.h>

#include <stdbool.h>

struct hy_dpov;

/* What the module calls back in its rank (hybrid.c's), ctx the rank. */
struct hy_dpov_ops {
    /* layer i's bytes on this rank, and of them its experts' */
    double (*layer_B)(void *ctx, int layer, double *experts_B);
    /* runs `op` on a bucket in the rank's data (dense_B) and expert-data (experts_B) groups */
    void (*collective)(void *ctx, enum coll_op op, double dense_B, double experts_B);
    void (*timed_out)(void *ctx, const char *what); /* a wait gave up */
};

/* A rank, as the module sees it. */
struct hy_dpov_rank {
    void *ctx;                     /* the rank, handed back to ops */
    const struct hy_dpov_ops *ops; /* its calls back */
    sg_host_t host;                /* its GPU: the DP-comm actor's host */
    int rank, stage;               /* its number (the actor's name), its pipeline stage */
    const int *first, *last;       /* per model chunk: its layers [first, last) */
    const struct parallel_spec *p; /* the layout: chunks (vstages), microbatches, dp, zero (1:
                                      Megatron's distributed optimizer, reduce-scatter and
                                      all-gather; 0: all-reduce), overlap_params, bucket_params
                                      (0: Megatron's default, max(40M, 1M dp)) */
    double elem_B;                 /* bytes a parameter (the dtype's) */
    double timeout_s;              /* <training timeout>: the longest wait */
};

/* A rank's buckets and its DP-comm actor (started here); free with hy_dpov_free. */
struct hy_dpov *hy_dpov_new(const struct hy_dpov_rank *r);
void hy_dpov_free(struct hy_dpov *o); /* NULL: a no-op */

/* A restart's new layout (hybrid_recover.h), while the simulation runs: the DP-comm actor
 * killed, so that hy_dpov_free may destroy the semaphore it waits on. NULL: a no-op. */
void hy_dpov_stop(struct hy_dpov *o);

/* Its buckets (a test's and the describe line's). */
int hy_dpov_nbuckets(const struct hy_dpov *o);

/* Before layer `layer`'s forward (chunk `chunk`): the wait for its bucket's gathered parameters
 * when it is the bucket's first layer and a gather is pending; returns the seconds waited. */
double hy_dpov_forward(struct hy_dpov *o, int chunk, int layer);

/* After layer `layer`'s backward (chunk `chunk`): on the chunk's last microbatch, its bucket's
 * reduction launched when it is the bucket's last layer. */
void hy_dpov_backward(struct hy_dpov *o, int chunk, int layer);

/* Before the optimizer (finish_grad_sync): waits for every launched reduction; the seconds. */
double hy_dpov_grads(struct hy_dpov *o);

/* After the optimizer (ZeRO-1): the parameters' all-gathers, dispatched for the next step's
 * forward (overlap_params and not `last`), else run and waited for; the seconds waited. */
double hy_dpov_params(struct hy_dpov *o, bool last);

/* The run's configuration lines of an overlapped layout p (none without overlap, as before). */
void hy_dpov_config(struct run_record *rec, const struct parallel_spec *p);

#endif
