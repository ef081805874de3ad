/* ps_shard.c - a parameter-server shard (see ps_shard.h). */
#include "ps_shard.h"

#include "ckpt.h"
#include "inject.h"
#include "ps_account.h"
#include "ps_sparse.h"
#include "ps_msg.h"
#include "psnum.h"
#include "runkit.h"
#include "trace.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>

#include <math.h>
#include <string.h>

void ps_shard_wake_all(struct ps_ctx *c)
{
    if (c->sc->train.ps.mode != PS_SYNC) return;
    for (int k = 0; k < c->K; k++)
        sg_sem_release(c->shards[k].arrived);
}

bool ps_shard_all_stopped(const struct ps_ctx *c)
{
    for (int k = 0; k < c->K; k++)
        if (!c->shards[k].stopped) return false;
    return true;
}

/* The next queued push, or NULL if none came by the deadline (timeout < 0: wait forever) or the
 * shard was woken to count its quorum again (ps_shard_wake_all). */
static struct push_rec *take(struct shard *s, double timeout)
{
    if (timeout < 0)
        sg_sem_acquire(s->arrived);
    else if (sg_sem_acquire_timeout(s->arrived, timeout) != 0)
        return NULL;
    struct push_rec *rec = s->head;
    if (rec == NULL) return NULL; /* a wake */
    s->head = rec->next;
    if (s->head == NULL) s->tail = NULL;
    rec->next = NULL;
    s->rep->queue_s += simgrid_get_clock() - rec->queued_s;
    s->rep->pushes += 1;
    return rec;
}

void ps_shard_evaluate(struct ps_ctx *c, bool last, double now)
{
    if (c->j->nm == NULL) return;
    int lo = c->shards[0].version;
    for (int k = 1; k < c->K; k++)
        lo = c->shards[k].version < lo ? c->shards[k].version : lo;
    if (lo <= c->evaluated || (!last && lo % c->sc->train.numerics.eval_every != 0)) return;
    for (int k = 0; k < c->K; k++)
        pslice_scatter(&c->shards[k].num.sl, c->shards[k].num.w, c->eval_params);
    double loss, acc = numerics_evaluate(c->j->nm, c->eval_params, &loss);
    run_eval_add(c->res, 0, now, lo, acc, loss);
    c->evaluated = lo;
}

/* With a coordinator: the shard tells it the version it has reached (after an advance, or a
 * restart that rolled it back). */
static void report_version(struct shard *s)
{
    struct ps_ctx *c = s->c;
    if (c->coord_host == NULL) return;
    struct ps_msg *a = ps_msg_new(c, MSG_ADVANCE, s->version);
    a->shard = s->id;
    ps_msg_send(c, s->host, c->coord_host, runkit_mailbox("coordinator"), a, REQUEST_B);
}

/* Numerics, enforce: the shard keeps the parameters of the version it leaves while a pull may be
 * told to take it (versions from the coordinator's global one, and those pinned by pulls under
 * way, on). */
static void keep_history(struct ps_ctx *c, struct shard *s)
{
    struct nn_state st;
    struct nn_opt none = {.n = s->num.sl.n}; /* a pull needs the values, not the slots */
    nn_state_save(&st, s->num.w, &none, s->version, 0);
    nn_states_put(&s->hist, &st);
    int floor = (int)ps_metrics_of(c->res)->coordinator_global;
    for (int i = 0; i < 2 * c->P; i++)
        if (c->pinned[i] >= 0 && c->pinned[i] < floor) floor = c->pinned[i];
    nn_states_prune(&s->hist, floor);
}

/* The ports waiting for the shard to advance look again. */
static void wake_ports(struct shard *s)
{
    for (int r = 0; r < s->c->P; r++)
        if (s->waiting[r]) {
            s->waiting[r] = false;
            sg_sem_release(s->wake[r]);
        }
}

/* The shard reaches its next version; `progress`: it applied something (a version of empty
 * pushes only, every batch corrupt, is not training progressing). */
