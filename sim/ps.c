/* ps.c - parameter-server training (see ps.h). */
#include "ps.h"

#include "ckpt.h"
#include "fault.h"
#include "net.h"
#include "traffic.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_B          64.0    /* a pull request or a verdict: a small control message */
#define CATALOG_CPU_MEM_BW 204.8e9 /* AMD EPYC 7742: 8 channels of DDR4-3200 x 25.6 GB/s */
#define CPU_MEM_EFF        0.92    /* memory-bound kernels, as the GPU default (calib.c) */

enum msg_type { MSG_PULL, MSG_PUSH, MSG_PARAMS, MSG_VERDICT, MSG_ADVANCE };

struct push_rec {
    int worker;       /* who pushed */
    int version;      /* version the gradient was computed from */
    int accepted;     /* async: the shard's verdict */
    sg_sem_t decided; /* async: released when the verdict is set */
    struct push_rec *next;
};

struct ps_msg {
    enum msg_type type;
    int version;  /* PULL: version needed; PUSH/PARAMS: version of the data */
    int accepted; /* VERDICT */
    int shard;    /* ADVANCE: who advanced */
};

struct ps_ctx;

struct shard {
    struct ps_ctx *c;
    int id;
    int incarnation;     /* restarts of its host */
    double *applied_at;  /* per version: slices applied into it */
    struct ckpt ckpt;    /* this shard's checkpoints */
    double ckpt_version; /* the version its last counted checkpoint holds */
    double last_ckpt_s;  /* when it last started one */
    sg_host_t host;
    double params, bytes;         /* parameters owned, and their gradient/parameter bytes */
    double update_amt;            /* exec amount of one update on the shard's host */
    int version;                  /* current version */
    double *version_s;            /* time each version was reached */
    int nversions;                /* versions reached, counting version 0 */
    bool *waiting;                /* per worker: its port waits for a newer version */
    sg_sem_t *wake;               /* per worker: released to wake that port */
    sg_sem_t arrived;             /* one release per queued push */
    struct push_rec *head, *tail; /* pushes not yet taken by the shard */
    struct shard_report *rep;     /* its report */
};

struct ps_worker {
    struct ps_ctx *c;
    int rank;
    double *fwd_amt;                       /* per layer: exec amount of its forward for one batch */
    double *bwd_amt;                       /* per layer: exec amount of its backward */
    double busy_s;                         /* computing */
    double end_s;                          /* when it finished */
    double *iter_s;                        /* per iteration: duration */
    double *iter_busy;                     /* per iteration: compute */
    int next_it;                           /* the iteration it is at (kept across restarts) */
    int incarnation;                       /* restarts of its host */
    bool in_step, in_corrupt, in_computed; /* where a crash caught it */
    int delivered;                         /* slices of this iteration its shards' ports received */
};

struct port {
    struct shard *s;
    int worker;
};

struct ps_ctx {
    const struct scenario *sc;
    const struct model *m;
    const struct platform *pf;
    int P, K, quorum;
    double total_versions; /* versions each shard may reach */
    struct shard *shards;
    struct ps_worker *workers;
    struct port *ports;
    struct traffic *traffic;
    struct train_result *res;
    sg_host_t coord_host; /* coordinator's host, or NULL */
    int workers_done;     /* workers that finished every iteration */
};

static sg_mailbox_t mbox(const char *fmt, int a, int b)
{
    char name[48];
    snprintf(name, sizeof name, fmt, a, b);
    return sg_mailbox_by_name(name);
}

static sg_mailbox_t to_port(int k, int r)
{
    return mbox("ps%d<w%d", k, r);
}

static sg_mailbox_t to_worker(int r, int k)
{
    return mbox("w%d<ps%d", r, k);
}

static struct ps_msg *msg_new(enum msg_type type, int version)
{
    struct ps_msg *m = xbt_new0(struct ps_msg, 1);
    m->type = type;
    m->version = version;
    return m;
}

