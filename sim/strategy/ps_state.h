/* ps_state.h - the state a parameter-server run shares among its modules (internal to ps*.c).
 *
 * One struct ps_ctx per run (ps_run's, on its stack) holds the shards, the workers, the ports
 * and everything the run counts; every actor reaches it through its shard, worker or port. The
 * actors of ps_shard.c, ps_port.c, ps_worker.c (with ps_pull.c, ps_push.c and ps_agg.c),
 * ps_coord.c and the injector's hooks in ps_fault.c read and write these fields directly:
 * SimGrid runs one actor at a time and switches only at simulation calls, so no field needs a
 * lock, but a field read before a simulation call may have changed after it. The structs are
 * transparent because they are the modules' shared data, not an API: nothing outside ps*.c
 * includes this header (ps.h is the strategy's API). Memory: ps_run allocates every array here
 * (ps.c) and frees it in its teardown; messages live in `msgs` (ps_msg.h).
 */
#ifndef DMLSIM_PS_STATE_H
#define DMLSIM_PS_STATE_H

#include "ckpt.h"
#include "inject.h"
#include "job.h"
#include "loader.h"
#include "owned.h"
#include "ps_metrics.h"
#include "psnum.h"
#include "runkit.h"
#include "semset.h"
#include "worker.h"

#include <simgrid/forward.h>

#include <stdbool.h>
#include <stddef.h>

/* A shard host's memory rate for its updates: an AMD EPYC 7742's 8 channels of DDR4-3200 x
 * 25.6 GB/s, at the 92% that memory-bound kernels reach (the GPU default, calib.c). */
#define PS_CPU_MEM_BW  204.8e9
#define PS_CPU_MEM_EFF 0.92

/* A pull request, a push, a shard's parameters, an async push's verdict, a shard's advance (to
 * the coordinator), a follower's gradient (to its leader), a question for the global version. */
enum msg_type { MSG_PULL, MSG_PUSH, MSG_PARAMS, MSG_VERDICT, MSG_ADVANCE, MSG_GRAD, MSG_GLOBAL };

/* A push its port received, queued for its shard (async: until the shard's verdict). */
struct push_rec {
    int worker;            /* who pushed */
    int version;           /* version the gradient was computed from */
    int it;                /* the worker's iteration (prefetch: the version it is for) */
    double samples;        /* the samples its gradient covers */
    int accepted;          /* async: the shard's verdict */
    bool empty;            /* sync: a worker with nothing to push says so (no gradient) */
    sg_sem_t decided;      /* async: released when the verdict is set */
    struct ps_msg *m;      /* numerics: the push, with its gradient (freed with the record) */
    double rows;           /* sparse: the embedding rows it carries gradients for ... */
    double row_elems;      /* ... and their elements (rows x dimension, over the tables) */
    double queued_s;       /* when its port queued it (the shard's queueing starts) */
    struct push_rec *next; /* the next push in its shard's queue */
};

/* A message between the run's actors (ps_msg.h: who owns it). */
struct ps_msg {
    enum msg_type type; /* what it is (below, what each field means for it) */
    int version;        /* PULL: version needed; PUSH/PARAMS: version of the data */
    int it;             /* PUSH: the worker's iteration; PARAMS to a follower: the leader's */
    double samples;     /* PUSH: samples the slice covers; GRAD: samples of a follower's gradient */
    int accepted;       /* VERDICT */
    int shard;          /* ADVANCE: who advanced; GLOBAL: the asking worker's rank */
    int exact;          /* PULL: answer with the parameters of exactly `version` (coordinator) */
    int buf;            /* GLOBAL: which of the worker's actors asks (its shard_bufs) */
    size_t n;           /* numerics: floats in data */
    int grads;          /* numerics, PUSH and GRAD: the workers' gradients summed in data */
    int empty;          /* PUSH, sync: no gradient (every batch of the push was corrupt) */
    double rows;        /* sparse, PULL: rows asked for; PUSH: rows it carries gradients for */
    double row_elems;   /* sparse, PUSH: their elements; PULL and its PARAMS answer: the rows
                           the worker's cache serves instead */
    double reply_B;     /* PULL: the bytes of the answer (the dense slice and the rows asked) */
    float data[]; /* numerics: PARAMS, the shard's parameters; PUSH, its slice of a gradient */
};

/* An actor's buffers for the K shards; kept in its worker, since a crash kills it mid-use. */
struct shard_bufs {
    bool *got;          /* K: the shards that answered the pull under way */
    sg_comm_t *comms;   /* 4 x K */
    struct ps_msg **in; /* 3 x K */
    int *version;       /* K */
    float *params;      /* numerics: the parameters pulled (every shard's slice) */
};

