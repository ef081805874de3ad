/* coll_replay.c - memoized steady states of flow-level collectives (see coll_replay.h). */
#include "coll_replay.h"

#include "traffic.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <stdlib.h>

#define REPLAY_KEYS  16 /* distinct (operation, size) a world remembers */
#define REPLAY_SENDS 8  /* sends one rank's part of a call may record */

struct rsend {
    sg_host_t from, to; /* the send's hosts */
    double size_B;      /* its bytes */
};

struct rank_rec {
    double dur_s;                      /* from the common arrival to this rank's end */
    int nsends;                        /* its sends (more than REPLAY_SENDS: the entry is bad) */
    struct rsend sends[REPLAY_SENDS];
};

struct entry {
    enum coll_op op;
    double size_B;
    int recorded;           /* ranks whose part is recorded; usable at nranks */
    bool bad;               /* a part failed or overflowed: never replayed */
    struct rank_rec *ranks; /* nranks */
};

struct coll_replay {
    struct entry e[REPLAY_KEYS];
    int n;                  /* entries in use */
    struct coll_gate gate;  /* every call's ranks meet here first */
    struct entry **rec;     /* per rank: the entry its part records into, or NULL */
    double *start_s;        /* per rank: when its recorded part began */
    long hits;              /* rank parts replayed */
};

static struct coll_replay *replay_of(const struct replay_world *w)
{
    if (*w->rp == NULL) {
        struct coll_replay *r = xbt_new0(struct coll_replay, 1);
        r->rec = xbt_new0(struct entry *, w->nranks);
        r->start_s = xbt_new0(double, w->nranks);
        *w->rp = r;
    }
    return *w->rp;
}

static struct entry *find(struct coll_replay *r, enum coll_op op, double size_B)
{
    for (int i = 0; i < r->n; i++)
        if (r->e[i].op == op && r->e[i].size_B == size_B) return &r->e[i];
    return NULL;
}

bool coll_gate_pass(struct coll_gate *g, int n, double timeout_s)
{
    double now = simgrid_get_clock();
    if (g->sem == NULL) g->sem = sg_sem_init(0);
    if (g->arrived == 0) g->first_s = now;
    if (++g->arrived == n) {
        g->spread_s = now - g->first_s;
        g->arrived = 0;
        for (int i = 1; i < n; i++)
            sg_sem_release(g->sem);
        return true;
    }
    if (sg_sem_acquire_timeout(g->sem, timeout_s) == 0) return true;
    g->arrived--;
    return false;
}

void coll_gate_free(struct coll_gate *g)
{
    if (g->sem) sg_sem_destroy(g->sem);
    g->sem = NULL;
}

static void replay(const struct replay_world *w, const struct rank_rec *rr, int rank)
{
    for (int i = 0; i < rr->nsends; i++) {
        const struct rsend *x = &rr->sends[i];
        if (w->traffic) traffic_add(w->traffic, x->from, x->to, x->size_B);
        if (w->sent_msgs) w->sent_msgs[rank] += 1;
    }
    if (rr->dur_s > 0) sg_actor_sleep_for(rr->dur_s);
}

enum replay_result coll_replay_enter(const struct replay_world *w, enum coll_op op, int rank,
                                     double size_B)
{
    struct coll_replay *r = replay_of(w);
    if (!coll_gate_pass(&r->gate, w->nranks, w->timeout_s)) return REPLAY_FAILED;
    if (r->gate.spread_s != 0) return REPLAY_SIMULATE; /* arrivals differ: not the recorded state */
    struct entry *e = find(r, op, size_B);
    if (e && !e->bad && e->recorded == w->nranks) {
        replay(w, &e->ranks[rank], rank);
        r->hits++;
        return REPLAY_DONE;
    }
    if (e == NULL && r->n < REPLAY_KEYS) { /* the first rank past the gate opens the record */
        e = &r->e[r->n++];
        *e = (struct entry){op, size_B, 0, false, xbt_new0(struct rank_rec, w->nranks)};
    }
    if (e && !e->bad && e->recorded < w->nranks) {
        r->rec[rank] = e;
        r->start_s[rank] = simgrid_get_clock();
        e->ranks[rank].nsends = 0;
    }
    return REPLAY_SIMULATE;
}

void coll_replay_leave(struct coll_replay *r, int rank, enum net_status st)
{
    struct entry *e = r ? r->rec[rank] : NULL;
    if (e == NULL) return;
    r->rec[rank] = NULL;
    if (st != NET_OK || e->ranks[rank].nsends > REPLAY_SENDS) {
        e->bad = true;
        return;
    }
    e->ranks[rank].dur_s = simgrid_get_clock() - r->start_s[rank];
    e->recorded++;
}

void coll_replay_note(struct coll_replay *r, int me, sg_host_t from, sg_host_t to,
                      double size_B)
{
    if (r == NULL || me < 0 || r->rec[me] == NULL) return;
    struct rank_rec *rr = &r->rec[me]->ranks[me];
    if (rr->nsends < REPLAY_SENDS) rr->sends[rr->nsends] = (struct rsend){from, to, size_B};
    rr->nsends++;
}

long coll_replay_hits(const struct coll_replay *r)
{
    return r ? r->hits : 0;
}

void coll_replay_free(struct coll_replay *r)
{
    if (r == NULL) return;
    for (int i = 0; i < r->n; i++)
        free(r->e[i].ranks);
    coll_gate_free(&r->gate);
    free(r->rec);
    free(r->start_s);
    free(r);
}