/* Sends and accounts; a message that did not go through stays ours and is freed. */
static enum net_status send_msg(struct ps_ctx *c, sg_host_t from, sg_host_t to, sg_mailbox_t mb,
                                struct ps_msg *m, double size_B)
{
    traffic_add(c->traffic, from, to, size_B);
    enum net_status st = net_send(mb, m, size_B, c->sc->train.timeout_s);
    if (st != NET_OK) free(m);
    return st;
}

/* ---- worker ------------------------------------------------------------------------------- */

#define RETRY_S 0.05 /* a worker retries a dead shard after this */

static void lose_slices(struct ps_ctx *c, double n)
{
    c->res->lost_gradients += n;
    c->res->replayed_samples += n * c->sc->train.batch / c->K;
}

/* A worker killed by a crash: slices computed but not delivered are lost; a batch read but not
 * computed will be read again. */
static void on_worker_exit(int failed, void *data)
{
    struct ps_worker *w = data;
    struct ps_ctx *c = w->c;
    if (!failed || !w->in_step) return;
    if (w->in_computed) /* what its shards did not receive (the ports count receipts) */
        lose_slices(c, c->K - w->delivered);
    else if (!w->in_corrupt)
        c->res->replayed_samples += c->sc->train.batch;
    w->in_step = false;
}

/* Pulls every shard's parameters; a shard that does not answer is asked again until it does
 * (its keys are blocked) or the replacement timeout passes. Fills version[]. */
static void pull_all(struct ps_worker *w, int it, int *version)
{
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    sg_host_t me = c->pf->gpus[w->rank];
    bool *got = xbt_new0(bool, c->K);
    sg_comm_t *comms = xbt_new(sg_comm_t, 2 * c->K);
    struct ps_msg **in = xbt_new0(struct ps_msg *, c->K);
    double give_up = simgrid_get_clock() + c->sc->rec.replacement_s;
    for (int left = c->K; left > 0;) {
        for (int k = 0; k < c->K; k++) {
            if (got[k]) continue;
            struct ps_msg *req = msg_new(MSG_PULL, ts->ps.mode == PS_SYNC ? it : 0);
            traffic_add(c->traffic, me, c->shards[k].host, REQUEST_B);
            comms[k] = net_isend(to_port(k, w->rank), req, REQUEST_B);
            comms[c->K + k] = net_irecv(to_worker(w->rank, k), (void **)&in[k]);
        }
        double end = simgrid_get_clock() + ts->timeout_s;
        for (int k = 0; k < c->K; k++) {
            if (got[k]) continue;
            net_wait(comms[k], end);
            if (net_wait(comms[c->K + k], end) == NET_OK && in[k] != NULL) {
                version[k] = in[k]->version;
                got[k] = true;
                left--;
            }
            free(in[k]);
            in[k] = NULL;
        }
        if (left > 0) {
            if (simgrid_get_clock() >= give_up) break;
            sg_actor_sleep_for(RETRY_S);
        }
    }
    free(got);
    free(comms);
    free(in);
}

