/* allreduce.c - the data-parallel worker loop (see allreduce.h). */
#include "allreduce.h"

#include "allreduce_metrics.h"
#include "ar_emb.h"
#include "ar_horovod.h"
#include "ar_state.h"
#include "ckpt.h"
#include "collective.h"
#include "elastic.h"
#include "inject.h"
#include "level.h"
#include "loader.h"
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job is over: the store's side reached the last step, or the job failed. */
static bool job_over(const struct ar_ctx *t)
{
    return t->el.sides[0].z.done || t->el.sides[0].z.aborted;
}

/* ---- the comm actors ----------------------------------------------------------------------- */

/* One all-reduce of size_B over membership ms for this worker; false if it failed. */
static bool reduce(struct worker *w, struct membership *ms, double size_B, float *data)
{
    struct ar_ctx *t = w->t;
    int idx = rdzv_index(ms, w->rank);
    struct ar_world *aw = world_of(ms);
    double t0 = simgrid_get_clock();
    enum net_status st = collective_run(&aw->world, aw->algo, COLL_ALLREDUCE, idx, size_B, data);
    struct trace_args a = TRACE_ARGS;
    a.bytes = size_B;
    a.algo = aw->algo->name;
    a.step = w->in_step_no + 1;
    trace_slice_args(t->rec->trace, 2 * w->rank + 1, st == NET_OK ? "all-reduce" : "failed", t0,
                     simgrid_get_clock(), a);
    if (st != NET_OK && idx == 0) t->rec->failures += 1;
    return st == NET_OK;
}

static void comm_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct ar_ctx *t = w->t;
    for (;;) { /* a daemon: serves its compute actor for as long as the run lasts */
        sg_sem_acquire(w->ready);
        size_t b = w->qhead++ % t->nbuckets;
        struct bucket_req *q = &w->queue[b];
        if (!*q->failed) {
            /* the collective starts once the host has launched it (ddp_bucket.h); without a host
             * model, its launch follows the GPU's end of the bucket */
            double now = simgrid_get_clock(), h = t->sc->train.bucket_overhead_s;
            double at = t->hooked ? w->fwd_t0 + w->ddp.launch_at_s[b] : now + h;
            if (at > now && world_of(q->ms)->world.nranks > 1)
                sg_actor_sleep_until(at); /* alone: no DDP */
            if (!reduce(w, q->ms, q->size_B, q->data)) *q->failed = 1;
        }
        sg_sem_release(w->done);
    }
}

/* ---- the compute actor: the worker's training loop --------------------------------------- */

/* The backward, one exec per stretch between bucket boundaries, handing buckets over. */
static void backward(struct worker *w, struct membership *ms, double scale, bool corrupt,
                     int *failed)
{
    struct ar_ctx *t = w->t;
    const struct model *m = t->j->m;
    size_t b = 0, handed = 0;
    double pending = 0;
    for (size_t l = m->nlayers; l-- > 0;) {
        pending += w->amt.bwd[l];
        bool closes = b < t->nbuckets && t->bucket_close[b] == (int)l;
        if (closes || l == 0) {
            worker_exec(t->rec, w->rank, pending * scale);
            pending = 0;
        }
        if (l == 0 && !corrupt) { /* the gradient exists from here on */
            t->rec->computed += 1;
            w->in_computed = true;
        }
        for (; b < t->nbuckets && t->bucket_close[b] == (int)l; b++) {
            float *data = t->j->nm ? w->rep.grad + t->bucket_off[b] : NULL;
            w->queue[b] = (struct bucket_req){ms, t->bucket_B[b], data, failed};
            if (t->sc->train.overlap) {
                sg_sem_release(w->ready);
                handed++;
            }
        }
    }
    for (; handed < t->nbuckets; handed++)
        sg_sem_release(w->ready);
}

