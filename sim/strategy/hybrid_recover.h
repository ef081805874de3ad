/* hybrid_recover.h - the hybrid strategy's restart from its last checkpoint (<recovery>).
 *
 * Without <recovery> a hybrid job fails at its first failed wait, as Megatron-LM under a plain
 * launcher does. With it, the job restarts as torchrun's elastic agent restarts it: "upon
 * detecting worker failures or unhealthiness, tears down all workers and restarts everyone"
 * (PyTorch, torch.distributed.elastic.agent), at most max-restarts times (torchrun's
 * --max-restarts). The model of one restart:
 *   detection  a rank's wait fails: a peer's wait times out (<training timeout>, NCCL's watchdog
 *              timeout) or a transfer with a dead host fails; the project models no heartbeat
 *              besides (torchrun's agent notices a dead worker in its monitor loop, but a
 *              crashed node's agent is gone with it: its peers hang in NCCL until the watchdog);
 *   stop       every rank stops at its next wait (at most one timeout later): the layout's
 *              state is freed once every rank has stopped or is on a host that is down;
 *   restart    restart-time after the detection (processes, CUDA contexts and NCCL communicators
 *              again; the ranks' wind-down overlaps it), the new layout starts:
 *              - spares: every rank on a host that is down moves to a spare GPU (a GPU of the
 *                platform that is up and outside the layout: those beyond <training gpus>, or a
 *                crashed GPU back by then); the same tp x pp x dp resumes;
 *              - else the data-parallel replicas that lost a GPU are dropped: dp shrinks, and the
 *                global batch is kept with dp / dp' times the microbatches (Megatron-LM fixes
 *                --global-batch-size and derives the microbatches from dp, asserting that it
 *                divides); no full replica left, an expert parallelism dp' no longer holds, or a
 *                global batch dp' does not divide fails the job;
 *   reload     every rank reads its (tensor, stage) shard of the last checkpoint that counted
 *              (every shard written; async writes still in flight are given up) from the store:
 *              a real read of the store's disk and a transfer over its link (ckpt_restore), all
 *              ranks at once; then a barrier (Megatron loads, then trains); without a checkpoint
 *              the job starts over from step 0;
 *   redo       the steps since the checkpoint run again: lost work (lost_steps, the gradients
 *              and samples replayed in the accounting). The first step row after a restart
 *              spans from the last row before the failure (the recovery's time is in it, as the
 *              all-reduce's rows); membership_changes counts the restarts.
 * The strategy keeps the layout's state; it gives a relayout hook, which frees the last layout's
 * state and builds and starts the new one. Only the recovery's own coordinator actor and the
 * ranks call in here; everything runs inside the one simulation.
 */
#ifndef DMLSIM_HYBRID_RECOVER_H
#define DMLSIM_HYBRID_RECOVER_H

#include "job.h"
#include "runkit.h"
#include "scenario.h"

#include <stdbool.h>

/* A layout of the job: where its ranks run and its shape. */
struct hyrec_layout {
    const struct job *j;           /* the job; rank k runs on j->pf->gpus[k] */
    const struct parallel_spec *p; /* its shape: dp and microbatches as restarts left them */
    int P;                         /* tp x pp x dp ranks */
    int from;                      /* the step it starts at: the reloaded checkpoint's (0: none) */
};

struct hyrec_hooks {
    /* frees the last layout's state (its ranks have all stopped), builds L's and starts its
       ranks; each rank calls hyrec_reload first when L->from > 0 */
    void (*relayout)(void *ctx, const struct hyrec_layout *L);
    void *ctx;
};

struct hyrec;

/* Checks <recovery> under strategy="hybrid" (none given: nothing to check): no policy="wait",
 * straggler removal, restore-from="survivor" or rendezvous="per-side", and checkpoints, if any,
 * to the remote store (a restarted rank may run on another node). */
enum dmlsim_err hyrec_check(const struct job *j, struct dmlsim_error *err);

/* The recovery of kit's run (its first layout: kit->j's, P ranks), or NULL without <recovery>:
 * it sets the injector's hooks and starts its coordinator actor (on the store's host), which
 * waits for each layout to end. Freed by hyrec_free. */
struct hyrec *hyrec_new(struct runkit *kit, int P, struct hyrec_hooks hooks);

/* Rank `rank`'s wait (`what`) failed with `status` after `done` steps: the failure is detected
 * (the first of a layout only counts). */
void hyrec_detected(struct hyrec *h, int rank, const char *what, const char *status, int done);

/* In rank `rank`'s actor, before its first step of a restarted layout: reads its `size_B` shard
 * of the checkpoint, then waits for every rank to have read its own. False: the read failed
 * (the rank reports it as a failed wait). */
bool hyrec_reload(struct hyrec *h, int rank, double size_B);

/* Rank 0 committed step `done` (the run has recovered once a restarted layout commits one);
 * h NULL: nothing. */
void hyrec_progress(struct hyrec *h, int done);

/* Rank `rank`'s actor ends (done, or stopped by a failure). Returns false when h is NULL (the
 * strategy ends the injector itself then). */
bool hyrec_rank_exit(struct hyrec *h, int rank);

/* After the run: the restarts' figures into rec (over the strategy's: accounting, lost steps),
 * `done` steps committed in the end. NULL: nothing. */
void hyrec_finish(struct hyrec *h, struct run_record *rec, int done);

/* Frees h (NULL: nothing), after the strategy's teardown: the last layout's job and parallel
 * spec (hyrec_layout's j and p) live in it. */
void hyrec_free(struct hyrec *h);

#endif
