/* rendezvous.h - the elastic rendezvous: memberships of a synchronous job after failures, joins
 * and removals, reusable by any synchronous strategy (as torchrun's c10d rendezvous).
 *
 * One daemon actor on the store host receives control messages (64 B each) from the workers:
 * FAIL (a collective of my step failed), SYNC (I stopped at a step boundary because a change is
 * pending), JOIN (I restarted, or came back from a partition) and REMOVE (the leader flags a
 * persistent straggler). A member of the current membership that reports is not training, so a
 * new membership is formed: the rendezvous waits one watchdog period plus the rendezvous timeout
 * for the other members to report (a member stuck with a dead peer needs that long), and without
 * the elastic policy also up to the replacement timeout for the missing ones to come back. The
 * new membership is every member that reported and every joiner, minus the removed ones, in rank
 * order; it resumes from the step the strategy says (its last checkpoint) after the strategy
 * rolled back what was committed after it. Members told to leave get STOP. Joiners with no
 * member to meet at a step boundary within a watchdog period get a membership anyway. A job left
 * with no workers, or needing more new memberships than <recovery max-restarts>, fails (the
 * record says why).
 * Workers that cannot reach the store retry every RDZV_RETRY_S (a partitioned worker until the
 * heal). Those retries are bounded: once every live worker (its host up, and not out of the job)
 * is cut off from every replica, and the fault plan has nothing left to play that could heal a
 * route or bring a host back, no report can ever get through and no membership can ever be
 * formed, so the job fails at once (the record says the store is unreachable from every live
 * worker) instead of retrying forever.
 *
 * Split brain (<recovery rendezvous="per-side">): the store has replicas, one on each node's CPU
 * host (or GPU host where a node has none), with no quorum between them: each forms memberships
 * of whoever reaches it, alone. A worker reports to the first replica it reaches, in the order
 * store, node 0, node 1, ...; so while a partition cuts workers off the store, the replica of the
 * lowest node on their side forms their membership (a joiner-only formation: it waits one
 * watchdog period plus the rendezvous timeout for its side's workers) and both sides train.
 * A replica serving a membership probes the store every RDZV_RETRY_S; once a probe gets through
 * (the heal) it asks its members to report at their next step boundary, they reach the store
 * first, and the store forms one membership of both sides (the strategy decides what state it
 * resumes from). Membership ids are unique over the replicas (mailbox names depend on them); a
 * replica left with no workers forms nothing, and max-restarts counts the memberships of all.
 */
#ifndef DMLSIM_RENDEZVOUS_H
#define DMLSIM_RENDEZVOUS_H

#include "inject.h"
#include "owned.h"
#include "run.h"
#include "scenario.h"
#include "traffic.h"

#include <simgrid/forward.h>

#include <stdbool.h>

#define RDZV_RETRY_S         0.05 /* a worker that cannot reach the rendezvous tries again */
#define RDZV_CTL_B           64.0 /* a control message (report, membership) */

enum rdzv_msg { RDZV_FAIL, RDZV_JOIN, RDZV_SYNC, RDZV_REMOVE, RDZV_PROBE };

struct rdzv;

struct membership {
    int id;                  /* 0, 1, ... */
    int n;                   /* members */
    int *members;            /* their ranks, ascending */
    int resume_step;         /* the step they start from */
    double start_s;          /* when it was formed */
    void *data;              /* the strategy's state for it (its collective world) */
    struct rdzv *owner;      /* the replica that formed it */
    struct membership *prev; /* older memberships, freed by rdzv_release */
};

struct rdzv_hooks {
    int (*resume)(void *ctx, const int *next, int n);       /* the step a new membership of
                                                               ranks next[0..n) resumes */
    void (*rollback)(void *ctx, int resume);                /* undo commits after that step */
    void (*formed)(void *ctx, struct membership *m);        /* fill m->data */
    void (*dispose)(void *ctx, struct membership *m);       /* free m->data */
    bool (*viable)(void *ctx, const int *next, int n);      /* a replica's membership of
                                                               next[0..n) can start (NULL: yes) */
    void (*ended)(void *ctx);                               /* the job failed: what waits
                                                               outside the rendezvous lets go
                                                               (NULL: nothing) */
    void *ctx;
};

struct rdzv {
    int P;                          /* ranks */
    const sg_host_t *hosts;         /* rank -> host */
    sg_host_t host;                 /* where the rendezvous runs (the store) */
    const struct recovery_spec *rs; /* the policy */
    double timeout_s;               /* the watchdog period of the job's collectives */
    struct run_record *rec;
    struct traffic *traffic;
    struct injector *inj;
    struct rdzv_hooks hooks;
    struct membership *cur;         /* the current membership */
    int change_pending;             /* members re-rendezvous at the next step boundary when
                                       > cur->id */
    int *removals, nremovals;       /* ranks to drop at the next membership */
    int *joiners, njoiners;         /* restarted or returning ranks waiting to join */
    bool done;                      /* the job reached its last step */
    bool aborted;                   /* the job failed */
    /* the rendezvous actor's buffers (P ranks each), here since a daemon is killed at the end */
    int *reported, *next;
    struct owned msgs;              /* control messages not yet freed (rendezvous.c) */
    /* split brain: the replicas in reporting order (chain[0] the store), shared by all */
    struct rdzv **chain;            /* nchain replicas; {this} with a single store */
    int nchain;                     /* replicas in the chain */
    int index;                      /* this replica's place in chain */
    int *ids;                       /* the last membership id formed by any replica */
    int own_id;                     /* ... that counter, for the store */
    bool healed;                    /* a replica's probe reached the store: its members merge */
    /* the store only (chain[0]), per rank: whether its worker is cut off from every replica (its
     * last round of reports failed on cut routes), and whether it is out of the job */
    bool *cut, *gone;
    char box[16];                   /* its mailbox: "rdzv", "rdzv1", ... */
};

/* Prepares the rendezvous with membership 0 of every rank (hooks.formed is called for it). */
void rdzv_init(struct rdzv *z, int P, const sg_host_t *hosts, sg_host_t host,
               const struct recovery_spec *rs, double timeout_s, struct run_record *rec,
               struct traffic *traffic, struct injector *inj, struct rdzv_hooks hooks);

/* Split brain: makes z a replica of `store` (an initialised rendezvous) on `host`, last in the
 * reporting order, with the store's policy and hooks but hooks.ctx = ctx, and no membership until
 * workers reach it. The store owns the chain: rdzv_release every replica before the store. */
void rdzv_add_replica(struct rdzv *store, struct rdzv *z, sg_host_t host, void *ctx);

/* Starts its actor. */
void rdzv_start(struct rdzv *z);

/* Position of `rank` in m, or -1. */
int rdzv_index(const struct membership *m, int rank);

/* Sends a report to the rendezvous z, retrying until it gets through; false if the job is over. */
bool rdzv_report(struct rdzv *z, enum rdzv_msg type, int rank, int membership);

/* Reports `why` to the first replica of z's chain that it reaches and waits for that replica's
 * next membership; z is the worker's home (the replica of its last membership, or the store):
 * NULL when this worker is out (removed, or its side, or the job, is over). */
struct membership *rdzv_await(struct rdzv *z, enum rdzv_msg why, int rank, int membership);

/* The worker of `rank` is out of the job (it finished, was told to stop, or gave up): it counts
 * no more among the live workers that could still reach the store. A restarted worker that
 * reports is in again. */
void rdzv_leave(struct rdzv *z, int rank);

/* Frees every membership, and the control messages that actors killed by a crash or by the end of
 * the run left behind. */
void rdzv_release(struct rdzv *z);

#endif
