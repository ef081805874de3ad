/* hy_dpov.c - the data-parallel collectives in buckets, overlapped (see hy_dpov.h). */
#include "hy_dpov.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <xbt/asserts.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A collective the DP-comm actor runs: a bucket's reduction or gather. */
struct dpov_job {
    int bucket;
    enum coll_op op;
};

struct hy_dpov {
    struct hy_dpov_rank r; /* the rank's (copied) */
    int nb;                /* buckets */
    int *cb;               /* per chunk: its buckets [cb[c], cb[c + 1]), in reverse layer order */
    int *lo;               /* per bucket: its lowest layer (its forward's first, backward's last) */
    double *dense_B;       /* per bucket: its bytes in the data groups */
    double *ex_B;          /* ... in the expert-data groups */
    int *of_layer;         /* per layer: its bucket (-1: none of this rank's) */
    long *ag_seq;          /* per bucket: its pending gather's job (-1: not dispatched yet) */
    bool *ag_pending;      /* per bucket: the next forward waits for its gather */
    int *nbwd;             /* per chunk: its backwards this step */
    struct dpov_job *q;    /* the queue, a ring of cap jobs */
    long cap, queued, served, acked; /* jobs: enqueued, taken by the actor, completions seen */
    long grad_last;                  /* the last reduction launched this step (-1: none) */
    sg_sem_t todo, done;             /* jobs queued; jobs completed */
    sg_actor_t actor; /* the DP-comm actor (a reference held: it may die with its host) */
};

/* The DP-comm actor: runs the queue's collectives in order, one at a time. A daemon. */
static void dpov_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct hy_dpov *o = sg_actor_self_get_data();
    for (;;) {
        sg_sem_acquire(o->todo);
        struct dpov_job j = o->q[o->served++ % o->cap];
        o->r.ops->collective(o->r.ctx, j.op, o->dense_B[j.bucket], o->ex_B[j.bucket]);
        sg_sem_release(o->done);
    }
}

/* Queues bucket b's `op`; returns its job's number. */
static long enqueue(struct hy_dpov *o, int b, enum coll_op op)
{
    xbt_assert(o->queued - o->acked < o->cap, "DP-comm queue of rank %d full", o->r.rank);
    o->q[o->queued % o->cap] = (struct dpov_job){b, op};
    sg_sem_release(o->todo);
    return o->queued++;
}

/* Waits until job `seq` is done (the queue is FIFO: every job before it too); the seconds. */
static double wait_job(struct hy_dpov *o, long seq, const char *what)
{
    double t0 = simgrid_get_clock();
    while (o->acked <= seq) {
        if (sg_sem_acquire_timeout(o->done, o->r.timeout_s) != 0) {
            o->r.ops->timed_out(o->r.ctx, what);
            break;
        }
        o->acked++;
    }
    return simgrid_get_clock() - t0;
}

/* Chunk c's buckets from its layers in reverse order, each closed on the layer that brings it
 * to `size` parameters (size <= 0: one bucket). */
static void make_buckets(struct hy_dpov *o, int c, double size)
{
    const struct hy_dpov_rank *r = &o->r;
    double params = 0;
    bool open = false;
    o->cb[c] = o->nb;
    for (int i = r->last[c] - 1; i >= r->first[c]; i--) {
        double ex, all = r->ops->layer_B(r->ctx, i, &ex);
        if (!open) { /* a new bucket from this layer on */
            o->nb++;
            params = 0;
            open = true;
        }
        int b = o->nb - 1;
        o->lo[b] = i;
        o->dense_B[b] += all - ex;
        o->ex_B[b] += ex;
        o->of_layer[i] = b;
        params += all / r->elem_B;
        if (size > 0 && params >= size) open = false; /* full: closed */
    }
    o->cb[c + 1] = o->nb;
}

/* Parameters a bucket: bucket-size, else Megatron's default max(40M, 1M dp)
 * (DistributedDataParallelConfig.bucket_size). */
static double bucket_params(const struct parallel_spec *p)
{
    return p->bucket_params > 0 ? (double)p->bucket_params : fmax(40e6, 1e6 * p->dp);
}