/* One step of one worker; returns false if a collective of it failed. */
static bool run_step(struct worker *w, struct membership *ms, int step, int *good_out)
{
    struct ar_ctx *t = w->t;
    struct run_record *rec = t->rec;
    long long pos = step + world_of(ms)->ew.side->data_offset;
    int good = worker_read_batch(rec, &t->kit->inj, &t->kit->input, w->rank, step, (int)pos, ms->n);
    w->in_step = true; /* from the read on (the step overhead too): a crash loses this batch */
    w->in_good = good;
    w->in_computed = false;
    w->in_ms = ms;
    w->in_step_no = step;
    bool corrupt = good == 0;
    /* the compute of the samples left: a batch's kernels scale with its samples */
    double scale = corrupt ? 0 : inject_jitter(&t->kit->inj, w->rank, step) * good / rec->batch;
    double busy0 = rec->busy_s[w->rank];
    int failed = 0;
    if (t->sc->train.step_overhead_s > 0) sg_actor_sleep_for(t->sc->train.step_overhead_s);
    double in0 = simgrid_get_clock();
    worker_before_forward(&t->kit->input, w->rank, (int)pos); /* the batch of its data position */
    t->last_input[w->rank] = simgrid_get_clock() - in0;
    if (job_over(t)) { /* its batch never came (loader_finish): nothing to train for */
        w->in_step = false;
        *good_out = good;
        return false;
    }
    if (t->j->nm && corrupt) /* a skipped batch adds nothing to the sum */
        memset(w->rep.grad, 0, t->j->nm->net.nparams * sizeof *w->rep.grad);
    else if (t->j->nm)
        replica_gradient(t->j->nm, &w->rep, w->rank, pos);
    if (pos > t->el.furthest_pos) t->el.furthest_pos = pos;
    /* Layers run back to back on one GPU, so the forward is one exec of all their work and the
     * backward one exec per stretch between bucket boundaries: the same simulated times as one
     * exec per layer, with far fewer simulation events at large P. */
    int me = rdzv_index(ms, w->rank);
    if (t->emb && !ar_emb_forward(t->emb, world_of(ms)->emb, me, w->rank, scale)) failed = 1;
    double t0 = simgrid_get_clock();
    struct trace_args a = TRACE_ARGS;
    a.step = step + 1;
    a.layer_last = (int)t->j->m->nlayers; /* every layer: a whole replica */
    w->fwd_t0 = t0; /* the host and the GPU start the step together (kcost.h) */
    worker_exec(rec, w->rank, w->amt.fwd_all * scale);
    trace_slice_args(rec->trace, 2 * w->rank, "forward", t0, simgrid_get_clock(), a);
    t0 = simgrid_get_clock();
    backward(w, ms, scale, corrupt, &failed);
    trace_slice_args(rec->trace, 2 * w->rank, "backward", t0, simgrid_get_clock(), a);
    if (t->emb && !ar_emb_backward(t->emb, world_of(ms)->emb, me, w->rank, scale)) failed = 1;
    t0 = simgrid_get_clock();
    for (size_t k = 0; k < t->nbuckets; k++)
        sg_sem_acquire(w->done);
    trace_slice(rec->trace, 2 * w->rank, "wait", t0, simgrid_get_clock());
    t0 = simgrid_get_clock();
    if (!failed) worker_exec(rec, w->rank, w->copy_out); /* finalize_backward's copies */
    if (!failed) worker_exec(rec, w->rank, w->amt.update);
    if (!failed && t->j->nm) /* the mean of the gradients the collectives reduced */
        replica_apply(t->j->nm, &w->rep, 1.0f / (float)ms->n);
    a.layer_last = 0;
    trace_slice_args(rec->trace, 2 * w->rank, "update", t0, simgrid_get_clock(), a);
    w->in_step = false;
    t->last_compute[w->rank] = rec->busy_s[w->rank] - busy0;
    *good_out = good;
    return !failed;
}