static void advance(struct shard *s, bool progress)
{
    struct ps_ctx *c = s->c;
    double t0 = simgrid_get_clock();
    double amt = ps_sparse_update_amt(s); /* the dense slice, and the rows accepted */
    if (amt > 0) sg_actor_execute(amt);
    s->rep->update_s += simgrid_get_clock() - t0;
    trace_slice(c->res->trace, c->P + s->id, "update", t0, simgrid_get_clock());
    if (c->j->nm && c->sc->train.ps.enforce) keep_history(c, s);
    if (c->j->nm) /* the mean of what it accepted, into the parameters */
        psnum_apply(&s->num, numerics_lr_at(c->j->nm, s->num.opt.t));
    s->version++;
    if (s->version >= s->nversions) /* a first visit of this version (not a replay) */
        s->version_s[s->nversions++] = simgrid_get_clock();
    wake_ports(s);
    s->rep->versions += 1;
    /* training has resumed once every shard advanced after the failure was noticed */
    s->last_adv_s = simgrid_get_clock();
    bool all = true;
    for (int k = 0; k < c->K; k++)
        all &= c->shards[k].last_adv_s > c->kit->inj.detected_s;
    if (all && progress) inject_progress(&c->kit->inj, simgrid_get_clock());
    int least = s->version; /* every shard's: the steps the job has (steps_completed's rule) */
    for (int k = 0; k < c->K; k++)
        if (c->shards[k].version < least) least = c->shards[k].version;
    if (least > c->res->progress_step) c->res->progress_step = least;
    ps_shard_evaluate(c, false, simgrid_get_clock());
    report_version(s);
    if (c->sc->ckpt.present &&
        ckpt_due(s->ckpt, s->version, s->last_ckpt_s, simgrid_get_clock())) {
        s->last_ckpt_s = simgrid_get_clock();
        if (c->j->nm) { /* what the checkpoint captures of the real state */
            struct nn_state st;
            nn_state_save(&st, s->num.w, &s->num.opt, s->version, 0);
            nn_states_put(&s->snaps, &st);
            nn_states_prune(&s->snaps, (int)s->ckpt_version);
        }
        ckpt_write(s->ckpt, s->host, s->version, s->version, &s->ckpt_version);
    }
}

static void record_applied(struct ps_ctx *c, struct shard *s, int lag,
                           const struct push_rec *rec)
{
    double samples = rec->samples;
    c->res->applied += 1;
    ps_metrics_of(c->res)->rows_applied += rec->rows;
    s->applied_rows[s->version] += rec->rows;
    s->pend_elems += rec->row_elems;
    ps_metrics_of(c->res)->stale_hist[lag < RUN_HIST - 1 ? lag : RUN_HIST - 1] += 1;
    c->res->consumed_samples += samples;
    s->applied_at[s->version] += 1;
    s->applied_smp[s->version] += samples;
}

/* Sync: a pusher is through with shard s: it finished or left, and its last push (maybe still
 * on its way) is not for the version s collects. */
static bool gone(const struct ps_worker *w, const struct shard *s)
{
    return (w->finished || w->gave_up) && w->last_key[s->id] < s->version;
}

/* Sync: can any pusher (a worker that talks to the shards: every one, or a node's leader) still
 * push to shard s: one is running or about to start, its last push is still on its way, or one
 * that died may come back with its host? */
static bool pushers_may_push(const struct ps_ctx *c, const struct shard *s)
{
    bool dead = false;
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        if (w->leader != r || gone(w, s)) continue;
        if (!w->down || w->finished || w->gave_up) return true;
        dead = true;
    }
    return dead && inject_may_restart(&c->kit->inj);
}

/* Sync: the pushers the shard waits for in this version: those that pushed for it, and those
 * not through with it that it does not suspect (a push of theirs missed a deadline and none came
 * since). A dead worker is waited for until the first deadline shows it missing; from then on it
 * is simply absent, until it pushes again (a restart). */
static int expected_pushers(const struct ps_ctx *c, const struct shard *s)
{
    int n = 0;
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        if (w->leader == r) n += s->pushed[r] || (!s->suspect[r] && !gone(w, s));
    }
    return n;
}

/* The deadline passed: the expected pushers that did not push are suspected (each a failure
 * noticed); the version goes on with the pushes it has. */
