/* elastic.c - elastic recovery (see elastic.h): moved from allreduce.c, where it served the
 * all-reduce alone. */
#include "elastic.h"

#include "ckpt.h"
#include "inject.h"
#include "loader.h"
#include "net.h"
#include "trace.h"
#include "traffic.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A checkpoint the store's side wrote: its membership and step, and whether it counted. */
struct ckpt_entry {
    int membership;          /* the membership whose leader wrote it */
    int step;                /* the steps it holds */
    double counted;          /* set to 1 by the checkpoint module when it counts */
    struct ckpt_entry *next; /* the one written before */
};

static struct elastic_world *world_of(const struct membership *ms)
{
    return ms->data;
}

/* ---- checkpoints and the state of a new membership ---------------------------------------- */

/* Split brain: the last counted checkpoint that the store's membership `fork` or an earlier one
 * wrote (0: none), which a side that forked from `fork` and the store's side both descend from. */
static int agreed_step(const struct elastic *el, int fork)
{
    int step = 0;
    for (const struct ckpt_entry *e = el->ckpts; e; e = e->next)
        if (e->membership <= fork && e->counted > 0 && e->step > step) step = e->step;
    return step;
}

/* The oldest checkpoint still needed: the last counted one, or an earlier one that a side cut
 * off from the store will roll back to when it merges. */
static int oldest_needed(const struct elastic *el)
{
    int keep = el->ckpt->last_step;
    for (int k = 1; k < el->nsides; k++)
        if (el->sides[k].active && agreed_step(el, el->sides[k].fork) < keep)
            keep = agreed_step(el, el->sides[k].fork);
    return keep;
}

void elastic_checkpoint(struct elastic *el, int rank, struct membership *ms, int steps)
{
    struct elastic_member *m = &el->members[rank];
    double *counted = NULL;
    if (el->nsides > 1) { /* split brain: which membership wrote it, for the merge */
        struct ckpt_entry *e = xbt_new0(struct ckpt_entry, 1);
        *e = (struct ckpt_entry){ms->id, steps, 0, el->ckpts};
        el->ckpts = e;
        counted = &e->counted;
    }
    if (el->j->nm) {
        struct nn_state st;
        nn_state_save(&st, m->rep->params, &m->rep->opt, steps,
                      steps + world_of(ms)->side->data_offset);
        nn_states_put(&el->snaps, &st);
        nn_states_prune(&el->snaps, oldest_needed(el));
    }
    ckpt_write(el->ckpt, sg_host_self(), steps, 1, counted);
}

static sg_mailbox_t state_box(int membership, int rank)
{
    return runkit_mailbox("state-%d-%d", membership, rank);
}

/* The source sends its state (the checkpoint's bytes: weights, optimizer state, step, data
 * position) to every member that needs it, at once. */
static bool send_state(struct elastic *el, struct elastic_member *m, struct membership *ms)
{
    struct elastic_world *aw = world_of(ms);
    if (el->j->nm) {
        aw->state = xbt_new0(struct nn_state, 1);
        nn_state_save(aw->state, m->rep->params, &m->rep->opt, m->held, m->held + m->offset);
    }
    sg_comm_t *comms = xbt_new0(sg_comm_t, ms->n);
    int n = 0;
    static int token;
    for (int i = 0; i < ms->n; i++) {
        int r = ms->members[i];
        if (!aw->needs[r]) continue;
        aw->pending++;
        traffic_add(el->kit->traffic, sg_host_self(), el->j->pf->gpus[r], el->rec->ckpt_B);
        comms[n++] = net_isend(state_box(ms->id, r), &token, el->rec->ckpt_B);
    }
    double t0 = simgrid_get_clock(), end = t0 + el->sc->train.timeout_s;
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok &= net_wait(comms[i], end) == NET_OK;
    free(comms);
    trace_slice(el->rec->trace, m->track, "send state", t0, simgrid_get_clock());
    return ok;
}

