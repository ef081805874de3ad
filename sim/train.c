/* train.c - the data-parallel worker loop (see train.h). */
#include "train.h"

#include "ckpt.h"
#include "collective.h"
#include "fault.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- timeline ----------------------------------------------------------------------------- */

void timeline_add(struct timeline *tl, double t_s, const char *kind, int step, double value,
                  double samples_s, int workers, const char *fmt, ...)
{
    if (tl == NULL) return;
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? 2 * tl->cap : 64;
        tl->rows = xbt_realloc(tl->rows, tl->cap * sizeof *tl->rows);
    }
    struct timeline_row *r = &tl->rows[tl->n++];
    r->t_s = t_s;
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    r->step = step;
    r->value = value;
    r->samples_s = samples_s;
    r->workers = workers;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    if (getenv("DMLSIM_DEBUG_TIMELINE")) /* development aid: events as they happen */
        fprintf(stderr, "%.9f %s %d %s\n", t_s, kind, step, r->what);
}

/* ---- state ------------------------------------------------------------------------------- */

#define MAX_EPOCHS 200  /* a run that needs more memberships than this gives up */
#define RETRY_S    0.05 /* a worker that cannot reach the rendezvous tries again after this */
#define CTL_B      64.0 /* a control message (report, membership) */

struct train_ctx;

/* One membership: the workers of an all-reduce ring between two failures. */
struct epoch {
    int id;                       /* 0, 1, ... */
    int n;                        /* members */
    int *members;                 /* their ranks, ascending */
    struct coll_world world;      /* collectives among them (mailboxes per epoch) */
    const struct coll_algo *algo; /* the scenario's algorithm, or the ring where its check
                                     refuses this membership */
    int resume_step;              /* the step they start from (the last checkpoint) */
    double start_s;               /* when it was formed */
    struct epoch *prev;           /* older epochs, freed at the end */
};

struct bucket_req {
    struct epoch *ep; /* the membership the collective runs in */
    double size_B;    /* bucket bytes */
    int *failed;      /* set when a collective of the step failed */
};

struct worker {
    struct train_ctx *t;      /* shared state */
    int rank;                 /* data-parallel rank */
    double *fwd_amt;          /* per layer: exec amount of its forward for one batch */
    double *bwd_amt;          /* per layer: exec amount of its backward */
    double update_amt;        /* exec amount of the optimizer update */
    sg_sem_t ready;           /* released once per bucket handed to the comm actor */
    sg_sem_t done;            /* released once per bucket reduced */
    struct bucket_req *queue; /* one step's buckets */
    size_t qhead;             /* next request the comm actor takes */
    int incarnation;          /* 0, then +1 per restart of its host */
    int crashed_at_step;      /* a step-triggered crash already fired at this step, or -1 */
    bool in_step;             /* between reading a batch and the step's end */
    bool in_corrupt;          /* that batch is corrupt */
    bool in_computed;         /* its gradient has been computed */
};

enum ctl_type { CTL_FAIL, CTL_JOIN, CTL_SYNC, CTL_REMOVE, CTL_EPOCH, CTL_STOP };

struct ctl_msg {
    enum ctl_type type;
    int rank;         /* sender (reports) or subject (REMOVE) */
    int epoch;        /* the epoch the sender is in */
    struct epoch *ep; /* CTL_EPOCH: the new membership */
};

static void schedule_restart(sg_host_t host, double t_s);

struct train_ctx {
    const struct scenario *sc;
    const struct model *m;
    const struct platform *pf;
    const struct calib *cal;
    int P;                  /* workers at the start */
    double *bucket_B;       /* bytes of each bucket */
    int *bucket_close;      /* layer whose backward closes each bucket */
    size_t nbuckets;        /* buckets per step */
    struct worker *workers; /* P workers */
    struct epoch *cur;      /* current membership */
    int change_pending;     /* the store's flag: members re-rendezvous at the next step */
    int *removals;          /* ranks to drop at the next membership */
    int nremovals;
    int *joiners; /* restarted or returning ranks waiting to join */
    int njoiners;
    double *committed;         /* per global step: gradients applied (member count) */
    double *committed_samples; /* per global step: samples consumed */
    int *commits;              /* per global step: members that finished it (this epoch) */
    int max_committed;         /* steps committed so far (highest) */
    double last_commit_s;      /* the leader's last commit (for step times) */
    double *last_compute;      /* per rank: compute of its last step */
    int *slow_streak;          /* per rank: consecutive slow steps */
    double pending_fault_s;    /* earliest fault not yet recovered from, or -1 */
    bool detected;             /* the pending fault was reported */
    bool done;                 /* the run reached its last step */
    bool aborted;              /* no workers left, or too many memberships */
    struct ckpt ckpt;          /* checkpoints */
    double last_ckpt_s;        /* when the last one was started */
    struct train_result *res;
    sg_host_t rdzv_host; /* where the rendezvous runs */
};

void train_layer_amounts(const struct calib *cal, const struct gpu_model *gpu, sg_host_t host,
                         enum gpu_dtype dtype, const struct model *m, int batch, double **fwd,
                         double **bwd)
{
    *fwd = xbt_new(double, m->nlayers ? m->nlayers : 1);
    *bwd = xbt_new(double, m->nlayers ? m->nlayers : 1);
    double speed = sg_host_get_speed(host), peak = gpu->peak_flops[dtype];
    for (size_t l = 0; l < m->nlayers; l++) {
        const struct layer *y = &m->layers[l];
        double gemm = y->gemm_m > 0 ? 2 * y->gemm_m * y->gemm_n * batch * y->gemm_k
                                    : y->fwd_flops * batch;
        double rate = peak * calib_gemm_eff(cal, gpu, dtype, gemm);
        (*fwd)[l] = y->fwd_flops * batch * speed / rate;
        (*bwd)[l] = y->bwd_flops * batch * speed / rate;
    }
}

/* Runs `amount` on the current host (skipping empty work) and returns the time it took. */
double train_timed_exec(double amount)
{
    double t0 = simgrid_get_clock();
    if (amount > 0) sg_actor_execute(amount);
    return simgrid_get_clock() - t0;
}

static sg_mailbox_t ctl_box(int rank)
{
    char name[32];
    snprintf(name, sizeof name, "ctl%d", rank);
    return sg_mailbox_by_name(name);
}

static int member_index(const struct epoch *ep, int rank)
{
    for (int i = 0; i < ep->n; i++)
        if (ep->members[i] == rank) return i;
    return -1;
}