/* The leader watches for persistent stragglers (previous step's compute times). */
static void watch_stragglers(struct ar_ctx *t, struct membership *ms)
{
    const struct recovery_spec *rs = &t->sc->rec;
    if (rs->straggler_steps <= 0 || ms->n < 2) return;
    double *v = xbt_new(double, ms->n);
    for (int i = 0; i < ms->n; i++)
        v[i] = t->last_compute[ms->members[i]];
    for (int i = 1; i < ms->n; i++) /* insertion sort: n is small */
        for (int k = i; k > 0 && v[k] < v[k - 1]; k--) {
            double x = v[k];
            v[k] = v[k - 1];
            v[k - 1] = x;
        }
    double median = v[ms->n / 2];
    free(v);
    for (int i = 0; i < ms->n; i++) {
        int r = ms->members[i];
        t->slow_streak[r] =
                t->last_compute[r] > rs->straggler_threshold * median ? t->slow_streak[r] + 1 : 0;
        if (t->slow_streak[r] == rs->straggler_steps) {
            run_event_add(t->rec, simgrid_get_clock(), RUN_RECOVERY, -1, ms->n,
                          "straggler rank %d flagged for removal", r);
            inject_detected(&t->kit->inj);
            rdzv_report(ms->owner, RDZV_REMOVE, r, ms->id);
        }
    }
}

/* Step `step` of membership ms failed: a collective of it failed, or a member died in it. Its
 * execution is thrown away (run.h's lost_steps: failed or rolled back), counted once however
 * many members fail it, unless a member committed it: a step some member committed is counted
 * by the rollback that undoes it, if one does (commit takes back a count made before). */
static void step_failed(struct ar_ctx *t, struct membership *ms, int step)
{
    struct ar_world *aw = world_of(ms);
    if (aw->failed[step]) return;
    aw->failed[step] = true;
    if (aw->commits[step] == 0) t->rec->lost_steps += 1;
}

/* A worker killed by a crash in the middle of a step: its batch will be read again and its
 * gradient, if computed, is lost; the step failed. */
static void on_worker_exit(int failed, void *data)
{
    struct worker *w = data;
    if (!failed || !w->in_step) return;
    run_lose_step(w->t->rec, w->in_good, w->in_computed);
    step_failed(w->t, w->in_ms, w->in_step_no);
    w->in_step = false;
}

/* Numerics: every eval-every steps and at the last, the test accuracy of the model (every
 * replica of a membership holds the same parameters: the leader's), per side. */
static void evaluate(struct ar_ctx *t, const struct membership *ms, int steps, double now)
{
    if (t->j->nm == NULL) return;
    const struct numerics_spec *sp = &t->sc->train.numerics;
    if (steps % sp->eval_every != 0 && steps != t->sc->train.steps) return;
    double loss, acc = numerics_evaluate(t->j->nm, t->workers[ms->members[0]].rep.params, &loss);
    run_eval_add(t->rec, world_of(ms)->ew.side->index, now, steps, acc, loss);
}

/* This worker finished `step` (0-based) of membership ms: account, and the last member to finish
 * it commits the step. */
static void commit(struct worker *w, struct membership *ms, int step, int good)
{
    struct ar_ctx *t = w->t;
    struct run_record *rec = t->rec;
    struct ar_world *aw = world_of(ms);
    struct elastic_side *s = aw->ew.side;
    if (good > 0) {
        rec->applied += 1;
        s->committed[step] += 1;
        s->committed_samples[step] += good;
        rec->consumed_samples += good;
    }
    w->em->offset = s->data_offset;
    w->em->commit_s = simgrid_get_clock();
    if (step + 1 > s->max_committed) s->max_committed = step + 1;
    if (aw->failed[step] && aw->commits[step] == 0) rec->lost_steps -= 1; /* step_failed's */
    if (++aw->commits[step] < ms->n) return;
    double now = simgrid_get_clock(), slowest = 0, input = 0;
    for (int i = 0; i < ms->n; i++) {
        int k = ms->members[i];
        slowest = fmax(slowest, t->last_compute[k]);
        input = fmax(input, t->last_input[k]);
        /* its GPU's trace counters: off compute and its batch, NCCL's kernels wait for peers */
        run_gpu_span_add(rec, k, s->last_commit_s, now, t->last_compute[k],
                         fmax(0, now - s->last_commit_s - t->last_compute[k] - t->last_input[k]));
    }
    rec->step_compute = "the slowest member's compute (forward, backward, update)";
    run_step_add(rec, now, step + 1, now - s->last_commit_s, slowest, s->committed_samples[step],
                 ms->n, s->index)
            ->input_s = input;
    s->last_commit_s = now;
    evaluate(t, ms, step + 1, now);
    inject_progress(&t->kit->inj, ms->start_s);
    if (step + 1 == t->sc->train.steps) { /* a side that lost the store finishes on its own */
        s->z.done = true;
        if (s->index == 0) elastic_finish(&t->el);
    }
}