/* A member that needs the state receives it from the source and loads it (the source's replica
 * cannot move on before every member has joined its next step's collectives). */
static bool receive_state(struct elastic *el, int rank, struct membership *ms)
{
    struct elastic_member *m = &el->members[rank];
    struct elastic_world *aw = world_of(ms);
    void *p;
    double t0 = simgrid_get_clock();
    if (net_recv(state_box(ms->id, rank), &p, el->sc->train.timeout_s) != NET_OK) return false;
    trace_slice(el->rec->trace, m->track, "receive state", t0, simgrid_get_clock());
    if (aw->state == NULL) return true;
    nn_state_load(aw->state, m->rep->params, &m->rep->opt);
    if (--aw->pending == 0) { /* the last one frees it */
        nn_state_release(aw->state);
        free(aw->state);
        aw->state = NULL;
    }
    return true;
}

/* A new membership's state: the source's (restore-from="survivor"), sent to the members that
 * lack it; else every member restores the last counted checkpoint, or starts over from the
 * initial state when there is none. */
enum elastic_recovered elastic_recover(struct elastic *el, int rank, struct membership *ms)
{
    struct elastic_member *m = &el->members[rank];
    struct elastic_world *aw = world_of(ms);
    /* a member restarted between the choice of the source and now holds nothing: it cannot send
     * or keep a state, and the membership is formed again */
    bool keeps = aw->source >= 0 && (aw->source == rank || !aw->needs[rank]);
    if (keeps && m->held != ms->resume_step) return ELASTIC_FAIL;
    if (aw->source == rank && !send_state(el, m, ms)) return ELASTIC_FAIL;
    if (aw->source >= 0 && aw->needs[rank] && !receive_state(el, rank, ms)) return ELASTIC_FAIL;
    if (aw->source < 0) { /* a side cut off from the store has no checkpoint to restore */
        bool store_side = aw->side->index == 0;
        if (el->sc->ckpt.present && store_side && ms->resume_step > 0 &&
            ckpt_restore(el->ckpt, sg_host_self()) < 0)
            return ELASTIC_LOST;
        const struct nn_state *st = store_side ? nn_states_find(&el->snaps, ms->resume_step) : NULL;
        if (el->j->nm && st)
            nn_state_load(st, m->rep->params, &m->rep->opt);
        else if (el->j->nm) /* nothing counted: from the start */
            replica_reset(el->j->nm, m->rep);
    }
    m->held = ms->resume_step;
    m->offset = aw->side->data_offset;
    return ELASTIC_RECOVERED;
}

/* A member of `next` whose state is side s's (it was last in one of s's memberships), or NULL. */
static const struct elastic_member *
member_of_side(const struct elastic *el, const struct elastic_side *s, const int *next, int n)
{
    for (int i = 0; i < n; i++)
        if (el->members[next[i]].side == s && el->members[next[i]].held >= 0)
            return &el->members[next[i]];
    return NULL;
}

/* Numerics: two sides' models compared, logged ("merge" or "end") and the largest L2 distance
 * kept; a (the store's side) may be NULL when none of its members holds a state. */
static void compare_sides(struct elastic *el, const struct elastic_member *a,
                          const struct elastic_member *b, int side, const char *when, int n)
{
    if (b == NULL) return;
    if (el->j->nm == NULL || a == NULL) {
        run_event_add(el->rec, simgrid_get_clock(), RUN_RECOVERY, b->held, n,
                      "%s: side %d at step %d, the store's at step %d", when, side, b->held,
                      a ? a->held : -1);
        return;
    }
    double l2 = 0, norm = 0, loss;
    for (size_t i = 0; i < el->j->nm->net.nparams; i++) {
        double d = (double)a->rep->params[i] - (double)b->rep->params[i];
        l2 += d * d;
        norm += (double)a->rep->params[i] * (double)a->rep->params[i];
    }
    l2 = sqrt(l2);
    double acc_a = numerics_evaluate(el->j->nm, a->rep->params, &loss),
           acc_b = numerics_evaluate(el->j->nm, b->rep->params, &loss);
    if (l2 > el->rec->divergence_l2) el->rec->divergence_l2 = l2;
    run_event_add(el->rec, simgrid_get_clock(), RUN_RECOVERY, b->held, n,
                  "%s: side %d at %d acc %.4f; store's at %d acc %.4f; L2 %.4g, %.3g relative",
                  when, side, b->held, acc_b, a->held, acc_a, l2, norm > 0 ? l2 / sqrt(norm) : 0);
}