static struct epoch *epoch_new(struct train_ctx *t, int id, const int *ranks, int n, int resume)
{
    struct epoch *ep = xbt_new0(struct epoch, 1);
    ep->id = id;
    ep->n = n;
    ep->members = xbt_new(int, n > 0 ? n : 1);
    memcpy(ep->members, ranks, (size_t)n * sizeof *ranks);
    sg_host_t *hosts = xbt_new(sg_host_t, n > 0 ? n : 1);
    for (int i = 0; i < n; i++)
        hosts[i] = t->pf->gpus[ranks[i]];
    collective_world_init(&ep->world, n, hosts, t->sc->train.timeout_s);
    free(hosts);
    ep->world.level = t->sc->train.level;
    ep->world.chunks = t->sc->train.chunks;
    ep->world.traffic = t->res->traffic;
    ep->world.epoch = id;
    ep->world.nccl = t->sc->train.nccl;
    ep->world.netcal = t->cal ? t->cal->netcal : NULL;
    ep->algo = t->sc->train.algo;
    const char *why = collective_check(&ep->world, ep->algo, COLL_ALLREDUCE, false);
    if (why != NULL) { /* e.g. hierarchical after a crash left nodes of unequal size */
        timeline_add(t->res->timeline, simgrid_get_clock(), "recovery", resume, 0, 0, n,
                     "%s cannot run on membership %d (%s): ring instead", ep->algo->name, id, why);
        ep->algo = collective_find("ring");
    }
    ep->resume_step = resume;
    ep->start_s = simgrid_get_clock();
    ep->prev = t->cur;
    return ep;
}

/* ---- the comm actor ---------------------------------------------------------------------- */

static void comm_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct train_ctx *t = w->t;
    for (;;) { /* a daemon: serves its compute actor for as long as the run lasts */
        sg_sem_acquire(w->ready);
        struct bucket_req *q = &w->queue[w->qhead++ % t->nbuckets];
        if (!*q->failed) {
            int idx = member_index(q->ep, w->rank);
            double t0 = simgrid_get_clock();
            enum net_status st = collective_run(&q->ep->world, q->ep->algo, COLL_ALLREDUCE, idx,
                                                q->size_B, NULL);
            trace_slice(t->res->trace, 2 * w->rank + 1, st == NET_OK ? "all-reduce" : "failed", t0,
                        simgrid_get_clock());
            if (st != NET_OK) {
                *q->failed = 1;
                if (idx == 0) t->res->failures += 1;
            }
        }
        sg_sem_release(w->done);
    }
}

/* ---- reports to the rendezvous ----------------------------------------------------------- */

/* Sends a control message to the rendezvous, retrying until it gets through (a partitioned
 * worker keeps trying until the heal). Returns false if the run is over. */
static bool report(struct train_ctx *t, enum ctl_type type, int rank, int epoch)
{
    while (!t->done && !t->aborted) {
        struct ctl_msg *m = xbt_new0(struct ctl_msg, 1);
        m->type = type;
        m->rank = rank;
        m->epoch = epoch;
        traffic_add(t->res->traffic, sg_host_self(), t->rdzv_host, CTL_B);
        if (net_send(sg_mailbox_by_name("rdzv"), m, CTL_B, RETRY_S) == NET_OK) return true;
        free(m);
        sg_actor_sleep_for(RETRY_S);
    }
    return false;
}

/* Waits for the next membership; NULL when this worker is out (removed, or the run is over). */
static struct epoch *await_epoch(struct worker *w, enum ctl_type why, int epoch)
{
    struct train_ctx *t = w->t;
    if (!report(t, why, w->rank, epoch)) return NULL;
    double patience = t->sc->rec.rendezvous_s + t->sc->rec.replacement_s + 10 * RETRY_S;
    for (;;) {
        struct ctl_msg *m;
        enum net_status st = net_recv(ctl_box(w->rank), (void **)&m, patience);
        if (t->done || t->aborted) return NULL;
        if (st != NET_OK) { /* nothing came: say it again (the rendezvous may have missed us) */
            if (!report(t, CTL_JOIN, w->rank, epoch)) return NULL;
            continue;
        }
        struct epoch *ep = m->type == CTL_EPOCH ? m->ep : NULL;
        free(m);
        return ep;
    }
}

/* ---- the compute actor: the worker's training loop --------------------------------------- */

static void lose_step(struct train_ctx *t, bool corrupt, bool computed)
{
    struct train_result *r = t->res;
    if (computed) r->lost_gradients += 1;
    if (!corrupt) r->replayed_samples += t->sc->train.batch;
}

/* One step of one worker; returns false if a collective of it failed. */
static bool run_step(struct worker *w, struct epoch *ep, int step, double *busy_out,
                     bool *corrupt_out)
{
    struct train_ctx *t = w->t;
    const struct model *m = t->m;
    const struct train_spec *ts = &t->sc->train;
    const char *host = sg_host_get_name(sg_host_self());
    bool corrupt = fault_is_corrupt(&t->pf->plan, host, step);
    double scale = corrupt ? 0 : fault_jitter(&t->pf->plan, w->rank, step);
    double busy = 0;
    int failed = 0;
    t->res->read_samples += ts->batch;
    if (corrupt) {
        t->res->skipped_samples += ts->batch;
        timeline_add(t->res->timeline, simgrid_get_clock(), "fault", step, 0, 0, ep->n,
                     "corrupt batch skipped: %s step %d", host, step);
    }
    w->in_step = true;
    w->in_corrupt = corrupt;
    w->in_computed = false;
    struct trace *tr = t->res->trace;
    double t0 = simgrid_get_clock();
    /* Layers run back to back on one GPU, so the forward is one exec of all their work and the
     * backward one exec per stretch between bucket boundaries: the same simulated times as one
     * exec per layer (a speed change mid-way still applies to the rest of the work), with far
     * fewer simulation events at large P. */
    double fwd = 0, pending = 0;
    for (size_t l = 0; l < m->nlayers; l++)
        fwd += w->fwd_amt[l];
    busy += train_timed_exec(fwd * scale);
    trace_slice(tr, 2 * w->rank, "forward", t0, simgrid_get_clock());
    t0 = simgrid_get_clock();
    size_t b = 0, handed = 0;
    for (size_t l = m->nlayers; l-- > 0;) {
        pending += w->bwd_amt[l];
        bool closes = b < t->nbuckets && t->bucket_close[b] == (int)l;
        if (closes || l == 0) {
            busy += train_timed_exec(pending * scale);
            pending = 0;
        }
        if (l == 0 && !corrupt) { /* the gradient exists from here on */
            t->res->computed += 1;
            w->in_computed = true;
        }
        for (; b < t->nbuckets && t->bucket_close[b] == (int)l; b++) {
            w->queue[b] = (struct bucket_req){ep, t->bucket_B[b], &failed};
            if (ts->overlap) {
                sg_sem_release(w->ready);
                handed++;
            }
        }
    }
    trace_slice(tr, 2 * w->rank, "backward", t0, simgrid_get_clock());
    for (; handed < t->nbuckets; handed++)
        sg_sem_release(w->ready);
    t0 = simgrid_get_clock();
    for (size_t k = 0; k < t->nbuckets; k++)
        sg_sem_acquire(w->done);
    trace_slice(tr, 2 * w->rank, "wait", t0, simgrid_get_clock());
    t0 = simgrid_get_clock();
    if (!failed) busy += train_timed_exec(w->update_amt);
    trace_slice(tr, 2 * w->rank, "update", t0, simgrid_get_clock());
    w->in_step = false;
    *busy_out = busy;
    *corrupt_out = corrupt;
    return !failed;
}