static void worker_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    sg_host_t me = c->pf->gpus[w->rank];
    const char *host = sg_host_get_name(me);
    double deadline_span = ts->timeout_s;
    sg_comm_t *comms = xbt_new(sg_comm_t, 2 * c->K);
    struct ps_msg **in = xbt_new0(struct ps_msg *, c->K);
    int *version = xbt_new0(int, c->K);
    sg_actor_on_exit(on_worker_exit, w);
    for (; w->next_it < ts->steps; w->next_it++) {
        int it = w->next_it;
        double t0 = simgrid_get_clock(), busy = 0;
        bool corrupt = fault_is_corrupt(&c->pf->plan, host, it);
        double scale = corrupt ? 0 : fault_jitter(&c->pf->plan, w->rank, it);
        c->res->read_samples += ts->batch;
        w->in_step = true;
        w->in_corrupt = corrupt;
        w->in_computed = false;
        w->delivered = 0;
        if (corrupt) c->res->skipped_samples += ts->batch;
        pull_all(w, it, version);
        struct trace *tr = c->res->trace;
        trace_slice(tr, w->rank, "pull", t0, simgrid_get_clock());
        double tc = simgrid_get_clock();
        const struct model *m = c->m;
        double work = 0; /* forward and backward back to back: one exec (see train.c) */
        for (size_t l = 0; l < m->nlayers; l++)
            work += w->fwd_amt[l] + w->bwd_amt[l];
        busy += train_timed_exec(work * scale);
        trace_slice(tr, w->rank, "forward+backward", tc, simgrid_get_clock());
        if (corrupt) { /* nothing to push: the batch is skipped */
            w->in_step = false;
            goto next;
        }
        c->res->computed += c->K;
        w->in_computed = true;
        /* push every shard's slice at once, stamped with the version it came from */
        for (int k = 0; k < c->K; k++) {
            struct ps_msg *g = msg_new(MSG_PUSH, version[k]);
            traffic_add(c->traffic, me, c->shards[k].host, c->shards[k].bytes);
            comms[k] = net_isend(to_port(k, w->rank), g, c->shards[k].bytes);
        }
        double push0 = simgrid_get_clock();
        double end = push0 + deadline_span;
        for (int k = 0; k < c->K; k++)
            net_wait(comms[k], end); /* the ports count what arrives in w->delivered */
        /* a transfer that ends exactly at the deadline can still reach its port: let the ports
         * that run at this same instant count it before we count what was lost */
        sg_actor_yield();
        trace_slice(c->res->trace, w->rank, "push", push0, simgrid_get_clock());
        lose_slices(c, c->K - w->delivered);
        w->in_step = false;
        if (it == 0) c->res->first_push_s[w->rank] = simgrid_get_clock() - push0;
        if (ts->ps.mode == PS_ASYNC) { /* each shard's verdict */
            for (int k = 0; k < c->K; k++)
                comms[k] = net_irecv(to_worker(w->rank, k), (void **)&in[k]);
            end = simgrid_get_clock() + deadline_span;
            for (int k = 0; k < c->K; k++) {
                net_wait(comms[k], end);
                free(in[k]);
                in[k] = NULL;
            }
        }
    next:
        w->iter_s[it] = simgrid_get_clock() - t0;
        w->iter_busy[it] = busy;
        w->busy_s += busy;
    }
    w->end_s = simgrid_get_clock();
    c->workers_done++;
    free(comms);
    free(in);
    free(version);
}

/* ---- ports -------------------------------------------------------------------------------- */

static void enqueue(struct shard *s, struct push_rec *rec)
{
    if (s->tail)
        s->tail->next = rec;
    else
        s->head = rec;
    s->tail = rec;
    sg_sem_release(s->arrived);
}

static void port_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct port *p = sg_actor_self_get_data();
    struct shard *s = p->s;
    struct ps_ctx *c = s->c;
    const struct train_spec *ts = &c->sc->train;
    sg_host_t worker = c->pf->gpus[p->worker];
    for (;;) { /* a daemon: serves its worker for as long as the run lasts */
        struct ps_msg *m;
        if (net_recv(to_port(s->id, p->worker), (void **)&m, 1e9) != NET_OK) continue;
        if (m->type == MSG_PULL) {
            /* sync: wait for the version the worker needs, but not past the deadline (a shard
             * that lost workers or state moves on) */
            double end = simgrid_get_clock() + ts->timeout_s;
            /* Actors only interleave at simulation calls, so checking the version and waiting
             * on this port's own semaphore needs no lock; advance() wakes every waiting port. */
            while (s->version < m->version && simgrid_get_clock() < end) {
                s->waiting[p->worker] = true;
                sg_sem_acquire_timeout(s->wake[p->worker], end - simgrid_get_clock());
                s->waiting[p->worker] = false;
            }
            int v = s->version;
            free(m);
            s->rep->bytes_out += s->bytes;
            send_msg(c, s->host, worker, to_worker(p->worker, s->id), msg_new(MSG_PARAMS, v),
                     s->bytes);
            continue;
        }
        s->rep->bytes_in += s->bytes;
        c->workers[p->worker].delivered++;
        struct push_rec *rec = xbt_new0(struct push_rec, 1);
        rec->worker = p->worker;
        rec->version = m->version;
        free(m);
        bool async = ts->ps.mode == PS_ASYNC;
        if (async) rec->decided = sg_sem_init(0);
        enqueue(s, rec);
        if (async) {
            sg_sem_acquire(rec->decided);
            struct ps_msg *v = msg_new(MSG_VERDICT, s->version);
            v->accepted = rec->accepted;
            sg_sem_destroy(rec->decided);
            free(rec);
            send_msg(c, s->host, worker, to_worker(p->worker, s->id), v, REQUEST_B);
        }
    }
}