/* The store forms a membership: the sides cut off from it whose members join it are merged (their
 * models compared with the store side's); returns the store membership that every merged side
 * and the store's side descend from, or INT_MAX when no side merges. */
static int merge_sides(struct elastic_side *s0, const int *next, int n)
{
    struct elastic *el = s0->el;
    int fork = INT_MAX;
    const struct elastic_member *ref = member_of_side(el, s0, next, n);
    for (int k = 1; k < el->nsides; k++) {
        struct elastic_side *s = &el->sides[k];
        const struct elastic_member *o = s->active ? member_of_side(el, s, next, n) : NULL;
        if (o == NULL) continue;
        s->merging = true;
        if (s->fork < fork) fork = s->fork;
        compare_sides(el, ref, o, k, "merge", n);
    }
    return fork;
}

/* restore-from="survivor", and always on a side cut off from the store: the member of the next
 * membership whose state is furthest on (its step), if one has a state; it sends it to the
 * members at another step. Else the last counted checkpoint's step, or 0. */
static int survivor_or_checkpoint(struct elastic_side *s, const int *next, int n, bool survivor)
{
    struct elastic *el = s->el;
    s->source = -1;
    for (int i = 0; survivor && i < n; i++) {
        const struct elastic_member *w = &el->members[next[i]];
        if (w->held >= 0 && (s->source < 0 || w->held > el->members[s->source].held))
            s->source = next[i];
    }
    int resume = s->source >= 0         ? el->members[s->source].held
                 : el->sc->ckpt.present ? el->ckpt->last_step
                                        : 0;
    memset(s->needs, 0, (size_t)el->P * sizeof *s->needs);
    for (int i = 0; s->source >= 0 && i < n; i++)
        s->needs[next[i]] = next[i] != s->source && el->members[next[i]].held != resume;
    return resume;
}

/* The step a new membership of side s resumes from. The store's side merging sides that were
 * cut off rolls back to the last checkpoint all of them agree on (the seed's "everyone must
 * roll back to the last checkpoint where all agreed"); a side forking from the store's starts
 * from its survivors' state (it cannot reach the store's checkpoints), or from scratch. */
static int resume_step(void *ctx, const int *next, int n)
{
    struct elastic_side *s = ctx;
    struct elastic *el = s->el;
    if (s->index == 0) {
        int fork = merge_sides(s, next, n);
        if (fork == INT_MAX) return survivor_or_checkpoint(s, next, n, el->sc->rec.from_survivor);
        s->source = -1;
        memset(s->needs, 0, (size_t)el->P * sizeof *s->needs);
        return el->sc->ckpt.present ? agreed_step(el, fork) : 0;
    }
    int resume = survivor_or_checkpoint(s, next, n, true); /* viable: a survivor has a state */
    const struct elastic_member *src = &el->members[s->source];
    /* the lineage its state comes from (read before writing: src may be on this side) */
    int fork = src->side->index == 0 ? src->ms_id : src->side->fork;
    s->fork = fork;
    s->data_offset = src->offset;
    if (!s->active) { /* a new side: its rows start from the source's last step */
        s->start = resume;
        s->last_commit_s = src->commit_s;
    }
    return resume;
}

/* rdzv_hooks.viable: a side cut off from the store starts only from a survivor's state. */
static bool viable(void *ctx, const int *next, int n)
{
    struct elastic_side *s = ctx;
    for (int i = 0; i < n; i++)
        if (s->el->members[next[i]].held >= 0) return true;
    return false;
}

