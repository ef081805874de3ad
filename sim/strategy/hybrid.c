/* hybrid.c - tensor, pipeline and data parallelism composed (see hybrid.h). */
#include "hybrid.h"

#include "ckpt.h"
#include "collective.h"
#include "hy_cp.h"
#include "hy_dpov.h"
#include "hy_tpov.h"
#include "hybrid_record.h"
#include "hybrid_state.h"
#include "hybrid_input.h"
#include "hybrid_metrics.h"
#include "hybrid_recover.h"
#include "hybrid_num.h"
#include "hygroup.h"
#include "inject.h"
#include "level.h"
#include "net.h"
#include "parallel.h"
#include "trace.h"

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/str.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_block(const struct hy_ctx *c, int layer)
{
    return layer >= 1 && layer <= c->sc->model.gpt.layers;
}

/* A wait of rank r ended in `st`: anything but NET_OK (a member crashed: its groups and its
 * pipeline stall until the watchdog, <training timeout>) stops (or restarts) the job. */
static void check_wait(struct hy_rank *r, enum net_status st, const char *what)
{
    struct hy_ctx *c = r->c;
    if (st == NET_OK || c->failed) return;
    c->failed = true;
    if (c->hr) { /* the job restarts */
        hyrec_detected(c->hr, r->rank, what, net_status_str(st), c->done);
    } else {
        c->rec->job_failed = true;
        hyin_finish(&c->in); /* a reader waiting for its batch goes on */
        snprintf(c->rec->failure, sizeof c->rec->failure,
                 "rank %d: a wait (%s) failed (%s) after %d step(s); hybrid parallelism has no "
                 "elastic recovery",
                 r->rank, what, net_status_str(st), c->done);
        run_event_add(c->rec, simgrid_get_clock(), RUN_FAULT, c->done, c->P,
                      "rank %d: a wait (%s) failed (%s): the job stops", r->rank, what,
                      net_status_str(st));
    }
    for (int k = 0; k < c->P; k++) { /* wake every rank at a step's end */
        sg_sem_release(c->go[0]);
        sg_sem_release(c->go[1]);
    }
}

/* Runs `op` of size_B in rank r's group of `kind` (none in a group of one, nor after a failure);
 * its time into *acc. */
static void group_collective(struct hy_rank *r, int kind, enum coll_op op, double size_B,
                             double *acc)
{
    struct hy_ctx *c = r->c;
    if (c->failed || hygroup_size(c->p, kind) < 2 || size_B <= 0) return;
    int pos, g = hygroup_of(c->p, kind, r->t, r->cx, r->s, r->d, &pos);
    double t0 = simgrid_get_clock();
    check_wait(r, collective_run(&c->groups[kind][g], c->algo, op, pos, size_B, NULL),
               collective_op_name(op));
    *acc += simgrid_get_clock() - t0;
}

/* ---- communication ----------------------------------------------------------------------- */

/* A collective of the rank's tensor-parallel group (none with tp = 1); its time into r->tp_s. */
static void tp_collective(struct hy_rank *r)
{
    struct hy_ctx *c = r->c;
    if (c->p->sp) { /* sequence parallelism: reduce-scatter, then all-gather */
        group_collective(r, HYGROUP_TP, COLL_REDUCESCATTER, c->tp_B, &r->tp_s);
        group_collective(r, HYGROUP_TP, COLL_ALLGATHER, c->tp_B, &r->tp_s);
    } else {
        group_collective(r, HYGROUP_TP, COLL_ALLREDUCE, c->tp_B, &r->tp_s);
    }
}

/* A mixture-of-experts block's tokens to their experts and back (ep > 1): two all-to-alls
 * over the expert group, on the critical path like the tensor-parallel collectives. */
static void moe_exchange(struct hy_rank *r)
{
    struct hy_ctx *c = r->c;
    group_collective(r, HYGROUP_EP, COLL_ALLTOALL, c->a2a_B, &r->tp_s);
    group_collective(r, HYGROUP_EP, COLL_ALLTOALL, c->a2a_B, &r->tp_s);
}

/* A block's collectives after its forward, its recomputed forward or its backward: the two
 * tensor-parallel ones (after the attention and after the MLP) and the experts' exchange. */
static void block_comm(struct hy_rank *r)
{
    tp_collective(r);
    tp_collective(r);
    moe_exchange(r);
}

/* The mailbox of the pipeline messages from stage `from` to `to` of tensor rank t, replica d. */
static sg_mailbox_t pp_box(int d, int t, int from, int to)
{
    return runkit_mailbox("pp:%d:%d:%d>%d", d, t, from, to);
}

/* Posts this microbatch's activations (or their gradients) from virtual stage `from` to `to`
 * (chunk c of stage s is virtual stage c pp + s). */
static void pp_send(struct hy_rank *r, int from, int to)
{
    struct hy_ctx *c = r->c;
    static int token;
    sg_host_t dst = c->j->pf->gpus[par_rank_cp(c->p, r->t, r->cx, to % c->p->pp, r->d)];
    r->sends[r->nsends++] =
            net_isend(pp_box(r->d, r->t + c->p->tp * r->cx, from, to), &token, c->pp_B);
    traffic_add(c->traffic[DIM_PP], c->j->pf->gpus[r->rank], dst, c->pp_B);
}

/* The virtual stage of operation k of rank r's schedule, and the last one of the pipeline. */
static int vstage_of(const struct hy_rank *r, int k)
{
    return r->ops[k].chunk * r->c->p->pp + r->s;
}