/* ---- training in a membership (its state: elastic.h) -------------------------------------- */

/* Trains in membership ms until the last step (NULL), or returns the next membership. */
static struct membership *train_in(struct worker *w, struct membership *ms)
{
    struct ar_ctx *t = w->t;
    struct rdzv *store = &t->el.sides[0].z;
    int idx = rdzv_index(ms, w->rank);
    if (idx < 0) return NULL;
    enum elastic_recovered rc =
            ms->id > 0 ? elastic_recover(&t->el, w->rank, ms) : ELASTIC_RECOVERED;
    if (rc == ELASTIC_LOST) { /* as a worker that gives up: the others re-form without it */
        run_event_add(t->rec, simgrid_get_clock(), RUN_RECOVERY, ms->resume_step, ms->n,
                      "rank %d: checkpoint of step %d out of reach (its host is down), leaves",
                      w->rank, ms->resume_step);
        w->em->held = -1;
        return NULL;
    }
    if (rc == ELASTIC_FAIL) {
        run_event_add(t->rec, simgrid_get_clock(), RUN_RECOVERY, ms->resume_step, ms->n,
                      "rank %d: the state transfer of membership %d failed, reporting", w->rank,
                      ms->id);
        return rdzv_await(ms->owner, RDZV_FAIL, w->rank, ms->id);
    }
    w->em->side = world_of(ms)->ew.side;
    w->em->ms_id = ms->id;
    for (int step = ms->resume_step; step < t->sc->train.steps && !store->aborted; step++) {
        if (ms->owner->change_pending > ms->id) /* leave cleanly: report at the boundary */
            return rdzv_await(ms->owner, RDZV_SYNC, w->rank, ms->id);
        inject_step(&t->kit->inj, step);
        int good;
        if (!run_step(w, ms, step, &good)) {
            run_lose_step(t->rec, good, w->in_computed);
            if (job_over(t)) return NULL; /* it waited for input past the job's end: it leaves */
            step_failed(t, ms, step);
            run_event_add(t->rec, simgrid_get_clock(), RUN_RECOVERY, step, ms->n,
                          "rank %d: step %d failed, reporting", w->rank, step);
            return rdzv_await(ms->owner, RDZV_FAIL, w->rank, ms->id);
        }
        w->em->held = step + 1;
        commit(w, ms, step, good);
        if (idx == 0) { /* the leader watches for stragglers and writes checkpoints */
            double now = simgrid_get_clock();
            watch_stragglers(t, ms);
            /* a side cut off from the store writes none: the store keeps the checkpoints' list */
            if (w->em->side->index == 0 && ckpt_due(t->ckpt, step + 1, t->last_ckpt_s, now)) {
                t->last_ckpt_s = now;
                elastic_checkpoint(&t->el, w->rank, ms, step + 1);
            }
        }
    }
    return NULL;
}

/* Before the first step, rank 0 broadcasts the model to the others (DDP's construction), with
 * the scenario's algorithm if it has a broadcast, else the ring; it takes place in step 1.
 * false: it failed here (a fault cut it), and this worker holds no model to train with. */
static bool broadcast_model(struct worker *w, struct membership *ms)
{
    struct ar_world *aw = world_of(ms);
    if (ms->n < 2) return true;
    const struct coll_algo *algo =
            aw->algo->ops & COLL_OP_BIT(COLL_BROADCAST) ? aw->algo : collective_get(COLL_ALGO_RING);
    const struct train_spec *ts = &w->t->sc->train;
    int idx = rdzv_index(ms, w->rank);
    double bytes = model_params(w->t->j->m) * model_dtype_bytes(ts->dtype),
           t0 = simgrid_get_clock();
    enum net_status st = collective_run(&aw->world, algo, COLL_BROADCAST, idx, bytes, NULL);
    struct trace_args a = TRACE_ARGS;
    a.bytes = bytes;
    a.algo = algo->name;
    trace_slice_args(w->t->rec->trace, 2 * w->rank + 1, st == NET_OK ? "broadcast" : "failed", t0,
                     simgrid_get_clock(), a);
    if (st != NET_OK && idx == 0) w->t->rec->failures += 1;
    return st == NET_OK;
}

