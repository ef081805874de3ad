/* elastic.h - elastic recovery: memberships re-formed after faults, states restored, split brain.
 *
 * Any strategy whose ranks train in memberships that a rendezvous forms (rendezvous.h) can use
 * it; the all-reduce does. After a fault, the rendezvous forms a new membership and asks where it
 * resumes: the members restore the last counted checkpoint (or start over from the initial state
 * when none counted), or, under restore-from="survivor", the member whose state is furthest on
 * sends it to the members at another step. What was committed after that step is rolled back.
 * A side is the lineage of memberships one rendezvous replica forms: there is one (the store's)
 * unless <recovery rendezvous="per-side">, where a replica cut off from the store forms its own
 * side's memberships (split brain) from its survivors' state until the heal merges it back; the
 * merged sides then roll back to the last checkpoint that all of them agree on (the store keeps
 * the list of checkpoints written, and which membership wrote each), their models compared with
 * the store side's.
 *
 * The strategy keeps its training: its membership data (membership.data, from the rendezvous'
 * formed hook, which it gives here) starts with a struct elastic_world, which it fills with
 * elastic_formed and frees with elastic_dispose; its ranks' states are struct elastic_member (their
 * parameters its replicas); it calls elastic_recover when a rank enters a membership after the
 * first, elastic_checkpoint when the leader of a store's membership writes one, and commits its
 * steps into the sides (committed, max_committed, last_commit_s, data_offset). State transfers
 * go through the mailboxes "state-M-R" (runkit.h).
 */
#ifndef DMLSIM_ELASTIC_H
#define DMLSIM_ELASTIC_H

#include "numerics.h"
#include "rendezvous.h"
#include "runkit.h"

#include <simgrid/forward.h>

#include <stdbool.h>

struct elastic;
struct ckpt_entry; /* a checkpoint the store's side wrote (elastic.c) */

/* A side: the lineage of memberships one rendezvous replica forms. There is one (the store's)
 * unless <recovery rendezvous="per-side">, where a replica cut off from the store forms its own
 * side's memberships (split brain; rendezvous.h) until the heal merges it back. */
struct elastic_side {
    struct elastic *el;        /* the run's recovery */
    int index;                 /* 0: the store's; k: the k-th replica's */
    struct rdzv z;             /* its rendezvous */
    double *committed;         /* per global step: gradients applied (member count) */
    double *committed_samples; /* per global step: samples consumed */
    int max_committed;         /* steps committed so far (highest) */
    double last_commit_s;      /* its last commit (its step rows measure from it) */
    long long data_offset;     /* data position - step: the batches skipped after failures */
    int source;                /* the next membership's source (resume_step), or -1 */
    bool *needs;               /* ... and who needs its state (P) */
    int fork;                  /* k > 0: the store's membership its state descends from, or -1 */
    int start;                 /* k > 0: the step it forked at (its steps before are not its) */
    bool active;               /* k > 0: it has trained since its fork and not merged back */
    bool merging;              /* k > 0: its members join the store's membership being formed */
};

/* A rank's state, as recovery sees it (the strategy sets rep and track, and held, ms_id, offset
 * and commit_s as it trains). */
struct elastic_member {
    struct replica *rep;       /* numerics: the parameters it holds (the strategy's replica) */
    int track;                 /* the trace track its state transfers go on */
    int held;                  /* steps its state holds (-1: none, a restarted process) */
    struct elastic_side *side; /* the side of the membership it was last in */
    int ms_id;                 /* ... that membership */
    long long offset;          /* the data offset its state was trained with */
    double commit_s;           /* when it last finished a step */
};

/* The recovery state of one membership: the strategy's membership data begins with it. */
struct elastic_world {
    struct elastic_side *side; /* whose lineage it is */
    int source;                /* restore-from="survivor": the member whose state everyone
                                  takes, or -1 (the checkpoint, or the initial state) */
    bool *needs;               /* per rank: the source sends it the state */
    struct nn_state *state;    /* numerics: the source's state, while receivers need it */
    int pending;               /* receivers that have not loaded it yet */
};