static int last_vstage(const struct hy_ctx *c)
{
    return c->p->pp * c->p->vstages - 1;
}

/* Does operation k of the schedule start with a message (activations from the virtual stage
 * before for a forward, their gradients from the one after for a backward)? */
static bool needs_recv(const struct hy_rank *r, int k)
{
    int vs = vstage_of(r, k);
    return r->ops[k].backward ? vs < last_vstage(r->c) : vs > 0;
}

/* Posts the receive of operation k's message (into payload slot k % 2). */
static sg_comm_t post_recv(struct hy_rank *r, int k)
{
    int vs = vstage_of(r, k), from = r->ops[k].backward ? vs + 1 : vs - 1;
    return net_irecv(pp_box(r->d, r->t + r->c->p->tp * r->cx, from, vs), &r->payload[k % 2]);
}

/* ---- the schedule ------------------------------------------------------------------------ */

static void exec(struct hy_rank *r, double amount)
{
    double t0 = simgrid_get_clock();
    worker_exec(r->c->rec, r->rank, amount * r->jitter * r->mb_scale);
    r->compute_s += simgrid_get_clock() - t0;
}

static void cp_attention(struct hy_rank *r, bool backward); /* below, with the schedule */

/* Layer i's forward (or backward) and, a block's, its collectives: after its kernels, or with
 * tp-comm-overlap pipelined with the GEMMs beside them (hy_tpov.h: the GEMMs' time is compute,
 * what the pipeline leaves of the collectives tensor-parallel time). */
static void layer_pass(struct hy_rank *r, int i, bool bwd)
{
    struct hy_ctx *c = r->c;
    if (!c->p->tp_overlap || !is_block(c, i)) {
        exec(r, bwd ? c->amt.bwd[i] : c->amt.fwd[i]);
        if (is_block(c, i)) cp_attention(r, bwd);
        if (is_block(c, i)) block_comm(r);
        return;
    }
    const struct tpov_pass *ps = bwd ? &c->tpov.bwd : &c->tpov.fwd;
    exec(r, ps->rest);
    cp_attention(r, bwd);
    int pos, g = hygroup_of(c->p, HYGROUP_TP, r->t, r->cx, r->s, r->d, &pos);
    struct tpov_rank tr = {&c->groups[HYGROUP_TP][g], c->algo, pos, r->jitter * r->mb_scale,
                           c->rec, r->rank};
    double gemm_s = 0, exposed_s = 0;
    if (!c->failed)
        check_wait(r, tpov_pass(&tr, ps, c->tp_B, &gemm_s, &exposed_s), "overlapped collective");
    r->compute_s += gemm_s;
    r->tp_s += exposed_s;
    moe_exchange(r);
}

/* A data-parallel collective of a dense and an experts' share in the groups of kinds kd and ke:
 * the experts' over the replicas holding the same experts (with ep > 1), the rest over every
 * replica; its time into *t. */
static void dp_pair(struct hy_rank *r, int kd, int ke, enum coll_op op, double dense_B,
                    double experts_B, double *t)
{
    if (r->c->p->ep > 1) {
        group_collective(r, kd, op, dense_B, t);
        group_collective(r, ke, op, experts_B, t);
    } else {
        group_collective(r, kd, op, dense_B + experts_B, t);
    }
}

/* The same in the data groups; its time goes to the rank's data-parallel time, and to *inside
 * when it runs inside the pipeline phase. */
static void dp_split(struct hy_rank *r, enum coll_op op, double dense_B, double experts_B,
                     double *inside)
{
    double t = 0;
    dp_pair(r, HYGROUP_DP, HYGROUP_EDP, op, dense_B, experts_B, &t);
    r->dp_s += t;
    if (inside) *inside += t;
}

/* The bytes of layer i's parameters on this rank: all, and its experts'. */
static double layer_B(const struct hy_rank *r, int i, double *experts_B)
{
    const struct hy_ctx *c = r->c;
    *experts_B = is_block(c, i) ? c->expert_params * c->e : 0;
    return c->m.layers[i].params * c->e;
}

/* A wait of rank r for its DP-comm actor (hy_dpov.h): its data-parallel time, and inside the
 * pipeline phase when `inside`. */
static void dp_waited(struct hy_rank *r, double s, bool inside)
{
    r->dp_s += s;
    r->dp_in_s += inside ? s : 0;
}

/* The DP-comm actor's calls back (hy_dpov_rank): a layer's bytes, a bucket's collective in the
 * rank's data groups (the actor's busy time is hidden, not the rank's), a wait given up. */
static double dpov_layer_B(void *ctx, int layer, double *experts_B)
{
    return layer_B(ctx, layer, experts_B);
}

static void dpov_collective(void *ctx, enum coll_op op, double dense_B, double experts_B)
{
    double busy = 0;
    dp_pair(ctx, HYGROUP_DP, HYGROUP_EDP, op, dense_B, experts_B, &busy);
}

static void dpov_timed_out(void *ctx, const char *what)
{
    check_wait(ctx, NET_TIMEOUT, what);
}

/* Does rank r's ZeRO-3 gather its layers ahead (a prefetcher actor: prefetch_actor)? */
static bool prefetching(const struct hy_rank *r)
{
    const struct parallel_spec *p = r->c->p;
    return p->zero == 3 && p->dp > 1 && !p->no_prefetch;
}