static void compute_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct ar_ctx *t = w->t;
    sg_actor_on_exit(on_worker_exit, w);
    struct rdzv *store = &t->el.sides[0].z;
    struct membership *ms =
            w->incarnation == 0 ? store->cur : rdzv_await(store, RDZV_JOIN, w->rank, -1);
    /* A broadcast cut mid-way is the first step's failure: this worker reports, as after a
     * failed collective, and trains in no ring of this membership (its peers' chunks still in
     * flight on the ring's mailboxes are not gradients). */
    if (w->incarnation == 0 && t->sc->train.broadcast && !broadcast_model(w, ms)) {
        run_event_add(t->rec, simgrid_get_clock(), RUN_RECOVERY, 0, ms->n,
                      "rank %d: the model broadcast failed, reporting", w->rank);
        ms = rdzv_await(ms->owner, RDZV_FAIL, w->rank, ms->id);
    }
    while (ms != NULL)
        ms = train_in(w, ms);
    rdzv_leave(store, w->rank); /* out of the job: no live worker of it any more */
}

/* ---- memberships and faults -------------------------------------------------------------- */

static void formed(void *ctx, struct membership *ms)
{
    struct elastic_side *side = ctx;
    struct ar_ctx *t = side->el->owner;
    const struct train_spec *ts = &t->sc->train;
    struct ar_world *aw = xbt_new0(struct ar_world, 1);
    elastic_formed(side, ms, &aw->ew);
    aw->commits = xbt_new0(int, ts->steps);
    aw->failed = xbt_new0(bool, ts->steps);
    sg_host_t *hosts = xbt_new(sg_host_t, ms->n > 0 ? ms->n : 1);
    for (int i = 0; i < ms->n; i++)
        hosts[i] = t->j->pf->gpus[ms->members[i]];
    collective_world_init(&aw->world, ms->n, hosts, ts->timeout_s);
    free(hosts);
    aw->world.level = ts->level;
    aw->world.chunks = ts->chunks;
    aw->world.traffic = t->kit->traffic;
    aw->world.epoch = ms->id;
    aw->world.nccl = ts->nccl;
    aw->world.netcal = t->j->cal ? t->j->cal->netcal : NULL;
    aw->world.data_scale = t->data_scale;
    aw->algo = collective_get(ts->algo);
    const char *why = collective_check(&aw->world, aw->algo, COLL_ALLREDUCE, false);
    if (why != NULL) { /* e.g. hierarchical after a crash left nodes of unequal size */
        run_event_add(t->rec, simgrid_get_clock(), RUN_RECOVERY, ms->resume_step, ms->n,
                      "%s cannot run on membership %d (%s): ring instead", aw->algo->name, ms->id,
                      why);
        aw->algo = collective_get(COLL_ALGO_RING);
    }
    ms->data = aw;
    if (t->emb) aw->emb = ar_emb_formed(t->emb, ms);
}

static void dispose(void *ctx, struct membership *ms)
{
    (void)ctx;
    struct ar_world *aw = ms->data;
    collective_world_release(&aw->world);
    horovod_table_free(aw->hv);
    ar_emb_world_free(aw->emb);
    elastic_dispose(&aw->ew);
    free(aw->commits);
    free(aw->failed);
    free(aw);
}

static void start_worker(struct ar_ctx *t, int rank, int incarnation);

static void restarted(void *ctx, sg_host_t h)
{
    struct ar_ctx *t = ctx;
    elastic_restarted(&t->el, h);
    if (t->kit->loader) loader_restarted(t->kit->loader, h);
    for (int r = 0; r < t->P; r++)
        if (t->j->pf->gpus[r] == h && !t->el.sides[0].z.done)
            start_worker(t, r, t->workers[r].incarnation + 1);
}

/* A crash hurts the job if a worker runs there. */
static bool relevant(void *ctx, sg_host_t h)
{
    struct ar_ctx *t = ctx;
    for (int r = 0; r < t->P; r++)
        if (t->j->pf->gpus[r] == h) return true;
    return false;
}