/* The leader watches for persistent stragglers (previous step's compute times). */
static void watch_stragglers(struct train_ctx *t, struct epoch *ep)
{
    const struct recovery_spec *rs = &t->sc->rec;
    if (rs->straggler_steps <= 0 || ep->n < 2) return;
    double *v = xbt_new(double, ep->n);
    for (int i = 0; i < ep->n; i++)
        v[i] = t->last_compute[ep->members[i]];
    for (int i = 1; i < ep->n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    double median = v[ep->n / 2];
    free(v);
    for (int i = 0; i < ep->n; i++) {
        int r = ep->members[i];
        t->slow_streak[r] =
                t->last_compute[r] > rs->straggler_threshold * median ? t->slow_streak[r] + 1 : 0;
        if (t->slow_streak[r] == rs->straggler_steps) {
            timeline_add(t->res->timeline, simgrid_get_clock(), "recovery", -1, 0, 0, ep->n,
                         "straggler rank %d flagged for removal", r);
            report(t, CTL_REMOVE, r, ep->id);
        }
    }
}

/* A step-triggered crash of this worker's host (plan events with a step). */
static void crash_if_due(struct worker *w, int step)
{
    struct train_ctx *t = w->t;
    const char *host = sg_host_get_name(sg_host_self());
    for (size_t i = 0; i < t->pf->plan.n; i++) {
        const struct fault_event *e = &t->pf->plan.ev[i];
        if (e->kind != FAULT_CRASH || e->step != step || w->incarnation > 0 ||
            w->crashed_at_step == step || strcmp(e->target, host) != 0)
            continue;
        w->crashed_at_step = step;
        if (t->pending_fault_s < 0) t->pending_fault_s = simgrid_get_clock();
        t->detected = false;
        timeline_add(t->res->timeline, simgrid_get_clock(), "fault", step, 0, 0, t->cur->n,
                     "crash of %s at step %d", host, step);
        if (e->restart_s >= 0) /* the injector brings it back */
            schedule_restart(sg_host_self(), simgrid_get_clock() + e->restart_s);
        sg_host_turn_off(sg_host_self()); /* kills this actor */
    }
}

/* A worker killed by a crash in the middle of a step: its batch will be read again and its
 * gradient, if computed, is lost. */
static void on_worker_exit(int failed, void *data)
{
    struct worker *w = data;
    if (!failed || !w->in_step) return;
    lose_step(w->t, w->in_corrupt, w->in_computed);
    w->in_step = false;
}

static void compute_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct worker *w = sg_actor_self_get_data();
    struct train_ctx *t = w->t;
    sg_actor_on_exit(on_worker_exit, w);
    const struct train_spec *ts = &t->sc->train;
    struct epoch *ep = w->incarnation == 0 ? t->cur : await_epoch(w, CTL_JOIN, -1);
    while (ep != NULL) {
        int step = ep->resume_step, idx = member_index(ep, w->rank);
        if (idx < 0) return;
        if (ep->id > 0 && t->sc->ckpt.present) ckpt_restore(&t->ckpt, sg_host_self());
        bool failed = false;
        while (step < ts->steps && !t->aborted) {
            if (t->change_pending > ep->id) {
                failed = true; /* leave cleanly: report at the boundary */
                ep = await_epoch(w, CTL_SYNC, ep->id);
                break;
            }
            crash_if_due(w, step);
            double busy;
            bool corrupt;
            if (!run_step(w, ep, step, &busy, &corrupt)) {
                lose_step(t, corrupt, !corrupt);
                w->in_step = false;
                timeline_add(t->res->timeline, simgrid_get_clock(), "recovery", step, 0, 0, ep->n,
                             "rank %d: step %d failed, reporting", w->rank, step);
                failed = true;
                ep = await_epoch(w, CTL_FAIL, ep->id);
                break;
            }
            /* committed for this worker */
            struct train_result *r = t->res;
            if (!corrupt) {
                r->applied += 1;
                t->committed[step] += 1;
                t->committed_samples[step] += ts->batch;
                r->consumed_samples += ts->batch;
            }
            t->last_compute[w->rank] = busy;
            step++;
            if (step > t->max_committed) t->max_committed = step;
            if (++t->commits[step - 1] == ep->n) { /* the last member to finish the step */
                double now = simgrid_get_clock(), dt = now - t->last_commit_s, slowest = 0;
                for (int i = 0; i < ep->n; i++)
                    slowest = fmax(slowest, t->last_compute[ep->members[i]]);
                t->last_commit_s = now;
                timeline_add(r->timeline, now, "step", step, dt, ep->n * ts->batch / dt, ep->n,
                             "%s", "");
                r->compute_s = xbt_realloc(r->compute_s, (size_t)(r->steps + 1) * sizeof(double));
                r->step_s = xbt_realloc(r->step_s, (size_t)(r->steps + 1) * sizeof(double));
                r->step_s[r->steps] = dt;
                r->compute_s[r->steps++] = slowest;
                if (t->pending_fault_s >= 0 && ep->id > 0) {
                    double rec = now - t->pending_fault_s;
                    if (rec > r->max_recover_s) r->max_recover_s = rec;
                    t->pending_fault_s = -1;
                }
                if (step == ts->steps) t->done = true;
            }
            if (idx == 0) { /* the leader watches for stragglers and writes checkpoints */
                double now = simgrid_get_clock();
                watch_stragglers(t, ep);
                if (ckpt_due(&t->ckpt, step, t->last_ckpt_s, now)) {
                    t->last_ckpt_s = now;
                    ckpt_write(&t->ckpt, sg_host_self(), step, 0, NULL);
                }
            }
        }
        if (!failed) return;
    }
}