/* ZeRO-3: a layer's parameters gathered from the replicas before it runs: now, or (prefetch)
 * the wait for the prefetcher's gather, the only part exposed. */
static void zero3_gather(struct hy_rank *r, int layer)
{
    struct hy_ctx *c = r->c;
    if (c->p->zero != 3 || c->failed) return;
    double ex, all = layer_B(r, layer, &ex), t0 = simgrid_get_clock();
    if (!prefetching(r)) {
        dp_split(r, COLL_ALLGATHER, all - ex, ex, &r->dp_in_s);
        return;
    }
    if (sg_sem_acquire_timeout(r->ready, c->sc->train.timeout_s) != 0)
        check_wait(r, NET_TIMEOUT, "prefetched gather");
    r->dp_s += simgrid_get_clock() - t0;
    r->dp_in_s += simgrid_get_clock() - t0;
}

/* The layer is done with its gathered parameters: the prefetcher may gather one more. */
static void zero3_done(struct hy_rank *r)
{
    if (prefetching(r)) sg_sem_release(r->slots);
}

/* ZeRO-3's prefetcher (FSDP's forward and backward prefetch): gathers the rank's layers in the
 * order its schedule runs them, one ahead of the layer running (two slots: the running layer's
 * and the next), on groups of its own; a step's first gather waits for the rank's optimizer
 * (the updated parameters). A daemon. */
static void prefetch_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct hy_rank *r = sg_actor_self_get_data();
    int n = par_schedule_len(r->c->p);
    for (;;) {
        for (int k = 0; k < n; k++) {
            int ch = r->ops[k].chunk, len = r->last[ch] - r->first[ch];
            for (int q = 0; q < len; q++) {
                int i = r->ops[k].backward ? r->last[ch] - 1 - q : r->first[ch] + q;
                double ex, all = layer_B(r, i, &ex), t = 0;
                sg_sem_acquire(r->slots);
                dp_pair(r, HYGROUP_DPG, HYGROUP_EDPG, COLL_ALLGATHER, all - ex, ex, &t);
                sg_sem_release(r->ready);
            }
        }
        sg_sem_acquire(r->step_go);
    }
}

static void cp_exec(void *r, double amount)
{
    exec(r, amount);
}

static void cp_collective(void *r, enum coll_op op, double size_B)
{
    double t = 0; /* hycp_attention times it */
    group_collective(r, HYGROUP_CP, op, size_B, &t);
}

static void cp_failed(void *r, enum net_status st, const char *what)
{
    check_wait(r, st, what);
}

/* Context parallelism: a block's attention with its context ranks (hy_cp.h), the exchange not
 * hidden by the attention counted with the tensor-parallel collectives (on the critical path). */
static void cp_attention(struct hy_rank *r, bool backward)
{
    if (par_cp(r->c->p) < 2 || r->c->failed) return;
    struct hycp_hooks k = {r, cp_exec, cp_collective, cp_failed};
    r->tp_s += hycp_attention(&r->c->cp, r->t, r->cx, r->s, r->d, backward, &k);
}

static void forward(struct hy_rank *r, int chunk)
{
    struct hy_ctx *c = r->c;
    int vs = chunk * c->p->pp + r->s;
    for (int i = r->first[chunk]; i < r->last[chunk]; i++) {
        if (r->ov) dp_waited(r, hy_dpov_forward(r->ov, chunk, i), true);
        zero3_gather(r, i);
        layer_pass(r, i, false);
        zero3_done(r);
    }
    if (vs < last_vstage(c)) pp_send(r, vs, vs + 1);
}

static void backward(struct hy_rank *r, int chunk)
{
    struct hy_ctx *c = r->c;
    int vs = chunk * c->p->pp + r->s;
    for (int i = r->last[chunk]; i-- > r->first[chunk];) {
        zero3_gather(r, i);
        if (c->p->recompute == RECOMPUTE_SELECTIVE && is_block(c, i)) exec(r, c->attn_core);
        if (c->p->recompute == RECOMPUTE_FULL && is_block(c, i)) /* the block again */
            layer_pass(r, i, false);
        layer_pass(r, i, true);
        double ex, all = layer_B(r, i, &ex);
        if (c->p->zero == 3) /* its gradients to the replica that owns them */
            dp_split(r, COLL_REDUCESCATTER, all - ex, ex, &r->dp_in_s);
        zero3_done(r);
        if (r->ov) hy_dpov_backward(r->ov, chunk, i); /* its bucket ready: launched */
    }
    if (c->p->zero == 2) /* ZeRO-2 keeps only its shard of the gradients: reduced every
                            microbatch (DeepSpeed reduces each micro-step) */
        dp_split(r, COLL_REDUCESCATTER, r->chunk_B[chunk] - r->chunk_ex_B[chunk],
                 r->chunk_ex_B[chunk], &r->dp_in_s);
    if (vs > 0) pp_send(r, vs, vs - 1);
}

/* The parameters whose optimizer state rank r keeps under ZeRO: 1 / dp of its dense share and
 * 1 / (dp / ep) of its experts (the replicas holding the same experts share them); with context
 * parallelism 1 / cp of that (the data groups hold the dp x cp ranks: hygroup.h). */
static double zero_share(const struct hy_rank *r)
{
    const struct parallel_spec *p = r->c->p;
    return ((r->params - r->experts) / p->dp + r->experts / (p->dp / p->ep)) / par_cp(p);
}