/* ---- shard -------------------------------------------------------------------------------- */

/* The next queued push, or NULL if none came by the deadline (timeout < 0: wait forever). */
static struct push_rec *take(struct shard *s, double timeout)
{
    if (timeout < 0)
        sg_sem_acquire(s->arrived);
    else if (sg_sem_acquire_timeout(s->arrived, timeout) != 0)
        return NULL;
    struct push_rec *rec = s->head;
    s->head = rec->next;
    if (s->head == NULL) s->tail = NULL;
    rec->next = NULL;
    return rec;
}

static void advance(struct shard *s)
{
    struct ps_ctx *c = s->c;
    double t0 = simgrid_get_clock();
    if (s->update_amt > 0) sg_actor_execute(s->update_amt);
    s->rep->update_s += simgrid_get_clock() - t0;
    trace_slice(c->res->trace, c->P + s->id, "update", t0, simgrid_get_clock());
    s->version++;
    if (s->version >= s->nversions) /* a first visit of this version (not a replay) */
        s->version_s[s->nversions++] = simgrid_get_clock();
    for (int r = 0; r < c->P; r++)
        if (s->waiting[r]) {
            s->waiting[r] = false;
            sg_sem_release(s->wake[r]);
        }
    s->rep->versions += 1;
    if (c->coord_host != NULL) {
        struct ps_msg *a = msg_new(MSG_ADVANCE, s->version);
        a->shard = s->id;
        send_msg(c, s->host, c->coord_host, sg_mailbox_by_name("coordinator"), a, REQUEST_B);
    }
    if (c->sc->ckpt.present &&
        ckpt_due(&s->ckpt, s->version, s->last_ckpt_s, simgrid_get_clock())) {
        s->last_ckpt_s = simgrid_get_clock();
        ckpt_write(&s->ckpt, s->host, s->version, s->version, &s->ckpt_version);
    }
}

static void record_applied(struct ps_ctx *c, struct shard *s, int lag)
{
    c->res->applied += 1;
    c->res->stale_hist[lag < PS_HIST - 1 ? lag : PS_HIST - 1] += 1;
    c->res->applied_samples += (double)c->sc->train.batch / c->K;
    s->applied_at[s->version] += 1;
}

static void shard_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct shard *s = sg_actor_self_get_data();
    struct ps_ctx *c = s->c;
    const struct ps_spec *ps = &c->sc->train.ps;
    if (s->incarnation > 0 && c->sc->ckpt.present) /* restart: reload this shard's checkpoint */
        ckpt_restore(&s->ckpt, s->host);
    if (ps->mode == PS_SYNC) {
        /* collect each version's quorum; after the deadline go on with what came */
        while (s->version < c->sc->train.steps) {
            int got = 0, v = s->version;
            while (got < c->quorum) {
                struct push_rec *rec = take(s, c->sc->train.timeout_s);
                if (rec == NULL) break;
                if (rec->version == v) {
                    got++;
                    record_applied(c, s, 0);
                } else {
                    c->res->dropped_late += 1; /* computed from an older version */
                    c->res->replayed_samples += (double)c->sc->train.batch / c->K;
                }
                free(rec);
            }
            if (got == 0 && c->workers_done == c->P) break;
            advance(s);
        }
    } else {
        for (;;) { /* a daemon: the run ends with the workers */
            struct push_rec *rec = take(s, -1);
            int lag = s->version - rec->version;
            rec->accepted = lag >= 0 && lag <= ps->staleness;
            if (rec->accepted) {
                record_applied(c, s, lag);
                advance(s);
            } else {
                c->res->dropped_stale += 1;
                c->res->replayed_samples += (double)c->sc->train.batch / c->K;
            }
            sg_sem_release(rec->decided);
        }
    }
}

