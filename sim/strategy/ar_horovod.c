/* ar_horovod.c - Horovod's coordinator and tensor fusion (see ar_horovod.h). */
#include "ar_horovod.h"

#include "ar_state.h"
#include "calib.h"
#include "collective.h"
#include "net.h"
#include "rendezvous.h"
#include "semset.h"
#include "trace.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HV_TAG 4096 /* the negotiation's mailboxes: above every collective's channel tags */

/* Rank 0's MessageTable of one membership (horovod/common/global_state.h) and the last response it
 * built. */
struct hv_table {
    int n;           /* members */
    size_t T;        /* tensors (buckets) per step */
    int step;        /* the step its counts are of (-1: none yet) */
    int *count;      /* per tensor: members that asked for it (IncrementTensorCount) */
    size_t *lo, *hi; /* per member: the list it sent this cycle, tensors [lo, hi) */
    int *list_step;  /* per member: the step of that list */
    long cycles;     /* responses built */
    size_t *order;   /* the last response's tensors, in the order they became ready */
    size_t *group;   /* ... its fused groups' lengths (runs of `order`) */
    size_t norder;   /* tensors in the last response */
    size_t ngroups;  /* fused groups in it */
    double resp_B;   /* its bytes on the wire */
};

/* One fused group of a response, queued on the rank's stream. */
struct hv_job {
    struct membership *ms; /* the membership it is all-reduced in */
    int *failed;           /* the step's failure flag */
    size_t first, n;       /* its tensors: the step's buckets first .. first + n - 1 */
    double size_B;         /* their bytes */
    float *data;           /* numerics: their gradient (contiguous), else NULL */
};

/* One worker incarnation's Horovod: what its loop and its stream share. */
struct hv_rank {
    struct worker *w;    /* its worker */
    struct hv_job *jobs; /* the stream's queue: a ring of nbuckets jobs */
    size_t jhead, jtail; /* next job the stream takes / the loop queues */
    sg_sem_t njobs;      /* released once per job queued */
    double copy_Bps;     /* fusion copies: bytes copied per second (each read and written) */
    int ms_id;           /* the membership of `cycles` (checker) */
    long cycles;         /* responses it read in that membership (checker) */
};

void horovod_table_free(struct hv_table *tb)
{
    if (tb == NULL) return;
    free(tb->count);
    free(tb->lo);
    free(tb->hi);
    free(tb->list_step);
    free(tb->order);
    free(tb->group);
    free(tb);
}

void horovod_rank_free(struct hv_rank *r)
{
    if (r == NULL) return;
    free(r->jobs);
    free(r);
}

/* The membership's table, made by the first member that negotiates in it. */
static struct hv_table *table_of(struct ar_world *aw, int n, size_t T)
{
    if (aw->hv != NULL) return aw->hv;
    struct hv_table *tb = xbt_new0(struct hv_table, 1);
    size_t nt = T > 0 ? T : 1;
    tb->n = n;
    tb->T = T;
    tb->step = -1;
    tb->count = xbt_new0(int, nt);
    tb->lo = xbt_new0(size_t, n);
    tb->hi = xbt_new0(size_t, n);
    tb->list_step = xbt_new0(int, n);
    tb->order = xbt_new0(size_t, nt);
    tb->group = xbt_new0(size_t, nt);
    aw->hv = tb;
    return tb;
}

/* ---- the negotiation: messages ---------------------------------------------------------- */

/* Open MPI's linear gather to position 0 (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c:
 * basic_linear): every other member sends its size_B at once, the root receives them all. */
static enum net_status gather(const struct coll_world *W, int idx, double size_B)
{
    int n = W->nranks, tag = HV_TAG, root = 0;
    if (n < 2) return NET_OK;
    if (idx > 0) return coll_exchange_tagged(W, idx, &root, &tag, 1, size_B, NULL, NULL, 0);
    int *from = xbt_new(int, n - 1), *tags = xbt_new(int, n - 1);
    for (int i = 1; i < n; i++) {
        from[i - 1] = i;
        tags[i - 1] = HV_TAG;
    }
    enum net_status st = coll_exchange_tagged(W, 0, NULL, NULL, 0, size_B, from, tags, n - 1);
    free(from);
    free(tags);
    return st;
}

/* Open MPI's binomial broadcast from position 0 (below 2 KiB; MPICH's too): a member receives
 * from the member its lowest set bit away, then sends to the members below that bit, the
 * farthest first, at once: ceil(log2 n) rounds. */
static enum net_status bcast(const struct coll_world *W, int idx, double size_B)
{
    int n = W->nranks, tag = HV_TAG, mask = 1, to[32], tags[32], nto = 0;
    enum net_status st = NET_OK;
    if (n < 2) return NET_OK;
    for (; mask < n; mask <<= 1)
        if (idx & mask) {
            int from = idx - mask;
            st = coll_exchange_tagged(W, idx, NULL, NULL, 0, size_B, &from, &tag, 1);
            break;
        }
    if (st != NET_OK) return st;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (idx + mask < n) {
            to[nto] = idx + mask;
            tags[nto++] = HV_TAG;
        }
    return nto > 0 ? coll_exchange_tagged(W, idx, to, tags, nto, size_B, NULL, NULL, 0) : NET_OK;
}