/* After the schedule: the gradients reduced over the replicas, the optimizer, the updated
 * parameters gathered (ZeRO-1 and -2). */
static void finish_step(struct hy_rank *r)
{
    struct hy_ctx *c = r->c;
    const struct parallel_spec *p = c->p;
    /* the experts' gradients go to the replicas holding the same experts */
    double experts_B = r->experts * c->e, dense_B = r->params * c->e - experts_B;
    if (r->ov) dp_waited(r, hy_dpov_grads(r->ov), false); /* Megatron's finish_grad_sync */
    if (p->zero == 0 && !r->ov) dp_split(r, COLL_ALLREDUCE, dense_B, experts_B, NULL);
    if (p->zero == 1 && !r->ov) /* each replica needs only the gradients it updates */
        dp_split(r, COLL_REDUCESCATTER, dense_B, experts_B, NULL);
    double share = p->zero >= 1 ? zero_share(r) : r->params;
    double t0 = simgrid_get_clock();
    worker_exec(c->rec, r->rank, c->amt.update * share / c->model_params);
    r->update_s = simgrid_get_clock() - t0;
    if (r->ov) /* ZeRO-1's gathers: for the next forward, or now at the run's last step */
        dp_waited(r, hy_dpov_params(r->ov, r->step + 1 == c->sc->train.steps), false);
    else if (p->zero == 1 || p->zero == 2)
        dp_split(r, COLL_ALLGATHER, dense_B, experts_B, NULL);
}

/* Its shard of the checkpoint after `steps` steps, when one is due (Megatron's distributed
 * checkpoint: each tensor and pipeline rank saves its share; without ZeRO the first replica
 * alone, since the others hold copies; with ZeRO every replica its 1 / dp of the optimizer
 * state, and the first the weights). Written before the step ends, so a sync write holds it. */
static void checkpoint(struct hy_rank *r, int steps)
{
    double now = simgrid_get_clock();
    if (r->ckpt->size_B <= 0 || !ckpt_due(r->ckpt, steps, r->last_ckpt_s, now)) return;
    ckpt_write(r->ckpt, r->c->j->pf->gpus[r->rank], steps, 0, NULL);
    r->last_ckpt_s = now;
}

/* The bytes of rank r's shard of a checkpoint (0: it writes none). */
static double shard_B(const struct hy_ctx *c, const struct hy_rank *r)
{
    const struct train_spec *ts = &c->sc->train;
    double e = model_dtype_bytes(ts->dtype), o = model_optimizer_bytes(ts->dtype, ts->opt);
    bool first = r->d == 0 && r->cx == 0; /* the first replica's first context rank */
    if (c->p->zero == 0) return first ? ckpt_size(&c->m, r->params, ts->dtype, ts->opt) : 0;
    return zero_share(r) * o + (first ? r->params * e : 0) +
           ckpt_size(&c->m, 0, ts->dtype, ts->opt);
}

/* The step's figures of rank r into the step's sums; the last rank's step row. */
static void account(struct hy_rank *r, int step)
{
    struct hy_ctx *c = r->c;
    c->pipe[step] = fmax(c->pipe[step], r->pipe_end - c->start[step]);
    c->compute[step] += r->compute_s;
    c->tp[step] += r->tp_s;
    c->dp[step] += r->dp_s;
    c->dp_in[step] += r->dp_in_s;
    c->update[step] += r->update_s;
    run_gpu_span_add(c->rec, r->rank, r->step_t0_s, simgrid_get_clock(), /* its trace counters */
                     r->compute_s + r->update_s, -1); /* the rest: NCCL waits (run_power.h) */
}

/* The step's end: every rank arrives (the last releases the others: a semaphore per parity
 * of the step, so a rank already in the next step cannot take a permit of this one), or the job
 * failed, or the watchdog gives up on the others. Returns whether the job goes on. */
static bool step_end(struct hy_rank *r, int step)
{
    struct hy_ctx *c = r->c;
    sg_sem_t go = c->go[step % 2];
    if (++c->arrived[step % 2] == c->P) {
        c->arrived[step % 2] = 0;
        c->done += !c->failed; /* a step some rank skipped after a failure is not done */
        hyin_step_done(&c->in); /* before anyone reads the next step's batches */
        for (int k = 1; k < c->P; k++)
            sg_sem_release(go);
        return !c->failed;
    }
    if (sg_sem_acquire_timeout(go, c->sc->train.timeout_s) != 0)
        check_wait(r, NET_TIMEOUT, "step's end");
    return !c->failed;
}

/* One step's schedule: each operation's message received while the previous one runs (Megatron
 * posts its receive with the previous send), then the sends waited for. */
