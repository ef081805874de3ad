/* rendezvous.c - the elastic rendezvous (see rendezvous.h). */
#include "rendezvous.h"

#include "net.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/sysdep.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RDZV_MEMBERSHIP = 100, RDZV_STOP };

struct ctl_msg {
    struct rdzv *owner;   /* the replica whose list holds it */
    int type;             /* enum rdzv_msg, RDZV_MEMBERSHIP or RDZV_STOP */
    int rank;             /* sender (reports) or subject (REMOVE) */
    int membership;       /* the membership the sender is in */
    struct membership *m; /* RDZV_MEMBERSHIP: the new one */
};

/* Control messages are in the rendezvous's list from their creation until the actor that owns
 * them frees them: an actor killed (by a crash, or a daemon by the end of the run) while one is
 * in flight or in its hands leaves it to rdzv_release. */
static struct ctl_msg *ctl_new(struct rdzv *z, int type)
{
    struct ctl_msg *m = owned_alloc(&z->msgs, sizeof *m);
    m->owner = z;
    m->type = type;
    return m;
}

static void ctl_free(struct ctl_msg *m)
{
    owned_free(&m->owner->msgs, m);
}

static sg_mailbox_t ctl_box(int rank)
{
    char name[32];
    snprintf(name, sizeof name, "ctl%d", rank);
    return sg_mailbox_by_name(name);
}

