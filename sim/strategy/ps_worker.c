/* ps_worker.c - a parameter-server worker's loop (see ps_worker.h). */
#include "ps_worker.h"

#include "inject.h"
#include "net.h"
#include "ps_account.h"
#include "ps_agg.h"
#include "ps_dense.h"
#include "ps_msg.h"
#include "ps_pull.h"
#include "ps_push.h"
#include "ps_shard.h"
#include "trace.h"
#include "worker.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <stdio.h>
#include <string.h>

/* A worker killed by a crash: slices computed but not delivered are lost; a batch read but not
 * computed will be read again. */
static void on_worker_exit(int failed, void *data)
{
    struct ps_worker *w = data;
    struct ps_ctx *c = w->c;
    /* no simulation call here: a dying actor's callback cannot make one (a waiting worker sees
     * this one inactive at its deadline) */
    c->running--;
    w->active = false; /* a dead worker holds no one back */
    if (c->pinned) /* its pulls (its own and its puller's) hold no shard history any more */
        c->pinned[2 * w->rank] = c->pinned[2 * w->rank + 1] = -1;
    if (failed) ps_account_unfinished(w);
}

/* Reads the batch of iteration `it`: accounting, and whether it is corrupt (none of its samples
 * left to train on). */
static bool read_batch(struct ps_worker *w, int it)
{
    struct ps_ctx *c = w->c;
    w->good = worker_read_batch(c->res, &c->kit->inj, &c->kit->input, w->rank, it, it, c->P);
    bool corrupt = w->good == 0;
    w->in_step = true;
    w->handed = 0;
    w->delivered = 0;
    w->rows_handed = w->rows_delivered = 0;
    w->carry = w->good;
    w->ngrads = !corrupt;
    return corrupt;
}

/* Room for iteration `it` in the worker's per-iteration arrays (async workers do as many as the
 * budget lets them). */
static void ensure_iteration(struct ps_worker *w, int it)
{
    if (it < w->cap) return;
    int cap = 2 * w->cap > it + 1 ? 2 * w->cap : it + 1;
    double **arrays[] = {&w->iter_end, &w->iter_busy, &w->iter_tc, &w->iter_samples};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        *arrays[i] = xbt_realloc(*arrays[i], (size_t)cap * sizeof(double));
        memset(*arrays[i] + w->cap, 0, (size_t)(cap - w->cap) * sizeof(double));
    }
    w->cap = cap;
}

/* The worker's next iteration, or false when it is through: sync, its `steps`; async, while the
 * run's budget of P x steps iterations lasts (a fast worker does more than a slow one). */
static bool next_iteration(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    if (c->sc->train.ps.mode == PS_SYNC) return w->next_it < c->sc->train.steps;
    if (c->budget <= 0) return false;
    c->budget--;
    ensure_iteration(w, w->next_it);
    return true;
}

/* Bounded delay (Li et al., OSDI'14, section 3.5): iteration t starts only when every iteration
 * before t - tau of every active worker has finished; waiting is idle. A deadline keeps a dead
 * worker from blocking the others forever. */
static void bounded_wait(struct ps_worker *w, int t)
{
    struct ps_ctx *c = w->c;
    int need = t - c->sc->train.ps.staleness;
    double end = simgrid_get_clock() + c->sc->train.timeout_s, t0 = simgrid_get_clock();
    for (;;) {
        bool ready = true;
        for (int r = 0; r < c->P && ready; r++)
            ready = !c->workers[r].active || c->progress[r] >= need;
        if (ready || simgrid_get_clock() >= end) break;
        c->bd_waiting[w->rank] = true;
        sg_sem_acquire_timeout(c->bd_wake[w->rank], end - simgrid_get_clock());
        c->bd_waiting[w->rank] = false;
    }
    trace_slice(c->res->trace, w->rank, "wait", t0, simgrid_get_clock());
}