/* ---- the rendezvous: membership after failures, joins and removals ------------------------ */

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
static bool note(struct train_ctx *t, struct ctl_msg *m, int *reported, int *nrep)
{
    bool start = false;
    /* a member of the current membership that is waiting (whatever it says) is not training:
     * that is a failure of this membership */
    bool waiting_member = m->epoch == t->cur->id && member_index(t->cur, m->rank) >= 0;
    if (m->type != CTL_REMOVE && waiting_member) {
        if (!contains(reported, *nrep, m->rank)) reported[(*nrep)++] = m->rank;
        start = true;
        if (!t->detected && t->pending_fault_s >= 0) {
            double d = simgrid_get_clock() - t->pending_fault_s;
            if (d > t->res->max_detect_s) t->res->max_detect_s = d;
            t->detected = true;
        }
        t->res->failures_detected += m->type == CTL_FAIL;
    } else if (m->type == CTL_REMOVE) {
        if (!contains(t->removals, t->nremovals, m->rank)) t->removals[t->nremovals++] = m->rank;
        t->change_pending = t->cur->id + 1;
    } else if (m->type == CTL_JOIN || m->type == CTL_FAIL || m->type == CTL_SYNC) {
        /* a restarted worker, or one from an older membership (a healed partition) */
        if (!contains(t->joiners, t->njoiners, m->rank) && !contains(reported, *nrep, m->rank))
            t->joiners[t->njoiners++] = m->rank;
        if (member_index(t->cur, m->rank) < 0 || m->epoch < t->cur->id)
            t->change_pending = t->cur->id + 1;
    }
    free(m);
    return start;
}

static void form(struct train_ctx *t, int *reported, int nrep)
{
    const struct recovery_spec *rs = &t->sc->rec;
    struct epoch *cur = t->cur;
    /* Everyone of the old membership that is alive reports within the window: one watchdog
     * period (a member stuck in a collective with a dead or departing peer needs that long to
     * notice) plus the rendezvous timeout. */
    double end = simgrid_get_clock() + t->sc->train.timeout_s + rs->rendezvous_s;
    while (nrep < cur->n && simgrid_get_clock() < end) {
        struct ctl_msg *m;
        /* a failed receive (a sender cut off mid-message) is not the end of the window */
        if (net_recv(sg_mailbox_by_name("rdzv"), (void **)&m, end - simgrid_get_clock()) != NET_OK)
            continue;
        note(t, m, reported, &nrep);
    }
    if (!rs->elastic) { /* policy wait: give the missing members time to come back */
        end = simgrid_get_clock() + rs->replacement_s;
        for (;;) {
            bool missing = false;
            for (int i = 0; i < cur->n; i++) {
                int r = cur->members[i];
                missing |= !contains(reported, nrep, r) && !contains(t->joiners, t->njoiners, r);
            }
            if (!missing || simgrid_get_clock() >= end) break;
            struct ctl_msg *m;
            if (net_recv(sg_mailbox_by_name("rdzv"), (void **)&m, end - simgrid_get_clock()) !=
                NET_OK)
                continue;
            note(t, m, reported, &nrep);
        }
    }
    int *next = xbt_new(int, t->P), n = 0;
    for (int i = 0; i < nrep; i++)
        if (!contains(t->removals, t->nremovals, reported[i])) next[n++] = reported[i];
    for (int i = 0; i < t->njoiners; i++)
        if (!contains(next, n, t->joiners[i]) &&
            !contains(t->removals, t->nremovals, t->joiners[i]))
            next[n++] = t->joiners[i];
    qsort(next, (size_t)n, sizeof *next, cmp_int);
    /* roll back what was committed after the checkpoint everyone restarts from */
    int resume = t->sc->ckpt.present ? t->ckpt.last_step : 0;
    struct train_result *r = t->res;
    for (int s = resume; s < t->max_committed; s++) {
        r->lost_steps += 1;
        r->lost_gradients += t->committed[s];
        r->applied -= t->committed[s];
        r->replayed_samples += t->committed_samples[s];
        r->consumed_samples -= t->committed_samples[s];
        t->committed[s] = t->committed_samples[s] = 0;
    }
    for (int s = resume; s < t->sc->train.steps; s++)
        t->commits[s] = 0;
    t->max_committed = resume;
    /* the members told to leave */
    for (int i = 0; i < nrep; i++)
        if (!contains(next, n, reported[i])) {
            struct ctl_msg *m = xbt_new0(struct ctl_msg, 1);
            m->type = CTL_STOP;
            if (net_send(ctl_box(reported[i]), m, CTL_B, RETRY_S) != NET_OK) free(m);
            r->removed_stragglers += 1;
        }
    if (n == 0 || cur->id + 1 >= MAX_EPOCHS) {
        t->aborted = true;
        timeline_add(r->timeline, simgrid_get_clock(), "recovery", resume, 0, 0, 0,
                     "training cannot continue (%s)", n == 0 ? "no workers" : "too many failures");
        free(next);
        return;
    }
    struct epoch *ep = epoch_new(t, cur->id + 1, next, n, resume);
    t->cur = ep;
    t->change_pending = 0;
    t->nremovals = 0;
    t->njoiners = 0;
    r->membership_changes += 1;
    t->last_commit_s = simgrid_get_clock();
    timeline_add(r->timeline, simgrid_get_clock(), "recovery", resume, 0, 0, n,
                 "membership %d: %d worker(s), resume at step %d", ep->id, n, resume);
    for (int i = 0; i < n; i++) {
        struct ctl_msg *m = xbt_new0(struct ctl_msg, 1);
        m->type = CTL_EPOCH;
        m->ep = ep;
        traffic_add(r->traffic, t->rdzv_host, t->pf->gpus[next[i]], CTL_B);
        sg_comm_t c = net_isend(ctl_box(next[i]), m, CTL_B);
        if (net_wait(c, simgrid_get_clock() + RETRY_S) != NET_OK)
            free(m); /* it will report again */
    }
    free(next);
}

static void rendezvous_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct train_ctx *t = sg_actor_self_get_data();
    int *reported = xbt_new(int, t->P);
    double joiners_since = -1;
    for (;;) { /* a daemon */
        /* Joiners wait for the current members to reach a step boundary; if none comes within a
         * watchdog period (the members are all dead or stuck), a membership is formed anyway. */
        double patience = t->sc->train.timeout_s + t->sc->rec.rendezvous_s;
        double wait = joiners_since >= 0 ? joiners_since + patience - simgrid_get_clock() : 1e9;
        struct ctl_msg *m = NULL;
        int nrep = 0;
        if (net_recv(sg_mailbox_by_name("rdzv"), (void **)&m, wait > 0 ? wait : 0) != NET_OK) {
            if (joiners_since >= 0 && simgrid_get_clock() >= joiners_since + patience &&
                t->njoiners > 0) {
                joiners_since = -1;
                form(t, reported, 0);
            }
            continue;
        }
        if (note(t, m, reported, &nrep)) {
            joiners_since = -1;
            form(t, reported, nrep);
        } else if (t->njoiners > 0 && joiners_since < 0) {
            joiners_since = simgrid_get_clock();
        }
        if (t->njoiners == 0) joiners_since = -1;
    }
}

/* ---- the fault injector ------------------------------------------------------------------ */

struct restart_req {
    sg_host_t host;
    double t_s;
    struct restart_req *next;
};

static struct restart_req *restarts; /* step-triggered crashes waiting for their restart */
static sg_sem_t restart_sem;

static void schedule_restart(sg_host_t host, double t_s)
{
    struct restart_req *r = xbt_new0(struct restart_req, 1);
    r->host = host;
    r->t_s = t_s;
    r->next = restarts;
    restarts = r;
    sg_sem_release(restart_sem);
}