struct ps_ctx;
struct rpc_pool;
struct ps_sparse;
struct coll_world;
struct sparse_batch;

/* Shard k: the parameters it owns, its versions, its queue of pushes, its checkpoints. */
struct shard {
    struct ps_ctx *c;             /* the run */
    int id;                       /* k, its index in the run's shards */
    int incarnation;              /* restarts of its host */
    double *applied_at;           /* per version: slices applied into it */
    double *applied_smp;          /* per version: the samples those slices cover */
    struct ckpt *ckpt;            /* this shard's checkpoints (the kit's writer k) */
    double ckpt_version;          /* the version its last counted checkpoint holds */
    double last_ckpt_s;           /* when it last started one */
    double last_adv_s;            /* when it last advanced a version */
    sg_host_t host;               /* its CPU host (placement: dedicated or colocated) */
    double params, bytes;         /* parameters owned, and their gradient/parameter bytes */
    double update_amt;            /* exec amount of one update on the shard's host */
    int version;                  /* current version */
    double *version_s;            /* time each version was reached */
    int nversions;                /* versions reached, counting version 0 */
    bool *waiting;                /* per worker: its port waits for a newer version */
    bool *pushed;                 /* sync, per worker: it pushed for the version collected */
    bool *suspect;                /* sync, per worker: its push missed a quorum's deadline; not
                                     waited for until it pushes again */
    double quorum_end;            /* sync: when the version collected stops waiting (-1: no push
                                     for it yet; INFINITY: the update is being applied) */
    bool stopped;                 /* sync: its loop ended (every version, or nobody to push) */
    sg_sem_t *wake;               /* per worker: released to wake that port */
    sg_sem_t arrived;             /* one release per queued push */
    struct push_rec *head, *tail; /* pushes not yet taken by the shard */
    struct push_rec *taken;       /* async: the push it is deciding on */
    struct shard_report *rep;     /* its report */
    int in_port;                  /* pushes received by its ports and still being deserialised */
    double in_port_smp;           /* ... and the samples they cover */
    int rpcs;                     /* messages one slice takes: 1, or one per tensor it holds */
    struct psnum num;             /* numerics: its parameters, optimizer and accepted gradients */
    struct nn_states snaps;       /* numerics: the states of its checkpoints, by version */
    struct nn_states hist;        /* numerics, coordinator="enforce": its parameters of the
                                     versions a pull may still be told to take */
    double pend_elems;            /* sparse: row elements accepted for the next update */
    double in_port_rows;          /* sparse: the rows of the pushes in_port counts */
    double *applied_rows;         /* sparse, per version: embedding rows applied into it */
};

/* Worker r (GPU r): kept across its host's restarts (its actors are not). */
struct ps_worker {
    struct ps_ctx *c;          /* the run */
    int rank;                  /* r: it runs on GPU r (c->pf->gpus[r]) */
    struct worker_amounts amt; /* exec amounts of one batch */
    double end_s;              /* when it finished */
    double *iter_end;          /* per iteration: when it ended (0: never) */
    double *iter_busy;         /* per iteration: compute */
    double *iter_tc;           /* per iteration: when its compute started */
    double *iter_samples;      /* per iteration: samples it computed gradients for */
    int next_it;               /* the iteration it is at (kept across restarts) */
    int cap;                   /* iterations the per-iteration arrays hold */
    bool active;               /* running and not through its iterations */
    int incarnation;           /* restarts of its host */
    bool in_step;              /* where a crash caught it */
    int good;                  /* the samples of its batch it trains on (0: a corrupt batch) */
    int handed;                /* slices of this iteration computed and handed on */
    /* push during the backward: the pusher actor serialises and posts the slices handed to it */
    sg_sem_t hand, posted; /* a slice handed over / posted */
    int *queue, qn, qhead; /* this iteration's slices, in the order handed */
    const int *pversion;   /* the versions they were computed from */
    sg_comm_t *pcomms;     /* their sends */
    double first_post_s;   /* when the first of them was posted */
    /* prefetch: the puller fetches the next iteration's parameters during this one */
    sg_sem_t pull_go, pull_done; /* start a fetch / it is done */
    int pull_needed;             /* the version it needs */
    int *pf_version;             /* the versions it got */
    bool pull_ok, pf_pending;    /* it got every shard; a fetch is under way */
    int delivered;               /* slices of this iteration its shards' ports received */
    /* local aggregation: the node's first GPU (the leader) alone talks to the shards */
    int leader;           /* its node's leader (itself when it leads or nothing is aggregated) */
    int *follow, nfollow; /* a leader's followers */
    double carry;         /* samples its push will cover: its batch, and its followers' */
    int ngrads;           /* numerics: the gradients its push sums (its own, its followers') */
    bool gathering;       /* a leader waiting for its followers' gradients */
    bool gave_up;         /* a shard stayed unreachable past the replacement timeout (or, a
                             follower, its leader is gone for good) */
    bool finished;        /* it went through its iterations */
    bool down;            /* its host crashed (until it restarts) */
    int *last_key;        /* sync, per shard: what its last push was fresh for (prefetch: the
                             iteration, else the version computed from; -1: none) */
    int want;             /* sync: the version its next pull waits for (the one after the version
                             it last computed from) */
    bool *fgone;          /* a leader's followers whose loss it has reported */
    int *seen;            /* per shard: the version it last pulled (-1: none) */
    bool *sent;           /* a leader's followers that got this iteration's parameters */
    double work;          /* exec amount of one batch's forward and backward */
    double reduce_amt;    /* exec amount of streaming one gradient at the memory rate */
    struct shard_bufs bufs[2]; /* the worker actor's and the puller's */
    sg_comm_t *fcomms;         /* a leader's: one per follower */
    struct ps_msg **fmsgs;     /* a leader's: one message per follower */
    struct replica rep;        /* numerics: the parameters it computes with, its gradient */
    int asks;                  /* enforce: questions to the coordinator so far */
    struct sparse_batch *sp;   /* sparse: its last batches' rows per shard (ps_sparse.c) */
    double rows_handed;        /* sparse: rows of this iteration's slices posted ... */
    double rows_delivered;     /* ... and received by their ports */
};

