/* hybrid_recover.c - the hybrid strategy's restart from its last checkpoint (hybrid_recover.h). */
#include "hybrid_recover.h"

#include "ckpt.h"
#include "parallel.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The restores' mailboxes "ckpt-N" from N = this up: clear of the writers' (ckpt.c numbers each
 * writer's from 0, one or two a write) */
#define HYREC_SEQ_BASE (1 << 24)

struct hyrec {
    struct runkit *kit;          /* the run's services */
    const struct scenario *sc;   /* its scenario */
    struct run_record *rec;      /* its record */
    const struct platform *pf0;  /* the platform as built: every GPU */
    struct hyrec_hooks hooks;    /* the strategy's relayout */
    struct job job;              /* the layout's job: the run's, its platform's GPUs remapped */
    struct platform pf;          /* ... that platform (a shallow copy, gpus its own) */
    sg_host_t *gpus;             /* rank -> host of the layout (P0 at most) */
    int *gidx;                   /* rank -> its GPU's index in pf0->gpus */
    struct parallel_spec par;    /* the layout's shape */
    int P0, P;                   /* ranks at the start, and in the layout */
    int from;                    /* the step the layout started at */
    bool *down;                  /* per GPU of pf0: crashed and not back (the injector's word) */
    bool *exited;                /* per rank of the layout: its actor ended */
    bool *killed;                /* per rank of the layout: its host crashed under it */
    sg_sem_t wake;               /* the coordinator's: a rank ended, a host crashed */
    sg_sem_t loaded_sem;         /* the reload's barrier */
    int loaded;                  /* ranks that read their shard */
    bool reloading;              /* the layout's ranks are reading their shards */
    bool reload_broken;          /* ... and one of them died meanwhile: the reload failed */
    double read_B;               /* ... bytes they read */
    bool failed;                 /* the layout's job failed (detected) */
    double detect_s;             /* ... when */
    int done;                    /* steps committed (rank 0's) */
    int restarts;                /* restarts so far */
    double attempt_s;            /* when the layout started */
    double *pstep;               /* per step: the ranks of the layout that committed it */
    double lost_grads, replayed; /* rolled back: rank-gradients, samples */
    double lost_steps;           /* step executions thrown away */
    struct ckpt *rd;             /* per rank: its reads of the checkpoint */
};

/* ---- checks ------------------------------------------------------------------------------ */

static bool has_corrupt_batch(const struct scenario *sc)
{
    for (size_t i = 0; i < sc->nfaults; i++)
        if (sc->faults[i].kind == FS_CORRUPT) return true;
    return false;
}

enum dmlsim_err hyrec_check(const struct job *j, struct dmlsim_error *err)
{
    const struct scenario *sc = j->sc;
    const struct recovery_spec *rs = &sc->rec;
    const char *no = NULL;
    if (!rs->present) return DMLSIM_OK;
    if (!rs->elastic)
        no = "policy=\"wait\">: a hybrid job restarts whole (torchrun); expected no policy";
    else if (rs->straggler_steps > 0)
        no = "straggler-steps>: a hybrid job removes no straggler; expected none";
    else if (rs->from_survivor)
        no = "restore-from=\"survivor\">: a hybrid job reloads its checkpoint; expected checkpoint";
    else if (rs->per_side)
        no = "rendezvous=\"per-side\">: a hybrid job has one store; expected store";
    else if (sc->train.numerics.present)
        no = ">: a restart's reload of the <numerics> model's state is not simulated yet; "
             "expected no <numerics> with <recovery>";
    else if (sc->train.data.present)
        no = ">: a restart re-forms the replicas that read the <data> pipeline's lanes, not "
             "simulated yet; expected no <data> with <recovery>";
    else if (has_corrupt_batch(sc))
        no = ">: corrupt batches across a restart's replayed steps are not simulated yet; "
             "expected no <corrupt-batch> with <recovery>";
    else if (sc->train.par.zero == 3 && !sc->train.par.no_prefetch && sc->train.par.dp > 1)
        no = ">: a restart of ZeRO-3's prefetching ranks is not simulated yet; expected "
             "<parallel prefetch=\"no\"> or zero below 3";
    if (no != NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <recovery%s%s", sc->path, rs->line,
                           no[0] == '>' ? "" : " ", no);
    if (sc->ckpt.present && sc->ckpt.target != CKPT_REMOTE)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <checkpoint target>: a restarted hybrid rank may run on another "
                           "node and reloads its shard from the store; expected target=\"remote\" "
                           "with <recovery>",
                           sc->path, sc->ckpt.line);
    return DMLSIM_OK;
}

/* ---- the layout's state ------------------------------------------------------------------ */

/* Is rank k of the layout gone: its GPU crashed (and not back) or off? Its next layout needs
 * another GPU then. */