static void start_worker(struct train_ctx *t, int rank, int incarnation);

static void restart_host(struct train_ctx *t, sg_host_t h)
{
    if (sg_host_is_on(h)) return;
    sg_host_turn_on(h);
    timeline_add(t->res->timeline, simgrid_get_clock(), "fault", -1, 0, 0, t->cur->n,
                 "restart of %s", sg_host_get_name(h));
    for (int r = 0; r < t->P; r++)
        if (t->pf->gpus[r] == h && !t->done) start_worker(t, r, t->workers[r].incarnation + 1);
}

static void injector_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct train_ctx *t = sg_actor_self_get_data();
    const struct fault_plan *plan = &t->pf->plan;
    size_t i = 0;
    for (;;) { /* a daemon */
        double next = i < plan->n && plan->ev[i].t_s >= 0 ? plan->ev[i].t_s : INFINITY;
        for (struct restart_req *r = restarts; r; r = r->next)
            next = fmin(next, r->t_s);
        if (next == INFINITY) {
            sg_sem_acquire(restart_sem);
            continue;
        }
        double wait = next - simgrid_get_clock();
        if (wait > 0 && sg_sem_acquire_timeout(restart_sem, wait) == 0)
            continue; /* a new restart request: look again */
        for (struct restart_req **pp = &restarts; *pp;) {
            if ((*pp)->t_s <= simgrid_get_clock()) {
                struct restart_req *r = *pp;
                *pp = r->next;
                restart_host(t, r->host);
                free(r);
            } else {
                pp = &(*pp)->next;
            }
        }
        for (; i < plan->n && plan->ev[i].t_s >= 0 && plan->ev[i].t_s <= simgrid_get_clock(); i++) {
            const struct fault_event *e = &plan->ev[i];
            sg_host_t h = sg_host_by_name(e->target);
            switch (e->kind) {
            case FAULT_CRASH:
                if (h && sg_host_is_on(h) && h != t->rdzv_host) {
                    if (t->pending_fault_s < 0) t->pending_fault_s = simgrid_get_clock();
                    t->detected = false;
                    timeline_add(t->res->timeline, simgrid_get_clock(), "fault", -1, 0, 0,
                                 t->cur->n, "crash of %s (%s)", e->target, e->cause);
                    sg_host_turn_off(h);
                }
                break;
            case FAULT_RESTART:
                if (h) restart_host(t, h);
                break;
            case FAULT_SLOW:
            case FAULT_SLOW_END:
                if (h && sg_host_is_on(h))
                    sg_host_set_pstate(h, e->kind == FAULT_SLOW ? (unsigned long)e->step : 0);
                timeline_add(t->res->timeline, simgrid_get_clock(), "fault", -1, 0, 0, t->cur->n,
                             "%s %s%s", e->target,
                             e->kind == FAULT_SLOW ? "slowed" : "back to speed",
                             e->kind == FAULT_SLOW ? "" : "");
                break;
            default: /* link faults act through their profiles; mark them on the timeline */
                if (e->kind == FAULT_LINK_DOWN && t->pending_fault_s < 0) {
                    t->pending_fault_s = simgrid_get_clock();
                    t->detected = false;
                }
                if (e->kind != FAULT_CORRUPT)
                    timeline_add(t->res->timeline, simgrid_get_clock(), "fault", -1, 0, 0,
                                 t->cur->n, "%s %s (%s)", fault_kind_name(e->kind), e->target,
                                 e->cause);
                break;
            }
        }
    }
}

/* ---- setup ------------------------------------------------------------------------------- */

/* Buckets in backward order: a bucket closes at the layer that brings it to >= bucket_B. */
static void make_buckets(struct train_ctx *t, double grad_elem_B, double bucket_B)
{
    const struct model *m = t->m;
    t->bucket_B = xbt_new0(double, m->nlayers + 1);
    t->bucket_close = xbt_new0(int, m->nlayers + 1);
    double acc = 0;
    for (size_t l = m->nlayers; l-- > 0;) {
        acc += m->layers[l].params * grad_elem_B;
        if (acc > 0 && (acc >= bucket_B || l == 0)) {
            t->bucket_B[t->nbuckets] = acc;
            t->bucket_close[t->nbuckets++] = (int)l;
            acc = 0;
        }
    }
}

int train_workers(const struct scenario *sc, const struct platform *pf)
{
    return sc->train.gpus > 0 ? sc->train.gpus : (int)pf->ngpus;
}

static void start_worker(struct train_ctx *t, int rank, int incarnation)
{
    struct worker *w = &t->workers[rank];
    const struct train_spec *ts = &t->sc->train;
    sg_host_t h = t->pf->gpus[rank];
    double update_B = model_params(t->m) * model_update_bytes_per_param(ts->dtype, ts->opt);
    w->t = t;
    w->rank = rank;
    w->incarnation = incarnation;
    w->crashed_at_step = -1;
    free(w->fwd_amt);
    free(w->bwd_amt);
    train_layer_amounts(t->cal, t->pf->models[rank], h, ts->dtype, t->m, ts->batch, &w->fwd_amt,
                        &w->bwd_amt);
    w->update_amt =
            update_B / calib_memory_rate(t->cal, t->pf->models[rank]) * sg_host_get_speed(h);
    /* semaphores of a previous incarnation are left alone: its actors may have died holding them */
    w->ready = sg_sem_init(0);
    w->done = sg_sem_init(0);
    w->queue = xbt_new0(struct bucket_req, t->nbuckets ? t->nbuckets : 1);
    w->qhead = 0;
    char *cn = bprintf("compute-%d.%d", rank, incarnation),
         *mn = bprintf("comm-%d.%d", rank, incarnation);
    sg_actor_t a = sg_actor_init(cn, h);
    sg_actor_set_data(a, w);
    sg_actor_start(a, compute_actor, 0, NULL);
    a = sg_actor_init(mn, h);
    sg_actor_set_data(a, w);
    sg_actor_daemonize(a);
    sg_actor_start(a, comm_actor, 0, NULL);
    free(cn);
    free(mn);
}

enum dmlsim_err train_check_workers(const struct scenario *sc, const struct platform *pf,
                                    const struct model *m, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    int P = train_workers(sc, pf);
    if (P < 1 || P > (int)pf->ngpus)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <training gpus=\"%d\">: the platform has %zu GPU(s); expected "
                           "1 to %zu",
                           sc->path, ts->line, P, pf->ngpus, pf->ngpus);
    for (int r = 0; r < P; r++) {
        const struct gpu_model *g = pf->models[r];
        if (g->peak_flops[ts->dtype] <= 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <training dtype=\"%s\">: %s has no %s support; expected "
                               "one of its dtypes (see dmlsim catalog)",
                               sc->path, ts->line, catalog_dtype_name(ts->dtype), g->name,
                               catalog_dtype_name(ts->dtype));
        char why[512];
        if (model_check_fit(m, ts->dtype, ts->opt, ts->batch, g, why, sizeof why) != 0)
            return dmlsim_fail(err, DMLSIM_EVALUE,
                               "%s:%d: <training>: %s; expected a smaller batch-per-gpu or model",
                               sc->path, ts->line, why);
    }
    return DMLSIM_OK;
}