/* ---- the negotiation: rank 0's table ---------------------------------------------------- */

/* Rank 0, once every list of the cycle reached it: counts each request (its own list first,
 * then the other ranks' in rank order, as RunLoopOnce), lists the tensors every rank asked for
 * in the order they became ready, and cuts them into fused groups: a group takes the following
 * ready tensors while their bytes stay within the threshold and stops at the first that does
 * not fit (operations.cc: "Don't try to fuse additional tensors"); one dtype per run here. */
static void respond(struct hv_table *tb, const double *bucket_B, double fusion_B, int step)
{
    if (tb->step != step) { /* a new step: its tensors' names are new requests */
        memset(tb->count, 0, (tb->T > 0 ? tb->T : 1) * sizeof *tb->count);
        tb->step = step;
    }
    tb->norder = tb->ngroups = 0;
    for (int i = 0; i < tb->n; i++) {
        assert(tb->list_step[i] == step); /* every member's list is of this cycle */
        for (size_t b = tb->lo[i]; b < tb->hi[i]; b++)
            if (++tb->count[b] == tb->n) tb->order[tb->norder++] = b;
    }
    double bytes = 0;
    for (size_t k = 0; k < tb->norder; k++) {
        double s = bucket_B[tb->order[k]];
        if (k > 0 && bytes + s <= fusion_B) {
            tb->group[tb->ngroups - 1]++;
            bytes += s;
        } else {
            tb->group[tb->ngroups++] = 1;
            bytes = s;
        }
    }
    tb->resp_B = HOROVOD_LIST_B +
                 (double)tb->ngroups * (HOROVOD_RESPONSE_B + tb->n * HOROVOD_DEVICE_B) +
                 (double)tb->norder * HOROVOD_NAME_B;
    tb->cycles++;
}

/* One cycle's negotiation of this rank in membership ms: sends its list of the tensors
 * [lo, hi) that became ready here since the last cycle, and receives the response (*out). */
static enum net_status negotiate(struct hv_rank *r, struct membership *ms, int step, size_t lo,
                                 size_t hi, const struct hv_table **out)
{
    struct worker *w = r->w;
    const struct ar_ctx *t = w->t;
    struct ar_world *aw = world_of(ms);
    const struct coll_world *W = &aw->world;
    int idx = rdzv_index(ms, w->rank);
    struct hv_table *tb = table_of(aw, ms->n, t->nbuckets);
    assert(idx >= 0 && tb->n == ms->n);
    tb->lo[idx] = lo; /* the list it sends: rank 0 reads it once the gather brought it */
    tb->hi[idx] = hi;
    tb->list_step[idx] = step;
    enum net_status st = gather(W, idx, HOROVOD_LEN_B);
    if (st == NET_OK) st = gather(W, idx, HOROVOD_LIST_B + (double)(hi - lo) * HOROVOD_REQUEST_B);
    if (st != NET_OK) return st;
    if (idx == 0) respond(tb, t->bucket_B, t->sc->train.fusion_B, step);
    st = bcast(W, idx, HOROVOD_LEN_B);
    if (st == NET_OK) st = bcast(W, idx, tb->resp_B);
    if (st != NET_OK) return st;
    if (r->ms_id != ms->id) {
        r->ms_id = ms->id;
        r->cycles = 0;
    }
    assert(tb->cycles == ++r->cycles); /* every member reads every response, once */
    *out = tb;
    return NET_OK;
}

/* ---- the stream ------------------------------------------------------------------------- */

/* Queues the response's groups on the stream, in its order; returns the tensors it answered. */
static size_t enqueue(struct hv_rank *r, const struct hv_table *tb, struct membership *ms,
                      int *failed)
{
    struct worker *w = r->w;
    const struct ar_ctx *t = w->t;
    size_t k = 0;
    for (size_t g = 0; g < tb->ngroups; g++) {
        size_t first = tb->order[k], n = tb->group[g];
        double bytes = 0;
        for (size_t i = 0; i < n; i++) {
            /* every rank hands its tensors in one order, so they become ready in that order
             * and a group is a stretch of the gradient */
            assert(tb->order[k + i] == first + i);
            bytes += t->bucket_B[first + i];
        }
        r->jobs[r->jtail++ % t->nbuckets] =
                (struct hv_job){ms, failed, first, n, bytes, w->queue[first + n - 1].data};
        sg_sem_release(r->njobs);
        k += n;
    }
    return k;
}

/* A copy into or out of the fusion buffer on the stream (none for a group of one tensor). */
static void fusion_copy(struct hv_rank *r, const struct hv_job *j, const char *what)
{
    if (j->n < 2) return;
    double t0 = simgrid_get_clock();
    sg_actor_sleep_for(j->size_B / r->copy_Bps);
    trace_slice(r->w->t->rec->trace, 2 * r->w->rank + 1, what, t0, simgrid_get_clock());
}