struct hy_dpov *hy_dpov_new(const struct hy_dpov_rank *r)
{
    struct hy_dpov *o = xbt_new0(struct hy_dpov, 1);
    o->r = *r;
    int layers = 0;
    for (int c = 0; c < r->p->vstages; c++)
        layers = r->last[c] > layers ? r->last[c] : layers;
    o->cb = xbt_new0(int, r->p->vstages + 1);
    o->lo = xbt_new0(int, layers);
    o->dense_B = xbt_new0(double, layers);
    o->ex_B = xbt_new0(double, layers);
    o->of_layer = xbt_new(int, layers);
    for (int i = 0; i < layers; i++)
        o->of_layer[i] = -1;
    /* bucketing on the first stage's first chunk only (distributed_data_parallel.py,
       training.py's get_model) */
    double size = bucket_params(r->p);
    for (int c = 0; c < r->p->vstages; c++)
        make_buckets(o, c, r->stage == 0 && c == 0 ? size : 0);
    o->ag_seq = xbt_new(long, o->nb);
    o->ag_pending = xbt_new0(bool, o->nb);
    o->nbwd = xbt_new0(int, r->p->vstages);
    o->cap = 4L * o->nb + 4; /* a step's gathers and reductions, twice */
    o->q = xbt_new(struct dpov_job, o->cap);
    o->grad_last = -1;
    o->todo = sg_sem_init(0);
    o->done = sg_sem_init(0);
    char name[32];
    snprintf(name, sizeof name, "dp-comm-%d", r->rank);
    o->actor = sg_actor_init(name, r->host);
    sg_actor_ref(o->actor);
    sg_actor_set_data(o->actor, o);
    sg_actor_start(o->actor, dpov_actor, 0, NULL);
    sg_actor_daemonize(o->actor); /* after the start (SimGrid 3.32: see loader.c's start_device) */
    return o;
}

void hy_dpov_stop(struct hy_dpov *o)
{
    if (o) sg_actor_kill(o->actor); /* a dead one's kill is ignored */
}

void hy_dpov_free(struct hy_dpov *o)
{
    if (o == NULL) return;
    sg_actor_unref(o->actor);
    sg_sem_destroy(o->todo);
    sg_sem_destroy(o->done);
    free(o->cb);
    free(o->lo);
    free(o->dense_B);
    free(o->ex_B);
    free(o->of_layer);
    free(o->ag_seq);
    free(o->ag_pending);
    free(o->nbwd);
    free(o->q);
    free(o);
}

int hy_dpov_nbuckets(const struct hy_dpov *o)
{
    return o->nb;
}

double hy_dpov_forward(struct hy_dpov *o, int chunk, int layer)
{
    int b = o->of_layer[layer];
    if (b < 0 || o->lo[b] != layer || !o->ag_pending[b]) return 0;
    o->ag_pending[b] = false;
    if (o->ag_seq[b] < 0) o->ag_seq[b] = enqueue(o, b, COLL_ALLGATHER);
    double waited = wait_job(o, o->ag_seq[b], "overlapped parameter gather");
    /* the forward pre-hook dispatches the next bucket's (forward order: the one before) */
    if (b - 1 >= o->cb[chunk] && o->ag_pending[b - 1] && o->ag_seq[b - 1] < 0)
        o->ag_seq[b - 1] = enqueue(o, b - 1, COLL_ALLGATHER);
    return waited;
}

void hy_dpov_backward(struct hy_dpov *o, int chunk, int layer)
{
    if (layer == o->r.last[chunk] - 1) o->nbwd[chunk]++;
    int b = o->of_layer[layer];
    if (o->nbwd[chunk] != o->r.p->microbatches || b < 0 || o->lo[b] != layer) return;
    o->grad_last = enqueue(o, b, (o->r.p->zero == 1) ? COLL_REDUCESCATTER : COLL_ALLREDUCE);
}

double hy_dpov_grads(struct hy_dpov *o)
{
    for (int c = 0; c < o->r.p->vstages; c++)
        o->nbwd[c] = 0;
    double waited = o->grad_last >= 0 ? wait_job(o, o->grad_last, "overlapped reduction") : 0;
    o->grad_last = -1;
    return waited;
}

double hy_dpov_params(struct hy_dpov *o, bool last)
{
    if (!(o->r.p->zero == 1)) return 0;
    if (o->r.p->overlap_params && !last) { /* each chunk's first bucket now, the rest chained */
        for (int b = 0; b < o->nb; b++) {
            o->ag_pending[b] = true;
            o->ag_seq[b] = -1;
        }
        for (int c = 0; c < o->r.p->vstages; c++)
            if (o->cb[c + 1] > o->cb[c])
                o->ag_seq[o->cb[c + 1] - 1] = enqueue(o, o->cb[c + 1] - 1, COLL_ALLGATHER);
        return 0;
    }
    long seq = -1;
    for (int b = 0; b < o->nb; b++) {
        o->ag_pending[b] = false;
        seq = enqueue(o, b, COLL_ALLGATHER);
    }
    return seq >= 0 ? wait_job(o, seq, "parameter gather") : 0;
}

void hy_dpov_config(struct run_record *rec, const struct parallel_spec *p)
{
    run_config_str(rec, "overlap_grad_reduce", p->overlap_grad ? "yes" : "no");
    run_config_str(rec, "overlap_param_gather", p->overlap_params ? "yes" : "no");
    run_config_num(rec, "bucket_size", "%.0f", bucket_params(p));
}
