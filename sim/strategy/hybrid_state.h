/* hybrid_state.h - the state the hybrid strategy's run shares among its files: a rank's and the
 * run's (internal to hybrid.c; moved out of it as ar_state.h was for the all-reduce, so that the
 * mechanisms in their own modules can grow without hybrid.c passing 900 lines). */
#ifndef DMLSIM_HYBRID_STATE_H
#define DMLSIM_HYBRID_STATE_H

#include "ckpt.h"
#include "collective.h"
#include "hy_cp.h"
#include "hy_tpov.h"
#include "hybrid_input.h"
#include "hygroup.h"
#include "job.h"
#include "parallel.h"
#include "runkit.h"
#include "worker.h"

#include <simgrid/forward.h>

enum { DIM_TP, DIM_PP, DIM_DP, DIM_EP }; /* par_bytes' order (hybrid_metrics.h) */

struct hy_ctx;

/* One GPU: its coordinates, its stage's layers, its schedule, and this step's figures. */
struct hy_rank {
    struct hy_ctx *c;
    int rank, t, s, d;
    int cx;            /* its context-parallel rank (0 without context parallelism) */
    int *first, *last; /* per model chunk: its layers [first, last) */
    struct pp_op *ops; /* its schedule, 2 m v operations (v model chunks) */
    sg_comm_t *sends;  /* this step's activations and gradients in flight, 2 m v at most */
    void *payload[2];  /* the receives posted: this operation's and the next one's */
    int nsends;
    double params;                /* parameters of its share of the stage */
    double experts;               /* ... of which its experts' */
    double *chunk_B, *chunk_ex_B; /* per model chunk: its parameters' bytes, its experts' */
    double compute_s, tp_s, dp_s, update_s, pipe_end; /* this step */
    double dp_in_s;                 /* ... of dp_s, inside the pipeline phase (ZeRO-2's and -3's) */
    double step_t0_s;               /* when this step began for it (its GPU's trace counters) */
    double jitter;                  /* this step's compute factor (<straggler jitter>; 1 without) */
    double mb_scale;                /* the operation's: its microbatch's samples trained on / b */
    int step;                       /* the step it is in */
    struct ckpt *ckpt;              /* its shard of the checkpoints (the kit's writer) */
    sg_sem_t slots, ready, step_go; /* ZeRO-3's prefetch: gathers allowed, done, next step */
    struct hy_dpov *ov; /* overlap-grad-reduce: its buckets and DP-comm actor (else NULL) */
    double last_ckpt_s;
};

struct hy_ctx {
    const struct job *j;
    const struct scenario *sc;
    const struct parallel_spec *p;
    struct run_record *rec;
    int P;
    struct model m;            /* one tensor rank's share of the model */
    struct worker_amounts amt; /* its exec amounts for a microbatch */
    double attn_core;          /* selective recomputation: a block's attention core again */
    double model_params;       /* of the share, all stages */
    struct coll_world *groups[HYGROUP_KINDS]; /* the collective groups of each kind (hygroup_of) */
    int ngroups[HYGROUP_KINDS];
    const struct coll_algo *algo;
    struct traffic *traffic[4]; /* per dimension */
    struct hy_rank *ranks;
    sg_sem_t go[2]; /* the step's end (by its parity): every rank arrives */
    int arrived[2];
    bool failed;          /* a wait failed: the job stops (or restarts: hr) */
    struct hyrec *hr;     /* <recovery>: the job's restarts (hybrid_recover.h), else NULL */
    int from, epochs;     /* the layout's first step; the collective worlds' epochs so far */
    int done;             /* steps every rank finished */
    struct runkit *kit;   /* the shared services: the injector plays the plan's stragglers and
                             crashes, traffic[0] is the kit's */
    double end_s;         /* when the last step ended */
    double e;             /* bytes per element of the dtype */
    double act_B;         /* a microbatch's activations between stages, per tensor rank */
    double tp_B;          /* each tensor-parallel collective */
    double a2a_B;         /* each expert all-to-all (a rank's routed tokens) */
    double expert_params; /* a block's experts, as one rank holds them */
    double pp_B;          /* a pipeline message per tensor rank: act_B, or act_B / tp (pp_gather) */
    bool pp_gather;       /* scatter/gather: the next stage all-gathers the tensor ranks' shares */
    struct tpov_block tpov; /* tp-comm-overlap: a block's GEMMs beside its collectives */
    double *start, *pipe, *compute, *tp, *dp, *dp_in, *update; /* per step: sums or maxima */
    struct hy_input in; /* the replicas' batches: read, waited for, skipped (hybrid_input.h) */
    struct hynum *num;  /* <numerics>: the real training (hybrid_num.h), else NULL */
    struct hycp cp;     /* context parallelism's attention exchange (hy_cp.h) */
};

#endif