static void run_schedule(struct hy_rank *r)
{
    struct hy_ctx *c = r->c;
    int n = par_schedule_len(c->p);
    double timeout = c->sc->train.timeout_s;
    sg_comm_t next = needs_recv(r, 0) ? post_recv(r, 0) : NULL;
    for (int k = 0; k < n; k++) {
        sg_comm_t mine = next;
        next = k + 1 < n && needs_recv(r, k + 1) ? post_recv(r, k + 1) : NULL;
        if (mine) check_wait(r, net_wait(mine, simgrid_get_clock() + timeout), "pipeline receive");
        if (mine && c->pp_gather) /* the tensor ranks' shares of it (Megatron's
                                     gather_split_1d_tensor) */
            group_collective(r, HYGROUP_TP, COLL_ALLGATHER, c->act_B, &r->tp_s);
        if (c->failed) break;
        if (!hyin_before(&c->in, r->t + c->p->tp * r->cx, r->s, r->d, r->step, &r->ops[k],
                         &r->mb_scale))
            check_wait(r, NET_TIMEOUT, "the first stage's batch");
        if (c->failed) break; /* while it waited for its batch */
        double o0 = simgrid_get_clock();
        if (r->ops[k].backward)
            backward(r, r->ops[k].chunk);
        else
            forward(r, r->ops[k].chunk);
        struct trace_args a = TRACE_ARGS;
        a.step = r->step + 1;
        a.microbatch = r->ops[k].mb;
        a.chunk = r->ops[k].chunk;
        a.layer_first = r->first[a.chunk];
        a.layer_last = r->last[a.chunk];
        trace_slice_args(c->rec->trace, r->rank, r->ops[k].backward ? "backward" : "forward", o0,
                         simgrid_get_clock(), a);
    }
    /* a receive posted for an operation the failure skipped: a zero-length wait releases it
     * (an unref of a transfer still running made SimGrid print a backtrace, issue 28) */
    if (next) net_wait(next, simgrid_get_clock());
    r->pipe_end = simgrid_get_clock();
    for (int k = 0; k < r->nsends; k++) /* after a failure, released without waiting */
        if (c->failed)
            net_wait(r->sends[k], simgrid_get_clock());
        else
            check_wait(r, net_wait(r->sends[k], simgrid_get_clock() + timeout), "pipeline send");
}

static void rank_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct hy_rank *r = sg_actor_self_get_data();
    struct hy_ctx *c = r->c;
    struct hy_rank *r0 = &c->ranks[par_rank(c->p, r->t, r->s, 0)]; /* its shard, whole */
    if (c->from > 0 && !hyrec_reload(c->hr, r->rank, shard_B(c, r0)))
        check_wait(r, NET_FAILURE, "checkpoint reload");
    for (int step = c->from; step < c->sc->train.steps && !c->failed; step++) {
        inject_step(&c->kit->inj, step); /* a crash at this step */
        if (r->rank == 0) c->start[step] = simgrid_get_clock();
        r->compute_s = r->tp_s = r->dp_s = r->update_s = r->dp_in_s = 0;
        r->step_t0_s = simgrid_get_clock();
        r->jitter = inject_jitter(&c->kit->inj, r->rank, step);
        r->nsends = 0;
        r->step = step;
        run_schedule(r);
        double d0 = simgrid_get_clock();
        finish_step(r);
        if (prefetching(r) && step + 1 < c->sc->train.steps)
            sg_sem_release(r->step_go); /* the next step's gathers may start */
        if (!c->failed) checkpoint(r, step + 1); /* a failed step's gradients were not reduced */
        trace_slice(c->rec->trace, r->rank, "data-parallel + update", d0, simgrid_get_clock());
        account(r, step);
        if (!step_end(r, step)) break;
        if (r->rank == 0 && r->ckpt->last_step == step + 1 && c->sc->ckpt.present &&
            !c->sc->ckpt.async) /* every shard written: the checkpoint counts */
            run_event_add(c->rec, simgrid_get_clock(), RUN_CHECKPOINT, step + 1, c->P,
                          "checkpoint of step %d counts (%d shards)", step + 1, c->P)
                    ->start_s = r->last_ckpt_s; /* when rank 0 began its shard's write */
        if (r->rank == 0) {
            double now = simgrid_get_clock(), prev = step > c->from ? c->start[step] : c->end_s;
            c->rec->step_compute = "a rank's mean compute (all ranks' compute / ranks)";
            struct run_event *e =
                    run_step_add(c->rec, now, step + 1, now - prev, c->compute[step] / c->P,
                                 c->in.step_good[step], c->P, 0);
            e->input_s = c->in.step_input[step];
            e->gpu_busy_s = (c->compute[step] + c->update[step]) / c->P; /* run_power.h */
            c->end_s = now;
            hynum_step(c->num, c->rec, step, step, c->in.good_done, now); /* the real update */
            hyrec_progress(c->hr, step + 1);
        }
    }
    if (!hyrec_rank_exit(c->hr, r->rank) && (r->rank == 0 || c->failed))
        inject_finish(&c->kit->inj);
}

/* ---- set-up ------------------------------------------------------------------------------ */

/* Does nothing but the tensor groups use a node's NVLink ports while the pipeline runs? Yes when
 * the group fills its node; or, on NVSwitches (each GPU its own NVLink into the switches, no
 * shared link: platform_gen.c), when the node holds whole tensor groups only, no pipeline
 * neighbour shares the node (the stage stride, tp dp in tp-dp-pp and tp in tp-pp-dp, a node at
 * least) and no other group runs inside the pipeline phase (ZeRO-2's and -3's collectives,
 * overlap-grad-reduce's buckets, the experts' all-to-alls, context parallelism's exchange). */
static bool nvlink_alone(const struct hy_ctx *c, const struct coll_world *w)
{
    const struct parallel_spec *p = c->p;
    const struct cluster_spec *cl = &c->sc->cluster;
    int gpus = c->sc->has_cluster ? cl->gpus_per_node : 0;
    if (w->per_node == w->nranks && w->nranks == gpus) return true;
    bool switched = c->sc->has_cluster && cl->intra->kind == LINK_NVLINK &&
                    (cl->intra->fabric == FABRIC_SWITCH || cl->intra->fabric == FABRIC_SHARP);
    int stride = p->dp_outer ? p->tp : p->tp * p->dp;
    return switched && w->per_node == w->nranks && gpus % w->nranks == 0 &&
           (p->pp == 1 || stride >= gpus) && p->zero <= 1 && !p->overlap_grad && p->ep <= 1 &&
           par_cp(p) == 1; /* the context ranks' exchange is on the node's NVLink too */
}