/* ---- faults ------------------------------------------------------------------------------- */

static void start(const char *fmt, int a, int b, sg_host_t host, xbt_main_func_t code, void *data,
                  bool daemon)
{
    char name[48];
    snprintf(name, sizeof name, fmt, a, b);
    sg_actor_t actor = sg_actor_init(name, host);
    sg_actor_set_data(actor, data);
    if (daemon) sg_actor_daemonize(actor);
    sg_actor_start(actor, code, 0, NULL);
}

static void start_shard(struct ps_ctx *c, struct shard *s)
{
    s->arrived = sg_sem_init(0); /* fresh: the old ones may have died with their holders */
    free(s->waiting);
    free(s->wake);
    s->waiting = xbt_new0(bool, c->P);
    s->wake = xbt_new0(sg_sem_t, c->P);
    for (int r = 0; r < c->P; r++)
        s->wake[r] = sg_sem_init(0);
    start("shard-%d.%d", s->id, s->incarnation, s->host, shard_actor, s,
          c->sc->train.ps.mode == PS_ASYNC);
    for (int r = 0; r < c->P; r++) {
        struct port *p = &c->ports[(size_t)s->id * c->P + r];
        p->s = s;
        p->worker = r;
        start("port-%d-%d", s->id, r, s->host, port_actor, p, true);
    }
}

/* A shard's host crashed: everything since its checkpoint is gone. */
static void shard_crashed(struct ps_ctx *c, struct shard *s)
{
    int keep = c->sc->ckpt.present ? (int)s->ckpt_version : 0;
    for (int v = keep; v < s->version; v++) {
        c->res->lost_updates += 1;
        c->res->applied -= s->applied_at[v];
        c->res->applied_samples -= s->applied_at[v] * c->sc->train.batch / c->K;
        lose_slices(c, s->applied_at[v]);
        s->applied_at[v] = 0;
    }
    s->version = keep;
    while (s->head) { /* pushes waiting in its queue die with it */
        struct push_rec *r = s->head;
        s->head = r->next;
        lose_slices(c, 1);
        free(r);
    }
    s->tail = NULL;
}

static void ps_injector(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_ctx *c = sg_actor_self_get_data();
    const struct fault_plan *plan = &c->pf->plan;
    for (size_t i = 0; i < plan->n && plan->ev[i].t_s >= 0; i++) {
        const struct fault_event *e = &plan->ev[i];
        if (e->t_s > simgrid_get_clock()) sg_actor_sleep_until(e->t_s);
        sg_host_t h = sg_host_by_name(e->target);
        if (h == NULL || h == c->pf->storage) continue;
        if (e->kind == FAULT_CRASH && sg_host_is_on(h)) {
            for (int k = 0; k < c->K; k++)
                if (c->shards[k].host == h) shard_crashed(c, &c->shards[k]);
            sg_host_turn_off(h);
        } else if (e->kind == FAULT_RESTART && !sg_host_is_on(h)) {
            sg_host_turn_on(h);
            for (int k = 0; k < c->K; k++)
                if (c->shards[k].host == h) {
                    c->shards[k].incarnation++;
                    start_shard(c, &c->shards[k]);
                }
            for (int r = 0; r < c->P; r++)
                if (c->pf->gpus[r] == h && c->workers[r].next_it < c->sc->train.steps)
                    start("worker-%d.%d", r, ++c->workers[r].incarnation, h, worker_actor,
                          &c->workers[r], false);
        } else if (e->kind == FAULT_SLOW || e->kind == FAULT_SLOW_END) {
            if (sg_host_is_on(h))
                sg_host_set_pstate(h, e->kind == FAULT_SLOW ? (unsigned long)e->step : 0);
        }
    }
}

