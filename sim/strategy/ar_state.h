/* ar_state.h - the state the all-reduce strategy's files share (internal to allreduce.c and
 * ar_horovod.c).
 *
 * One struct ar_ctx per run (allreduce_run's, on its stack) holds the workers and what the run
 * counts; each worker is a compute actor and a communication side (DDP's comm actor in
 * allreduce.c, or Horovod's background loop and stream in ar_horovod.c) that meet through the
 * worker's `ready` / `done` semaphores and its queue of one step's buckets. Each membership's
 * collective state is a struct ar_world (membership.data). The structs are transparent because
 * they are these files' shared data, not an API: nothing else includes this header
 * (allreduce.h is the strategy's API). Memory: allreduce.c allocates and frees all of it, the
 * Horovod table of a membership included (ar_horovod.h's horovod_table_free, in its dispose).
 */
#ifndef DMLSIM_AR_STATE_H
#define DMLSIM_AR_STATE_H

#include "ckpt.h"
#include "collective.h"
#include "ddp_bucket.h"
#include "elastic.h"
#include "job.h"
#include "rendezvous.h"
#include "runkit.h"
#include "semset.h"
#include "worker.h"

#include <simgrid/forward.h>

#include <stdbool.h>
#include <stddef.h>

struct ar_ctx;
struct hv_table;
struct hv_rank;
struct ar_emb;
struct ar_emb_world;

/* The collective state of one membership (membership.data). */
struct ar_world {
    struct elastic_world ew;      /* its recovery (elastic.h: first) */
    int *commits;                 /* per global step: members that finished it */
    bool *failed;                 /* per global step: a member failed it or died in it (its
                                     execution counted lost unless a member committed it) */
    struct coll_world world;      /* collectives among the members (mailboxes per membership) */
    const struct coll_algo *algo; /* the scenario's algorithm, or the ring where its check
                                     refuses this membership */
    struct hv_table *hv;          /* Horovod: its coordinator's message table (ar_horovod.h),
                                     NULL until the first negotiation */
    struct ar_emb_world *emb;     /* embeddings="sharded": its all-to-alls (ar_emb.h), else NULL */
};

struct bucket_req {
    struct membership *ms; /* the membership the collective runs in */
    double size_B;         /* bucket bytes */
    float *data;           /* numerics: the bucket's part of the gradient, else NULL */
    int *failed;           /* set when a collective of the step failed */
};

struct worker {
    struct ar_ctx *t;          /* shared state */
    int rank;                  /* data-parallel rank */
    struct worker_amounts amt; /* exec amounts of one batch */
    sg_sem_t ready;            /* released once per bucket handed to the comm actor */
    sg_sem_t done;             /* released once per bucket reduced */
    struct bucket_req *queue;  /* one step's buckets */
    size_t qhead;              /* next request the comm actor takes */
    int incarnation;           /* 0, then +1 per restart of its host */
    bool in_step;              /* between reading a batch and the step's end */
    int in_good;               /* the samples of that batch it trains on (0: corrupt) */
    bool in_computed;          /* its gradient has been computed */
    struct membership *in_ms;  /* ... in this membership */
    int in_step_no;            /* ... at this global step */
    struct replica rep;        /* numerics: the parameters it holds */
    struct elastic_member *em; /* its state as recovery sees it (held, side, offset...) */
    struct hv_rank *hv;        /* Horovod: its loop's and stream's state (ar_horovod.h), else
                                  NULL */
    struct ddp_hooks ddp;      /* DDP's hooks as its host runs them (ddp.launch_at_s) */
    double fwd_t0;             /* when this step's forward started */
    double copy_out;           /* exec amount of DDP's copies out of the buckets (0: none) */
};

struct ar_ctx {
    const struct job *j;
    const struct scenario *sc;
    int P;                  /* workers at the start */
    double *bucket_B;       /* bytes of each bucket */
    int *bucket_close;      /* layer whose backward closes each bucket */
    size_t *bucket_off;     /* numerics: each bucket's first parameter */
    double data_scale;      /* simulated gradient bytes per real one (1; a proxy: more) */
    size_t nbuckets;        /* buckets per step */
    bool hooked;            /* DDP's hooks cost the backward (ddp_bucket.h): DDP's buckets,
                               more than one worker, a model with kernels */
    struct worker *workers; /* P workers */
    struct elastic el;      /* recovery: the sides (split brain), the members' states */
    struct runkit *kit;     /* the shared services: injector, traffic, input, checkpoints */
    double *last_compute;   /* per rank: compute of its last step */
    double *last_input;     /* per rank: its wait for its last step's batch */
    int *slow_streak;       /* per rank: consecutive slow steps */
    struct ckpt *ckpt;      /* checkpoints (the kit's one writer) */
    double last_ckpt_s;     /* when the last one was started */
    struct sem_set sems;    /* every worker semaphore, of every incarnation */
    struct run_record *rec;
    struct ar_emb *emb; /* embeddings="sharded" (ar_emb.h), else NULL */
};

static inline struct ar_world *world_of(const struct membership *ms)
{
    return ms->data;
}

#endif