static void suspect_missing(struct ps_ctx *c, struct shard *s)
{
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        if (w->leader != r || s->pushed[r] || s->suspect[r] || gone(w, s)) continue;
        s->suspect[r] = true;
        ps_account_noticed(c);
    }
}

/* Sync: collects each version's quorum (P - b pushes, or every pusher it expects if fewer) and
 * advances. The deadline starts with the version's first push, as a collective's with its first
 * member: it bounds the wait for the others, not the workers' compute. Before any push the
 * shard waits as long as some pusher may still push (woken when one dies, leaves or finishes),
 * and stops when none can. A version always has at least one push (an empty push counts:
 * the worker had nothing to push), so the shard never runs ahead of the workers. */
static void sync_collect(struct shard *s)
{
    struct ps_ctx *c = s->c;
    const struct train_spec *ts = &c->sc->train;
    while (s->version < ts->steps) {
        int got = 0, applied = 0, v = s->version;
        memset(s->pushed, 0, (size_t)c->P * sizeof *s->pushed);
        s->quorum_end = -1;
        for (;;) {
            int need = expected_pushers(c, s);
            need = need < c->quorum ? need : c->quorum;
            if (got > 0 && got >= need) break;
            double now = simgrid_get_clock();
            if (s->quorum_end >= 0 && now >= s->quorum_end) {
                suspect_missing(c, s);
                break;
            }
            if (got == 0 && !pushers_may_push(c, s)) return; /* nobody left to push */
            /* before the first push, look again every deadline (a safety net for the wakes) */
            struct push_rec *rec =
                    take(s, s->quorum_end >= 0 ? s->quorum_end - now : ts->timeout_s);
            if (rec == NULL) continue; /* the deadline, or a wake: count again */
            s->suspect[rec->worker] = false; /* it is there */
            bool fresh = ts->ps.prefetch ? rec->it == v : rec->version == v;
            if (fresh) { /* prefetch: computed one version behind, by design */
                got++;
                s->pushed[rec->worker] = true;
                if (s->quorum_end < 0) s->quorum_end = simgrid_get_clock() + ts->timeout_s;
                if (!rec->empty) {
                    applied++;
                    if (rec->m) psnum_add(&s->num, rec->m->data, rec->m->grads);
                    record_applied(c, s, v - rec->version > 0 ? v - rec->version : 0, rec);
                }
            } else if (!rec->empty) { /* computed from an older version */
                ps_account_drop_slice(c, &c->res->dropped_late, rec->samples, rec->rows);
            }
            ps_msg_rec_free(c, rec);
        }
        s->quorum_end = INFINITY; /* held pulls wait for the update */
        advance(s, applied > 0);
    }
}

void ps_shard_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct shard *s = sg_actor_self_get_data();
    struct ps_ctx *c = s->c;
    const struct ps_spec *ps = &c->sc->train.ps;
    if (s->incarnation > 0 && c->sc->ckpt.present) /* restart: reload this shard's checkpoint */
        ckpt_restore(s->ckpt, s->host);
    if (s->incarnation > 0) report_version(s); /* the coordinator learns of the rollback */
    if (ps->mode == PS_SYNC) {
        sync_collect(s);
        s->stopped = true;
        wake_ports(s); /* held pulls are answered with what there is */
    } else {
        for (;;) { /* a daemon: the run ends with the workers */
            struct push_rec *rec = s->taken = take(s, -1);
            int lag = s->version - rec->version;
            /* bounded delay keeps the lag within tau iterations by making workers wait, so every
             * push is applied (its lag in versions is recorded); drop: only within tau versions */
            rec->accepted = lag >= 0 && (ps->bounded || lag <= ps->staleness);
            if (rec->accepted) {
                if (rec->m) psnum_add(&s->num, rec->m->data, rec->m->grads);
                record_applied(c, s, lag, rec);
                advance(s, true);
            } else {
                ps_account_drop_slice(c, &c->res->dropped_stale, rec->samples, rec->rows);
            }
            s->taken = NULL; /* the port frees it once decided */
            sg_sem_release(rec->decided);
        }
    }
}

bool ps_shard_real_by_bytes(const struct ps_ctx *c)
{
    return c->sc->train.ps.split_bytes || c->j->nm->spec->cost_model != NULL;
}
