/* ps_fault.c - the parameter server's actors under faults (see ps_fault.h). */
#include "ps_fault.h"

#include "inject.h"
#include "loader.h"
#include "ps_account.h"
#include "ps_coord.h"
#include "ps_msg.h"
#include "ps_port.h"
#include "ps_pull.h"
#include "ps_push.h"
#include "ps_shard.h"
#include "ps_worker.h"
#include "psnum.h"
#include "semset.h"

#include <xbt/sysdep.h>

#include <stdlib.h>
#include <string.h>

void ps_fault_start_shard(struct ps_ctx *c, struct shard *s)
{
    /* fresh semaphores: the old ones may have died with their holders (the set frees them) */
    s->arrived = sem_set_new(&c->sems, 0);
    free(s->waiting);
    free(s->wake);
    free(s->pushed);
    free(s->suspect);
    s->pushed = xbt_new0(bool, c->P);
    s->suspect = xbt_new0(bool, c->P); /* a new incarnation suspects no one */
    s->quorum_end = -1;
    s->stopped = false;
    s->waiting = xbt_new0(bool, c->P);
    s->wake = xbt_new0(sg_sem_t, c->P);
    for (int r = 0; r < c->P; r++)
        s->wake[r] = sem_set_new(&c->sems, 0);
    ps_msg_start("shard-%d.%d", s->id, s->incarnation, s->host, ps_shard_actor, s,
                 c->sc->train.ps.mode == PS_ASYNC);
    for (int r = 0; r < c->P; r++) {
        struct port *p = &c->ports[(size_t)s->id * c->P + r];
        p->s = s;
        p->worker = r;
        ps_msg_start("port-%d-%d", s->id, r, s->host, ps_port_actor, p, true);
    }
}

/* Numerics: a crashed shard's parameters and slots are those of its checkpoint of version keep,
 * or the initial ones; the gradients it had accepted for its next version are gone. */
static void restore_numerics(struct ps_ctx *c, struct shard *s, int keep)
{
    if (c->j->nm == NULL) return;
    const struct nn_state *st = nn_states_find(&s->snaps, keep);
    if (st)
        nn_state_load(st, s->num.w, &s->num.opt);
    else
        psnum_reset(&s->num, c->j->nm, c->K, ps_shard_real_by_bytes(c), s->id);
    s->num.nacc = 0;
    nn_states_release(&s->hist); /* its versions from here on will be new ones */
}

/* A shard's host crashed: everything since its checkpoint is gone. */
static void shard_crashed(struct ps_ctx *c, struct shard *s)
{
    int keep = c->sc->ckpt.present ? (int)s->ckpt_version : 0;
    /* the versions since the checkpoint, and what the one being collected had accepted */
    for (int v = keep; v <= s->version; v++) {
        if (v < s->version) ps_metrics_of(c->res)->lost_updates += 1;
        c->res->applied -= s->applied_at[v];
        c->res->consumed_samples -= s->applied_smp[v];
        ps_account_lose_slices(c, s->applied_at[v], s->applied_smp[v], s->applied_rows[v]);
        ps_metrics_of(c->res)->rows_applied -= s->applied_rows[v];
        s->applied_at[v] = 0;
        s->applied_smp[v] = 0;
        s->applied_rows[v] = 0;
    }
    s->version = keep;
    s->pend_elems = 0; /* the rows accepted for its next update died with it */
    restore_numerics(c, s, keep);
    while (s->head) { /* pushes waiting in its queue die with it (and their ports) */
        struct push_rec *r = s->head;
        s->head = r->next;
        if (!r->empty) ps_account_lose_slices(c, 1, r->samples, r->rows);
        sem_set_adopt(&c->sems, r->decided); /* a dying port may wait on it */
        ps_msg_rec_free(c, r);
    }
    s->tail = NULL;
    if (s->taken) { /* the push being decided: its port dies too, and never frees it */
        sem_set_adopt(&c->sems, s->taken->decided);
        ps_msg_rec_free(c, s->taken);
        s->taken = NULL;
    }
}

void ps_fault_start_worker(struct ps_ctx *c, struct ps_worker *w, int incarnation)
{
    sg_host_t h = c->pf->gpus[w->rank];
    w->down = false;
    ps_msg_start("worker-%d.%d", w->rank, incarnation, h,
                 w->leader == w->rank ? ps_worker_actor : ps_worker_follower_actor, w, false);
    w->pf_pending = false;
    if (c->sc->train.ps.prefetch) {
        w->pull_go = sem_set_new(&c->sems, 0);
        w->pull_done = sem_set_new(&c->sems, 0);
        ps_msg_start("puller-%d.%d", w->rank, incarnation, h, ps_pull_actor, w, true);
    }
    if (!c->sc->train.ps.push_during) return;
    w->hand = sem_set_new(&c->sems, 0);
    w->posted = sem_set_new(&c->sems, 0);
    ps_msg_start("pusher-%d.%d", w->rank, incarnation, h, ps_push_actor, w, true);
}

void ps_fault_crashed(void *ctx, sg_host_t h)
{
    struct ps_ctx *c = ctx;
    for (int k = 0; k < c->K; k++)
        if (c->shards[k].host == h) shard_crashed(c, &c->shards[k]);
    bool worker = false;
    for (int r = 0; r < c->P; r++)
        if (c->pf->gpus[r] == h && c->workers[r].active) {
            c->workers[r].active = false; /* as its actor's exit will say */
            c->workers[r].down = true;
            worker = true;
        }
    /* a shard waiting for a version's first push looks whether anyone can still push (it
     * still waits for the dead worker's push until a deadline shows it missing) */
    if (worker) ps_shard_wake_all(c);
}

void ps_fault_restarted(void *ctx, sg_host_t h)
{
    struct ps_ctx *c = ctx;
    /* after every worker is through, nothing needs the shard (and SimGrid would kill an actor
     * started at the simulation's last instant before it ever ran) */
    bool async_spent = c->sc->train.ps.mode == PS_ASYNC && c->budget <= 0 && c->running == 0;
    bool over = c->workers_done + c->gave_up == c->P || async_spent;
    if (!over && h == c->coord_host) { /* back with an empty memory: shards report again */
        memset(c->coord_ver, 0, (size_t)c->K * sizeof *c->coord_ver);
        ps_coord_drop_requests(c);
        ps_coord_start(c);
    }
    for (int k = 0; k < c->K && !over; k++)
        if (c->shards[k].host == h) {
            c->shards[k].incarnation++;
            ps_fault_start_shard(c, &c->shards[k]);
        }
    if (c->kit->loader && !over) loader_restarted(c->kit->loader, h);
    for (int r = 0; r < c->P; r++)
        if (c->pf->gpus[r] == h && !c->workers[r].finished && !c->workers[r].gave_up &&
            (c->sc->train.ps.mode == PS_ASYNC ? c->budget > 0
                                              : c->workers[r].next_it < c->sc->train.steps))
            ps_fault_start_worker(c, &c->workers[r], ++c->workers[r].incarnation);
}

int ps_fault_members(void *ctx)
{
    return ((struct ps_ctx *)ctx)->running;
}

bool ps_fault_relevant(void *ctx, sg_host_t h)
{
    struct ps_ctx *c = ctx;
    for (int r = 0; r < c->P; r++)
        if (c->pf->gpus[r] == h) return true;
    for (int k = 0; k < c->K; k++)
        if (c->shards[k].host == h) return true;
    return false;
}