/* May tensor group w's flow-level calls be replayed (coll_replay.h)? When its links carry
 * nothing else (nvlink_alone), no fault or straggler is planned, and the scenario does not say
 * replay="no". */
static bool replay_allowed(const struct hy_ctx *c, const struct coll_world *w)
{
    const struct train_spec *ts = &c->sc->train;
    if (!ts->replay || ts->level != COLL_FLOW || c->j->plan->n > 0 ||
        c->j->plan->jitter_sigma > 0 || c->p->tp_overlap) /* its ring exchanges: not replayed */
        return false;
    return nvlink_alone(c, w);
}

/* The collective groups of every kind, each a world of its members' hosts with mailboxes of its
 * own (its epoch), its bytes in its dimension's traffic. */
static void make_worlds(struct hy_ctx *c)
{
    const struct parallel_spec *p = c->p;
    const struct train_spec *ts = &c->sc->train;
    static const int dim[HYGROUP_KINDS] = {DIM_TP, DIM_DP, DIM_EP, DIM_DP, DIM_DP, DIM_DP, DIM_TP};
    for (int kind = 0; kind < HYGROUP_KINDS; kind++) {
        int ng = hygroup_used(p, kind);
        c->ngroups[kind] = ng;
        c->groups[kind] = xbt_new0(struct coll_world, ng ? ng : 1);
        hygroup_worlds(p, c->j->pf, c->P, kind, ng, ts->timeout_s, c->groups[kind]);
        for (int g = 0; g < ng; g++) {
            struct coll_world *w = &c->groups[kind][g];
            w->level = ts->level;
            w->nccl = ts->nccl;
            w->epoch = ++c->epochs;
            w->traffic = c->traffic[dim[kind]];
            w->replay = kind == HYGROUP_TP && replay_allowed(c, w);
        }
    }
}

static void make_ranks(struct hy_ctx *c)
{
    const struct parallel_spec *p = c->p;
    c->ranks = xbt_new0(struct hy_rank, c->P);
    for (int k = 0; k < c->P; k++) {
        struct hy_rank *r = &c->ranks[k];
        r->c = c;
        r->rank = k;
        par_coords_cp(p, k, &r->t, &r->cx, &r->s, &r->d);
        int n = par_schedule_len(p);
        r->ops = xbt_new(struct pp_op, n);
        par_schedule(p, r->s, r->ops);
        r->sends = xbt_new(sg_comm_t, n);
        r->chunk_B = xbt_new0(double, p->vstages);
        r->chunk_ex_B = xbt_new0(double, p->vstages);
        r->first = xbt_new(int, p->vstages);
        r->last = xbt_new(int, p->vstages);
        for (int ch = 0; ch < p->vstages; ch++) {
            par_stage_layers(p, c->sc->model.gpt.layers, ch * p->pp + r->s, &r->first[ch],
                             &r->last[ch]);
            for (int i = r->first[ch]; i < r->last[ch]; i++) {
                r->params += c->m.layers[i].params;
                double ex = is_block(c, i) ? c->expert_params : 0;
                r->experts += ex;
                r->chunk_B[ch] += c->m.layers[i].params * c->e;
                r->chunk_ex_B[ch] += ex * c->e;
            }
        }
    }
}

static void setup(struct hy_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    const struct parallel_spec *p = c->p;
    struct gpt_config g = c->sc->model.gpt;
    g.tp = p->tp;
    g.sp = p->sp;
    g.ep = p->ep;
    g.autocast = ts->autocast;
    model_preset(c->sc->model.preset, &g, ts->dtype, &c->m);
    c->num = hynum_new(c->j);
    c->expert_params = model_expert_params(&g);
    c->model_params = model_params(&c->m);
    struct kernel_costs kc = job_kernel_costs(ts);
    struct model mc; /* context parallelism: a rank's amounts are of its s / cp tokens */
    g.seq /= par_cp(p);
    if (par_cp(p) > 1) model_preset(c->sc->model.preset, &g, ts->dtype, &mc);
    worker_amounts(c->j->cal, c->j->pf->models[0], c->j->pf->gpus[0], ts->dtype, ts->opt,
                   par_cp(p) > 1 ? &mc : &c->m, ts->batch, &kc, &c->amt);
    if (par_cp(p) > 1) model_release(&mc);
    if (p->recompute == RECOMPUTE_SELECTIVE && g.attention != ATTN_FLASH) {
        /* the attention core's forward, per block (FlashAttention's backward recomputes it
           already: nothing to add) */
        struct model core;
        struct worker_amounts a = {0};
        model_attention_core(&g, ts->dtype, &core);
        worker_amounts(c->j->cal, c->j->pf->models[0], c->j->pf->gpus[0], ts->dtype, ts->opt, &core,
                       ts->batch, &kc, &a);
        c->attn_core = a.fwd[0];
        worker_amounts_release(&a);
        model_release(&core);
    }
    c->e = model_dtype_bytes(ts->dtype);
    c->tp_B = (double)ts->batch * g.seq * g.hidden * model_act_bytes(ts->dtype);
    c->act_B = c->tp_B / (p->sp ? p->tp : 1);
    /* Megatron's scatter/gather (Narayanan et al., SC'21, section 4.1; p2p_communication.py:
       split_tensor_into_1d_equal_chunks, gather_split_1d_tensor; on unless arguments.py's
       --no-scatter-gather-tensors-in-pipeline) */
    c->pp_gather = !p->sp && p->tp > 1 && !p->no_scatter_gather;
    c->pp_B = c->act_B / (c->pp_gather ? p->tp : 1);
    if (p->tp_overlap && g.layers > 0)
        tpov_split(c->j->cal, c->j->pf->models[0], ts->dtype, sg_host_get_speed(c->j->pf->gpus[0]),
                   &c->m.layers[1], ts->batch, c->amt.fwd[1], c->amt.bwd[1], &c->tpov);
    /* a rank's tokens, each to topk experts, h elements each */
    c->a2a_B = c->act_B * (g.experts > 0 ? g.topk : 0);
    c->algo = collective_get(ts->algo);
    c->traffic[0] = c->kit->traffic;
    for (int i = 1; i < 4; i++)
        c->traffic[i] = traffic_new();
    hycp_init(&c->cp, c->j, p, &g, &kc, &c->amt, c->traffic[DIM_TP]);
    make_worlds(c);
    make_ranks(c);
    hyin_open(&c->in, c->kit, p);
    c->go[0] = sg_sem_init(0);
    c->go[1] = sg_sem_init(0);
    double **figs[] = {&c->start, &c->pipe, &c->compute, &c->tp, &c->dp, &c->dp_in, &c->update};
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        *figs[i] = xbt_new0(double, ts->steps);
}