enum dmlsim_err train_check(const struct scenario *sc, const struct platform *pf,
                            const struct model *m, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    enum dmlsim_err rc = train_check_workers(sc, pf, m, err);
    if (rc != DMLSIM_OK) return rc;
    int P = train_workers(sc, pf);
    struct coll_world w;
    collective_world_init(&w, P, pf->gpus, 1);
    w.level = ts->level;
    w.nccl = ts->nccl;
    const char *why = collective_check(&w, ts->algo, COLL_ALLREDUCE, false);
    collective_world_release(&w);
    if (why != NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <training algo=\"%s\">: %s", sc->path,
                           ts->line, ts->algo->name, why);
    bool needs_store = sc->nfaults > 0 || (sc->ckpt.present && sc->ckpt.target != CKPT_LOCAL_NVME);
    if (needs_store && pf->storage == NULL && pf->ncpus == 0)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: faults and checkpoints need a storage host for the rendezvous "
                           "and the store; expected a cluster with a nic, or a host with property "
                           "role=storage",
                           sc->path, ts->line);
    return DMLSIM_OK;
}

enum dmlsim_err train_run(const struct scenario *sc, const struct platform *pf,
                          const struct model *m, const struct calib *cal, struct train_result *res,
                          struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    enum dmlsim_err rc = train_check(sc, pf, m, err);
    if (rc != DMLSIM_OK) return rc;
    int P = train_workers(sc, pf);
    struct train_ctx t = {.sc = sc, .m = m, .pf = pf, .cal = cal, .P = P, .res = res};
    memset(res, 0, sizeof *res);
    res->traffic = traffic_new();
    res->timeline = xbt_new0(struct timeline, 1);
    if (ts->trace) {
        res->trace = trace_new();
        for (int r = 0; r < P; r++) {
            char *a = bprintf("rank %d compute (%s)", r, sg_host_get_name(pf->gpus[r]));
            char *b = bprintf("rank %d communication", r);
            trace_track(res->trace, 2 * r, a);
            trace_track(res->trace, 2 * r + 1, b);
            free(a);
            free(b);
        }
    }
    t.pending_fault_s = -1;
    t.rdzv_host = pf->storage ? pf->storage : (pf->ncpus ? pf->cpu_hosts[0] : pf->gpus[0]);
    t.removals = xbt_new0(int, P);
    t.joiners = xbt_new0(int, P);
    t.committed = xbt_new0(double, ts->steps);
    t.committed_samples = xbt_new0(double, ts->steps);
    t.commits = xbt_new0(int, ts->steps);
    t.last_compute = xbt_new0(double, P);
    t.slow_streak = xbt_new0(int, P);
    make_buckets(&t, model_dtype_bytes(ts->dtype), ts->bucket_B);
    res->ckpt_B = ckpt_size(m, model_params(m), ts->dtype, ts->opt);
    ckpt_init(&t.ckpt, sc, pf, res->ckpt_B, res->timeline);
    int *all = xbt_new(int, P);
    for (int r = 0; r < P; r++)
        all[r] = r;
    t.cur = epoch_new(&t, 0, all, P, 0);
    free(all);
    double *sent = xbt_new0(double, P);
    t.cur->world.sent_msgs = sent;
    t.workers = xbt_new0(struct worker, P);
    restarts = NULL;
    restart_sem = sg_sem_init(0);
    for (int r = 0; r < P; r++)
        start_worker(&t, r, 0);
    sg_actor_t a = sg_actor_init("rendezvous", t.rdzv_host);
    sg_actor_set_data(a, &t);
    sg_actor_daemonize(a);
    sg_actor_start(a, rendezvous_actor, 0, NULL);
    if (pf->plan.n > 0) {
        a = sg_actor_init("injector", t.rdzv_host);
        sg_actor_set_data(a, &t);
        sg_actor_daemonize(a);
        sg_actor_start(a, injector_actor, 0, NULL);
    }
    simgrid_run();

    res->workers = P;
    res->global_batch = (double)P * ts->batch;
    res->total_s = t.last_commit_s;
    for (size_t i = 0; res->trace && i < res->timeline->n; i++) {
        const struct timeline_row *row = &res->timeline->rows[i];
        if (strcmp(row->kind, "step") != 0)
            trace_instant(res->trace, row->kind, row->what, row->t_s);
    }
    for (size_t i = 0; i < res->timeline->n; i++) /* the run ends with its last event */
        if (res->timeline->rows[i].t_s > res->total_s &&
            strcmp(res->timeline->rows[i].kind, "step") == 0)
            res->total_s = res->timeline->rows[i].t_s;
    double busy = 0;
    for (int s = 0; s < res->steps; s++)
        busy += res->compute_s[s];
    res->compute1_s = res->steps > 0 ? busy / res->steps : 0;
    res->exposed_s = xbt_new0(double, res->steps > 0 ? res->steps : 1);
    double idle = 0;
    for (int s = 0; s < res->steps; s++) {
        res->exposed_s[s] = fmax(0, res->step_s[s] - res->compute_s[s]);
        idle += res->exposed_s[s];
    }
    res->idle_frac = res->total_s > 0 ? fmin(1, idle / res->total_s) : 0;
    res->nbuckets = t.nbuckets;
    for (size_t b = 0; b < t.nbuckets; b++)
        res->grad_B += t.bucket_B[b];
    res->messages = traffic_messages(res->traffic);
    res->mem = model_memory(m, ts->dtype, ts->opt, ts->batch);
    res->steps_completed = t.max_committed;
    res->final_workers = t.cur->n;
    res->checkpoints = t.ckpt.completed;
    res->ckpt_overhead_s = t.ckpt.overhead_s;

    for (struct epoch *ep = t.cur; ep;) {
        struct epoch *prev = ep->prev;
        collective_world_release(&ep->world);
        free(ep->members);
        free(ep);
        ep = prev;
    }
    for (int r = 0; r < P; r++) {
        free(t.workers[r].queue);
        free(t.workers[r].fwd_amt);
        free(t.workers[r].bwd_amt);
    }
    free(t.workers);
    free(sent);
    free(t.bucket_B);
    free(t.bucket_close);
    free(t.removals);
    free(t.joiners);
    free(t.committed);
    free(t.committed_samples);
    free(t.commits);
    free(t.last_compute);
    free(t.slow_streak);
    return DMLSIM_OK;
}