static int members_now(void *ctx)
{
    struct ar_ctx *t = ctx;
    return t->el.sides[0].z.cur ? t->el.sides[0].z.cur->n : t->P;
}

/* ---- setup ------------------------------------------------------------------------------- */

/* DDP's buckets (ddp_bucket.h); Horovod's: one per layer (bucket_B 0, first_B 0). */
static void make_buckets(struct ar_ctx *t, double grad_elem_B, double first_B, double bucket_B)
{
    const struct model *m = t->j->m;
    t->bucket_B = xbt_new0(double, m->nlayers + 1);
    t->bucket_close = xbt_new0(int, m->nlayers + 1);
    t->bucket_off = xbt_new0(size_t, m->nlayers + 1);
    t->nbuckets = ddp_buckets_assign(m, grad_elem_B, first_B, bucket_B, t->bucket_B,
                                     t->bucket_close, t->bucket_off);
}

/* A cost-model proxy: the buckets are the preset's, and the real gradient is carried by them in
 * proportion, bucket b holding the parameters round(N x its preset share) apart from its
 * neighbours; each bucket's simulated bytes are then exactly data_scale x 4 x its floats (off
 * from the preset's by less than 4 data_scale bytes). */
static void proxy_buckets(struct ar_ctx *t)
{
    double total = 0, N = (double)t->j->nm->net.nparams, below = 0;
    for (size_t b = 0; b < t->nbuckets; b++)
        total += t->bucket_B[b];
    t->data_scale = total / (4 * N);
    for (size_t b = t->nbuckets; b-- > 0;) { /* the last bucket holds the first layers */
        size_t lo = (size_t)llround(N * below / total);
        below += t->bucket_B[b];
        size_t hi = (size_t)llround(N * below / total);
        t->bucket_off[b] = lo;
        t->bucket_B[b] = 4 * t->data_scale * (double)(hi - lo);
    }
}

/* DDP's hooks on this worker's GPU, when they cost anything (t->hooked). */
static void ddp_setup(struct ar_ctx *t, struct worker *w, struct kernel_costs *kc)
{
    const struct train_spec *ts = &t->sc->train;
    const struct gpu_model *gpu = t->j->pf->models[w->rank];
    double elem_B = model_dtype_bytes(ts->dtype), mem_Bps = calib_memory_rate(t->j->cal, gpu);
    free(w->ddp.launch_at_s);
    w->ddp = (struct ddp_hooks){t->j->m,
                                t->bucket_close,
                                t->nbuckets,
                                elem_B,
                                mem_Bps,
                                ts->bucket_overhead_s,
                                xbt_new0(double, t->nbuckets + 1)};
    w->copy_out = 0;
    if (!t->hooked) return;
    kc->after_bwd = ddp_after_backward;
    kc->after_bwd_ctx = &w->ddp;
    w->copy_out = ddp_copy_out_s(t->j->m, elem_B, mem_Bps, ts->grad_as_view) *
                  sg_host_get_speed(t->j->pf->gpus[w->rank]);
}

static void start_worker(struct ar_ctx *t, int rank, int incarnation)
{
    struct worker *w = &t->workers[rank];
    const struct train_spec *ts = &t->sc->train;
    sg_host_t h = t->j->pf->gpus[rank];
    w->t = t;
    w->rank = rank;
    w->incarnation = incarnation;
    w->em = &t->el.members[rank];
    w->em->rep = &w->rep;
    w->em->track = 2 * rank + 1;             /* its state transfers on its communication track */
    w->em->held = incarnation == 0 ? 0 : -1; /* a restarted process holds nothing */
    if (incarnation > 0 && t->j->nm) replica_reset(t->j->nm, &w->rep);
    worker_amounts_release(&w->amt);
    struct kernel_costs kc = job_kernel_costs(ts);
    ddp_setup(t, w, &kc);
    worker_amounts(t->j->cal, t->j->pf->models[rank], h, ts->dtype, ts->opt, t->j->m, ts->batch,
                   &kc, &w->amt);
    /* semaphores of a previous incarnation are left alone (its actors may have died holding
     * them): the run's set destroys them at the end */
    w->ready = sem_set_new(&t->sems, 0);
    w->done = sem_set_new(&t->sems, 0);
    free(w->queue);
    w->queue = xbt_new0(struct bucket_req, t->nbuckets ? t->nbuckets : 1);
    w->qhead = 0;
    char *cn = bprintf("compute-%d.%d", rank, incarnation),
         *mn = bprintf("comm-%d.%d", rank, incarnation);
    sg_actor_t a = sg_actor_init(cn, h);
    sg_actor_set_data(a, w);
    sg_actor_start(a, compute_actor, 0, NULL);
    a = sg_actor_init(mn, h);
    sg_actor_set_data(a, w);
    sg_actor_daemonize(a);
    sg_actor_start(a, ts->horovod ? horovod_actor : comm_actor, 0, NULL);
    free(cn);
    free(mn);
}