static void release_layout(struct hy_ctx *c)
{
    for (int kind = 0; kind < HYGROUP_KINDS; kind++) {
        for (int g = 0; g < c->ngroups[kind]; g++)
            collective_world_release(&c->groups[kind][g]);
        free(c->groups[kind]);
    }
    for (int k = 0; k < c->P; k++) {
        free(c->ranks[k].ops);
        free(c->ranks[k].first);
        if (c->ranks[k].slots) {
            sg_sem_destroy(c->ranks[k].slots);
            sg_sem_destroy(c->ranks[k].ready);
            sg_sem_destroy(c->ranks[k].step_go);
        }
        hy_dpov_free(c->ranks[k].ov);
        free(c->ranks[k].chunk_B);
        free(c->ranks[k].chunk_ex_B);
        free(c->ranks[k].last);
        free(c->ranks[k].sends);
    }
    free(c->ranks);
    sg_sem_destroy(c->go[0]);
    sg_sem_destroy(c->go[1]);
}

static void teardown(struct hy_ctx *c)
{
    release_layout(c);
    for (int i = 1; i < 4; i++)
        traffic_free(c->traffic[i]);
    double *figs[] = {c->start, c->pipe, c->compute, c->tp, c->dp, c->dp_in, c->update};
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        free(figs[i]);
    worker_amounts_release(&c->amt);
    model_release(&c->m);
    hyin_release(&c->in);
    hynum_free(c->num);
}

/* ---- the strategy's row ------------------------------------------------------------------ */

static void start_prefetcher(struct hy_rank *r)
{
    r->slots = sg_sem_init(2);
    r->ready = sg_sem_init(0);
    r->step_go = sg_sem_init(0);
    char name[32];
    snprintf(name, sizeof name, "prefetch-%d", r->rank);
    sg_actor_t a = sg_actor_init(name, r->c->j->pf->gpus[r->rank]);
    sg_actor_set_data(a, r);
    sg_actor_start(a, prefetch_actor, 0, NULL);
    sg_actor_daemonize(a); /* after the start (SimGrid 3.32: see loader.c's start_device) */
}

/* overlap-grad-reduce: rank r's buckets and its DP-comm actor (hy_dpov.h). */
static void start_dpov(struct hy_rank *r)
{
    const struct hy_ctx *c = r->c;
    static const struct hy_dpov_ops ops = {dpov_layer_B, dpov_collective, dpov_timed_out};
    struct hy_dpov_rank d = {.ctx = r,
                             .ops = &ops,
                             .host = c->j->pf->gpus[r->rank],
                             .rank = r->rank,
                             .stage = r->s,
                             .first = r->first,
                             .last = r->last,
                             .p = c->p,
                             .elem_B = c->e,
                             .timeout_s = c->sc->train.timeout_s};
    r->ov = hy_dpov_new(&d);
}

static void start_ranks(struct hy_ctx *c)
{
    /* no shard logs: a checkpoint counts when all of them do (rank 0 logs it then) */
    double *size_B = xbt_new0(double, c->P);
    for (int k = 0; k < c->P; k++)
        size_B[k] = c->sc->ckpt.present ? shard_B(c, &c->ranks[k]) : 0;
    struct ckpt *ck = c->kit->ckpt ? c->kit->ckpt : runkit_ckpts(c->kit, c->P, size_B, NULL);
    for (int k = 0; k < c->P; k++) {
        struct hy_rank *r = &c->ranks[k];
        r->ckpt = &ck[k];
        r->ckpt->size_B = size_B[k]; /* a restart's layout: its own shards (hybrid_recover.h) */
        c->rec->ckpt_B += c->from > 0 ? 0 : r->ckpt->size_B;
        char name[32];
        snprintf(name, sizeof name, "rank-%d", k);
        sg_actor_t a = sg_actor_init(name, c->j->pf->gpus[k]);
        sg_actor_set_data(a, &c->ranks[k]);
        sg_actor_start(a, rank_actor, 0, NULL);
        if (prefetching(r)) start_prefetcher(r);
        if (c->p->overlap_grad && c->p->dp > 1) start_dpov(r);
        runkit_track(c->kit, k, "rank %d (tp %d, stage %d, replica %d)", k, r->t, r->s, r->d);
    }
    for (int k = c->P; k < c->kit->nckpt; k++) /* writers of a larger layout before: none now */
        ck[k].size_B = 0;
    free(size_B);
}