/* Copy in, all-reduce, copy out; false if the all-reduce failed. */
static bool fused_allreduce(struct hv_rank *r, const struct hv_job *j)
{
    struct worker *w = r->w;
    struct ar_world *aw = world_of(j->ms);
    int idx = rdzv_index(j->ms, w->rank);
    fusion_copy(r, j, "fusion copy in");
    double t0 = simgrid_get_clock();
    enum net_status st =
            collective_run(&aw->world, aw->algo, COLL_ALLREDUCE, idx, j->size_B, j->data);
    struct trace_args a = TRACE_ARGS;
    a.bytes = j->size_B;
    a.algo = aw->algo->name;
    trace_slice_args(w->t->rec->trace, 2 * w->rank + 1, st == NET_OK ? "all-reduce" : "failed", t0,
                     simgrid_get_clock(), a);
    if (st != NET_OK) {
        if (idx == 0) w->t->rec->failures += 1;
        return false;
    }
    fusion_copy(r, j, "fusion copy out");
    return true;
}

/* Horovod's CUDA stream: runs the queued groups one after the other. */
static void stream_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct hv_rank *r = sg_actor_self_get_data();
    struct worker *w = r->w;
    sg_actor_daemonize(sg_actor_self());
    for (;;) { /* a daemon */
        sg_sem_acquire(r->njobs);
        struct hv_job *j = &r->jobs[r->jhead++ % w->t->nbuckets];
        if (!*j->failed && !fused_allreduce(r, j)) *j->failed = 1;
        for (size_t i = 0; i < j->n; i++)
            sg_sem_release(w->done);
    }
}

/* ---- the background loop ---------------------------------------------------------------- */

/* Sleeps to the next cycle's start (RunLoopOnce): the cycle time after the last one started,
 * or at once when its work ended later; idle cycles since then ticked every cycle time. */
static void next_cycle(double cycle_s, double *last, double end)
{
    double now = simgrid_get_clock(), at = fmax(*last + cycle_s, end);
    if (at < now) at += ceil((now - at) / cycle_s) * cycle_s;
    if (at > now) sg_actor_sleep_until(at);
    *last = fmax(at, now);
}

/* The cycles of one step, from its first tensor (taken) until every tensor is answered or the
 * step failed here. Bounded: a cycle waits for every member's list (or fails on the deadline),
 * and every member's backward hands all its tensors in a finite time. */
static void step_cycles(struct hv_rank *r, double *last)
{
    struct worker *w = r->w;
    const struct ar_ctx *t = w->t;
    size_t T = t->nbuckets, got = 1, sent = 0, answered = 0;
    struct membership *ms = w->queue[0].ms;
    int *failed = w->queue[0].failed, step = w->in_step_no;
    double end = *last;
    while (answered < T && !*failed) {
        next_cycle(t->sc->train.cycle_s, last, end);
        for (; got < T && !sg_sem_would_block(w->ready); got++)
            sg_sem_acquire(w->ready);
        const struct hv_table *tb = NULL;
        enum net_status st = negotiate(r, ms, step, sent, got, &tb);
        sent = got;
        if (st != NET_OK) {
            *failed = 1;
            break;
        }
        answered += enqueue(r, tb, ms, failed);
        end = simgrid_get_clock();
    }
    for (; got < T; got++) /* a failed step: its tensors go back unreduced */
        sg_sem_acquire(w->ready);
    for (; answered < T; answered++)
        sg_sem_release(w->done);
}

void horovod_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct ar_ctx *t = w->t;
    sg_host_t h = sg_host_self();
    horovod_rank_free(w->hv); /* a previous incarnation's: its actors died with its host */
    struct hv_rank *r = xbt_new0(struct hv_rank, 1);
    w->hv = r;
    r->w = w;
    r->jobs = xbt_new0(struct hv_job, t->nbuckets > 0 ? t->nbuckets : 1);
    r->njobs = sem_set_new(&t->sems, 0);
    /* a copy reads and writes each byte at the memory-bound rate of the GPU's kernels: the
     * calibrated one DDP's copies and the update use (calib.h) */
    r->copy_Bps = calib_memory_rate(t->j->cal, t->j->pf->models[w->rank]) / 2;
    r->ms_id = -1;
    char *name = bprintf("hvd-stream-%d.%d", w->rank, w->incarnation);
    sg_actor_t a = sg_actor_init(name, h);
    free(name);
    sg_actor_set_data(a, r);
    sg_actor_start(a, stream_actor, 0, NULL);
    double last = simgrid_get_clock(); /* hvd.init: the loop's first cycle */
    for (;;) {                         /* a daemon: one step's cycles at a time */
        sg_sem_acquire(w->ready);      /* the step's first tensor */
        step_cycles(r, &last);
    }
}