enum dmlsim_err allreduce_check(const struct job *j, struct dmlsim_error *err)
{
    const struct train_spec *ts = &j->sc->train;
    enum dmlsim_err rc = job_check(j, err);
    if (rc == DMLSIM_OK) rc = ar_emb_check(j, err);
    if (rc != DMLSIM_OK) return rc;
    struct coll_world w;
    collective_world_init(&w, job_workers(j), j->pf->gpus, 1);
    w.level = ts->level;
    w.nccl = ts->nccl;
    bool data = ts->numerics.present; /* the collectives carry the real gradients */
    const char *why = collective_check(&w, collective_get(ts->algo), COLL_ALLREDUCE, data);
    collective_world_release(&w);
    if (why != NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <training algo=\"%s\">: %s", j->sc->path,
                           ts->line, coll_algo_name(ts->algo), why);
    return DMLSIM_OK;
}

void allreduce_describe(const struct job *j, FILE *out)
{
    const struct train_spec *ts = &j->sc->train;
    char lv[160];
    int P = job_workers(j);
    fprintf(out,
            "# training      all-reduce %s (%s), %d worker(s) x batch %d = global batch %d, "
            "%s, %s, %d step(s)\n",
            coll_algo_name(ts->algo), level_describe(ts, lv, sizeof lv), P, ts->batch,
            P * ts->batch, catalog_dtype_name(ts->dtype), model_optimizer_name(ts->opt), ts->steps);
    fprintf(out,
            "# buckets       %.0f B (the first %.0f B), overlap %s, gradient as bucket view %s\n",
            ts->bucket_B, DDP_FIRST_BUCKET_B, ts->overlap ? "on" : "off",
            ts->grad_as_view ? "yes" : "no");
    if (ts->emb_sharded) ar_emb_describe(j, out);
}

static void trace_tracks(struct ar_ctx *t)
{
    for (int r = 0; r < t->P; r++) {
        runkit_track(t->kit, 2 * r, "rank %d compute (%s)", r, sg_host_get_name(t->j->pf->gpus[r]));
        runkit_track(t->kit, 2 * r + 1, "rank %d communication", r);
    }
}

static void setup(struct ar_ctx *t)
{
    const struct train_spec *ts = &t->sc->train;
    int P = t->P;
    t->last_compute = xbt_new0(double, P);
    t->last_input = xbt_new0(double, P);
    t->slow_streak = xbt_new0(int, P);
    /* Horovod fuses per-layer tensors by time: each layer's gradient is its own "bucket" */
    make_buckets(t, model_dtype_bytes(ts->dtype), ts->horovod ? 0 : DDP_FIRST_BUCKET_B,
                 ts->horovod ? 0 : ts->bucket_B);
    for (size_t l = 0; !ts->horovod && P > 1 && l < t->j->m->nlayers; l++)
        t->hooked |= t->j->m->layers[l].nbwd > 0;
    t->data_scale = 1;
    if (t->j->nm && t->j->nm->spec->cost_model) proxy_buckets(t);
    t->rec->ckpt_B = ckpt_size(t->j->m, model_params(t->j->m), ts->dtype, ts->opt);
    t->ckpt = runkit_ckpts(t->kit, 1, &t->rec->ckpt_B, t->rec);
    runkit_hooks(t->kit, (struct inject_hooks){NULL, restarted, members_now, relevant, t});
    t->kit->inj.slow_is_fault = t->sc->rec.straggler_steps > 0;
    t->workers = xbt_new0(struct worker, P);
    elastic_init(&t->el, t->kit, P, t->ckpt, (struct elastic_hooks){formed, dispose, t});
    for (int r = 0; r < P; r++)
        if (t->j->nm) /* the same initial parameters everywhere */
            replica_init(t->j->nm, &t->workers[r].rep);
}