/* Rolls back what side s committed from step `resume` on. */
static void rollback_side(struct elastic_side *s, int resume)
{
    struct run_record *r = s->el->rec;
    for (int k = resume; k < s->max_committed; k++) {
        r->lost_steps += 1;
        r->lost_gradients += s->committed[k];
        r->applied -= s->committed[k];
        r->replayed_samples += s->committed_samples[k];
        r->consumed_samples -= s->committed_samples[k];
        s->committed[k] = s->committed_samples[k] = 0;
    }
    s->max_committed = resume;
}

/* After a merge: the merged sides' commits are rolled back and their lineage ends (their
 * workers, in the new membership or not, hold no state of it any more); the store's
 * checkpoints written since the fork are no longer anyone's (a write still in flight will not
 * count) and its states are dropped. */
static void end_merged_sides(struct elastic *el, int resume)
{
    bool merged = false;
    for (int k = 1; k < el->nsides; k++) {
        struct elastic_side *s = &el->sides[k];
        if (!s->merging) continue;
        rollback_side(s, s->start);
        s->merging = s->active = false;
        merged = true;
        for (int r = 0; r < el->P; r++)
            if (el->members[r].side == s) {
                el->members[r].held = -1;
                el->members[r].side = &el->sides[0];
            }
    }
    if (!merged || !el->sc->ckpt.present) return;
    for (struct ckpt_entry *e = el->ckpts; e; e = e->next)
        if (e->step > resume) e->membership = INT_MAX;
    ckpt_abandon(el->ckpt, resume);
    nn_states_drop_after(&el->snaps, resume);
}

/* Rolls back what was committed after the step a new membership of side s resumes from. */
static void rollback(void *ctx, int resume)
{
    struct elastic_side *s = ctx;
    struct elastic *el = s->el;
    rollback_side(s, resume);
    if (s->index == 0) end_merged_sides(el, resume);
    /* the data order: lost-batches="skip" goes on past every batch read; replay reads from the
     * restored state's position (a survivor's: the current offset) */
    const struct nn_state *st = nn_states_find(&el->snaps, resume);
    if (el->sc->rec.skip_lost)
        s->data_offset = el->furthest_pos + 1 - resume;
    else if (s->source < 0 && s->index == 0)
        s->data_offset = st ? st->pos - st->step : 0;
}

void elastic_finish(struct elastic *el)
{
    inject_finish(&el->kit->inj);
    if (el->kit->loader) loader_finish(el->kit->loader);
}

/* rdzv_hooks.ended: the job is over (done, or failed). */
static void job_ended(void *ctx)
{
    struct elastic_side *s = ctx;
    elastic_finish(s->el);
}

/* The rendezvous replicas' hosts under rendezvous="per-side": each node's CPU host, or its GPU
 * hosts where it has none, in rank order, the store's host excepted; returns how many. */
static int replica_hosts(const struct elastic *el, sg_host_t store, sg_host_t *out)
{
    int n = 0;
    for (int r = 0; r < el->P; r++) {
        sg_host_t h = platform_node_cpu(el->j->pf, el->j->pf->gpus[r]);
        if (h == NULL) h = el->j->pf->gpus[r];
        bool seen = h == store;
        for (int i = 0; i < n && !seen; i++)
            seen = out[i] == h;
        if (!seen) out[n++] = h;
    }
    return n;
}