static bool gone(const struct hyrec *h, int k)
{
    return h->down[h->gidx[k]] || !sg_host_is_on(h->gpus[k]);
}

/* Did rank k's actor die with its host (its GPU may be back since)? */
static bool died(const struct hyrec *h, int k)
{
    return h->killed[k] || gone(h, k);
}

/* Has every rank of the layout ended or died? */
static bool attempt_over(const struct hyrec *h)
{
    for (int k = 0; k < h->P; k++)
        if (!h->exited[k] && !died(h, k)) return false;
    return true;
}

/* Does a rank of the layout match `is` (gone, died)? */
static bool any(const struct hyrec *h, bool (*is)(const struct hyrec *, int))
{
    for (int k = 0; k < h->P; k++)
        if (is(h, k)) return true;
    return false;
}

static void on_crash(void *ctx, sg_host_t host)
{
    struct hyrec *h = ctx;
    for (size_t g = 0; g < h->pf0->ngpus; g++)
        if (h->pf0->gpus[g] == host) h->down[g] = true;
    bool hit = false;
    for (int k = 0; k < h->P; k++)
        if (h->gpus[k] == host) hit = h->killed[k] = true;
    if (hit && h->reloading && !h->reload_broken) { /* the others stop waiting for it */
        h->reload_broken = true;
        for (int k = 0; k < h->P; k++)
            sg_sem_release(h->loaded_sem);
    }
    sg_sem_release(h->wake);
}

static void on_restart(void *ctx, sg_host_t host)
{
    struct hyrec *h = ctx;
    for (size_t g = 0; g < h->pf0->ngpus; g++)
        if (h->pf0->gpus[g] == host) h->down[g] = false;
}

/* ---- the next layout --------------------------------------------------------------------- */

/* Is GPU g of the platform a spare: up and outside the layout? */
static bool is_spare(const struct hyrec *h, int g)
{
    if (h->down[g] || !sg_host_is_on(h->pf0->gpus[g])) return false;
    for (int k = 0; k < h->P; k++)
        if (h->gidx[k] == g) return false;
    return true;
}

/* The ranks that are gone move to spare GPUs, in order; false when there are too few. */
static bool to_spares(struct hyrec *h)
{
    int need = 0, have = 0;
    for (int k = 0; k < h->P; k++)
        need += gone(h, k);
    for (size_t g = 0; g < h->pf0->ngpus; g++)
        have += is_spare(h, (int)g);
    if (have < need) return false;
    size_t g = 0;
    for (int k = 0; k < h->P; k++) {
        if (!gone(h, k)) continue;
        while (!is_spare(h, (int)g))
            g++;
        h->gidx[k] = (int)g;
        h->gpus[k] = h->pf0->gpus[g];
    }
    return true;
}

/* Drops the replicas that lost a GPU (Megatron's fixed global batch: dp / dp' times the
 * microbatches); false, with why, when the job cannot go on so. */
static bool shrink(struct hyrec *h, char *why, size_t len)
{
    struct parallel_spec *p = &h->par, q = *p;
    bool *lost = xbt_new0(bool, p->dp);
    int t, s, d, *old = xbt_new(int, h->P), ok = 1;
    for (int k = 0; k < h->P; k++) {
        par_coords(p, k, &t, &s, &d);
        if (gone(h, k)) lost[d] = true;
        old[k] = h->gidx[k];
    }
    int *keep = xbt_new0(int, p->dp); /* the survivors' replicas, in order */
    q.dp = 0;
    for (d = 0; d < p->dp; d++)
        if (!lost[d]) keep[q.dp++] = d;
    if (q.dp == 0)
        ok = snprintf(why, len, "every data-parallel replica lost a GPU and no spare is left") < 0;
    else if (p->ep > 1 && q.dp % p->ep != 0)
        ok = snprintf(why, len, "%d replicas left, which ep %d does not divide", q.dp, p->ep) < 0;
    else if (p->microbatches * p->dp % q.dp != 0)
        ok = snprintf(why, len,
                      "%d replicas left, which do not divide the global batch's %d "
                      "microbatches",
                      q.dp, p->microbatches * p->dp) < 0;
    if (ok) {
        q.microbatches = p->microbatches * p->dp / q.dp;
        for (int k = 0; k < q.tp * q.pp * q.dp; k++) {
            par_coords(&q, k, &t, &s, &d);
            h->gidx[k] = old[par_rank(p, t, s, keep[d])];
            h->gpus[k] = h->pf0->gpus[h->gidx[k]];
        }
        *p = q;
        h->P = q.tp * q.pp * q.dp;
    }
    free(keep);
    free(old);
    free(lost);
    return ok;
}