int rdzv_index(const struct membership *m, int rank)
{
    /* members are ascending: a binary search (a linear one made every rank's lookup cost P) */
    int lo = 0, hi = m->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->members[mid] == rank) return mid;
        if (m->members[mid] < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static struct membership *membership_new(struct rdzv *z, int id, const int *ranks, int n,
                                         int resume)
{
    struct membership *m = xbt_new0(struct membership, 1);
    m->id = id;
    m->n = n;
    m->members = xbt_new(int, n > 0 ? n : 1);
    memcpy(m->members, ranks, (size_t)n * sizeof *ranks);
    m->resume_step = resume;
    m->start_s = simgrid_get_clock();
    m->owner = z;
    m->prev = z->cur;
    if (z->hooks.formed) z->hooks.formed(z->hooks.ctx, m);
    return m;
}

/* The rank lists of a replica (P entries each). */
static void alloc_lists(struct rdzv *z)
{
    z->removals = xbt_new0(int, z->P);
    z->joiners = xbt_new0(int, z->P);
    z->reported = xbt_new0(int, z->P);
    z->next = xbt_new0(int, z->P);
}

void rdzv_init(struct rdzv *z, int P, const sg_host_t *hosts, sg_host_t host,
               const struct recovery_spec *rs, double timeout_s, struct run_record *rec,
               struct traffic *traffic, struct injector *inj, struct rdzv_hooks hooks)
{
    memset(z, 0, sizeof *z);
    z->P = P;
    z->hosts = hosts;
    z->host = host;
    z->rs = rs;
    z->timeout_s = timeout_s;
    z->rec = rec;
    z->traffic = traffic;
    z->inj = inj;
    z->hooks = hooks;
    alloc_lists(z);
    z->chain = xbt_new(struct rdzv *, 1);
    z->chain[0] = z;
    z->nchain = 1;
    z->ids = &z->own_id;
    snprintf(z->box, sizeof z->box, "rdzv");
    z->cut = xbt_new0(bool, P);
    z->gone = xbt_new0(bool, P);
    int *all = xbt_new(int, P);
    for (int r = 0; r < P; r++)
        all[r] = r;
    z->cur = membership_new(z, 0, all, P, 0);
    free(all);
}

void rdzv_add_replica(struct rdzv *store, struct rdzv *z, sg_host_t host, void *ctx)
{
    int n = store->nchain;
    store->chain = xbt_realloc(store->chain, (size_t)(n + 1) * sizeof *store->chain);
    store->chain[n] = z;
    store->nchain = n + 1;
    struct rdzv_hooks hooks = store->hooks;
    hooks.ctx = ctx;
    *z = (struct rdzv){.P = store->P, .hosts = store->hosts, .host = host, .rs = store->rs,
                       .timeout_s = store->timeout_s, .rec = store->rec, .traffic = store->traffic,
                       .inj = store->inj, .hooks = hooks, .index = n, .ids = store->ids};
    alloc_lists(z);
    snprintf(z->box, sizeof z->box, "rdzv%d", n);
    z->cur = xbt_new0(struct membership, 1); /* no members until workers reach it */
    z->cur->id = -1;
    z->cur->members = xbt_new(int, 1);
    z->cur->owner = z;
    for (int i = 0; i <= n; i++) { /* every replica sees the whole chain */
        store->chain[i]->chain = store->chain;
        store->chain[i]->nchain = n + 1;
    }
}

/* The job is over for a worker of z's (its side finished, or the job failed). */
static bool over(const struct rdzv *z)
{
    return z->done || z->aborted || z->chain[0]->aborted;
}

/* One report to replica `to`. */
static enum net_status send_report(struct rdzv *to, enum rdzv_msg type, int rank, int membership)
{
    struct ctl_msg *m = ctl_new(to, (int)type);
    m->rank = rank;
    m->membership = membership;
    traffic_add(to->traffic, sg_host_self(), to->host, RDZV_CTL_B);
    enum net_status st = net_send(sg_mailbox_by_name(to->box), m, RDZV_CTL_B, RDZV_RETRY_S);
    if (st != NET_OK) ctl_free(m);
    return st;
}

/* The job fails now, for `why` (the record's reason; `what`: the events log's): every replica's
 * workers leave at their next look. */
static void job_fails(struct rdzv *z, int resume, const char *why, const char *what)
{
    z->aborted = true;
    z->chain[0]->aborted = true;
    inject_finish(z->inj);
    if (z->hooks.ended) z->hooks.ended(z->hooks.ctx);
    z->rec->job_failed = true;
    snprintf(z->rec->failure, sizeof z->rec->failure, "training cannot continue at %.6f s: %s",
             simgrid_get_clock(), why);
    run_event_add(z->rec, simgrid_get_clock(), RUN_RECOVERY, resume, 0,
                  "training cannot continue (%s)", what);
}

/* Has the fault plan nothing left that could heal a route or bring a host back: every timed
 * event played (or the injector stopped) and no restart of a step-triggered crash to come? The
 * last one is to be strictly in the past: a heal the injector played at this very instant may
 * reach its link's profile after this report failed. */
static bool plan_settled(const struct injector *inj)
{
    if (inj->restarting > 0) return false;
    if (inj->finished) return true;
    const struct fault_plan *p = inj->plan;
    bool all = inj->played >= p->n || p->ev[inj->played].t_s < 0;
    return all && (inj->played == 0 || p->ev[inj->played - 1].t_s < simgrid_get_clock());
}

/* Can any report still get through? Not once every live worker is cut off from every replica
 * (at least one is: with none live, the rendezvous itself decides) and the plan can heal no
 * route and restart no host. */
static bool unreachable(const struct rdzv *store)
{
    if (!plan_settled(store->inj)) return false;
    int cut = 0;
    for (int r = 0; r < store->P; r++) {
        if (store->gone[r] || !sg_host_is_on(store->hosts[r])) continue;
        if (!store->cut[r]) return false;
        cut++;
    }
    return cut > 0;
}

/* A round of reports of `rank` failed: cut off (every replica passed over on a failed route or a
 * host down) or only slow. A cut-off worker that was the last live one able to reach the store
 * fails the job. Then waits RDZV_RETRY_S before the next round. */
static void retry_later(struct rdzv *home, int rank, bool cut_off)
{
    struct rdzv *store = home->chain[0];
    store->cut[rank] = cut_off;
    if (cut_off && unreachable(store) && !over(home)) {
        char why[96];
        snprintf(why, sizeof why,
                 "the rendezvous store is unreachable from every live worker (rank %d the last)",
                 rank);
        job_fails(store, -1, why, "the rendezvous store is unreachable");
        return;
    }
    sg_actor_sleep_for(RDZV_RETRY_S);
}

bool rdzv_report(struct rdzv *z, enum rdzv_msg type, int rank, int membership)
{
    struct rdzv *store = z->chain[0];
    while (!over(z)) {
        enum net_status st = send_report(z, type, rank, membership);
        store->cut[rank] = false;
        if (st == NET_OK) return true;
        retry_later(z, rank, st == NET_FAILURE);
    }
    return false;
}

void rdzv_leave(struct rdzv *z, int rank)
{
    struct rdzv *store = z->chain[0];
    store->gone[rank] = true;
    store->cut[rank] = false;
}

/* Reports to the first replica of the chain it reaches, store first: a replica whose route has
 * failed, or whose host is down (a refused connection), is passed over; one that is slow to
 * answer (a timeout) is tried again after RDZV_RETRY_S, so only a cut route makes a worker fall
 * back. Returns the replica, or NULL once the worker's side (home) or the job is over: the store
 * side done (a side cut off from it trains on to its end, but a worker of it that fails after
 * that leaves). */
static struct rdzv *report_any(struct rdzv *home, enum rdzv_msg type, int rank, int membership)
{
    struct rdzv *store = home->chain[0];
    store->gone[rank] = false; /* reporting: in the job (a restarted worker joins) */
    while (!over(home) && !store->done) {
        bool cut_off = true;
        for (int i = 0; i < home->nchain; i++) {
            struct rdzv *to = home->chain[i];
            if (over(to) || !sg_host_is_on(to->host)) continue;
            enum net_status st = send_report(to, type, rank, membership);
            if (st == NET_OK) {
                store->cut[rank] = false;
                return to;
            }
            if (st == NET_TIMEOUT) {
                cut_off = false;
                break;
            }
        }
        retry_later(home, rank, cut_off);
    }
    store->cut[rank] = false;
    return NULL;
}

struct membership *rdzv_await(struct rdzv *z, enum rdzv_msg why, int rank, int membership)
{
    struct rdzv *to = report_any(z, why, rank, membership);
    if (to == NULL) return NULL;
    double patience = z->rs->rendezvous_s + z->rs->replacement_s + 10 * RDZV_RETRY_S;
    for (;;) {
        struct ctl_msg *m;
        enum net_status st = net_recv(ctl_box(rank), (void **)&m, patience);
        if (over(to)) return NULL;
        if (st != NET_OK) { /* nothing came: say it again (the rendezvous may have missed us) */
            if ((to = report_any(z, RDZV_JOIN, rank, membership)) == NULL) return NULL;
            continue;
        }
        struct membership *next = m->type == RDZV_MEMBERSHIP ? m->m : NULL;
        ctl_free(m);
        return next;
    }
}

static bool contains(const int *a, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (a[i] == x) return true;
    return false;
}

static int cmp_int(const void *x, const void *y)
{
    return *(const int *)x - *(const int *)y;
}

/* Handles one message outside a formation; returns true if a formation must start. */
static bool note(struct rdzv *z, struct ctl_msg *m, int *reported, int *nrep)
{
    bool start = false;
    if (m->type == RDZV_PROBE) { /* a replica checking that the store is reachable */
        ctl_free(m);
        return false;
    }
    /* a member of the current membership that is waiting (whatever it says) is not training:
     * that is a failure of this membership */
    bool waiting_member = m->membership == z->cur->id && rdzv_index(z->cur, m->rank) >= 0;
    if (m->type != RDZV_REMOVE && waiting_member) {
        if (!contains(reported, *nrep, m->rank)) reported[(*nrep)++] = m->rank;
        start = true;
        inject_detected(z->inj);
        z->rec->failures_detected += m->type == RDZV_FAIL;
    } else if (m->type == RDZV_REMOVE) {
        if (!contains(z->removals, z->nremovals, m->rank)) z->removals[z->nremovals++] = m->rank;
        z->change_pending = z->cur->id + 1;
    } else {
        /* a restarted worker, or one from an older membership (a healed partition) */
        if (!contains(z->joiners, z->njoiners, m->rank) && !contains(reported, *nrep, m->rank))
            z->joiners[z->njoiners++] = m->rank;
        if (rdzv_index(z->cur, m->rank) < 0 || m->membership < z->cur->id)
            z->change_pending = z->cur->id + 1;
    }
    ctl_free(m);
    return start;
}

/* Receives until `end`, or (missing) until every member of the current membership reported or
 * rejoined. */
static void collect(struct rdzv *z, double end, bool until_all, int *reported, int *nrep)
{
    const struct membership *cur = z->cur;
    for (;;) {
        bool missing = false;
        for (int i = 0; i < cur->n && !missing; i++) {
            int r = cur->members[i];
            missing = !contains(reported, *nrep, r) &&
                      (until_all || !contains(z->joiners, z->njoiners, r));
        }
        if (!missing || simgrid_get_clock() >= end) return;
        struct ctl_msg *m;
        /* a failed receive (a sender cut off mid-message) is not the end of the window */
        if (net_recv(sg_mailbox_by_name(z->box), (void **)&m, end - simgrid_get_clock()) != NET_OK)
            continue;
        note(z, m, reported, nrep);
    }
}

/* The next members: those that reported and the joiners, minus the removed; returns how many. */
static int next_members(struct rdzv *z, const int *reported, int nrep, int *next)
{
    int n = 0;
    for (int i = 0; i < nrep; i++)
        if (!contains(z->removals, z->nremovals, reported[i])) next[n++] = reported[i];
    for (int i = 0; i < z->njoiners; i++)
        if (!contains(next, n, z->joiners[i]) && !contains(z->removals, z->nremovals, z->joiners[i]))
            next[n++] = z->joiners[i];
    qsort(next, (size_t)n, sizeof *next, cmp_int);
    return n;
}

static void send_ctl(struct rdzv *z, int rank, int type, struct membership *m)
{
    struct ctl_msg *c = ctl_new(z, type);
    c->m = m;
    traffic_add(z->traffic, z->host, z->hosts[rank], RDZV_CTL_B);
    sg_comm_t comm = net_isend(ctl_box(rank), c, RDZV_CTL_B);
    if (net_wait(comm, simgrid_get_clock() + RDZV_RETRY_S) != NET_OK)
        ctl_free(c); /* it will report again */
}

static void form(struct rdzv *z, int *reported, int nrep)
{
    collect(z, simgrid_get_clock() + z->timeout_s + z->rs->rendezvous_s, true, reported, &nrep);
    if (!z->rs->elastic) /* policy wait: give the missing members time to come back */
        collect(z, simgrid_get_clock() + z->rs->replacement_s, false, reported, &nrep);
    if (z->done) return; /* the last step was committed meanwhile: nothing to re-form */
    int *next = z->next;
    int n = next_members(z, reported, nrep, next);
    /* a replica left with nobody, or with nobody holding a state (it cannot reach the store's
     * checkpoints), forms nothing: the store's side decides whether the job goes on, and the
     * workers report again (at the store after the heal) */
    bool stateless = n > 0 && z->index > 0 && z->hooks.viable && !z->hooks.viable(z->hooks.ctx, next, n);
    if (stateless) {
        z->nremovals = z->njoiners = 0;
        return;
    }
    bool nobody = n == 0 && z->index > 0;
    int resume = !nobody && z->hooks.resume ? z->hooks.resume(z->hooks.ctx, next, n) : 0;
    if (z->hooks.rollback && !nobody) z->hooks.rollback(z->hooks.ctx, resume);
    for (int i = 0; i < nrep; i++) /* the members told to leave */
        if (!contains(next, n, reported[i])) {
            send_ctl(z, reported[i], RDZV_STOP, NULL);
            z->rec->removed_stragglers += 1;
        }
    if (nobody) {
        z->nremovals = z->njoiners = 0;
        return;
    }
    /* memberships after the first, over every replica (torchrun's --max-restarts) */
    if (n == 0 || z->rec->membership_changes + 1 > z->rs->max_restarts) {
        job_fails(z, resume, n == 0 ? "no workers left" : "more restarts than max-restarts allows",
                  n == 0 ? "no workers" : "max-restarts reached");
        return;
    }
    struct membership *m = membership_new(z, ++*z->ids, next, n, resume);
    z->cur = m;
    z->change_pending = 0;
    z->healed = false;
    z->nremovals = 0;
    z->njoiners = 0;
    z->rec->membership_changes += 1;
    if (z->index == 0)
        run_event_add(z->rec, simgrid_get_clock(), RUN_RECOVERY, resume, n,
                      "membership %d: %d worker(s), resume at step %d", m->id, n, resume);
    else
        run_event_add(z->rec, simgrid_get_clock(), RUN_RECOVERY, resume, n,
                      "membership %d at %s's replica: %d worker(s), resume at step %d", m->id,
                      sg_host_get_name(z->host), n, resume);
    for (int i = 0; i < n; i++)
        send_ctl(z, next[i], RDZV_MEMBERSHIP, m);
}

/* A replica serving a membership, cut off from the store: is the store reachable yet? */
static bool probing(const struct rdzv *z)
{
    return z->index > 0 && z->cur->n > 0 && !z->healed && !over(z);
}

/* Once a probe gets through, the replica's members report at their next step boundary, and
 * reach the store first. */
static void probe(struct rdzv *z)
{
    struct rdzv *store = z->chain[0];
    if (send_report(store, RDZV_PROBE, -1, -1) != NET_OK) return;
    z->healed = true;
    z->change_pending = z->cur->id + 1;
    run_event_add(z->rec, simgrid_get_clock(), RUN_RECOVERY, -1, z->cur->n,
                  "%s's replica reaches the store: membership %d merges",
                  sg_host_get_name(z->host), z->cur->id);
}

static void rendezvous_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct rdzv *z = sg_actor_self_get_data();
    int *reported = z->reported;
    double joiners_since = -1;
    for (;;) { /* a daemon */
        /* Joiners wait for the current members to reach a step boundary; if none comes within a
         * watchdog period (the members are all dead or stuck), a membership is formed anyway. */
        double patience = z->timeout_s + z->rs->rendezvous_s;
        double wait = joiners_since >= 0 ? joiners_since + patience - simgrid_get_clock() : 1e9;
        if (probing(z) && wait > RDZV_RETRY_S) wait = RDZV_RETRY_S;
        struct ctl_msg *m = NULL;
        int nrep = 0;
        if (net_recv(sg_mailbox_by_name(z->box), (void **)&m, wait > 0 ? wait : 0) != NET_OK) {
            if (joiners_since >= 0 && simgrid_get_clock() >= joiners_since + patience) {
                joiners_since = -1; /* whatever happens now, the patience is over */
                if (z->njoiners > 0 && !z->done) form(z, reported, 0);
            } else if (probing(z)) {
                probe(z);
            }
            continue;
        }
        if (z->done) { /* the job has finished: a late joiner must not roll it back */
            ctl_free(m);
            joiners_since = -1;
            continue;
        }
        if (note(z, m, reported, &nrep)) {
            joiners_since = -1;
            form(z, reported, nrep);
        } else if (z->njoiners > 0 && joiners_since < 0) {
            joiners_since = simgrid_get_clock();
        }
        if (z->njoiners == 0) joiners_since = -1;
    }
}

void rdzv_start(struct rdzv *z)
{
    sg_actor_t a = sg_actor_init("rendezvous", z->host);
    sg_actor_set_data(a, z);
    sg_actor_daemonize(a);
    sg_actor_start(a, rendezvous_actor, 0, NULL);
}

void rdzv_release(struct rdzv *z)
{
    for (struct membership *m = z->cur; m;) {
        struct membership *prev = m->prev;
        if (z->hooks.dispose && m->data) z->hooks.dispose(z->hooks.ctx, m);
        free(m->members);
        free(m);
        m = prev;
    }
    z->cur = NULL;
    free(z->removals);
    free(z->joiners);
    free(z->reported);
    free(z->next);
    owned_release(&z->msgs);
    if (z->index == 0) free(z->chain);
    free(z->cut);
    free(z->gone);
}