/* A worker finished an iteration, or stopped: the waiting ones look again. */
static void bounded_notify(struct ps_ctx *c)
{
    for (int r = 0; c->bd_waiting && r < c->P; r++)
        if (c->bd_waiting[r]) {
            c->bd_waiting[r] = false;
            sg_sem_release(c->bd_wake[r]);
        }
}

/* A worker leaves the job: it gave up on an unreachable shard, or (a follower) its leader is
 * gone for good; the others go on without it, and with none left the job has failed. */
static void leave(struct ps_worker *w, const char *why)
{
    struct ps_ctx *c = w->c;
    ps_account_unfinished(w);
    run_event_add(c->res, simgrid_get_clock(), RUN_FAULT, w->next_it, c->running - 1,
                  "worker %d gave up: %s", w->rank, why);
    w->gave_up = true;
    c->gave_up++;
}

/* A worker's actor is through (its iterations, or it left): the others and the shards know. */
static void worker_ends(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    w->active = false;
    bounded_notify(c);
    w->end_s = simgrid_get_clock();
    if (!w->gave_up && !w->finished) {
        w->finished = true;
        c->workers_done++;
    }
    ps_shard_wake_all(c); /* a pusher fewer: no quorum waits for it */
    if (c->workers_done + c->gave_up == c->P) inject_finish(&c->kit->inj);
}

/* A follower's leader will not send again: it left, or died with no restart to come. */
static bool leader_gone(const struct ps_ctx *c, const struct ps_worker *L)
{
    return L->gave_up || (!L->active && !inject_may_restart(&c->kit->inj));
}

void ps_worker_follower_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    struct ps_worker *L = &c->workers[w->leader];
    c->running++;
    w->active = true;
    sg_actor_on_exit(on_worker_exit, w);
    for (; w->next_it < ts->steps; w->next_it++) {
        double t0 = simgrid_get_clock(), busy0 = c->res->busy_s[w->rank];
        inject_step(&c->kit->inj, w->next_it);
        if (ts->step_overhead_s > 0) sg_actor_sleep_for(ts->step_overhead_s); /* host work */
        bool corrupt = read_batch(w, w->next_it);
        double scale = corrupt ? 0
                                : inject_jitter(&c->kit->inj, w->rank, w->next_it) * w->good /
                                          ts->batch;
        struct ps_msg *pm;
        if (net_recv(ps_msg_to_follower(w->rank), (void **)&pm, 2 * ts->timeout_s) != NET_OK) {
            if (leader_gone(c, L)) {
                ps_account_noticed(c);
                char why[64];
                snprintf(why, sizeof why, "its leader, worker %d, is gone", L->rank);
                leave(w, why);
                break;
            }
            if ((ts->ps.mode == PS_SYNC && ps_shard_all_stopped(c)) || L->finished) { /* over */
                ps_account_unfinished(w);
                break;
            }
            ps_account_noticed(c); /* its leader is late, or down until a restart */
            ps_account_unfinished(w);
            continue;
        }
        int it = w->next_it = pm->it;
        if (c->j->nm) /* numerics: the leader's parameters, and its own batch's gradient */
            memcpy(w->rep.params, pm->data, pm->n * sizeof *pm->data);
        ps_msg_free(c, pm);
        if (c->j->nm && !corrupt) replica_gradient(c->j->nm, &w->rep, w->rank, it);
        struct trace_args a = TRACE_ARGS;
        a.step = it + 1;
        trace_slice_args(c->res->trace, w->rank, "pull", t0, simgrid_get_clock(), a);
        worker_before_forward(&c->kit->input, w->rank, it);
        double tc = w->iter_tc[it] = simgrid_get_clock();
        worker_exec(c->res, w->rank, w->work * scale);
        trace_slice_args(c->res->trace, w->rank, "forward+backward", tc, simgrid_get_clock(), a);
        if (!corrupt) w->iter_samples[it] = w->good;
        ps_agg_hand_to_leader(w, corrupt);
        w->iter_end[it] = simgrid_get_clock();
        w->iter_busy[it] = c->res->busy_s[w->rank] - busy0;
    }
    worker_ends(w);
}