/* The step to resume at: the last checkpoint every shard of which counted (0: none); writes
 * still in flight are given up. */
static int resume_step(struct hyrec *h)
{
    struct runkit *kit = h->kit;
    int from = -1;
    for (int k = 0; h->sc->ckpt.present && k < kit->nckpt; k++)
        if (kit->ckpt[k].size_B > 0 && (from < 0 || kit->ckpt[k].last_step < from))
            from = kit->ckpt[k].last_step;
    from = from < 0 ? 0 : from;
    for (int k = 0; k < kit->nckpt; k++)
        ckpt_abandon(&kit->ckpt[k], from);
    return from;
}

/* The job gives up: it fails with why. */
static void give_up(struct hyrec *h, const char *why)
{
    struct run_record *rec = h->rec;
    rec->job_failed = true;
    snprintf(rec->failure, sizeof rec->failure, "hybrid: no restart after %d restart(s): %s",
             h->restarts, why);
    run_event_add(rec, simgrid_get_clock(), RUN_FAULT, h->done, h->P, "the job gives up: %.80s",
                  why);
}

/* ---- the restart ------------------------------------------------------------------------- */

/* The steps since the checkpoint are lost work; the new layout starts at the checkpoint. */
static void restart(struct hyrec *h, int oldP, const char *how)
{
    int from = resume_step(h);
    for (int s = h->done; s < from; s++) /* in the checkpoint, though not committed: kept */
        h->pstep[s] = oldP;
    for (int s = from; s < h->done; s++) { /* committed, rolled back: done again */
        h->lost_grads += h->pstep[s];
        h->replayed += h->rec->global_batch;
    }
    h->lost_steps += h->done - from + (h->done < h->sc->train.steps ? 1 : 0);
    h->restarts++;
    h->rec->membership_changes += 1;
    run_event_add(h->rec, simgrid_get_clock(), RUN_RECOVERY, from, h->P,
                  "restart %d from step %d: tp %d x pp %d x dp %d (%d ranks before), %s",
                  h->restarts, from, h->par.tp, h->par.pp, h->par.dp, oldP, how)
            ->start_s = h->detect_s;
    h->from = h->done = from;
    h->failed = false;
    h->loaded = 0;
    h->reloading = true;
    h->reload_broken = false;
    sg_sem_destroy(h->loaded_sem); /* a broken reload's permits gone: nobody waits on it now */
    h->loaded_sem = sg_sem_init(0);
    h->read_B = 0;
    memset(h->exited, 0, sizeof(bool) * (size_t)h->P0);
    memset(h->killed, 0, sizeof(bool) * (size_t)h->P0);
    h->attempt_s = simgrid_get_clock();
    struct hyrec_layout L = {.j = &h->job, .p = &h->par, .P = h->P, .from = from};
    h->hooks.relayout(h->hooks.ctx, &L);
}

/* Waits for the layout's end; restarts it while it failed and restarts are left. */
static void coordinator(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct hyrec *h = sg_actor_self_get_data();
    char why[160];
    for (int n = 0; n <= h->sc->rec.max_restarts; n++) {
        while (!attempt_over(h))
            sg_sem_acquire(h->wake);
        if (h->done >= h->sc->train.steps || (!h->failed && !any(h, died))) break; /* done */
        if (!h->failed) { /* every rank gone at once: nobody waited to notice */
            h->failed = true;
            h->detect_s = simgrid_get_clock();
            h->rec->failures_detected += 1;
        }
        if (h->restarts >= h->sc->rec.max_restarts) {
            snprintf(why, sizeof why, "<recovery max-restarts=\"%d\"> reached",
                     h->sc->rec.max_restarts);
            give_up(h, why);
            break;
        }
        /* the restart's cost passes (the ranks' wind-down inside it), then the layout is
           chosen among the GPUs up at that time */
        double resume = h->detect_s + h->sc->rec.restart_s;
        if (resume > simgrid_get_clock()) sg_actor_sleep_for(resume - simgrid_get_clock());
        bool lost = any(h, gone);
        int oldP = h->P;
        const char *how = !lost ? "same GPUs" : "lost ranks on spares";
        if (lost && !to_spares(h)) {
            how = "lost replicas dropped";
            if (!shrink(h, why, sizeof why)) {
                give_up(h, why);
                break;
            }
        }
        restart(h, oldP, how);
    }
    inject_finish(&h->kit->inj);
}

/* ---- the ranks' calls -------------------------------------------------------------------- */

void hyrec_detected(struct hyrec *h, int rank, const char *what, const char *status, int done)
{
    if (h->failed) return;
    h->failed = true;
    h->detect_s = simgrid_get_clock();
    h->done = done;
    h->rec->failures_detected += 1;
    inject_detected(&h->kit->inj);
    run_event_add(h->rec, h->detect_s, RUN_FAULT, done, h->P,
                  "rank %d: a wait (%s) failed (%s): failure detected, every rank stops", rank,
                  what, status);
}