void train_result_release(struct train_result *res)
{
    free(res->step_s);
    free(res->compute_s);
    free(res->exposed_s);
    free(res->shards);
    free(res->first_push_s);
    if (res->timeline) free(res->timeline->rows);
    free(res->timeline);
    traffic_free(res->traffic);
    memset(res, 0, sizeof *res);
}

double train_throughput(const struct train_result *res)
{
    if (res->total_s <= 0) return 0;
    if (res->read_samples > 0) /* every sample read, whether it ended in the model or not */
        return res->read_samples / res->total_s;
    return res->steps * res->global_batch / res->total_s;
}

double train_efficiency(const struct train_result *res, int batch)
{
    double one_gpu = batch / res->compute1_s;
    return train_throughput(res) / (res->workers * one_gpu);
}

bool train_identities_hold(const struct train_result *res)
{
    double grads = res->applied + res->dropped_stale + res->dropped_late + res->lost_gradients;
    double samples = res->consumed_samples + res->skipped_samples + res->replayed_samples;
    return fabs(res->computed - grads) < 0.5 && fabs(res->read_samples - samples) < 0.5;
}

void train_print_faults(const struct train_result *res, FILE *out)
{
    fprintf(out,
            "#   steps committed  %.0f; step executions lost %.0f; memberships after the "
            "first %.0f; failures reported %.0f; stragglers removed %.0f; final workers %.0f\n",
            res->steps_completed, res->lost_steps, res->membership_changes, res->failures_detected,
            res->removed_stragglers, res->final_workers);
    if (res->membership_changes > 0 && res->final_workers != res->workers && res->nshards == 0)
        fprintf(out,
                "#   elastic          the last membership has %.0f of %d workers: global batch "
                "%.0f x per-GPU batch; by the linear scaling rule (Goyal et al. 2017) the "
                "learning rate scales by %.0f/%d\n",
                res->final_workers, res->workers, res->final_workers, res->final_workers,
                res->workers);
    fprintf(out, "#   detect/recover   longest %.6f s to detect, %.6f s to resume training\n",
            res->max_detect_s, res->max_recover_s);
    fprintf(out, "#   checkpoints      %.0f of %.0f B; writers blocked %.6f s\n", res->checkpoints,
            res->ckpt_B, res->ckpt_overhead_s);
    fprintf(out, "#   goodput          %.1f samples/s (samples in the final model)\n",
            res->total_s > 0 ? res->consumed_samples / res->total_s : 0);
    bool ok = train_identities_hold(res);
    fprintf(out,
            "#   gradients        %.0f computed = %.0f applied + %.0f dropped stale + %.0f "
            "dropped late + %.0f lost to failures\n",
            res->computed, res->applied, res->dropped_stale, res->dropped_late,
            res->lost_gradients);
    fprintf(out,
            "#   samples          %.0f read = %.0f consumed + %.0f skipped corrupt + %.0f "
            "replayed\n",
            res->read_samples, res->consumed_samples, res->skipped_samples, res->replayed_samples);
    fprintf(out, "#   accounting       %s\n", ok ? "both identities hold" : "VIOLATED");
}

void train_print(const struct scenario *sc, const struct train_result *res, FILE *out)
{
    int batch = sc->train.batch;
    fprintf(out, "#%7s %12s %12s %12s %12s\n", "step", "time", "compute", "exposed", "samples/s");
    fprintf(out, "#%7s %12s %12s %12s %12s\n", "", "(ms)", "(ms)", "(ms)", "");
    for (int s = 0; s < res->steps; s++)
        fprintf(out, " %7d %12.3f %12.3f %12.3f %12.1f\n", s + 1, res->step_s[s] * 1e3,
                res->compute_s[s] * 1e3, res->exposed_s[s] * 1e3,
                res->global_batch / res->step_s[s]);
    fprintf(out, "#\n# summary\n");
    fprintf(out, "#   workers          %d, global batch %.0f (%d x %d)\n", res->workers,
            res->global_batch, res->workers, batch);
    fprintf(out, "#   throughput       %.1f samples/s, mean step %.3f ms\n", train_throughput(res),
            res->total_s / res->steps * 1e3);
    fprintf(out, "#   1-GPU step       %.3f ms (compute only): scaling efficiency %.1f%%\n",
            res->compute1_s * 1e3, 100 * train_efficiency(res, batch));
    fprintf(out, "#   gradients        %.0f B per step in %zu bucket(s)\n", res->grad_B,
            res->nbuckets);
    fprintf(out, "#   messages         %.0f sent, %.0f B\n", traffic_messages(res->traffic),
            traffic_bytes(res->traffic));
    for (size_t i = 0; i < traffic_nclasses(res->traffic); i++) {
        double b;
        const char *name = traffic_class(res->traffic, i, &b);
        fprintf(out, "#   bytes on %-10s %.0f B\n", name, b);
    }
    if (res->nshards == 0) {
        fprintf(out, "#   failed collectives %.0f\n", res->failures);
        fprintf(out, "#   idle fraction    %.4f (communication not hidden by compute)\n",
                res->idle_frac);
        train_print_faults(res, out);
        return;
    }
    fprintf(out, "#   idle fraction    %.4f (mean over workers of time not computing)\n",
            res->idle_frac);
    fprintf(out, "#   staleness        applied slices by version lag:");
    for (int i = 0; i < PS_HIST; i++)
        if (res->stale_hist[i] > 0)
            fprintf(out, " %s%d:%.0f", i == PS_HIST - 1 ? ">=" : "", i, res->stale_hist[i]);
    fprintf(out, "\n#   shard versions   max spread %.0f, shards disagreed %.1f%% of the time",
            res->spread_max, 100 * res->spread_frac);
    if (res->coordinator_msgs > 0)
        fprintf(out,
                "; coordinator: %.0f advances received, global version %.0f, largest "
                "disagreement %.0f",
                res->coordinator_msgs, res->coordinator_global, res->coordinator_spread);
    fprintf(out, "\n#   shard imbalance  largest / mean = %.3f\n", res->imbalance);
    fprintf(out, "#   lost updates     %.0f (shard versions lost to crashes)\n", res->lost_updates);
    train_print_faults(res, out);
    fprintf(out, "#\n");
    fprintf(out, "#%6s %14s %12s %14s %14s %9s %9s %12s\n", "shard", "host", "params", "bytes in",
            "bytes out", "util in", "util out", "update");
    fprintf(out, "#%6s %14s %12s %14s %14s %9s %9s %12s\n", "", "", "", "(B)", "(B)", "", "",
            "(ms)");
    for (int k = 0; k < res->nshards; k++) {
        const struct shard_report *r = &res->shards[k];
        double cap = r->link_Bps * res->total_s;
        fprintf(out, " %6d %14s %12.0f %14.0f %14.0f %9.4f %9.4f %12.3f\n", k,
                sg_host_get_name(r->host), r->params, r->bytes_in, r->bytes_out,
                cap > 0 ? r->bytes_in / cap : 0, cap > 0 ? r->bytes_out / cap : 0,
                r->update_s * 1e3);
    }
}