static void coordinator_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_ctx *c = sg_actor_self_get_data();
    int *ver = xbt_new0(int, c->K);
    for (;;) { /* a daemon: ends with the simulation */
        struct ps_msg *m;
        if (net_recv(sg_mailbox_by_name("coordinator"), (void **)&m, c->sc->train.timeout_s) !=
            NET_OK)
            break;
        c->res->coordinator_msgs += 1;
        ver[m->shard] = m->version;
        free(m);
        int lo = ver[0], hi = ver[0];
        for (int k = 1; k < c->K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        c->res->coordinator_global = lo; /* the version every shard has reached */
        if (hi - lo > c->res->coordinator_spread) c->res->coordinator_spread = hi - lo;
    }
    free(ver);
}

/* ---- setup -------------------------------------------------------------------------------- */

void ps_split(const struct model *m, int K, bool by_bytes, double *out)
{
    for (int k = 0; k < K; k++)
        out[k] = 0;
    if (by_bytes) {
        for (int k = 0; k < K; k++)
            out[k] = model_params(m) / K;
        return;
    }
    for (size_t l = 0; l < m->nlayers; l++)
        out[l % K] += m->layers[l].params;
}

static sg_host_t shard_host(const struct scenario *sc, const struct platform *pf, int k)
{
    if (sc->train.ps.dedicated) return pf->nps ? pf->ps_hosts[k % pf->nps] : NULL;
    return pf->ncpus ? pf->cpu_hosts[k % pf->ncpus] : NULL;
}

enum dmlsim_err ps_check(const struct scenario *sc, const struct platform *pf,
                         const struct model *m, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    const struct ps_spec *ps = &ts->ps;
    enum dmlsim_err rc = train_check_workers(sc, pf, m, err);
    if (rc != DMLSIM_OK) return rc;
    int P = train_workers(sc, pf);
    if (shard_host(sc, pf, 0) == NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <ps placement=\"%s\">: the platform has no %s hosts; expected "
                           "%s",
                           sc->path, ps->line, ps->dedicated ? "dedicated" : "colocated",
                           ps->dedicated ? "parameter-server" : "node CPU",
                           ps->dedicated ? "ps-nodes=\"K\" on <cluster> (or hosts with property "
                                           "role=ps)"
                                         : "hosts with property role=cpu");
    if (ps->mode == PS_SYNC && ps->backup >= P)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <ps backup-workers=\"%d\">: with %d worker(s) no push would be "
                           "waited for; expected fewer than %d",
                           sc->path, ps->line, ps->backup, P, P);
    return DMLSIM_OK;
}