/* Reads the batch of iteration `it` and its compute scale (0: corrupt, nothing to compute). */
static double batch_scale(struct ps_worker *w, int it, bool *corrupt)
{
    const struct train_spec *ts = &w->c->sc->train;
    *corrupt = read_batch(w, it);
    return *corrupt ? 0 : inject_jitter(&w->c->kit->inj, w->rank, it) * w->good / ts->batch;
}

void ps_worker_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    sg_comm_t *comms = w->bufs[0].comms + 2 * c->K; /* pull_all uses the first 2 K */
    struct ps_msg **in = w->bufs[0].in + 2 * c->K;
    int *version = w->bufs[0].version;
    c->running++;
    w->active = true;
    sg_actor_on_exit(on_worker_exit, w);
    bool bounded = ts->ps.mode == PS_ASYNC && ts->ps.bounded;
    bool sync = ts->ps.mode == PS_SYNC;
    for (; next_iteration(w); w->next_it++) {
        int it = w->next_it;
        if (bounded) bounded_wait(w, it);
        double t0 = simgrid_get_clock(), busy0 = c->res->busy_s[w->rank];
        inject_step(&c->kit->inj, it);
        if (ts->step_overhead_s > 0) sg_actor_sleep_for(ts->step_overhead_s); /* host work */
        bool corrupt = false;
        double scale = 0;
        if (!sync) scale = batch_scale(w, it, &corrupt);
        /* sync: the version after the one it last computed from (prefetch: the iteration) */
        int need = sync && !ts->ps.prefetch && w->want > it ? w->want : it;
        if (!ps_pull_get_params(w, need, version)) ps_account_noticed(c);
        trace_slice(c->res->trace, w->rank, "pull", t0, simgrid_get_clock());
        if (w->gave_up) {
            char why[64];
            snprintf(why, sizeof why, "a shard unreachable for %g s", c->sc->rec.replacement_s);
            leave(w, why);
            break;
        }
        if (sync) { /* the iteration the shards' versions call for, then its batch */
            it = w->next_it = ps_pull_sync_iteration(w, version);
            if (it >= ts->steps) break; /* every version reached without it */
            scale = batch_scale(w, it, &corrupt);
            w->want = version[0] + 1;
            for (int k = 1; k < c->K; k++)
                w->want = version[k] + 1 < w->want ? version[k] + 1 : w->want;
        }
        ps_pull_prefetch_next(w, it);
        if (w->nfollow > 0) ps_agg_bcast_params(w, it);
        worker_before_forward(&c->kit->input, w->rank, it);
        if (c->j->nm && !corrupt) /* with the parameters it pulled, on its own batch */
            replica_gradient(c->j->nm, &w->rep, w->rank, it);
        double tc = w->iter_tc[it] = simgrid_get_clock();
        if (ts->ps.push_during && !corrupt) { /* the forward, then the pushing backward */
            worker_exec(c->res, w->rank, w->amt.fwd_all * scale);
            w->iter_samples[it] = w->good;
            ps_push_backward(w, it, version, scale, comms, in);
        } else {
            worker_exec(c->res, w->rank, w->work * scale);
            trace_slice(c->res->trace, w->rank, "forward+backward", tc, simgrid_get_clock());
            if (!corrupt) w->iter_samples[it] = w->good;
            if (c->dense_world) ps_dense_step(w, it); /* Persia: the dense part all-reduced */
            if (w->nfollow > 0) ps_agg_gather_grads(w);
            if (w->carry > 0)
                ps_push_all(w, it, version, comms, in);
            else if (sync) /* nothing to push: the shards hear so */
                ps_push_empty(w, it, version, comms);
            else /* nothing to push: the batch is skipped */
                w->in_step = false;
        }
        w->iter_end[it] = simgrid_get_clock();
        w->iter_busy[it] = c->res->busy_s[w->rank] - busy0;
        if (c->progress) c->progress[w->rank] = it + 1;
        bounded_notify(c);
    }
    worker_ends(w);
}