/* A restart's layout (hybrid_recover.h): the last one's state freed, L's built and started; the
 * steps from L->from on done again. */
static void relayout(void *ctx, const struct hyrec_layout *L)
{
    struct hy_ctx *c = ctx;
    for (int k = 0; k < c->P; k++) /* its DP-comm actor waits on a semaphore freed below */
        hy_dpov_stop(c->ranks[k].ov);
    release_layout(c);
    c->j = L->j;
    c->p = L->p;
    c->P = L->P;
    hyin_relayout(&c->in, c->j, c->p, L->from);
    c->from = c->done = L->from;
    c->failed = false;
    c->arrived[0] = c->arrived[1] = 0;
    double *figs[] = {c->start, c->pipe, c->compute, c->tp, c->dp, c->dp_in, c->update};
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
        memset(figs[i] + L->from, 0, sizeof(double) * (size_t)(c->sc->train.steps - L->from));
    make_worlds(c);
    make_ranks(c);
    c->go[0] = sg_sem_init(0);
    c->go[1] = sg_sem_init(0);
    start_ranks(c);
}

void hybrid_begin(const struct job *j, struct run_record *rec)
{
    const struct train_spec *ts = &j->sc->train;
    run_init(rec, STRAT_HYBRID, job_workers(j), ts->batch * ts->par.microbatches, ts->steps);
    rec->global_batch = (double)ts->par.dp * ts->par.microbatches * ts->batch;
    run_config_num(rec, "tp", "%d", ts->par.tp);
    run_config_num(rec, "pp", "%d", ts->par.pp);
    run_config_num(rec, "dp", "%d", ts->par.dp);
    run_config_num(rec, "microbatches", "%d", ts->par.microbatches);
    run_config_str(rec, "schedule", scenario_pp_schedule_name(ts->par.schedule));
    run_config_num(rec, "zero", "%d", ts->par.zero);
    run_config_num(rec, "ep", "%d", ts->par.ep);
    run_config_num(rec, "virtual_stages", "%d", ts->par.vstages);
    run_config_str(rec, "sequence_parallel", ts->par.sp ? "yes" : "no");
    run_config_str(rec, "recompute", scenario_recompute_name(ts->par.recompute));
    run_config_str(rec, "order", ts->par.dp_outer ? "tp-pp-dp" : "tp-dp-pp");
    if (ts->par.overlap_grad) hy_dpov_config(rec, &ts->par);
    if (par_cp(&ts->par) > 1) { /* context parallelism (absent without: outputs unchanged) */
        run_config_num(rec, "cp", "%d", ts->par.cp);
        run_config_str(rec, "cp_comm", ts->par.cp_allgather ? "all-gather" : "p2p");
    }
}

void hybrid_run(struct runkit *kit)
{
    const struct job *j = kit->j;
    struct run_record *rec = kit->rec;
    const struct train_spec *ts = &j->sc->train;
    struct hy_ctx c = {
            .j = j, .sc = j->sc, .p = &ts->par, .rec = rec, .P = job_workers(j), .kit = kit};
    setup(&c);
    c.hr = hyrec_new(kit, c.P, (struct hyrec_hooks){.relayout = relayout, .ctx = &c});
    start_ranks(&c);
    runkit_simulate(kit);
    rec->total_s = c.end_s;
    rec->steps_completed = c.done;
    rec->final_workers = 0; /* the ranks alive at the end */
    for (int k = 0; k < c.P; k++)
        rec->final_workers += sg_host_is_on(c.j->pf->gpus[k]);
    /* the steps every rank finished count; the step that failed is lost work */
    rec->lost_steps = c.done < ts->steps ? 1 : 0;
    hyin_account(&c.in, rec, c.done); /* samples and gradients, the input pipeline's figures */
    hyrec_finish(c.hr, rec, c.done);    /* after a restart: the layouts' gradients, the lost work */
    hybrid_record(&c, rec, j->m);
    hynum_finish(c.num, rec);
    job_record_compute(rec, &c.amt, j->pf->models[0], ts->dtype);
    for (int i = 1; i < 4; i++)
        traffic_merge(c.traffic[0], c.traffic[i]);
    for (int k = 0; k < c.P; k++) { /* a checkpoint counts when every shard of it does */
        struct ckpt *ck = c.ranks[k].ckpt;
        if (ck->size_B <= 0) continue;
        rec->checkpoints =
                k == 0 || ck->completed < rec->checkpoints ? ck->completed : rec->checkpoints;
        rec->ckpt_overhead_s = fmax(rec->ckpt_overhead_s, ck->overhead_s);
    }
    runkit_finish(kit);
    teardown(&c);
    hyrec_free(c.hr); /* last: a restart's layout (c.j, c.p) lives in it */
}