void train_write_csv(const struct train_result *res, int batch, FILE *out)
{
    (void)batch;
    fprintf(out, "kind,t_s,step,time_s,compute_s,exposed_s,samples_per_s,workers,what\n");
    if (res->timeline == NULL || res->timeline->n == 0) { /* no timeline (parameter server) */
        double t = 0;
        for (int s = 0; s < res->steps; s++) {
            t += res->step_s[s];
            fprintf(out, "step,%.9g,%d,%.9g,%.9g,%.9g,%.9g,%d,\n", t, s + 1, res->step_s[s],
                    res->compute_s[s], res->exposed_s[s], res->global_batch / res->step_s[s],
                    res->workers);
        }
        return;
    }
    int s = 0;
    for (size_t i = 0; i < res->timeline->n; i++) {
        const struct timeline_row *r = &res->timeline->rows[i];
        if (strcmp(r->kind, "step") == 0 && s < res->steps) {
            fprintf(out, "step,%.9g,%d,%.9g,%.9g,%.9g,%.9g,%d,\n", r->t_s, r->step, res->step_s[s],
                    res->compute_s[s], res->exposed_s[s], r->samples_s, r->workers);
            s++;
        } else {
            fprintf(out, "%s,%.9g,%d,,,,,%d,\"%s\"\n", r->kind, r->t_s, r->step, r->workers,
                    r->what);
        }
    }
}

void train_write_json(const struct scenario *sc, const struct model *m,
                      const struct train_result *res, FILE *out)
{
    const struct train_spec *ts = &sc->train;
    fprintf(out, "{\n  \"scenario\": ");
    trace_json_string(out, sc->name);
    fprintf(out, ",\n  \"seed\": %lu,\n  \"model\": ", sc->seed);
    trace_json_string(out, m->name);
    fprintf(out, ",\n  \"parameters\": %.0f,\n  \"algo\": ", model_params(m));
    trace_json_string(out, ts->algo->name);
    fprintf(out, ",\n  \"level\": \"%s\",\n  \"dtype\": \"%s\",\n  \"optimizer\": \"%s\",\n",
            ts->level == COLL_FLOW ? "flow" : "message", catalog_dtype_name(ts->dtype),
            model_optimizer_name(ts->opt));
    fprintf(out, "  \"workers\": %d,\n  \"batch_per_gpu\": %d,\n  \"global_batch\": %.0f,\n",
            res->workers, ts->batch, res->global_batch);
    fprintf(out, "  \"bucket_bytes\": %.0f,\n  \"buckets\": %zu,\n  \"overlap\": %s,\n",
            ts->bucket_B, res->nbuckets, ts->overlap ? "true" : "false");
    fprintf(out,
            "  \"memory_per_gpu_bytes\": {\"weights\": %.0f, \"gradients\": %.0f, "
            "\"optimizer\": %.0f, \"activations\": %.0f, \"total\": %.0f},\n",
            res->mem.weights_B, res->mem.grads_B, res->mem.optimizer_B, res->mem.act_B,
            res->mem.total_B);
    fprintf(out, "  \"steps\": [\n");
    for (int s = 0; s < res->steps; s++)
        fprintf(out,
                "    {\"step\": %d, \"time_s\": %.9g, \"compute_s\": %.9g, "
                "\"exposed_s\": %.9g}%s\n",
                s + 1, res->step_s[s], res->compute_s[s], res->exposed_s[s],
                s + 1 < res->steps ? "," : "");
    fprintf(out,
            "  ],\n  \"summary\": {\"throughput_samples_per_s\": %.9g, "
            "\"mean_step_s\": %.9g, \"one_gpu_step_s\": %.9g, \"scaling_efficiency\": %.9g, "
            "\"messages\": %.0f, \"bytes\": %.0f, \"failed_collectives\": %.0f,\n"
            "    \"bytes_per_link_class\": {",
            train_throughput(res), res->total_s / res->steps, res->compute1_s,
            train_efficiency(res, ts->batch), traffic_messages(res->traffic),
            traffic_bytes(res->traffic), res->failures);
    for (size_t i = 0; i < traffic_nclasses(res->traffic); i++) {
        double b;
        const char *name = traffic_class(res->traffic, i, &b);
        fprintf(out, "%s", i ? ", " : "");
        trace_json_string(out, name);
        fprintf(out, ": %.0f", b);
    }
    fprintf(out, "},\n    \"idle_fraction\": %.9g", res->idle_frac);
    if (res->nshards > 0) {
        fprintf(out,
                ",\n    \"gradient_slices\": {\"computed\": %.0f, \"applied\": %.0f, "
                "\"dropped_stale\": %.0f, \"dropped_late\": %.0f},\n    \"staleness\": [",
                res->computed, res->applied, res->dropped_stale, res->dropped_late);
        for (int i = 0; i < PS_HIST; i++)
            fprintf(out, "%s%.0f", i ? ", " : "", res->stale_hist[i]);
        fprintf(out,
                "],\n    \"shard_imbalance\": %.9g, \"version_spread_max\": %.0f,\n"
                "    \"shards\": [",
                res->imbalance, res->spread_max);
        for (int k = 0; k < res->nshards; k++) {
            const struct shard_report *r = &res->shards[k];
            fprintf(out, "%s\n      {\"host\": ", k ? "," : "");
            trace_json_string(out, sg_host_get_name(r->host));
            fprintf(out,
                    ", \"params\": %.0f, \"bytes_in\": %.0f, \"bytes_out\": %.0f, "
                    "\"update_s\": %.9g}",
                    r->params, r->bytes_in, r->bytes_out, r->update_s);
        }
        fprintf(out, "]");
    }
    fprintf(out, "}\n}\n");
}

void train_write_summary(const struct scenario *sc, const struct train_result *res, FILE *out)
{
    fprintf(out, "%8s %8s %12s %12s %10s %12s %12s %8s %10s %12s\n", "gpus", "batch", "step_ms",
            "samples/s", "eff", "exposed_ms", "messages", "idle", "dropped", "goodput");
    double exposed = 0;
    for (int s = 0; s < res->steps; s++)
        exposed += res->exposed_s[s];
    double goodput = res->nshards > 0 && res->total_s > 0 ? res->applied_samples / res->total_s
                                                          : train_throughput(res);
    fprintf(out, "%8d %8.0f %12.3f %12.1f %10.4f %12.3f %12.0f %8.4f %10.0f %12.1f\n", res->workers,
            res->global_batch, res->total_s / res->steps * 1e3, train_throughput(res),
            train_efficiency(res, sc->train.batch), exposed / res->steps * 1e3,
            traffic_messages(res->traffic), res->idle_frac, res->dropped_stale + res->dropped_late,
            goodput);
}