static void teardown(struct ar_ctx *t)
{
    elastic_release(&t->el);
    for (int r = 0; r < t->P; r++) {
        free(t->workers[r].queue);
        free(t->workers[r].ddp.launch_at_s);
        horovod_rank_free(t->workers[r].hv);
        worker_amounts_release(&t->workers[r].amt);
        replica_release(&t->workers[r].rep);
    }
    free(t->workers);
    sem_set_release(&t->sems);
    free(t->bucket_B);
    free(t->bucket_close);
    free(t->bucket_off);
    free(t->last_compute);
    free(t->last_input);
    free(t->slow_streak);
}

void allreduce_begin(const struct job *j, struct run_record *rec)
{
    const struct train_spec *ts = &j->sc->train;
    run_init(rec, STRAT_ALLREDUCE, job_workers(j), ts->batch, ts->steps);
    run_config_str(rec, "algo", coll_algo_name(ts->algo));
    run_config_str(rec, "level", ts->level == COLL_FLOW ? "flow" : "message");
    run_config_num(rec, "bucket_bytes", "%.0f", ts->bucket_B);
    run_config_num(rec, "overlap", "%s", ts->overlap ? "true" : "false");
    run_config_str(rec, "fusion", ts->horovod ? "horovod" : "buckets");
}

void allreduce_run(struct runkit *kit)
{
    const struct job *j = kit->j;
    struct run_record *rec = kit->rec;
    const struct train_spec *ts = &j->sc->train;
    struct ar_ctx t = {.j = j, .sc = j->sc, .P = job_workers(j), .rec = rec, .kit = kit};
    struct job dj; /* sharded embeddings: the job of the dense view of its model */
    struct model dm;
    if ((t.emb = ar_emb_new(kit, &dj, &dm)) != NULL) t.j = &dj;
    assert(t.P >= 1 && t.P <= (int)j->pf->ngpus);
    trace_tracks(&t);
    setup(&t);
    for (int r = 0; r < t.P; r++)
        start_worker(&t, r, 0);
    elastic_start(&t.el);
    runkit_simulate(kit);

    const struct rdzv *z = &t.el.sides[0].z;
    int done = t.el.sides[0].max_committed;
    rec->total_s = elastic_end(&t.el);
    if (kit->loader) loader_report(kit->loader, rec);
    allreduce_metrics_attach(rec)->nbuckets = (double)t.nbuckets;
    for (size_t b = 0; b < t.nbuckets; b++)
        rec->grad_B += t.bucket_B[b];
    rec->mem = model_memory(j->m, ts->dtype, ts->opt, ts->batch);
    ar_emb_free(t.emb, &dm, rec); /* the sharded memory, the all-to-alls' figures */
    job_record_compute(rec, &t.workers[0].amt, j->pf->models[0], ts->dtype);
    job_record_nominal(rec, &t.workers[0].amt);
    rec->steps_completed = done;
    int alive = 0; /* members of the last membership whose host is up */
    for (int i = 0; !z->aborted && i < z->cur->n; i++)
        alive += sg_host_is_on(j->pf->gpus[z->cur->members[i]]);
    rec->final_workers = alive;
    if (j->nm && !z->aborted) /* the model: the last membership's first member's replica */
        rec->params_fnv =
                numerics_fingerprint(t.workers[z->cur->members[0]].rep.params, j->nm->net.nparams);
    rec->checkpoints = t.ckpt->completed;
    rec->ckpt_overhead_s = t.ckpt->overhead_s;
    if (!rec->job_failed && done < ts->steps) {
        rec->job_failed = true;
        snprintf(rec->failure, sizeof rec->failure,
                 "%d of %d steps committed when the run ended; %d of the last membership's %d "
                 "worker(s) alive",
                 done, ts->steps, alive, z->aborted ? 0 : z->cur->n);
    }
    runkit_finish(kit);
    teardown(&t);
}