/* The strategy's rendezvous hooks (rdzv_hooks): their ctx is the side (struct elastic_side *),
 * whose el->owner is the strategy's run. */
struct elastic_hooks {
    void (*formed)(void *ctx, struct membership *ms);  /* fill ms->data: elastic_formed first */
    void (*dispose)(void *ctx, struct membership *ms); /* free it: elastic_dispose */
    void *owner;                                       /* the strategy's run */
};

/* The recovery of a run. */
struct elastic {
    const struct job *j;            /* the job */
    const struct scenario *sc;      /* its scenario (j->sc) */
    struct run_record *rec;         /* its record */
    struct runkit *kit;             /* its services: traffic, injector, loader */
    struct ckpt *ckpt;              /* the store's checkpoints */
    void *owner;                    /* the strategy's run (elastic_hooks.owner) */
    int P;                          /* ranks at the start */
    struct elastic_member *members; /* P */
    struct elastic_side *sides;     /* nsides: the store's, then one per replica (split brain) */
    int nsides;                     /* 1, or 1 + the replicas */
    struct ckpt_entry *ckpts;       /* split brain: the checkpoints written, the last first */
    struct nn_states snaps;         /* numerics: the states of the checkpoints written */
    long long furthest_pos;         /* the furthest data position read (the strategy's) */
};

/* What elastic_recover found. */
enum elastic_recovered {
    ELASTIC_RECOVERED, /* the member holds the membership's state */
    ELASTIC_FAIL,      /* a transfer failed: report, the membership is formed again */
    ELASTIC_LOST,      /* the checkpoint's copy is on a host that is down for this member (its
                          node's CPU host, local-nvme or cache): it cannot take part */
};

/* The recovery of P ranks (kit->j's first P GPUs) writing checkpoints into ckpt: the store's
 * side (its rendezvous on the store host: job_store_host), and under rendezvous="per-side" one
 * side per replica; every member on the store's side, holding the initial state. The store's
 * rendezvous forms its first membership here (hooks.formed), so the strategy's state for it must
 * exist. Free with elastic_release. */
void elastic_init(struct elastic *el, struct runkit *kit, int P, struct ckpt *ckpt,
                  struct elastic_hooks hooks);

/* Starts the rendezvous actors, the store's first. */
void elastic_start(struct elastic *el);

/* A new membership ms of side `side`: its recovery state into ew (ms's data); a replica's side
 * training apart for the first time since its fork counts in rec->sides. */
void elastic_formed(struct elastic_side *side, struct membership *ms, struct elastic_world *ew);

/* Frees what elastic_formed allocated in ew. */
void elastic_dispose(struct elastic_world *ew);

/* Rank `rank` enters membership ms (not the first) in an actor on its host: it takes the
 * membership's state (see the design note). */
enum elastic_recovered elastic_recover(struct elastic *el, int rank, struct membership *ms);

/* The leader `rank` of a store's membership ms writes a checkpoint of `steps` steps; under
 * numerics its state as the checkpoint captures it (the states no longer needed are dropped). */
void elastic_checkpoint(struct elastic *el, int rank, struct membership *ms, int steps);

/* The job is over (done, or failed: the rendezvous' ended hook): the injector stops, and a
 * worker still waiting for a batch that cannot come (its node cut off from the remote store for
 * good) stops waiting, so the run ends (it waited forever). */
void elastic_finish(struct elastic *el);

/* Host h is back: a rendezvous replica's actor on it starts again. */
void elastic_restarted(struct elastic *el, sg_host_t h);

/* After the run: a side still cut off from the store (or that finished apart) is compared with
 * the store's model; returns the run time, the last commit of any side. */
double elastic_end(struct elastic *el);

/* Frees the sides (their rendezvous: the strategy's dispose hook runs), the checkpoints' list and
 * the states. */
void elastic_release(struct elastic *el);

#endif