/* The store's side, and under rendezvous="per-side" one side per replica. */
static void make_sides(struct elastic *el, sg_host_t store, struct elastic_hooks hooks)
{
    const struct train_spec *ts = &el->sc->train;
    sg_host_t *hosts = xbt_new(sg_host_t, el->P);
    int nrep = el->sc->rec.per_side ? replica_hosts(el, store, hosts) : 0;
    el->nsides = 1 + nrep;
    el->sides = xbt_new0(struct elastic_side, el->nsides);
    el->rec->sides = 1;
    for (int k = 0; k < el->nsides; k++) {
        struct elastic_side *s = &el->sides[k];
        *s = (struct elastic_side){.el = el, .index = k, .source = -1, .fork = -1};
        s->committed = xbt_new0(double, ts->steps);
        s->committed_samples = xbt_new0(double, ts->steps);
        s->needs = xbt_new0(bool, el->P);
    }
    rdzv_init(&el->sides[0].z, el->P, el->j->pf->gpus, store, &el->sc->rec, ts->timeout_s, el->rec,
              el->kit->traffic, &el->kit->inj,
              (struct rdzv_hooks){resume_step, rollback, hooks.formed, hooks.dispose, viable,
                                  job_ended, &el->sides[0]});
    for (int k = 1; k < el->nsides; k++)
        rdzv_add_replica(&el->sides[0].z, &el->sides[k].z, hosts[k - 1], &el->sides[k]);
    free(hosts);
}

double elastic_end(struct elastic *el)
{
    const struct rdzv *z = &el->sides[0].z;
    const struct elastic_member *ref =
            z->aborted ? NULL : member_of_side(el, &el->sides[0], z->cur->members, z->cur->n);
    double end = el->sides[0].last_commit_s;
    for (int k = 1; k < el->nsides; k++) {
        const struct elastic_side *s = &el->sides[k];
        if (!s->active) continue;
        end = fmax(end, s->last_commit_s);
        const struct elastic_member *o = member_of_side(el, s, s->z.cur->members, s->z.cur->n);
        compare_sides(el, ref, o, k, "run ends split", s->z.cur->n);
    }
    return end;
}

/* ---- the run's recovery ------------------------------------------------------------------- */

void elastic_init(struct elastic *el, struct runkit *kit, int P, struct ckpt *ckpt,
                  struct elastic_hooks hooks)
{
    *el = (struct elastic){.j = kit->j,
                           .sc = kit->j->sc,
                           .rec = kit->rec,
                           .kit = kit,
                           .ckpt = ckpt,
                           .owner = hooks.owner,
                           .P = P,
                           .furthest_pos = -1};
    el->members = xbt_new0(struct elastic_member, P);
    make_sides(el, job_store_host(el->j), hooks);
    for (int r = 0; r < P; r++)
        el->members[r].side = &el->sides[0];
}

void elastic_start(struct elastic *el)
{
    for (int k = 0; k < el->nsides; k++)
        rdzv_start(&el->sides[k].z);
}

void elastic_formed(struct elastic_side *side, struct membership *ms, struct elastic_world *ew)
{
    struct elastic *el = side->el;
    ew->side = side;
    if (side->index > 0 && !side->active) { /* one more side training apart */
        side->active = true;
        double n = 1;
        for (int k = 1; k < el->nsides; k++)
            n += el->sides[k].active;
        if (n > el->rec->sides) el->rec->sides = n;
    }
    ew->source = ms->id > 0 ? side->source : -1;
    ew->needs = xbt_new0(bool, el->P);
    if (ms->id > 0) memcpy(ew->needs, side->needs, (size_t)el->P * sizeof *ew->needs);
}

void elastic_dispose(struct elastic_world *ew)
{
    if (ew->state) nn_state_release(ew->state);
    free(ew->state);
    free(ew->needs);
}

void elastic_restarted(struct elastic *el, sg_host_t h)
{
    for (int k = 1; k < el->nsides; k++) /* a replica's host back: its actor again */
        if (el->sides[k].z.host == h) rdzv_start(&el->sides[k].z);
}

void elastic_release(struct elastic *el)
{
    for (int k = el->nsides; k-- > 0;) { /* the replicas before the store */
        struct elastic_side *s = &el->sides[k];
        rdzv_release(&s->z);
        free(s->committed);
        free(s->committed_samples);
        free(s->needs);
    }
    free(el->sides);
    for (struct ckpt_entry *e = el->ckpts; e;) {
        struct ckpt_entry *next = e->next;
        free(e);
        e = next;
    }
    free(el->members);
    nn_states_release(&el->snaps);
}