/* A worker's question to the coordinator: the global version, once it is at least `need`. */
struct global_req {
    int rank, buf, need, seq; /* who asks (worker, its shard_bufs), the version it needs, and
                                 its question's number */
    struct global_req *next;  /* the next unanswered question */
};

/* Port (k, r): shard k's end of worker r's connection (the port actor's data). */
struct port {
    struct shard *s; /* the shard it serves */
    int worker;      /* the worker it serves (rank) */
};

/* The run. */
struct ps_ctx {
    const struct job *j;       /* the job run */
    const struct scenario *sc; /* its scenario (j->sc) */
    const struct model *m;     /* its model (j->m) */
    const struct platform *pf; /* its platform (j->pf) */
    struct runkit *kit;        /* the shared services (runkit.h): the injector (faults), the
                                  input (the loader's hook, or the job's), the traffic (bytes
                                  moved between hosts, for the report), the checkpoints */
    int P, K, quorum;          /* workers, shards, pushes a sync version waits for */
    double model_B;            /* the model's parameter (and gradient) bytes */
    double total_versions;     /* versions each shard may reach */
    struct shard *shards;      /* K */
    struct ps_worker *workers; /* P */
    struct port *ports;        /* K x P: shard k's port for worker r at k x P + r */
    struct run_record *res;    /* what the run records (the caller's) */
    sg_host_t coord_host;      /* coordinator's host, or NULL */
    int workers_done;          /* workers that finished every iteration */
    int gave_up;               /* workers that left, a shard unreachable */
    int running;               /* worker actors alive now */
    int *complete_at;          /* per shard: the layer whose backward completes its slice */
    int budget;                /* async: iterations left to hand out (P x steps in all) */
    int *progress;             /* bounded delay: per worker, iterations finished */
    bool *bd_waiting;          /* bounded delay: per worker, waiting for the others */
    sg_sem_t *bd_wake;         /* bounded delay: per worker, released to look again */
    struct sem_set sems;       /* the shards' and workers' semaphores, of every incarnation */
    struct owned msgs;  /* messages not yet freed: what killed actors left is freed at the end */
    int *coord_ver;     /* the coordinator's view of each shard's version */
    float *eval_params; /* numerics: the shards' parameters gathered for an evaluation */
    int *pinned;        /* enforce: per worker actor (2 P), the global version its pull takes,
                           or -1 (the shards keep those versions' parameters) */
    struct global_req *reqs; /* enforce: requests the coordinator has not answered yet */
    int evaluated;           /* numerics: the version last evaluated */
    bool in_process;         /* gRPC transport, one process: tensors move without RPCs */
    struct rpc_pool *rpc;    /* gRPC's thread pools, two per process (ps_rpc.h), or NULL */
    int *rpc_proc;           /* per worker: the worker process it is in (first rank of its node) */
    struct ps_sparse *sparse; /* the sparse embedding path (ps_sparse.h), or NULL: none */
    struct coll_world *dense_world; /* dense="allreduce": the workers' world (ps_dense.h) */
};

#endif