/* Disagreement between shards: walk every advance in time order. */
static void version_spread(struct ps_ctx *c, double total_s)
{
    int K = c->K, *idx = xbt_new0(int, K), *ver = xbt_new0(int, K);
    double last = 0, disagree = 0;
    for (;;) {
        int next = -1;
        for (int k = 0; k < K; k++)
            if (idx[k] + 1 < c->shards[k].nversions &&
                (next < 0 ||
                 c->shards[k].version_s[idx[k] + 1] < c->shards[next].version_s[idx[next] + 1]))
                next = k;
        if (next < 0) break;
        double t = c->shards[next].version_s[idx[next] + 1];
        int lo = ver[0], hi = ver[0];
        for (int k = 1; k < K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        if (hi > lo) disagree += t - last;
        last = t;
        idx[next]++;
        ver[next]++;
        lo = hi = ver[0];
        for (int k = 1; k < K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        if (hi - lo > c->res->spread_max) c->res->spread_max = hi - lo;
    }
    c->res->spread_frac = total_s > 0 ? disagree / total_s : 0;
    free(idx);
    free(ver);
}

enum dmlsim_err ps_run(const struct scenario *sc, const struct platform *pf, const struct model *m,
                       const struct calib *cal, struct train_result *res, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    enum dmlsim_err rc = ps_check(sc, pf, m, err);
    if (rc != DMLSIM_OK) return rc;
    struct ps_ctx c = {.sc = sc, .m = m, .pf = pf, .res = res};
    memset(res, 0, sizeof *res);
    c.P = train_workers(sc, pf);
    c.K = ts->ps.shards;
    res->first_push_s = xbt_new0(double, c.P);
    if (ts->trace) {
        res->trace = trace_new();
        for (int r = 0; r < c.P; r++) {
            char *a = bprintf("worker %d (%s)", r, sg_host_get_name(pf->gpus[r]));
            trace_track(res->trace, r, a);
            free(a);
        }
        for (int k = 0; k < c.K; k++) {
            char *a = bprintf("shard %d", k);
            trace_track(res->trace, c.P + k, a);
            free(a);
        }
    }
    c.quorum = ts->ps.mode == PS_SYNC ? c.P - ts->ps.backup : 1;
    c.total_versions = ts->ps.mode == PS_SYNC ? ts->steps : (double)c.P * ts->steps;
    c.traffic = res->traffic = traffic_new();
    res->nshards = c.K;
    res->shards = xbt_new0(struct shard_report, c.K);
    double *split = xbt_new0(double, c.K), elem_B = model_dtype_bytes(ts->dtype);
    ps_split(m, c.K, ts->ps.split_bytes, split);
    double cpu_Bps = CATALOG_CPU_MEM_BW * CPU_MEM_EFF;
    double per_param_B = model_update_bytes_per_param(ts->dtype, ts->opt), biggest = 0;
    c.shards = xbt_new0(struct shard, c.K);
    for (int k = 0; k < c.K; k++) {
        struct shard *s = &c.shards[k];
        s->c = &c;
        s->id = k;
        s->host = shard_host(sc, pf, k);
        s->params = split[k];
        s->bytes = split[k] * elem_B;
        s->update_amt = split[k] * per_param_B / cpu_Bps * sg_host_get_speed(s->host);
        s->version_s = xbt_new0(double, (size_t)c.total_versions + 2);
        s->applied_at = xbt_new0(double, (size_t)c.total_versions + 2);
        s->nversions = 1; /* version 0 at time 0 */
        ckpt_init(&s->ckpt, sc, pf, ckpt_size(m, split[k], ts->dtype, ts->opt), NULL);
        s->rep = &res->shards[k];
        s->rep->host = s->host;
        s->rep->params = split[k];
        s->rep->link_Bps = sg_host_get_route_bandwidth(pf->gpus[0], s->host);
        biggest = fmax(biggest, split[k]);
    }
    c.ports = xbt_new0(struct port, (size_t)c.K * c.P);
    for (int k = 0; k < c.K; k++)
        start_shard(&c, &c.shards[k]);
    res->imbalance = model_params(m) > 0 ? biggest / (model_params(m) / c.K) : 1;
    if (ts->ps.coordinator) {
        c.coord_host = c.shards[0].host;
        sg_actor_t a = sg_actor_init("coordinator", c.coord_host);
        sg_actor_set_data(a, &c);
        sg_actor_daemonize(a); /* it serves as long as the shards run, then goes with them */
        sg_actor_start(a, coordinator_actor, 0, NULL);
    }
    c.workers = xbt_new0(struct ps_worker, c.P);
    for (int r = 0; r < c.P; r++) {
        struct ps_worker *w = &c.workers[r];
        w->c = &c;
        w->rank = r;
        train_layer_amounts(cal, pf->models[r], pf->gpus[r], ts->dtype, m, ts->batch, &w->fwd_amt,
                            &w->bwd_amt);
        w->iter_s = xbt_new0(double, ts->steps);
        w->iter_busy = xbt_new0(double, ts->steps);
        start("worker-%d.%d", r, 0, pf->gpus[r], worker_actor, w, false);
    }
    if (pf->plan.n > 0)
        start("injector%.0d%.0d", 0, 0, pf->storage ? pf->storage : pf->gpus[0], ps_injector, &c,
              true);
    simgrid_run();

    /* results */
    res->workers = c.P;
    res->steps = ts->steps;
    /* sync: the samples of one version (its quorum); async: one round of every worker */
    res->global_batch = (double)(ts->ps.mode == PS_SYNC ? c.quorum : c.P) * ts->batch;
    for (int k = 0; k < c.K; k++)
        for (struct push_rec *r = c.shards[k].head; r; r = r->next) {
            res->dropped_late += 1; /* arrived after the shard's last version */
            res->replayed_samples += (double)ts->batch / c.K;
        }
    res->consumed_samples = res->applied_samples;
    res->steps_completed = INFINITY;
    for (int k = 0; k < c.K; k++) {
        res->steps_completed = fmin(res->steps_completed, c.shards[k].version);
        res->checkpoints += c.shards[k].ckpt.completed;
        res->ckpt_overhead_s += c.shards[k].ckpt.overhead_s;
        res->ckpt_B += c.shards[k].ckpt.size_B;
    }
    res->final_workers = c.workers_done;
    res->step_s = xbt_new0(double, ts->steps);
    res->compute_s = xbt_new0(double, ts->steps);
    res->exposed_s = xbt_new0(double, ts->steps);
    double end = 0, busy0 = 0, idle = 0;
    for (int r = 0; r < c.P; r++) {
        end = fmax(end, c.workers[r].end_s);
        idle += c.workers[r].end_s > 0 ? 1 - c.workers[r].busy_s / c.workers[r].end_s : 0;
    }
    res->idle_frac = idle / c.P;
    double prev = 0;
    for (int s = 0; s < ts->steps; s++) {
        if (ts->ps.mode == PS_SYNC) { /* step s ends when every shard reached version s + 1 */
            double t = 0;
            for (int k = 0; k < c.K; k++)
                t = fmax(t, s + 1 < c.shards[k].nversions ? c.shards[k].version_s[s + 1] : end);
            res->step_s[s] = fmax(0, t - prev);
            prev = fmax(prev, t);
        } else { /* async: worker 0's iterations */
            res->step_s[s] = c.workers[0].iter_s[s];
        }
        res->compute_s[s] = c.workers[0].iter_busy[s];
        res->exposed_s[s] = fmax(0, res->step_s[s] - res->compute_s[s]);
        busy0 += c.workers[0].iter_busy[s];
    }
    res->total_s = ts->ps.mode == PS_SYNC ? prev : end;
    res->compute1_s = busy0 / ts->steps;
    res->grad_B = model_params(m) * elem_B;
    res->nbuckets = (size_t)c.K;
    res->messages = traffic_messages(c.traffic);
    res->mem = model_memory(m, ts->dtype, ts->opt, ts->batch);
    version_spread(&c, res->total_s);

    for (int k = 0; k < c.K; k++) {
        struct shard *s = &c.shards[k];
        while (s->head) {
            struct push_rec *r = s->head;
            s->head = r->next;
            free(r);
        }
        free(s->version_s);
        free(s->applied_at);
        free(s->waiting);
        free(s->wake);
    }
    for (int r = 0; r < c.P; r++) {
        free(c.workers[r].iter_s);
        free(c.workers[r].iter_busy);
        free(c.workers[r].fwd_amt);
        free(c.workers[r].bwd_amt);
    }
    free(c.workers);
    free(c.ports);
    free(c.shards);
    free(split);
    return DMLSIM_OK;
}