bool hyrec_reload(struct hyrec *h, int rank, double size_B)
{
    double took = 0;
    if (size_B > 0) {
        struct ckpt *rd = &h->rd[rank];
        ckpt_init(rd, h->sc, h->pf0, size_B, NULL);
        rd->completed = 1; /* the checkpoint counted: resume_step */
        rd->last_step = h->from;
        rd->seq = HYREC_SEQ_BASE + h->restarts * h->P0 + rank;
        took = ckpt_restore(rd, h->gpus[rank]);
        ckpt_release(rd); /* its store's runtime, if any */
        if (took >= 0) h->read_B += size_B;
    }
    if (h->reload_broken) return false; /* a rank died during the reload: a failed wait */
    if (++h->loaded == h->P) {          /* every rank holds its state: training resumes */
        h->reloading = false;
        run_event_add(h->rec, simgrid_get_clock(), RUN_RECOVERY, h->from, h->P,
                      "checkpoint of step %d reloaded: %d ranks read %.4g GB", h->from, h->P,
                      h->read_B / 1e9)
                ->start_s = h->attempt_s;
        for (int k = 1; k < h->P; k++)
            sg_sem_release(h->loaded_sem);
    } else if (sg_sem_acquire_timeout(h->loaded_sem, CKPT_IO_DEADLINE_S) != 0) {
        return false;
    }
    return took >= 0 && !h->reload_broken;
}

void hyrec_progress(struct hyrec *h, int done)
{
    if (h == NULL) return;
    h->done = done;
    h->pstep[done - 1] = h->P;
    inject_progress(&h->kit->inj, h->attempt_s);
}

bool hyrec_rank_exit(struct hyrec *h, int rank)
{
    if (h == NULL) return false;
    h->exited[rank] = true;
    sg_sem_release(h->wake);
    return true;
}

/* ---- life cycle -------------------------------------------------------------------------- */

struct hyrec *hyrec_new(struct runkit *kit, int P, struct hyrec_hooks hooks)
{
    const struct job *j = kit->j;
    if (!j->sc->rec.present) return NULL;
    struct hyrec *h = xbt_new0(struct hyrec, 1);
    size_t ng = j->pf->ngpus;
    h->kit = kit;
    h->sc = j->sc;
    h->rec = kit->rec;
    h->pf0 = j->pf;
    h->hooks = hooks;
    h->pf = *j->pf;
    h->gpus = xbt_new(sg_host_t, ng);
    h->gidx = xbt_new(int, ng);
    for (size_t g = 0; g < ng; g++) {
        h->gpus[g] = j->pf->gpus[g];
        h->gidx[g] = (int)g;
    }
    h->pf.gpus = h->gpus;
    h->job = *j;
    h->job.pf = &h->pf;
    h->par = j->sc->train.par;
    h->P0 = h->P = P;
    h->down = xbt_new0(bool, ng);
    h->exited = xbt_new0(bool, (size_t)P);
    h->killed = xbt_new0(bool, (size_t)P);
    h->pstep = xbt_new0(double, (size_t)j->sc->train.steps);
    h->rd = xbt_new0(struct ckpt, (size_t)P);
    h->wake = sg_sem_init(0);
    h->loaded_sem = sg_sem_init(0);
    runkit_hooks(kit,
                 (struct inject_hooks){.crashed = on_crash, .restarted = on_restart, .ctx = h});
    sg_actor_t a = sg_actor_init("hybrid-restarts", job_store_host(j));
    sg_actor_set_data(a, h);
    sg_actor_start(a, coordinator, 0, NULL);
    return h;
}

void hyrec_finish(struct hyrec *h, struct run_record *rec, int done)
{
    if (h == NULL) return;
    double applied = 0;
    for (int s = 0; s < done; s++)
        applied += h->pstep[s];
    rec->applied = applied;
    rec->lost_gradients = h->lost_grads;
    rec->computed = applied + h->lost_grads;
    rec->replayed_samples = h->replayed;
    rec->read_samples = rec->consumed_samples + rec->skipped_samples + h->replayed;
    rec->lost_steps = h->lost_steps + (h->failed && done < h->sc->train.steps ? 1 : 0);
}

void hyrec_free(struct hyrec *h)
{
    if (h == NULL) return;
    sg_sem_destroy(h->wake);
    sg_sem_destroy(h->loaded_sem);
    free(h->gpus);
    free(h->gidx);
    free(h->down);
    free(h->exited);
    free(h->killed);
    free(h->pstep);
    free(h->rd);
    free(h);
}
