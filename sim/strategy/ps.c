/* ps.c - parameter-server training (see ps.h). */
#include "ps.h"

#include "ckpt.h"
#include "inject.h"
#include "loader.h"
#include "net.h"
#include "owned.h"
#include "psnum.h"
#include "semset.h"
#include "trace.h"
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

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_B          64.0    /* a pull request or a verdict: a small control message */
#define CATALOG_CPU_MEM_BW 204.8e9 /* AMD EPYC 7742: 8 channels of DDR4-3200 x 25.6 GB/s */
#define CPU_MEM_EFF        0.92    /* memory-bound kernels, as the GPU default (calib.c) */

enum msg_type { MSG_PULL, MSG_PUSH, MSG_PARAMS, MSG_VERDICT, MSG_ADVANCE, MSG_GRAD, MSG_GLOBAL };

struct push_rec {
    int worker;       /* who pushed */
    int version;      /* version the gradient was computed from */
    int it;           /* the worker's iteration (prefetch: the version it is for) */
    double samples;   /* the samples its gradient covers */
    int accepted;     /* async: the shard's verdict */
    bool empty;       /* sync: a worker with nothing to push says so (no gradient) */
    sg_sem_t decided; /* async: released when the verdict is set */
    struct ps_msg *m; /* numerics: the push, with its gradient (freed with the record) */
    struct push_rec *next;
};

struct ps_msg {
    enum msg_type type;
    int version;  /* PULL: version needed; PUSH/PARAMS: version of the data */
    int it;         /* PUSH: the worker's iteration; PARAMS to a follower: the leader's */
    double samples; /* PUSH: samples the slice covers; GRAD: samples of a follower's gradient */
    int accepted;   /* VERDICT */
    int shard;    /* ADVANCE: who advanced; GLOBAL: the asking worker's rank */
    int exact;      /* PULL: answer with the parameters of exactly `version` (coordinator) */
    int buf;        /* GLOBAL: which of the worker's actors asks (its shard_bufs) */
    size_t n;       /* numerics: floats in data */
    int grads;      /* numerics, PUSH and GRAD: the workers' gradients summed in data */
    int empty;      /* PUSH, sync: no gradient (every batch of the push was corrupt) */
    float data[];   /* numerics: PARAMS, the shard's parameters; PUSH, its slice of a gradient */
};

/* An actor's buffers for the K shards; kept in its worker, since a crash kills it mid-use. */
struct shard_bufs {
    bool *got;
    sg_comm_t *comms;   /* 4 x K */
    struct ps_msg **in; /* 3 x K */
    int *version;       /* K */
    float *params;      /* numerics: the parameters pulled (every shard's slice) */
};

struct ps_ctx;

struct shard {
    struct ps_ctx *c;
    int id;
    int incarnation;     /* restarts of its host */
    double *applied_at;  /* per version: slices applied into it */
    double *applied_smp; /* per version: the samples those slices cover */
    struct ckpt ckpt;    /* this shard's checkpoints */
    double ckpt_version; /* the version its last counted checkpoint holds */
    double last_ckpt_s;  /* when it last started one */
    double last_adv_s;   /* when it last advanced a version */
    sg_host_t host;
    double params, bytes;         /* parameters owned, and their gradient/parameter bytes */
    double update_amt;            /* exec amount of one update on the shard's host */
    int version;                  /* current version */
    double *version_s;            /* time each version was reached */
    int nversions;                /* versions reached, counting version 0 */
    bool *waiting;                /* per worker: its port waits for a newer version */
    bool *pushed;                 /* sync, per worker: it pushed for the version collected */
    bool *suspect;                /* sync, per worker: its push missed a quorum's deadline; not
                                     waited for until it pushes again */
    double quorum_end;            /* sync: when the version collected stops waiting (-1: no push
                                     for it yet; INFINITY: the update is being applied) */
    bool stopped;                 /* sync: its loop ended (every version, or nobody to push) */
    sg_sem_t *wake;               /* per worker: released to wake that port */
    sg_sem_t arrived;             /* one release per queued push */
    struct push_rec *head, *tail; /* pushes not yet taken by the shard */
    struct push_rec *taken;       /* async: the push it is deciding on */
    struct shard_report *rep;     /* its report */
    int in_port;                  /* pushes received by its ports and still being deserialised */
    double in_port_smp;           /* ... and the samples they cover */
    int rpcs;                     /* messages one slice takes: 1, or one per tensor it holds */
    struct psnum num;             /* numerics: its parameters, optimizer and accepted gradients */
    struct nn_states snaps;       /* numerics: the states of its checkpoints, by version */
    struct nn_states hist;        /* numerics, coordinator="enforce": its parameters of the
                                     versions a pull may still be told to take */
};

struct ps_worker {
    struct ps_ctx *c;
    int rank;
    struct worker_amounts amt; /* exec amounts of one batch */
    double end_s;              /* when it finished */
    double *iter_end;          /* per iteration: when it ended (0: never) */
    double *iter_busy;         /* per iteration: compute */
    double *iter_tc;           /* per iteration: when its compute started */
    double *iter_samples;      /* per iteration: samples it computed gradients for */
    int next_it;               /* the iteration it is at (kept across restarts) */
    int cap;                   /* iterations the per-iteration arrays hold */
    bool active;               /* running and not through its iterations */
    int incarnation;           /* restarts of its host */
    bool in_step;       /* where a crash caught it */
    int good;           /* the samples of its batch it trains on (0: a corrupt batch) */
    int handed;                /* slices of this iteration computed and handed on */
    /* push during the backward: the pusher actor serialises and posts the slices handed to it */
    sg_sem_t hand, posted; /* a slice handed over / posted */
    int *queue, qn, qhead; /* this iteration's slices, in the order handed */
    const int *pversion;   /* the versions they were computed from */
    sg_comm_t *pcomms;     /* their sends */
    double first_post_s;   /* when the first of them was posted */
    /* prefetch: the puller fetches the next iteration's parameters during this one */
    sg_sem_t pull_go, pull_done; /* start a fetch / it is done */
    int pull_needed;             /* the version it needs */
    int *pf_version;             /* the versions it got */
    bool pull_ok, pf_pending;    /* it got every shard; a fetch is under way */
    int delivered;         /* slices of this iteration its shards' ports received */
    /* local aggregation: the node's first GPU (the leader) alone talks to the shards */
    int leader;         /* its node's leader (itself when it leads or nothing is aggregated) */
    int *follow, nfollow; /* a leader's followers */
    double carry;       /* samples its push will cover: its batch, and its followers' */
    int ngrads;         /* numerics: the gradients its push sums (its own, its followers') */
    bool gathering;     /* a leader waiting for its followers' gradients */
    bool gave_up;       /* a shard stayed unreachable past the replacement timeout (or, a
                           follower, its leader is gone for good) */
    bool finished;      /* it went through its iterations */
    bool down;          /* its host crashed (until it restarts) */
    int *last_key;      /* sync, per shard: what its last push was fresh for (prefetch: the
                           iteration, else the version computed from; -1: none) */
    int want;           /* sync: the version its next pull waits for (the one after the version
                           it last computed from) */
    bool *fgone;        /* a leader's followers whose loss it has reported */
    int *seen;          /* per shard: the version it last pulled (-1: none) */
    bool *sent;         /* a leader's followers that got this iteration's parameters */
    double work;        /* exec amount of one batch's forward and backward */
    double reduce_amt;  /* exec amount of streaming one gradient at the memory rate */
    struct shard_bufs bufs[2];   /* the worker actor's and the puller's */
    sg_comm_t *fcomms;           /* a leader's: one per follower */
    struct ps_msg **fmsgs;       /* ... */
    struct replica rep;          /* numerics: the parameters it computes with, its gradient */
    int asks;                    /* enforce: questions to the coordinator so far */
};

/* A worker's question to the coordinator: the global version, once it is at least `need`. */
struct global_req {
    int rank, buf, need, seq;
    struct global_req *next;
};

struct port {
    struct shard *s;
    int worker;
};

struct ps_ctx {
    const struct job *j;
    const struct scenario *sc;
    const struct model *m;
    const struct platform *pf;
    struct injector inj; /* faults */
    struct input_hook input; /* before each forward: the loader's, or the job's */
    struct loader *loader;   /* <data>: the input pipeline, else NULL */
    int P, K, quorum; /* workers, shards, pushes a sync version waits for */
    double model_B;   /* the model's parameter (and gradient) bytes */
    double total_versions; /* versions each shard may reach */
    struct shard *shards;
    struct ps_worker *workers;
    struct port *ports;
    struct traffic *traffic;
    struct run_record *res;
    sg_host_t coord_host; /* coordinator's host, or NULL */
    int workers_done;     /* workers that finished every iteration */
    int gave_up;          /* workers that left, a shard unreachable */
    int running;          /* worker actors alive now */
    int *complete_at;     /* per shard: the layer whose backward completes its slice */
    int budget;           /* async: iterations left to hand out (P x steps in all) */
    int *progress;        /* bounded delay: per worker, iterations finished */
    bool *bd_waiting;     /* bounded delay: per worker, waiting for the others */
    sg_sem_t *bd_wake;    /* bounded delay: per worker, released to look again */
    struct sem_set sems;  /* the shards' and workers' semaphores, of every incarnation */
    struct owned msgs;    /* messages not yet freed: what killed actors left is freed at the end */
    int *coord_ver;       /* the coordinator's view of each shard's version */
    float *eval_params;   /* numerics: the shards' parameters gathered for an evaluation */
    int *pinned;          /* enforce: per worker actor (2 P), the global version its pull takes,
                             or -1 (the shards keep those versions' parameters) */
    struct global_req *reqs; /* enforce: requests the coordinator has not answered yet */
    int evaluated;        /* numerics: the version last evaluated */
};

/* The CPU time one end of a message spends on it (serialisation, RPC), and for a GPU-side tensor
 * its copy between GPU and host memory; slept by the actor that pays it. */
static void transport_cost(const struct ps_ctx *c, double bytes, bool gpu_side, int msgs)
{
    const struct transport *tp = c->sc->train.ps.transport;
    if (tp == NULL) return;
    double t = msgs * tp->msg_s + bytes * tp->byte_s +
               (gpu_side && tp->copy_Bps > 0 ? bytes / tp->copy_Bps : 0);
    if (t > 0) sg_actor_sleep_for(t);
}
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

/* A message is in the run's list from its creation until its owner (the sender while it is not
 * delivered, then the receiver) frees it; an actor killed by a crash, or a daemon by the end of
 * the run, leaves its messages to teardown. */
static struct ps_msg *msg_new(struct ps_ctx *c, enum msg_type type, int version)
{
    struct ps_msg *m = owned_alloc(&c->msgs, sizeof *m);
    m->type = type;
    m->version = version;
    return m;
}

/* A message carrying n floats (numerics). */
static struct ps_msg *msg_new_data(struct ps_ctx *c, enum msg_type type, int version, size_t n)
{
    struct ps_msg *m = owned_alloc(&c->msgs, sizeof *m + n * sizeof(float));
    m->type = type;
    m->version = version;
    m->n = n;
    return m;
}

static void msg_free(struct ps_ctx *c, struct ps_msg *m)
{
    owned_free(&c->msgs, m);
}

/* A push record and the push it holds. */
static void rec_free(struct ps_ctx *c, struct push_rec *r)
{
    msg_free(c, r->m);
    free(r);
}

/* Sends and accounts; a message that did not go through stays ours and is freed. */
static enum net_status send_msg(struct ps_ctx *c, sg_host_t from, sg_host_t to, sg_mailbox_t mb,
                                struct ps_msg *m, double size_B)
{
    traffic_add(c->traffic, from, to, size_B);
    enum net_status st = net_send(mb, m, size_B, c->sc->train.timeout_s);
    if (st != NET_OK) msg_free(c, m);
    return st;
}

/* ---- worker ------------------------------------------------------------------------------- */

/* A worker retries a shard that did not answer after RETRY_S, then backs off by RETRY_MULT up to
 * RETRY_MAX_S (gRPC's connection backoff multiplier and cap, grpc/doc/connection-backoff.md),
 * until the replacement timeout; then it gives up and leaves the job. */
#define RETRY_S     0.05
#define RETRY_MULT  1.6
#define RETRY_MAX_S 120.0

/* n slices lost, covering `samples` samples (read again). */
static void lose_slices(struct ps_ctx *c, double n, double samples)
{
    c->res->lost_gradients += n;
    c->res->replayed_samples += samples;
}

/* A slice the shard's policy discarded (too stale, or too late for its version's quorum). */
static void drop_slice(struct ps_ctx *c, double *counter, double samples)
{
    *counter += 1;
    c->res->dropped_samples += samples;
}

static void bounded_notify(struct ps_ctx *c);

/* A survivor noticed a failure: the injector times its detection, the run counts the report. */
static void noticed(struct ps_ctx *c)
{
    inject_detected(&c->inj);
    c->res->failures_detected += 1;
}

/* Sync: the pushers changed (one died, left or finished): every shard counts its quorum again.
 * A release with no push queued is a wake (take returns NULL). */
static void wake_shards(struct ps_ctx *c)
{
    if (c->sc->train.ps.mode != PS_SYNC) return;
    for (int k = 0; k < c->K; k++)
        sg_sem_release(c->shards[k].arrived);
}

/* Sync: has every shard stopped collecting (the job is over for the followers)? */
static bool shards_stopped(const struct ps_ctx *c)
{
    for (int k = 0; k < c->K; k++)
        if (!c->shards[k].stopped) return false;
    return true;
}

/* A worker stopped inside an iteration (a crash, or the run's end): the slices it computed and
 * its shards did not receive are lost, the rest of its batch will be read again. */
static void account_unfinished(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    if (!w->in_step) return;
    if (w->handed > 0) { /* what its shards did not receive (the ports count receipts) */
        double per = w->carry / c->K;
        lose_slices(c, w->handed - w->delivered, (w->handed - w->delivered) * per);
        c->res->replayed_samples += (c->K - w->handed) * per;
    } else {
        c->res->replayed_samples += w->carry; /* its batch (unless corrupt), its followers' */
    }
    w->in_step = false;
    w->gathering = false;
}

/* A worker killed by a crash: slices computed but not delivered are lost; a batch read but not
 * computed will be read again. */
static void on_worker_exit(int failed, void *data)
{
    struct ps_worker *w = data;
    struct ps_ctx *c = w->c;
    /* no simulation call here: a dying actor's callback cannot make one (a waiting worker sees
     * this one inactive at its deadline) */
    c->running--;
    w->active = false; /* a dead worker holds no one back */
    if (c->pinned) /* its pulls (its own and its puller's) hold no shard history any more */
        c->pinned[2 * w->rank] = c->pinned[2 * w->rank + 1] = -1;
    if (failed) account_unfinished(w);
}

static sg_mailbox_t coord_reply_box(int rank, int buf)
{
    return mbox("w%d<coord%d", rank, buf);
}

/* coordinator="enforce": asks the coordinator for the global version (once it is at least
 * `need`); -1 when no answer came within the deadline (the pull then takes each shard's latest). */
static int ask_global(struct ps_worker *w, const struct shard_bufs *b, int need)
{
    struct ps_ctx *c = w->c;
    int buf = (int)(b - w->bufs), seq = ++w->asks;
    struct ps_msg *q = msg_new(c, MSG_GLOBAL, need);
    q->shard = w->rank;
    q->buf = buf;
    q->it = seq;
    transport_cost(c, REQUEST_B, false, 1);
    if (send_msg(c, c->pf->gpus[w->rank], c->coord_host, sg_mailbox_by_name("coordinator"), q,
                 REQUEST_B) != NET_OK)
        return -1;
    double end = simgrid_get_clock() + c->sc->train.timeout_s;
    for (;;) {
        struct ps_msg *a;
        if (net_recv(coord_reply_box(w->rank, buf), (void **)&a, end - simgrid_get_clock()) !=
            NET_OK)
            return -1;
        int g = a->it == seq ? a->version : -1; /* an older question's late answer: dropped */
        msg_free(c, a);
        if (g >= 0) return g;
    }
}

/* Did the shards answer a pull with different versions (a mixed model)? */
static bool mixed(const struct ps_ctx *c, const int *version)
{
    for (int k = 1; k < c->K; k++)
        if (version[k] != version[0]) return true;
    return false;
}

/* Waits for shard k's answer to a pull on *comm (posted on the worker's mailbox from k) until
 * `end`: true when the parameters came. An async push's verdict that came after its worker
 * stopped waiting for it shares the mailbox: it is dropped and the receive posted again. */
static bool recv_params(struct ps_ctx *c, int rank, int k, sg_comm_t *comm, struct ps_msg **in,
                        double end)
{
    for (;;) {
        if (net_wait(*comm, end) != NET_OK || *in == NULL) return false;
        if ((*in)->type == MSG_PARAMS) return true;
        msg_free(c, *in);
        *in = NULL;
        *comm = net_irecv(to_worker(rank, k), (void **)in);
    }
}

/* Pulls every shard's parameters; a shard that does not answer is asked again, backing off,
 * until it does (its keys are blocked) or the replacement timeout passes (w->gave_up). Fills
 * version[]; false if some shard never answered, answered only after a retry, or answered with
 * a version older than one it gave before (it restarted from an older state): a failure
 * noticed. */
static bool pull_all(struct ps_worker *w, struct shard_bufs *b, int it, int *version)
{
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    sg_host_t me = c->pf->gpus[w->rank];
    bool *got = b->got;
    sg_comm_t *comms = b->comms;
    struct ps_msg **in = b->in, **req = b->in + c->K;
    memset(got, 0, (size_t)c->K * sizeof *got);
    double give_up = simgrid_get_clock() + c->sc->rec.replacement_s, backoff = RETRY_S;
    bool retried = false, rolled_back = false;
    int need = ts->ps.mode == PS_SYNC ? it : 0,
        g = ts->ps.enforce ? ask_global(w, b, need) : -1; /* the one version every shard gives */
    for (int left = c->K; left > 0;) {
        for (int k = 0; k < c->K; k++) {
            if (got[k]) continue;
            req[k] = msg_new(c, MSG_PULL, g >= 0 ? g : need);
            req[k]->exact = g >= 0;
            transport_cost(c, REQUEST_B, false, 1);
            traffic_add(c->traffic, me, c->shards[k].host, REQUEST_B);
            comms[k] = net_isend(to_port(k, w->rank), req[k], REQUEST_B);
            comms[c->K + k] = net_irecv(to_worker(w->rank, k), (void **)&in[k]);
        }
        double end = simgrid_get_clock() + ts->timeout_s;
        for (int k = 0; k < c->K; k++) {
            if (got[k]) continue;
            bool asked = net_wait(comms[k], end) == NET_OK;
            if (!asked) msg_free(c, req[k]); /* never received */
            req[k] = NULL;
            /* sync: a port holds a pull while its shard collects the version before the one
             * asked for, up to the shard's quorum deadline; the answer has a deadline of its
             * own, so a pull that reached its port is waited for two deadlines (the shard may
             * wait one for a missing push: that is no failure of this shard) */
            double until = asked && ts->ps.mode == PS_SYNC ? end + ts->timeout_s : end;
            if (recv_params(c, w->rank, k, &comms[c->K + k], &in[k], until)) {
                version[k] = in[k]->version;
                /* a shard whose version went back restarted from an older state: noticed */
                if (version[k] < w->seen[k] && !ts->ps.enforce) rolled_back = true;
                w->seen[k] = version[k];
                if (b->params) pslice_scatter(&c->shards[k].num.sl, in[k]->data, b->params);
                got[k] = true;
                left--;
                transport_cost(c, c->shards[k].bytes, true, c->shards[k].rpcs); /* into the GPU */
            }
            msg_free(c, in[k]);
            in[k] = NULL;
        }
        if (left > 0) {
            retried = true;
            if (simgrid_get_clock() >= give_up) break;
            sg_actor_sleep_for(fmin(backoff, give_up - simgrid_get_clock()));
            backoff = fmin(backoff * RETRY_MULT, RETRY_MAX_S);
        }
    }
    bool all = true;
    for (int k = 0; k < c->K; k++)
        all &= got[k];
    w->gave_up |= !all;
    if (c->pinned) c->pinned[2 * w->rank + (int)(b - w->bufs)] = -1;
    if (all && mixed(c, version)) c->res->mixed_pulls += 1;
    return all && !retried && !rolled_back;
}

/* Pushes every shard's slice at once, stamped with the version it came from; in async mode
 * waits for each shard's verdict. comms and in have room for K. */
/* Serialises and posts the push of shard k's slice, stamped with the version it came from. */
static void post_push(struct ps_worker *w, int k, const int *version, sg_comm_t *comms)
{
    struct ps_ctx *c = w->c;
    const struct pslice *sl = &c->shards[k].num.sl;
    struct ps_msg *g = msg_new_data(c, MSG_PUSH, version[k], c->j->nm ? sl->n : 0);
    if (c->j->nm) pslice_gather(sl, w->rep.grad, g->data);
    g->grads = w->ngrads;
    g->it = w->next_it;
    g->samples = w->carry / c->K;
    w->last_key[k] = c->sc->train.ps.prefetch ? g->it : g->version;
    transport_cost(c, c->shards[k].bytes, true, c->shards[k].rpcs); /* out of the GPU, sent */
    traffic_add(c->traffic, c->pf->gpus[w->rank], c->shards[k].host, c->shards[k].bytes);
    comms[k] = net_isend(to_port(k, w->rank), g, c->shards[k].bytes);
}

/* Every slice is posted (since push0): waits for the sends, counts what was lost, and in async
 * mode waits for each shard's verdict. comms and in have room for K. */
/* Waits for the K posted sends (by the actor that posted them), not past the deadline. */
static void wait_sends(const struct ps_worker *w, sg_comm_t *comms)
{
    double end = simgrid_get_clock() + w->c->sc->train.timeout_s;
    for (int k = 0; k < w->c->K; k++)
        net_wait(comms[k], end); /* the ports count what arrives in w->delivered; a slice
                                    that never arrived is left to teardown (the run's list) */
}

static void finish_pushes(struct ps_worker *w, int it, sg_comm_t *comms, struct ps_msg **in,
                          double push0, bool waited)
{
    struct ps_ctx *c = w->c;
    double span = c->sc->train.timeout_s;
    if (!waited) wait_sends(w, comms);
    /* a transfer that ends exactly at the deadline can still reach its port: let the ports
     * that run at this same instant count it before we count what was lost */
    sg_actor_yield();
    trace_slice(c->res->trace, w->rank, "push", push0, simgrid_get_clock());
    if (w->delivered < c->K) noticed(c);
    lose_slices(c, c->K - w->delivered, (c->K - w->delivered) * w->carry / c->K);
    w->in_step = false;
    if (it == 0) c->res->first_push_s[w->rank] = simgrid_get_clock() - push0;
    if (c->sc->train.ps.mode != PS_ASYNC) return;
    for (int k = 0; k < c->K; k++)
        comms[k] = net_irecv(to_worker(w->rank, k), (void **)&in[k]);
    double end = simgrid_get_clock() + span;
    for (int k = 0; k < c->K; k++) {
        net_wait(comms[k], end);
        msg_free(c, in[k]);
        in[k] = NULL;
    }
}

/* After the backward: every slice exists; they are posted at once. */
static void push_all(struct ps_worker *w, int it, const int *version, sg_comm_t *comms,
                     struct ps_msg **in)
{
    struct ps_ctx *c = w->c;
    c->res->computed += c->K;
    w->handed = c->K;
    for (int k = 0; k < c->K; k++)
        post_push(w, k, version, comms);
    finish_pushes(w, it, comms, in, simgrid_get_clock(), false);
}

/* Sync: a pusher with nothing to push (its batch, and its followers', corrupt) tells its shards
 * so (a control message each), so no version waits a deadline for a gradient that cannot come. */
static void push_empty(struct ps_worker *w, int it, const int *version, sg_comm_t *comms)
{
    struct ps_ctx *c = w->c;
    for (int k = 0; k < c->K; k++) {
        struct ps_msg *g = msg_new(c, MSG_PUSH, version[k]);
        g->it = it;
        g->empty = 1;
        w->last_key[k] = c->sc->train.ps.prefetch ? it : version[k];
        transport_cost(c, REQUEST_B, false, 1);
        traffic_add(c->traffic, c->pf->gpus[w->rank], c->shards[k].host, REQUEST_B);
        comms[k] = net_isend(to_port(k, w->rank), g, REQUEST_B);
    }
    wait_sends(w, comms); /* one that never arrived is left to teardown (the run's list) */
    w->in_step = false;
}

/* The pusher (push during the backward): posts each slice as the backward hands it over, so its
 * serialisation and transfer overlap the rest of the backward (as ps-lite and BytePS push). */
/* The puller (prefetch): fetches the parameters of the next iteration while this one computes;
 * one version behind, since this iteration's update is not applied yet. */
static void puller_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    for (;;) { /* a daemon */
        sg_sem_acquire(w->pull_go);
        w->pull_ok = pull_all(w, &w->bufs[1], w->pull_needed, w->pf_version);
        sg_sem_release(w->pull_done);
    }
}

/* The parameters of the next iteration: pulled now (waiting for version `need`), or (prefetch)
 * the ones fetched during the previous iteration. */
static bool get_params(struct ps_worker *w, int need, int *version)
{
    struct ps_ctx *c = w->c;
    const struct shard_bufs *b = &w->bufs[0];
    bool ok = true;
    if (!c->sc->train.ps.prefetch || !w->pf_pending) {
        ok = pull_all(w, &w->bufs[0], need, version);
    } else {
        sg_sem_acquire(w->pull_done);
        memcpy(version, w->pf_version, (size_t)c->K * sizeof *version);
        ok = w->pull_ok;
        w->pf_pending = false;
        b = &w->bufs[1];
    }
    if (c->j->nm) /* numerics: the worker computes with what it pulled */
        memcpy(w->rep.params, b->params, c->j->nm->net.nparams * sizeof *w->rep.params);
    return ok;
}

/* Prefetch: iteration it + 1's fetch starts now (version it is enough for it: one behind). */
static void prefetch_next(struct ps_worker *w, int it)
{
    if (!w->c->sc->train.ps.prefetch || it + 1 >= w->c->sc->train.steps) return;
    w->pull_needed = it;
    w->pf_pending = true;
    sg_sem_release(w->pull_go);
}

/* Sync: the iteration a worker computes with the versions it pulled. Its own count, unless the
 * shards are not where that count expects them: behind it (a shard restarted from an older
 * checkpoint, or a pull answered at its deadline before the shard advanced), it computes the
 * version they are at, so its push is fresh and the shards reach every version; with prefetch
 * (pushes are fresh by iteration, one version behind by design) also ahead of it (a restarted
 * or late worker), else every push of it would come too late. Without prefetch a push is fresh
 * by the version it was computed from, and the worker keeps its count. */
static int sync_iteration(const struct ps_worker *w, const int *version)
{
    const struct ps_ctx *c = w->c;
    int p = version[0];
    for (int k = 1; k < c->K; k++)
        p = version[k] < p ? version[k] : p;
    if (c->sc->train.ps.prefetch) return p + 1 == w->next_it ? w->next_it : p;
    return p < w->next_it ? p : w->next_it;
}

static void pusher_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    for (;;) { /* a daemon: one iteration's K slices, then their sends' end */
        for (int i = 0; i < w->c->K; i++) {
            sg_sem_acquire(w->hand);
            int k = w->queue[w->qhead++];
            post_push(w, k, w->pversion, w->pcomms);
            if (w->first_post_s < 0) w->first_post_s = simgrid_get_clock();
        }
        wait_sends(w, w->pcomms); /* the actor that posted the sends waits for them */
        sg_sem_release(w->posted);
    }
}

/* The backward layer by layer; a shard's slice is handed to the pusher once the layers it holds
 * are done (split by bytes: every shard holds part of every layer, so at the end). */
static void backward_pushing(struct ps_worker *w, int it, const int *version, double scale,
                             sg_comm_t *comms, struct ps_msg **in)
{
    struct ps_ctx *c = w->c;
    const struct model *m = c->m;
    w->qn = w->qhead = 0;
    w->pversion = version;
    w->pcomms = comms;
    w->first_post_s = -1;
    for (size_t l = m->nlayers; l-- > 0;) {
        worker_exec(c->res, w->rank, w->amt.bwd[l] * scale);
        for (int k = 0; k < c->K; k++)
            if (c->complete_at[k] == (int)l) {
                c->res->computed += 1;
                w->handed++;
                w->queue[w->qn++] = k;
                sg_sem_release(w->hand);
            }
    }
    sg_sem_acquire(w->posted);
    finish_pushes(w, it, comms, in, w->first_post_s, true);
}

/* Reads the batch of iteration `it`: accounting, and whether it is corrupt (none of its samples
 * left to train on). */
static bool read_batch(struct ps_worker *w, int it)
{
    struct ps_ctx *c = w->c;
    w->good = worker_read_batch(c->res, &c->inj, &c->input, w->rank, it, it, c->P);
    bool corrupt = w->good == 0;
    w->in_step = true;
    w->handed = 0;
    w->delivered = 0;
    w->carry = w->good;
    w->ngrads = !corrupt;
    return corrupt;
}

/* Room for iteration `it` in the worker's per-iteration arrays (async workers do as many as the
 * budget lets them). */
static void ensure_iteration(struct ps_worker *w, int it)
{
    if (it < w->cap) return;
    int cap = 2 * w->cap > it + 1 ? 2 * w->cap : it + 1;
    double **arrays[] = {&w->iter_end, &w->iter_busy, &w->iter_tc, &w->iter_samples};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        *arrays[i] = xbt_realloc(*arrays[i], (size_t)cap * sizeof(double));
        memset(*arrays[i] + w->cap, 0, (size_t)(cap - w->cap) * sizeof(double));
    }
    w->cap = cap;
}

/* The worker's next iteration, or false when it is through: sync, its `steps`; async, while the
 * run's budget of P x steps iterations lasts (a fast worker does more than a slow one). */
static bool next_iteration(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    if (c->sc->train.ps.mode == PS_SYNC) return w->next_it < c->sc->train.steps;
    if (c->budget <= 0) return false;
    c->budget--;
    ensure_iteration(w, w->next_it);
    return true;
}

/* Bounded delay (Li et al., OSDI'14, section 3.5): iteration t starts only when every iteration
 * before t - tau of every active worker has finished; waiting is idle. A deadline keeps a dead
 * worker from blocking the others forever. */
static void bounded_wait(struct ps_worker *w, int t)
{
    struct ps_ctx *c = w->c;
    int need = t - c->sc->train.ps.staleness;
    double end = simgrid_get_clock() + c->sc->train.timeout_s, t0 = simgrid_get_clock();
    for (;;) {
        bool ready = true;
        for (int r = 0; r < c->P && ready; r++)
            ready = !c->workers[r].active || c->progress[r] >= need;
        if (ready || simgrid_get_clock() >= end) break;
        c->bd_waiting[w->rank] = true;
        sg_sem_acquire_timeout(c->bd_wake[w->rank], end - simgrid_get_clock());
        c->bd_waiting[w->rank] = false;
    }
    trace_slice(c->res->trace, w->rank, "wait", t0, simgrid_get_clock());
}

/* A worker finished an iteration, or stopped: the waiting ones look again. */
static void bounded_notify(struct ps_ctx *c)
{
    for (int r = 0; c->bd_waiting && r < c->P; r++)
        if (c->bd_waiting[r]) {
            c->bd_waiting[r] = false;
            sg_sem_release(c->bd_wake[r]);
        }
}

/* ---- local aggregation -------------------------------------------------------------------- */
/* MXNet's device kvstore (kvstore="dist_device_sync"; src/kvstore/comm.h, CommDevice): the GPUs
 * of a machine reduce their gradients on one GPU, which alone pushes to the servers and pulls,
 * and the pulled weights are copied to the other GPUs. Here the node's first GPU leads. */

static sg_mailbox_t to_follower(int f)
{
    return mbox("w%d<lead%d", f, 0);
}

static sg_mailbox_t to_leader(int l, int f)
{
    return mbox("lead%d<w%d", l, f);
}

/* The leader copies the parameters of iteration `it` to every live follower (GPU to GPU in the
 * node: NVLink, or PCIe); w->sent says which got them. */
static void bcast_params(struct ps_worker *w, int it)
{
    struct ps_ctx *c = w->c;
    sg_comm_t *comms = w->fcomms;
    struct ps_msg **out = w->fmsgs;
    double t0 = simgrid_get_clock();
    for (int i = 0; i < w->nfollow; i++) {
        int f = w->follow[i];
        const struct ps_worker *F = &c->workers[f];
        w->sent[i] = F->active;
        if (!w->sent[i]) { /* its process is gone: the node's other GPUs go on without it */
            if (!w->fgone[i] && !F->finished && !F->gave_up) noticed(c); /* once a loss */
            w->fgone[i] = true;
            continue;
        }
        w->fgone[i] = false;
        size_t n = c->j->nm ? c->j->nm->net.nparams : 0; /* numerics: the values pulled */
        out[i] = msg_new_data(c, MSG_PARAMS, 0, n);
        if (n) memcpy(out[i]->data, w->rep.params, n * sizeof *out[i]->data);
        out[i]->it = it;
        traffic_add(c->traffic, c->pf->gpus[w->rank], c->pf->gpus[f], c->model_B);
        comms[i] = net_isend(to_follower(f), out[i], c->model_B);
    }
    double end = simgrid_get_clock() + c->sc->train.timeout_s;
    for (int i = 0; i < w->nfollow; i++)
        if (w->sent[i] && !(w->sent[i] = net_wait(comms[i], end) == NET_OK))
            msg_free(c, out[i]); /* never received: still ours */
    trace_slice(c->res->trace, w->rank, "broadcast", t0, simgrid_get_clock());
}

/* Numerics: a follower's gradient into the leader's sum, in the order of its followers. */
static void add_gradient(struct ps_worker *w, const struct ps_msg *g)
{
    for (size_t i = 0; i < g->n; i++)
        w->rep.grad[i] += g->data[i];
    w->ngrads += g->grads;
}

/* The leader receives the gradients of the followers it sent parameters to (into its memory, as
 * CommDevice copies them to the merge buffer's GPU) and sums them with its own in one kernel
 * (ElementwiseSum: reads the n inputs, writes one buffer, at the memory rate). Each follower
 * adds its samples to w->carry as its gradient arrives (hand_to_leader). */
static void gather_grads(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    sg_comm_t *comms = w->fcomms;
    struct ps_msg **in = w->fmsgs;
    double t0 = simgrid_get_clock();
    w->gathering = true;
    memset(in, 0, (size_t)w->nfollow * sizeof *in);
    for (int i = 0; i < w->nfollow; i++)
        if (w->sent[i]) comms[i] = net_irecv(to_leader(w->rank, w->follow[i]), (void **)&in[i]);
    double end = simgrid_get_clock() + c->sc->train.timeout_s;
    int n = w->carry > 0; /* gradients to sum */
    if (c->j->nm && n == 0) /* numerics: its own batch was corrupt, the sum starts empty */
        memset(w->rep.grad, 0, c->j->nm->net.nparams * sizeof *w->rep.grad);
    for (int i = 0; i < w->nfollow; i++) {
        if (!w->sent[i]) continue;
        if (net_wait(comms[i], end) == NET_OK && in[i] != NULL && in[i]->samples > 0) {
            n++;
            add_gradient(w, in[i]);
        }
        msg_free(c, in[i]);
        in[i] = NULL;
    }
    w->gathering = false;
    if (n > 1) /* communication's kernel (as NCCL's reductions), not the model's compute */
        sg_actor_execute((n + 1) * w->reduce_amt);
    trace_slice(c->res->trace, w->rank, "gather", t0, simgrid_get_clock());
}

/* A follower hands its gradient (corrupt batch: an empty message) to its leader; once it is in
 * the leader's sum its samples are the leader's to account, else they will be read again. */
static void hand_to_leader(struct ps_worker *w, bool corrupt)
{
    struct ps_ctx *c = w->c;
    struct ps_worker *L = &c->workers[w->leader];
    size_t n = c->j->nm && !corrupt ? c->j->nm->net.nparams : 0; /* numerics: its gradient */
    struct ps_msg *g = msg_new_data(c, MSG_GRAD, 0, n);
    if (n) memcpy(g->data, w->rep.grad, n * sizeof *g->data);
    g->grads = !corrupt;
    g->samples = w->carry;
    double t0 = simgrid_get_clock(), B = corrupt ? REQUEST_B : c->model_B;
    if (!L->active) { /* its leader's process is gone (as it sees a follower's): kept */
        msg_free(c, g);
        account_unfinished(w);
        return;
    }
    enum net_status st = send_msg(c, c->pf->gpus[w->rank], c->pf->gpus[L->rank],
                                  to_leader(L->rank, w->rank), g, B);
    trace_slice(c->res->trace, w->rank, "push", t0, simgrid_get_clock());
    if (st == NET_OK && L->gathering && L->in_step) {
        L->carry += w->carry;
        w->in_step = false;
    } else {
        account_unfinished(w);
    }
}

/* A worker leaves the job: it gave up on an unreachable shard, or (a follower) its leader is
 * gone for good; the others go on without it, and with none left the job has failed. */
static void leave(struct ps_worker *w, const char *why)
{
    struct ps_ctx *c = w->c;
    account_unfinished(w);
    run_event_add(c->res, simgrid_get_clock(), RUN_FAULT, w->next_it, c->running - 1,
                  "worker %d gave up: %s", w->rank, why);
    w->gave_up = true;
    c->gave_up++;
}

/* A worker's actor is through (its iterations, or it left): the others and the shards know. */
static void worker_ends(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    w->active = false;
    bounded_notify(c);
    w->end_s = simgrid_get_clock();
    if (!w->gave_up && !w->finished) {
        w->finished = true;
        c->workers_done++;
    }
    wake_shards(c); /* a pusher fewer: no quorum waits for it */
    if (c->workers_done + c->gave_up == c->P) inject_finish(&c->inj);
}

/* A follower's leader will not send again: it left, or died with no restart to come. */
static bool leader_gone(const struct ps_ctx *c, const struct ps_worker *L)
{
    return L->gave_up || (!L->active && !inject_may_restart(&c->inj));
}

/* A follower: its parameters come from its leader, its gradient goes back to it; it never talks
 * to a shard. It takes the iteration the leader is at (after a restart of either), and skips
 * one (its batch read again) when the leader sends nothing within the deadline: the leader's
 * step, whose pull may wait one deadline for the shards' quorum and one for the answer, so two.
 * It stops when the shards have stopped, and leaves when its leader is gone for good. */
static void follower_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    struct ps_worker *L = &c->workers[w->leader];
    c->running++;
    w->active = true;
    sg_actor_on_exit(on_worker_exit, w);
    for (; w->next_it < ts->steps; w->next_it++) {
        double t0 = simgrid_get_clock(), busy0 = c->res->busy_s[w->rank];
        inject_step(&c->inj, w->next_it);
        if (ts->step_overhead_s > 0) sg_actor_sleep_for(ts->step_overhead_s); /* host work */
        bool corrupt = read_batch(w, w->next_it);
        double scale =
                corrupt ? 0 : inject_jitter(&c->inj, w->rank, w->next_it) * w->good / ts->batch;
        struct ps_msg *pm;
        if (net_recv(to_follower(w->rank), (void **)&pm, 2 * ts->timeout_s) != NET_OK) {
            if (leader_gone(c, L)) {
                noticed(c);
                char why[64];
                snprintf(why, sizeof why, "its leader, worker %d, is gone", L->rank);
                leave(w, why);
                break;
            }
            if ((ts->ps.mode == PS_SYNC && shards_stopped(c)) || L->finished) { /* over */
                account_unfinished(w);
                break;
            }
            noticed(c); /* its leader is late, or down until a restart */
            account_unfinished(w);
            continue;
        }
        int it = w->next_it = pm->it;
        if (c->j->nm) /* numerics: the leader's parameters, and its own batch's gradient */
            memcpy(w->rep.params, pm->data, pm->n * sizeof *pm->data);
        msg_free(c, pm);
        if (c->j->nm && !corrupt) replica_gradient(c->j->nm, &w->rep, w->rank, it);
        trace_slice(c->res->trace, w->rank, "pull", t0, simgrid_get_clock());
        worker_before_forward(&c->input, w->rank, it);
        double tc = w->iter_tc[it] = simgrid_get_clock();
        worker_exec(c->res, w->rank, w->work * scale);
        trace_slice(c->res->trace, w->rank, "forward+backward", tc, simgrid_get_clock());
        if (!corrupt) w->iter_samples[it] = w->good;
        hand_to_leader(w, corrupt);
        w->iter_end[it] = simgrid_get_clock();
        w->iter_busy[it] = c->res->busy_s[w->rank] - busy0;
    }
    worker_ends(w);
}

/* Reads the batch of iteration `it` and its compute scale (0: corrupt, nothing to compute). */
static double batch_scale(struct ps_worker *w, int it, bool *corrupt)
{
    const struct train_spec *ts = &w->c->sc->train;
    *corrupt = read_batch(w, it);
    return *corrupt ? 0 : inject_jitter(&w->c->inj, w->rank, it) * w->good / ts->batch;
}

static void worker_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    struct ps_ctx *c = w->c;
    const struct train_spec *ts = &c->sc->train;
    sg_comm_t *comms = w->bufs[0].comms + 2 * c->K; /* pull_all uses the first 2 K */
    struct ps_msg **in = w->bufs[0].in + 2 * c->K;
    int *version = w->bufs[0].version;
    c->running++;
    w->active = true;
    sg_actor_on_exit(on_worker_exit, w);
    bool bounded = ts->ps.mode == PS_ASYNC && ts->ps.bounded;
    bool sync = ts->ps.mode == PS_SYNC;
    for (; next_iteration(w); w->next_it++) {
        int it = w->next_it;
        if (bounded) bounded_wait(w, it);
        double t0 = simgrid_get_clock(), busy0 = c->res->busy_s[w->rank];
        inject_step(&c->inj, it);
        if (ts->step_overhead_s > 0) sg_actor_sleep_for(ts->step_overhead_s); /* host work */
        bool corrupt = false;
        double scale = 0;
        if (!sync) scale = batch_scale(w, it, &corrupt);
        /* sync: the version after the one it last computed from (prefetch: the iteration) */
        int need = sync && !ts->ps.prefetch && w->want > it ? w->want : it;
        if (!get_params(w, need, version)) noticed(c);
        trace_slice(c->res->trace, w->rank, "pull", t0, simgrid_get_clock());
        if (w->gave_up) {
            char why[64];
            snprintf(why, sizeof why, "a shard unreachable for %g s", c->sc->rec.replacement_s);
            leave(w, why);
            break;
        }
        if (sync) { /* the iteration the shards' versions call for, then its batch */
            it = w->next_it = sync_iteration(w, version);
            if (it >= ts->steps) break; /* every version reached without it */
            scale = batch_scale(w, it, &corrupt);
            w->want = version[0] + 1;
            for (int k = 1; k < c->K; k++)
                w->want = version[k] + 1 < w->want ? version[k] + 1 : w->want;
        }
        prefetch_next(w, it);
        if (w->nfollow > 0) bcast_params(w, it);
        worker_before_forward(&c->input, w->rank, it);
        if (c->j->nm && !corrupt) /* with the parameters it pulled, on its own batch */
            replica_gradient(c->j->nm, &w->rep, w->rank, it);
        double tc = w->iter_tc[it] = simgrid_get_clock();
        if (ts->ps.push_during && !corrupt) { /* the forward, then the pushing backward */
            worker_exec(c->res, w->rank, w->amt.fwd_all * scale);
            w->iter_samples[it] = w->good;
            backward_pushing(w, it, version, scale, comms, in);
        } else {
            worker_exec(c->res, w->rank, w->work * scale);
            trace_slice(c->res->trace, w->rank, "forward+backward", tc, simgrid_get_clock());
            if (!corrupt) w->iter_samples[it] = w->good;
            if (w->nfollow > 0) gather_grads(w);
            if (w->carry > 0)
                push_all(w, it, version, comms, in);
            else if (sync) /* nothing to push: the shards hear so */
                push_empty(w, it, version, comms);
            else /* nothing to push: the batch is skipped */
                w->in_step = false;
        }
        w->iter_end[it] = simgrid_get_clock();
        w->iter_busy[it] = c->res->busy_s[w->rank] - busy0;
        if (c->progress) c->progress[w->rank] = it + 1;
        bounded_notify(c);
    }
    worker_ends(w);
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

/* Sync: a pull for the version after the one the shard collects (the worker pushed for it)
 * waits for the shard to advance: while the shard's quorum deadline runs or it applies the
 * update, else (no push for that version came: the worker's was lost) until the deadline after
 * the pull came. Any other is answered at once: the shard is there already, or behind (restarted
 * from an older checkpoint), and the worker then computes the version the shard is at. Actors
 * only interleave at simulation calls, so checking the version and waiting on this port's own
 * semaphore needs no lock; advance() wakes every waiting port. */
static void hold_pull(struct port *p, int need)
{
    struct shard *s = p->s;
    const struct train_spec *ts = &s->c->sc->train;
    double end = simgrid_get_clock() + ts->timeout_s;
    while (ts->ps.mode == PS_SYNC && s->version == need - 1 && !s->stopped) {
        double until = fmax(end, s->quorum_end), now = simgrid_get_clock();
        if (now >= until) break;
        s->waiting[p->worker] = true;
        if (isinf(until))
            sg_sem_acquire(s->wake[p->worker]);
        else
            sg_sem_acquire_timeout(s->wake[p->worker], until - now);
        s->waiting[p->worker] = false;
    }
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
        double smp = m->samples;
        if (m->type == MSG_PULL) {
            transport_cost(c, REQUEST_B, false, 1);
            hold_pull(p, m->version);
            int v = s->version;
            const float *src = c->j->nm ? s->num.w : NULL; /* numerics: the values now */
            if (m->exact && m->version < v) { /* the global version, older than its own */
                const struct nn_state *h = nn_states_find(&s->hist, m->version);
                if (h || !c->j->nm) v = m->version;
                if (h) src = h->params;
            }
            msg_free(c, m);
            /* copied before serialising: the shard may advance, or prune that version, while
             * the port sleeps */
            size_t n = c->j->nm ? s->num.sl.n : 0;
            struct ps_msg *pm = msg_new_data(c, MSG_PARAMS, v, n);
            if (n) memcpy(pm->data, src, n * sizeof *pm->data);
            transport_cost(c, s->bytes, false, s->rpcs); /* the parameters serialised */
            s->rep->bytes_out += s->bytes;
            send_msg(c, s->host, worker, to_worker(p->worker, s->id), pm, s->bytes);
            continue;
        }
        if (m->empty) { /* a worker with nothing to push: its shard hears so */
            transport_cost(c, REQUEST_B, false, 1);
            struct push_rec *rec = xbt_new0(struct push_rec, 1);
            rec->worker = p->worker;
            rec->version = m->version;
            rec->it = m->it;
            rec->empty = true;
            msg_free(c, m);
            enqueue(s, rec);
            continue;
        }
        s->rep->bytes_in += s->bytes;
        c->workers[p->worker].delivered++;
        s->in_port++; /* received, not yet queued: counted if the run ends meanwhile */
        s->in_port_smp += smp;
        transport_cost(c, s->bytes, false, s->rpcs); /* the gradient deserialised */
        s->in_port--;
        s->in_port_smp -= smp;
        struct push_rec *rec = xbt_new0(struct push_rec, 1);
        rec->worker = p->worker;
        rec->samples = smp;
        rec->version = m->version;
        rec->it = m->it;
        if (c->j->nm)
            rec->m = m; /* the gradient waits with its record */
        else
            msg_free(c, m);
        bool async = ts->ps.mode == PS_ASYNC;
        if (async) rec->decided = sg_sem_init(0);
        enqueue(s, rec);
        if (async) {
            sg_sem_acquire(rec->decided);
            struct ps_msg *v = msg_new(c, MSG_VERDICT, s->version);
            v->accepted = rec->accepted;
            sg_sem_destroy(rec->decided);
            rec_free(c, rec);
            transport_cost(c, REQUEST_B, false, 1);
            send_msg(c, s->host, worker, to_worker(p->worker, s->id), v, REQUEST_B);
        }
    }
}

/* ---- shard -------------------------------------------------------------------------------- */

/* The next queued push, or NULL if none came by the deadline (timeout < 0: wait forever) or the
 * shard was woken to count its quorum again (wake_shards). */
static struct push_rec *take(struct shard *s, double timeout)
{
    if (timeout < 0)
        sg_sem_acquire(s->arrived);
    else if (sg_sem_acquire_timeout(s->arrived, timeout) != 0)
        return NULL;
    struct push_rec *rec = s->head;
    if (rec == NULL) return NULL; /* a wake */
    s->head = rec->next;
    if (s->head == NULL) s->tail = NULL;
    rec->next = NULL;
    return rec;
}

/* Numerics: the test accuracy of the shards' parameters once every shard has reached a version
 * that is a multiple of eval-every (last: whatever version they all reached, if not done). */
static void ps_evaluate(struct ps_ctx *c, bool last, double now)
{
    if (c->j->nm == NULL) return;
    int lo = c->shards[0].version;
    for (int k = 1; k < c->K; k++)
        lo = c->shards[k].version < lo ? c->shards[k].version : lo;
    if (lo <= c->evaluated || (!last && lo % c->sc->train.numerics.eval_every != 0)) return;
    for (int k = 0; k < c->K; k++)
        pslice_scatter(&c->shards[k].num.sl, c->shards[k].num.w, c->eval_params);
    double loss, acc = numerics_evaluate(c->j->nm, c->eval_params, &loss);
    run_eval_add(c->res, 0, now, lo, acc, loss);
    c->evaluated = lo;
}

/* With a coordinator: the shard tells it the version it has reached (after an advance, or a
 * restart that rolled it back). */
static void report_version(struct shard *s)
{
    struct ps_ctx *c = s->c;
    if (c->coord_host == NULL) return;
    struct ps_msg *a = msg_new(c, MSG_ADVANCE, s->version);
    a->shard = s->id;
    send_msg(c, s->host, c->coord_host, sg_mailbox_by_name("coordinator"), a, REQUEST_B);
}

/* Numerics, enforce: the shard keeps the parameters of the version it leaves while a pull may be
 * told to take it (versions from the coordinator's global one, and those pinned by pulls under
 * way, on). */
static void keep_history(struct ps_ctx *c, struct shard *s)
{
    struct nn_state st;
    struct nn_opt none = {.n = s->num.sl.n}; /* a pull needs the values, not the slots */
    nn_state_save(&st, s->num.w, &none, s->version, 0);
    nn_states_put(&s->hist, &st);
    int floor = (int)c->res->coordinator_global;
    for (int i = 0; i < 2 * c->P; i++)
        if (c->pinned[i] >= 0 && c->pinned[i] < floor) floor = c->pinned[i];
    nn_states_prune(&s->hist, floor);
}

/* The ports waiting for the shard to advance look again. */
static void wake_ports(struct shard *s)
{
    for (int r = 0; r < s->c->P; r++)
        if (s->waiting[r]) {
            s->waiting[r] = false;
            sg_sem_release(s->wake[r]);
        }
}

/* The shard reaches its next version; `progress`: it applied something (a version of empty
 * pushes only, every batch corrupt, is not training progressing). */
static void advance(struct shard *s, bool progress)
{
    struct ps_ctx *c = s->c;
    double t0 = simgrid_get_clock();
    if (s->update_amt > 0) sg_actor_execute(s->update_amt);
    s->rep->update_s += simgrid_get_clock() - t0;
    trace_slice(c->res->trace, c->P + s->id, "update", t0, simgrid_get_clock());
    if (c->j->nm && c->sc->train.ps.enforce) keep_history(c, s);
    if (c->j->nm) /* the mean of what it accepted, into the parameters */
        psnum_apply(&s->num, numerics_lr_at(c->j->nm, s->num.opt.t));
    s->version++;
    if (s->version >= s->nversions) /* a first visit of this version (not a replay) */
        s->version_s[s->nversions++] = simgrid_get_clock();
    wake_ports(s);
    s->rep->versions += 1;
    /* training has resumed once every shard advanced after the failure was noticed */
    s->last_adv_s = simgrid_get_clock();
    bool all = true;
    for (int k = 0; k < c->K; k++)
        all &= c->shards[k].last_adv_s > c->inj.detected_s;
    if (all && progress) inject_progress(&c->inj, simgrid_get_clock());
    int least = s->version; /* every shard's: the steps the job has (steps_completed's rule) */
    for (int k = 0; k < c->K; k++)
        if (c->shards[k].version < least) least = c->shards[k].version;
    if (least > c->res->progress_step) c->res->progress_step = least;
    ps_evaluate(c, false, simgrid_get_clock());
    report_version(s);
    if (c->sc->ckpt.present &&
        ckpt_due(&s->ckpt, s->version, s->last_ckpt_s, simgrid_get_clock())) {
        s->last_ckpt_s = simgrid_get_clock();
        if (c->j->nm) { /* what the checkpoint captures of the real state */
            struct nn_state st;
            nn_state_save(&st, s->num.w, &s->num.opt, s->version, 0);
            nn_states_put(&s->snaps, &st);
            nn_states_prune(&s->snaps, (int)s->ckpt_version);
        }
        ckpt_write(&s->ckpt, s->host, s->version, s->version, &s->ckpt_version);
    }
}

static void record_applied(struct ps_ctx *c, struct shard *s, int lag, double samples)
{
    c->res->applied += 1;
    c->res->stale_hist[lag < RUN_HIST - 1 ? lag : RUN_HIST - 1] += 1;
    c->res->consumed_samples += samples;
    s->applied_at[s->version] += 1;
    s->applied_smp[s->version] += samples;
}

/* Sync: a pusher is through with shard s: it finished or left, and its last push (maybe still
 * on its way) is not for the version s collects. */
static bool gone(const struct ps_worker *w, const struct shard *s)
{
    return (w->finished || w->gave_up) && w->last_key[s->id] < s->version;
}

/* Sync: can any pusher (a worker that talks to the shards: every one, or a node's leader) still
 * push to shard s: one is running or about to start, its last push is still on its way, or one
 * that died may come back with its host? */
static bool pushers_may_push(const struct ps_ctx *c, const struct shard *s)
{
    bool dead = false;
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        if (w->leader != r || gone(w, s)) continue;
        if (!w->down || w->finished || w->gave_up) return true;
        dead = true;
    }
    return dead && inject_may_restart(&c->inj);
}

/* Sync: the pushers the shard waits for in this version: those that pushed for it, and those
 * not through with it that it does not suspect (a push of theirs missed a deadline and none came
 * since). A dead worker is waited for until the first deadline shows it missing; from then on it
 * is simply absent, until it pushes again (a restart). */
static int expected_pushers(const struct ps_ctx *c, const struct shard *s)
{
    int n = 0;
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        if (w->leader == r) n += s->pushed[r] || (!s->suspect[r] && !gone(w, s));
    }
    return n;
}

/* The deadline passed: the expected pushers that did not push are suspected (each a failure
 * noticed); the version goes on with the pushes it has. */
static void suspect_missing(struct ps_ctx *c, struct shard *s)
{
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        if (w->leader != r || s->pushed[r] || s->suspect[r] || gone(w, s)) continue;
        s->suspect[r] = true;
        noticed(c);
    }
}

/* Sync: collects each version's quorum (P - b pushes, or every pusher it expects if fewer) and
 * advances. The deadline starts with the version's first push, as a collective's with its first
 * member: it bounds the wait for the others, not the workers' compute. Before any push the
 * shard waits as long as some pusher may still push (woken when one dies, leaves or finishes),
 * and stops when none can. A version always has at least one push (an empty push counts:
 * the worker had nothing to push), so the shard never runs ahead of the workers. */
static void sync_collect(struct shard *s)
{
    struct ps_ctx *c = s->c;
    const struct train_spec *ts = &c->sc->train;
    while (s->version < ts->steps) {
        int got = 0, applied = 0, v = s->version;
        memset(s->pushed, 0, (size_t)c->P * sizeof *s->pushed);
        s->quorum_end = -1;
        for (;;) {
            int need = expected_pushers(c, s);
            need = need < c->quorum ? need : c->quorum;
            if (got > 0 && got >= need) break;
            double now = simgrid_get_clock();
            if (s->quorum_end >= 0 && now >= s->quorum_end) {
                suspect_missing(c, s);
                break;
            }
            if (got == 0 && !pushers_may_push(c, s)) return; /* nobody left to push */
            /* before the first push, look again every deadline (a safety net for the wakes) */
            struct push_rec *rec =
                    take(s, s->quorum_end >= 0 ? s->quorum_end - now : ts->timeout_s);
            if (rec == NULL) continue; /* the deadline, or a wake: count again */
            s->suspect[rec->worker] = false; /* it is there */
            bool fresh = ts->ps.prefetch ? rec->it == v : rec->version == v;
            if (fresh) { /* prefetch: computed one version behind, by design */
                got++;
                s->pushed[rec->worker] = true;
                if (s->quorum_end < 0) s->quorum_end = simgrid_get_clock() + ts->timeout_s;
                if (!rec->empty) {
                    applied++;
                    if (rec->m) psnum_add(&s->num, rec->m->data, rec->m->grads);
                    record_applied(c, s, v - rec->version > 0 ? v - rec->version : 0,
                                   rec->samples);
                }
            } else if (!rec->empty) { /* computed from an older version */
                drop_slice(c, &c->res->dropped_late, rec->samples);
            }
            rec_free(c, rec);
        }
        s->quorum_end = INFINITY; /* held pulls wait for the update */
        advance(s, applied > 0);
    }
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
    if (s->incarnation > 0) report_version(s); /* the coordinator learns of the rollback */
    if (ps->mode == PS_SYNC) {
        sync_collect(s);
        s->stopped = true;
        wake_ports(s); /* held pulls are answered with what there is */
    } else {
        for (;;) { /* a daemon: the run ends with the workers */
            struct push_rec *rec = s->taken = take(s, -1);
            int lag = s->version - rec->version;
            /* bounded delay keeps the lag within tau iterations by making workers wait, so every
             * push is applied (its lag in versions is recorded); drop: only within tau versions */
            rec->accepted = lag >= 0 && (ps->bounded || lag <= ps->staleness);
            if (rec->accepted) {
                if (rec->m) psnum_add(&s->num, rec->m->data, rec->m->grads);
                record_applied(c, s, lag, rec->samples);
                advance(s, true);
            } else {
                drop_slice(c, &c->res->dropped_stale, rec->samples);
            }
            s->taken = NULL; /* the port frees it once decided */
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
    start("shard-%d.%d", s->id, s->incarnation, s->host, shard_actor, s,
          c->sc->train.ps.mode == PS_ASYNC);
    for (int r = 0; r < c->P; r++) {
        struct port *p = &c->ports[(size_t)s->id * c->P + r];
        p->s = s;
        p->worker = r;
        start("port-%d-%d", s->id, r, s->host, port_actor, p, true);
    }
}

/* Numerics: is the real parameter vector split by bytes? As the model is, except under a
 * cost-model proxy, whose layers are not the MLP's (each shard then holds N / K of them). */
static bool real_by_bytes(const struct ps_ctx *c)
{
    return c->sc->train.ps.split_bytes || c->j->nm->spec->cost_model != NULL;
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
        psnum_reset(&s->num, c->j->nm, c->K, real_by_bytes(c), s->id);
    s->num.nacc = 0;
    nn_states_release(&s->hist); /* its versions from here on will be new ones */
}

/* A shard's host crashed: everything since its checkpoint is gone. */
static void shard_crashed(struct ps_ctx *c, struct shard *s)
{
    int keep = c->sc->ckpt.present ? (int)s->ckpt_version : 0;
    for (int v = keep; v < s->version; v++) {
        c->res->lost_updates += 1;
        c->res->applied -= s->applied_at[v];
        c->res->consumed_samples -= s->applied_smp[v];
        lose_slices(c, s->applied_at[v], s->applied_smp[v]);
        s->applied_at[v] = 0;
        s->applied_smp[v] = 0;
    }
    s->version = keep;
    restore_numerics(c, s, keep);
    while (s->head) { /* pushes waiting in its queue die with it (and their ports) */
        struct push_rec *r = s->head;
        s->head = r->next;
        if (!r->empty) lose_slices(c, 1, r->samples);
        sem_set_adopt(&c->sems, r->decided); /* a dying port may wait on it */
        rec_free(c, r);
    }
    s->tail = NULL;
    if (s->taken) { /* the push being decided: its port dies too, and never frees it */
        sem_set_adopt(&c->sems, s->taken->decided);
        rec_free(c, s->taken);
        s->taken = NULL;
    }
}

/* A worker's actors on its GPU host: the worker, and with push during the backward its pusher
 * (fresh semaphores: the old ones may have died with their holders). */
static void start_worker(struct ps_ctx *c, struct ps_worker *w, int incarnation)
{
    sg_host_t h = c->pf->gpus[w->rank];
    w->down = false;
    start("worker-%d.%d", w->rank, incarnation, h,
          w->leader == w->rank ? worker_actor : follower_actor, w, false);
    w->pf_pending = false;
    if (c->sc->train.ps.prefetch) {
        w->pull_go = sem_set_new(&c->sems, 0);
        w->pull_done = sem_set_new(&c->sems, 0);
        start("puller-%d.%d", w->rank, incarnation, h, puller_actor, w, true);
    }
    if (!c->sc->train.ps.push_during) return;
    w->hand = sem_set_new(&c->sems, 0);
    w->posted = sem_set_new(&c->sems, 0);
    start("pusher-%d.%d", w->rank, incarnation, h, pusher_actor, w, true);
}

static void ps_crashed(void *ctx, sg_host_t h)
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
    if (worker) wake_shards(c);
}

static void start_coordinator(struct ps_ctx *c);

/* The coordinator's unanswered questions, forgotten (its host restarted, or the run is over). */
static void drop_requests(struct ps_ctx *c)
{
    while (c->reqs) {
        struct global_req *q = c->reqs;
        c->reqs = q->next;
        free(q);
    }
}

static void ps_restarted(void *ctx, sg_host_t h)
{
    struct ps_ctx *c = ctx;
    /* after every worker is through, nothing needs the shard (and SimGrid would kill an actor
     * started at the simulation's last instant before it ever ran) */
    bool async_spent = c->sc->train.ps.mode == PS_ASYNC && c->budget <= 0 && c->running == 0;
    bool over = c->workers_done + c->gave_up == c->P || async_spent;
    if (!over && h == c->coord_host) { /* back with an empty memory: shards report again */
        memset(c->coord_ver, 0, (size_t)c->K * sizeof *c->coord_ver);
        drop_requests(c);
        start_coordinator(c);
    }
    for (int k = 0; k < c->K && !over; k++)
        if (c->shards[k].host == h) {
            c->shards[k].incarnation++;
            start_shard(c, &c->shards[k]);
        }
    if (c->loader && !over) loader_restarted(c->loader, h);
    for (int r = 0; r < c->P; r++)
        if (c->pf->gpus[r] == h && !c->workers[r].finished && !c->workers[r].gave_up &&
            (c->sc->train.ps.mode == PS_ASYNC ? c->budget > 0
                                              : c->workers[r].next_it < c->sc->train.steps))
            start_worker(c, &c->workers[r], ++c->workers[r].incarnation);
}

static int ps_members(void *ctx)
{
    return ((struct ps_ctx *)ctx)->running;
}

/* A crash hurts the job if a worker or a shard runs there. */
static bool ps_relevant(void *ctx, sg_host_t h)
{
    struct ps_ctx *c = ctx;
    for (int r = 0; r < c->P; r++)
        if (c->pf->gpus[r] == h) return true;
    for (int k = 0; k < c->K; k++)
        if (c->shards[k].host == h) return true;
    return false;
}

/* The coordinator's answer, sent by an actor of its own so that a worker that is gone delays no
 * one (the send's deadline ends it). */
struct global_reply {
    struct ps_ctx *c;
    struct ps_msg *m; /* version: the global one; shard, buf: to whom; it: the question's number */
};

static void reply_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct global_reply *r = sg_actor_self_get_data();
    struct ps_ctx *c = r->c;
    struct ps_msg *m = r->m;
    free(r);
    transport_cost(c, REQUEST_B, false, 1);
    send_msg(c, c->coord_host, c->pf->gpus[m->shard], coord_reply_box(m->shard, m->buf), m,
             REQUEST_B);
}

/* Answers every question whose version the global one has reached (pinning it in the shards'
 * histories until the pull is done). */
static void answer_ready(struct ps_ctx *c, int global)
{
    for (struct global_req **p = &c->reqs; *p;) {
        struct global_req *q = *p;
        if (q->need > global) {
            p = &q->next;
            continue;
        }
        struct global_reply *r = xbt_new0(struct global_reply, 1);
        r->c = c;
        r->m = msg_new(c, MSG_GLOBAL, global);
        r->m->shard = q->rank;
        r->m->buf = q->buf;
        r->m->it = q->seq;
        c->pinned[2 * q->rank + q->buf] = global;
        start("coord-reply-%d.%d", q->rank, q->seq, c->coord_host, reply_actor, r, false);
        *p = q->next;
        free(q);
    }
}

/* The coordinator hears every shard's advances (the global version is their minimum); with
 * enforce it also answers the workers' questions for it. */
static void coordinator_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_ctx *c = sg_actor_self_get_data();
    bool enforce = c->sc->train.ps.enforce;
    int *ver = c->coord_ver, lo = 0;
    for (;;) { /* a daemon: ends with the simulation */
        struct ps_msg *m;
        if (net_recv(sg_mailbox_by_name("coordinator"), (void **)&m,
                     enforce ? 1e9 : c->sc->train.timeout_s) != NET_OK) {
            if (enforce) continue; /* it must be there for the next question */
            break;
        }
        if (m->type == MSG_GLOBAL) {
            struct global_req *q = xbt_new0(struct global_req, 1);
            *q = (struct global_req){m->shard, m->buf, m->version, m->it, c->reqs};
            c->reqs = q;
            msg_free(c, m);
            answer_ready(c, lo);
            continue;
        }
        c->res->coordinator_msgs += 1;
        ver[m->shard] = m->version;
        msg_free(c, m);
        int hi = ver[0];
        lo = ver[0];
        for (int k = 1; k < c->K; k++) {
            lo = ver[k] < lo ? ver[k] : lo;
            hi = ver[k] > hi ? ver[k] : hi;
        }
        c->res->coordinator_global = lo; /* the version every shard has reached */
        if (hi - lo > c->res->coordinator_spread) c->res->coordinator_spread = hi - lo;
        if (enforce) answer_ready(c, lo);
    }
}

static void start_coordinator(struct ps_ctx *c)
{
    sg_actor_t a = sg_actor_init("coordinator", c->coord_host);
    sg_actor_set_data(a, c);
    sg_actor_daemonize(a); /* it serves as long as the shards run, then goes with them */
    sg_actor_start(a, coordinator_actor, 0, NULL);
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

enum dmlsim_err ps_check(const struct job *j, struct dmlsim_error *err)
{
    const struct scenario *sc = j->sc;
    const struct ps_spec *ps = &sc->train.ps;
    enum dmlsim_err rc = job_check(j, err);
    if (rc != DMLSIM_OK) return rc;
    int P = job_workers(j);
    if (shard_host(sc, j->pf, 0) == NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <ps placement=\"%s\">: the platform has no %s hosts; expected "
                           "%s",
                           sc->path, ps->line, ps->dedicated ? "dedicated" : "colocated",
                           ps->dedicated ? "parameter-server" : "node CPU",
                           ps->dedicated ? "ps-nodes=\"K\" on <cluster> (or hosts with property "
                                           "role=ps)"
                                         : "hosts with property role=cpu");
    if (sc->rec.per_side) /* the PS recovers per worker and shard: no membership to split */
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <recovery rendezvous=\"per-side\">: the parameter server has no "
                           "rendezvous; expected rendezvous=\"store\" or strategy=\"allreduce\"",
                           sc->path, sc->rec.line);
    if (ps->mode == PS_SYNC && ps->backup >= P)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <ps backup-workers=\"%d\">: with %d worker(s) no push would be "
                           "waited for; expected fewer than %d",
                           sc->path, ps->line, ps->backup, P, P);
    return DMLSIM_OK;
}

void ps_describe(const struct job *j, FILE *out)
{
    const struct train_spec *ts = &j->sc->train;
    const struct ps_spec *p = &ts->ps;
    int P = job_workers(j);
    fprintf(out, "# training      parameter server, %d shard(s) %s, split by %s, %s", p->shards,
            p->dedicated ? "dedicated" : "colocated", p->split_bytes ? "bytes" : "layer",
            p->mode == PS_SYNC ? "sync" : "async");
    if (p->mode == PS_SYNC)
        fprintf(out, " (quorum %d of %d, %d backup)%s", P - p->backup, P, p->backup,
                p->local_agg ? ", aggregated per node" : "");
    else
        fprintf(out, " (staleness <= %d)", p->staleness);
    fprintf(out, "%s\n# workers       %d x batch %d, %s, %s, %d step(s)\n",
            p->coordinator ? ", with a version coordinator" : "", P, ts->batch,
            catalog_dtype_name(ts->dtype), model_optimizer_name(ts->opt), ts->steps);
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

static void trace_tracks(struct ps_ctx *c)
{
    for (int r = 0; r < c->P; r++) {
        char *a = bprintf("worker %d (%s)", r, sg_host_get_name(c->pf->gpus[r]));
        trace_track(c->res->trace, r, a);
        free(a);
    }
    for (int k = 0; k < c->K; k++) {
        char *a = bprintf("shard %d", k);
        trace_track(c->res->trace, c->P + k, a);
        free(a);
    }
}

static void setup_shards(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    struct run_record *res = c->res;
    double *split = xbt_new0(double, c->K), elem_B = model_dtype_bytes(ts->dtype);
    ps_split(c->m, c->K, ts->ps.split_bytes, split);
    double cpu_Bps = CATALOG_CPU_MEM_BW * CPU_MEM_EFF;
    double per_param_B = model_update_bytes_per_param(ts->dtype, ts->opt), biggest = 0;
    res->nshards = c->K;
    res->shards = xbt_new0(struct shard_report, c->K);
    c->shards = xbt_new0(struct shard, c->K);
    for (int k = 0; k < c->K; k++) {
        struct shard *s = &c->shards[k];
        s->c = c;
        s->id = k;
        s->host = shard_host(c->sc, c->pf, k);
        s->params = split[k];
        s->bytes = split[k] * elem_B;
        s->update_amt = split[k] * per_param_B / cpu_Bps * sg_host_get_speed(s->host);
        s->version_s = xbt_new0(double, (size_t)c->total_versions + 2);
        s->applied_at = xbt_new0(double, (size_t)c->total_versions + 2);
        s->applied_smp = xbt_new0(double, (size_t)c->total_versions + 2);
        s->nversions = 1; /* version 0 at time 0 */
        ckpt_init(&s->ckpt, c->sc, c->pf, ckpt_size(c->m, split[k], ts->dtype, ts->opt), res);
        s->rep = &res->shards[k];
        snprintf(s->rep->host, sizeof s->rep->host, "%s", sg_host_get_name(s->host));
        s->rep->params = split[k];
        s->rep->link_Bps = sg_host_get_route_bandwidth(c->pf->gpus[0], s->host);
        if (c->j->nm) psnum_init(&s->num, c->j->nm, c->K, real_by_bytes(c), k);
        biggest = fmax(biggest, split[k]);
    }
    res->imbalance = model_params(c->m) > 0 ? biggest / (model_params(c->m) / c->K) : 1;
    /* one RPC per shard, or per tensor (a layer's parameters, or its part of them when split by
     * bytes), as TensorFlow's parameter servers sent a variable per RPC */
    for (int k = 0; k < c->K; k++) {
        int tensors = 0;
        for (size_t l = 0; l < c->m->nlayers; l++)
            tensors += c->m->layers[l].params > 0 && (ts->ps.split_bytes || (int)(l % c->K) == k);
        c->shards[k].rpcs = ts->ps.per_tensor_rpc && tensors > 0 ? tensors : 1;
    }
    /* a shard's slice is complete when the backward has done its lowest layer: split by layer,
     * shard k holds layers k, k + K, ...; by bytes, a part of every layer */
    c->complete_at = xbt_new0(int, c->K);
    for (int k = 0; k < c->K; k++)
        c->complete_at[k] = ts->ps.split_bytes       ? 0
                            : k < (int)c->m->nlayers ? k
                                                     : (int)c->m->nlayers - 1;
    c->ports = xbt_new0(struct port, (size_t)c->K * c->P);
    for (int k = 0; k < c->K; k++)
        start_shard(c, &c->shards[k]);
    free(split);
}

/* Local aggregation: every worker's leader, the first worker on its host's node (a host without
 * a node property is a node of its own); each leader's followers. Returns the leaders' count. */
static int assign_leaders(struct ps_ctx *c)
{
    int leaders = 0;
    for (int r = 0; r < c->P; r++) {
        struct ps_worker *w = &c->workers[r];
        const char *node = sg_host_get_property_value(c->pf->gpus[r], "node");
        w->leader = r;
        for (int q = 0; c->sc->train.ps.local_agg && node && q < r && w->leader == r; q++) {
            const char *other = sg_host_get_property_value(c->pf->gpus[q], "node");
            if (other && strcmp(node, other) == 0) w->leader = c->workers[q].leader;
        }
        leaders += w->leader == r;
    }
    for (int r = 0; r < c->P; r++) {
        if (c->workers[r].leader == r) continue;
        struct ps_worker *L = &c->workers[c->workers[r].leader];
        if (L->follow == NULL) L->follow = xbt_new0(int, c->P);
        L->follow[L->nfollow++] = r;
    }
    for (int r = 0; r < c->P; r++) {
        c->workers[r].sent = xbt_new0(bool, c->workers[r].nfollow + 1);
        c->workers[r].fgone = xbt_new0(bool, c->workers[r].nfollow + 1);
        c->workers[r].last_key = xbt_new(int, c->K);
        c->workers[r].seen = xbt_new(int, c->K);
        for (int k = 0; k < c->K; k++)
            c->workers[r].last_key[k] = c->workers[r].seen[k] = -1;
    }
    return leaders;
}

static void setup_workers(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    for (int r = 0; r < c->P; r++) {
        struct ps_worker *w = &c->workers[r];
        w->c = c;
        w->rank = r;
        struct kernel_costs kc = job_kernel_costs(ts);
        worker_amounts(c->j->cal, c->pf->models[r], c->pf->gpus[r], ts->dtype, ts->opt, c->m,
                       ts->batch, &kc, &w->amt);
        for (size_t l = 0; l < c->m->nlayers; l++) /* forward and backward back to back */
            w->work += w->amt.fwd[l] + w->amt.bwd[l];
        w->reduce_amt = c->model_B / calib_memory_rate(c->j->cal, c->pf->models[r]) *
                        sg_host_get_speed(c->pf->gpus[r]);
        w->iter_end = xbt_new0(double, ts->steps);
        w->iter_busy = xbt_new0(double, ts->steps);
        w->iter_samples = xbt_new0(double, ts->steps);
        w->iter_tc = xbt_new0(double, ts->steps);
        w->cap = ts->steps;
        w->queue = xbt_new0(int, c->K);
        w->pf_version = xbt_new0(int, c->K);
        for (int i = 0; i < 2; i++) {
            struct shard_bufs *b = &w->bufs[i];
            b->got = xbt_new0(bool, c->K);
            b->comms = xbt_new0(sg_comm_t, 4 * c->K); /* pull_all's 2 K, the worker's 2 K */
            b->in = xbt_new0(struct ps_msg *, 3 * c->K); /* pulls', requests', verdicts' */
            b->version = xbt_new0(int, c->K);
            if (c->j->nm) b->params = xbt_new0(float, c->j->nm->net.nparams);
        }
        if (c->j->nm) replica_init(c->j->nm, &w->rep);
        w->fcomms = xbt_new0(sg_comm_t, w->nfollow + 1);
        w->fmsgs = xbt_new0(struct ps_msg *, w->nfollow + 1);
    }
    for (int r = 0; r < c->P; r++)
        start_worker(c, &c->workers[r], 0);
}

/* When row s ends (< 0: there is none). Sync: when every shard has reached version s + 1;
 * async: when every worker that did its iteration s has finished it. */
/* Did worker w finish its iteration s? */
static bool did(const struct ps_worker *w, int s)
{
    return s < w->cap && w->iter_end[s] > 0;
}

static double row_end(const struct ps_ctx *c, int s)
{
    double t = 0;
    if (c->sc->train.ps.mode == PS_SYNC) {
        for (int k = 0; k < c->K; k++) {
            if (s + 1 >= c->shards[k].nversions) return -1;
            t = fmax(t, c->shards[k].version_s[s + 1]);
        }
        return t;
    }
    t = -1;
    for (int r = 0; r < c->P; r++)
        if (did(&c->workers[r], s)) t = fmax(t, c->workers[r].iter_end[s]);
    return t;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The compute of row s: the quorum-th smallest compute of iteration s (sync: the version waits
 * for that many pushes, so a backup worker's slower compute is not on the step's path; async and
 * sync without backups: the slowest). Fills *done with the workers that did iteration s. */
static double row_compute(const struct ps_ctx *c, int s, int *done)
{
    double *v = xbt_new(double, c->P);
    int n = 0;
    for (int r = 0; r < c->P; r++)
        if (did(&c->workers[r], s)) v[n++] = c->workers[r].iter_busy[s];
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int need = c->P - c->sc->train.ps.backup; /* workers a version waits for */
    int q = c->sc->train.ps.mode == PS_SYNC && need < n ? need : n;
    double compute = n > 0 ? v[q - 1] : 0;
    free(v);
    *done = n;
    return compute;
}

/* Sync rows: step s ends when every shard has reached version s + 1. A row's samples are those
 * the workers computed gradients for in iteration s if that compute ended within the run (a
 * backup worker's iteration that ends later is not counted), and its workers those whose compute
 * that is. The run time is the last row's end. */
static void sync_rows(struct ps_ctx *c)
{
    int rows = 0;
    double T = 0, prev = 0;
    while (rows < c->sc->train.steps && row_end(c, rows) >= 0)
        T = fmax(T, row_end(c, rows++));
    c->res->total_s = T;
    for (int s = 0; s < rows; s++) {
        double t = fmax(prev, row_end(c, s)), samples = 0;
        int done = 0, went;
        double compute = row_compute(c, s, &went);
        for (int r = 0; r < c->P; r++) {
            const struct ps_worker *w = &c->workers[r];
            if (did(w, s) && w->iter_tc[s] + w->iter_busy[s] <= T) {
                samples += w->iter_samples[s];
                done++;
            }
        }
        run_step_add(c->res, t, s + 1, t - prev, compute, samples, done, 0);
        prev = t;
    }
}

struct finished {
    double end_s, busy_s, samples;
    int rank;
};

static int by_end(const void *x, const void *y)
{
    const struct finished *a = x, *b = y;
    if (a->end_s != b->end_s) return a->end_s < b->end_s ? -1 : 1;
    return a->rank - b->rank;
}

/* Async rows: the run's iterations in the order they finished, P at a time (workers do different
 * numbers of them: the budget goes to whoever is free), so a row is as much work as one round
 * of every worker; the last row holds what is left. A row's compute is the slowest of its
 * iterations' computes, its workers the distinct workers in it. */
static void async_rows(struct ps_ctx *c)
{
    size_t n = 0;
    for (int r = 0; r < c->P; r++)
        for (int it = 0; it < c->workers[r].cap; it++)
            n += did(&c->workers[r], it);
    struct finished *f = xbt_new0(struct finished, n ? n : 1);
    n = 0;
    for (int r = 0; r < c->P; r++)
        for (int it = 0; it < c->workers[r].cap; it++)
            if (did(&c->workers[r], it))
                f[n++] = (struct finished){c->workers[r].iter_end[it], c->workers[r].iter_busy[it],
                                           c->workers[r].iter_samples[it], r};
    qsort(f, n, sizeof *f, by_end);
    double prev = 0;
    bool *in = xbt_new0(bool, c->P);
    for (size_t i = 0, row = 0; i < n; row++) {
        double samples = 0, compute = 0;
        int workers = 0;
        memset(in, 0, (size_t)c->P * sizeof *in);
        size_t end = i + (size_t)c->P < n ? i + (size_t)c->P : n;
        for (; i < end; i++) {
            samples += f[i].samples;
            compute = fmax(compute, f[i].busy_s);
            workers += !in[f[i].rank];
            in[f[i].rank] = true;
        }
        double t = f[end - 1].end_s;
        run_step_add(c->res, t, (int)row + 1, t - prev, compute, samples, workers, 0);
        prev = t;
        c->res->total_s = t;
    }
    free(in);
    free(f);
}

/* <data>: the input pipeline feeds every worker (else the job's hook: batches always ready). */
static void start_input(struct ps_ctx *c)
{
    const struct data_spec *d = &c->sc->train.data;
    c->input = c->j->input;
    if (!d->present) return;
    long long N = c->j->nm ? c->j->nm->train.n : (long long)d->samples;
    c->loader = loader_new(d, c->pf, c->P, c->sc->train.batch, N, c->res, c->traffic);
    c->input = loader_hook(c->loader);
    loader_start(c->loader);
}

/* The job's verdict with the PS's reasons (run_verdict applies the same rule): it completed only
 * if every shard reached every version, with at least one gradient applied, and some worker got
 * through. */
static void verdict(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    struct run_record *res = c->res;
    int died = c->P - c->workers_done - c->gave_up;
    char who[96];
    snprintf(who, sizeof who, "%d of %d workers finished (%d gave up, %d died)", c->workers_done,
             c->P, c->gave_up, died > 0 ? died : 0);
    double step_s = 0; /* the longest compute of an iteration */
    for (int r = 0; r < c->P; r++)
        for (int it = 0; it < c->workers[r].cap; it++)
            if (did(&c->workers[r], it)) step_s = fmax(step_s, c->workers[r].iter_busy[it]);
    if (res->steps_completed < ts->steps || c->workers_done == 0) {
        res->job_failed = true;
        snprintf(res->failure, sizeof res->failure,
                 "%.0f of %d versions reached by every shard when the run ended; %s",
                 res->steps_completed, ts->steps, who);
    } else if (res->applied <= 0) {
        res->job_failed = true;
        int n = snprintf(res->failure, sizeof res->failure,
                         "no gradient applied by the shards: %.0f computed, %.0f dropped stale, "
                         "%.0f dropped late, %.0f lost",
                         res->computed, res->dropped_stale, res->dropped_late,
                         res->lost_gradients);
        if (res->dropped_late > 0 && step_s > ts->timeout_s && n > 0 &&
            (size_t)n < sizeof res->failure)
            snprintf(res->failure + n, sizeof res->failure - (size_t)n,
                     " (a step computes for %.3f ms, the <training timeout> is %.3f ms)",
                     step_s * 1e3, ts->timeout_s * 1e3);
    }
}

/* What the run leaves in the record, besides the rows. */
static void results(struct ps_ctx *c)
{
    const struct train_spec *ts = &c->sc->train;
    struct run_record *res = c->res;
    if (c->loader) loader_report(c->loader, res);
    for (int r = 0; r < c->P; r++) /* still inside an iteration when the run ended */
        account_unfinished(&c->workers[r]);
    for (int k = 0; k < c->K; k++) {
        for (struct push_rec *r = c->shards[k].head; r; r = r->next)
            if (!r->empty) /* after the shard's last version */
                drop_slice(c, &res->dropped_late, r->samples);
        if (c->shards[k].in_port > 0) { /* ... or was still being deserialised */
            res->dropped_late += c->shards[k].in_port;
            res->dropped_samples += c->shards[k].in_port_smp;
        }
    }
    res->steps_completed = INFINITY;
    for (int k = 0; k < c->K; k++) {
        res->steps_completed = fmin(res->steps_completed, c->shards[k].version);
        res->checkpoints += c->shards[k].ckpt.completed;
        res->ckpt_overhead_s += c->shards[k].ckpt.overhead_s;
        res->ckpt_B += c->shards[k].ckpt.size_B;
    }
    res->final_workers = c->workers_done;
    /* compute time within the run: a worker still computing after the last step (a backup
     * worker's late iteration) counts only what it did before */
    for (int r = 0; r < c->P; r++) {
        const struct ps_worker *w = &c->workers[r];
        res->busy_s[r] = 0;
        for (int it = 0; it < w->cap; it++)
            if (did(w, it))
                res->busy_s[r] += fmax(0, fmin(w->iter_tc[it] + w->iter_busy[it], res->total_s) -
                                                  w->iter_tc[it]);
    }
    res->grad_B = model_params(c->m) * model_dtype_bytes(ts->dtype);
    res->mem = model_memory(c->m, ts->dtype, ts->opt, ts->batch);
    job_record_compute(res, &c->workers[0].amt, c->pf->models[0], ts->dtype);
    verdict(c);
}

/* Numerics: the final model's fingerprint, every shard's parameters. */
static void fingerprint(struct ps_ctx *c)
{
    if (c->j->nm == NULL) return;
    for (int k = 0; k < c->K; k++)
        pslice_scatter(&c->shards[k].num.sl, c->shards[k].num.w, c->eval_params);
    c->res->params_fnv = numerics_fingerprint(c->eval_params, c->j->nm->net.nparams);
}

static void teardown(struct ps_ctx *c)
{
    loader_free(c->loader);
    for (int k = 0; k < c->K; k++) {
        struct shard *s = &c->shards[k];
        while (s->head) {
            struct push_rec *r = s->head;
            s->head = r->next;
            sem_set_adopt(&c->sems, r->decided);
            rec_free(c, r);
        }
        if (s->taken) { /* async: the run ended while the shard decided on it */
            sem_set_adopt(&c->sems, s->taken->decided);
            rec_free(c, s->taken);
        }
        ckpt_release(&s->ckpt);
        psnum_release(&s->num);
        nn_states_release(&s->snaps);
        nn_states_release(&s->hist);
        free(s->version_s);
        free(s->applied_at);
        free(s->applied_smp);
        free(s->waiting);
        free(s->wake);
        free(s->pushed);
        free(s->suspect);
    }
    for (int r = 0; r < c->P; r++) {
        free(c->workers[r].iter_end);
        free(c->workers[r].iter_busy);
        free(c->workers[r].iter_samples);
        free(c->workers[r].iter_tc);
        free(c->workers[r].queue);
        free(c->workers[r].pf_version);
        free(c->workers[r].follow);
        free(c->workers[r].sent);
        free(c->workers[r].fgone);
        free(c->workers[r].last_key);
        free(c->workers[r].seen);
        for (int i = 0; i < 2; i++) {
            free(c->workers[r].bufs[i].got);
            free(c->workers[r].bufs[i].comms);
            free(c->workers[r].bufs[i].in);
            free(c->workers[r].bufs[i].version);
            free(c->workers[r].bufs[i].params);
        }
        replica_release(&c->workers[r].rep);
        free(c->workers[r].fcomms);
        free(c->workers[r].fmsgs);
        worker_amounts_release(&c->workers[r].amt);
    }
    sem_set_release(&c->sems);
    owned_release(&c->msgs);
    free(c->coord_ver);
    free(c->eval_params);
    free(c->pinned);
    drop_requests(c);
    inject_release(&c->inj);
    traffic_free(c->traffic);
    for (int r = 0; c->bd_wake && r < c->P; r++)
        sg_sem_destroy(c->bd_wake[r]);
    free(c->bd_wake);
    free(c->bd_waiting);
    free(c->progress);
    free(c->workers);
    free(c->complete_at);
    free(c->ports);
    free(c->shards);
}

void ps_run(const struct job *j, struct run_record *res)
{
    const struct train_spec *ts = &j->sc->train;
    struct ps_ctx c = {.j = j, .sc = j->sc, .m = j->m, .pf = j->pf, .res = res};
    c.P = job_workers(j);
    c.K = ts->ps.shards;
    assert(c.P >= 1 && shard_host(c.sc, c.pf, 0) != NULL);
    run_init(res, STRAT_PS, c.P, ts->batch, ts->steps);
    run_config_str(res, "ps_mode", ts->ps.mode == PS_SYNC ? "sync" : "async");
    run_config_num(res, "shards", "%d", c.K);
    run_config_str(res, "placement", ts->ps.dedicated ? "dedicated" : "colocated");
    run_config_str(res, "split", ts->ps.split_bytes ? "bytes" : "layer");
    run_config_num(res, ts->ps.mode == PS_SYNC ? "backup_workers" : "staleness_bound", "%d",
                   ts->ps.mode == PS_SYNC ? ts->ps.backup : ts->ps.staleness);
    run_config_num(res, "coordinator", "%s", ts->ps.coordinator ? "true" : "false");
    run_config_str(res, "transport", ts->ps.transport ? ts->ps.transport->name : "ideal");
    run_config_str(res, "push", ts->ps.push_during ? "during-backward" : "after-backward");
    run_config_str(res, "rpc", ts->ps.per_tensor_rpc ? "per-tensor" : "per-shard");
    run_config_num(res, "prefetch", "%s", ts->ps.prefetch ? "true" : "false");
    run_config_str(res, "aggregation", ts->ps.local_agg ? "local" : "none");
    if (ts->ps.mode == PS_ASYNC)
        run_config_str(res, "consistency", ts->ps.bounded ? "bounded" : "drop");
    res->coordinator = ts->ps.coordinator;
    res->first_push_s = xbt_new0(double, c.P);
    c.model_B = model_params(c.m) * model_dtype_bytes(ts->dtype);
    c.workers = xbt_new0(struct ps_worker, c.P);
    int pushers = assign_leaders(&c); /* every worker, or one per node when aggregating */
    c.quorum = ts->ps.mode == PS_SYNC ? pushers - ts->ps.backup : 1;
    /* sync: the samples of one version (its quorum); async: one round of every worker */
    res->global_batch = (double)(ts->ps.mode == PS_SYNC ? c.P - ts->ps.backup : c.P) * ts->batch;
    c.total_versions = ts->ps.mode == PS_SYNC ? ts->steps : (double)c.P * ts->steps;
    c.traffic = traffic_new();
    c.budget = c.P * ts->steps;
    if (ts->ps.mode == PS_ASYNC && ts->ps.bounded) {
        c.progress = xbt_new0(int, c.P);
        c.bd_waiting = xbt_new0(bool, c.P);
        c.bd_wake = xbt_new0(sg_sem_t, c.P);
        for (int r = 0; r < c.P; r++)
            c.bd_wake[r] = sg_sem_init(0);
    }
    if (ts->trace) {
        res->trace = trace_new();
        net_trace_flight(res->trace); /* until job_finish */
        trace_tracks(&c);
    }
    inject_init(&c.inj, j->plan, res, j->pf, job_store_host(j),
                (struct inject_hooks){ps_crashed, ps_restarted, ps_members, ps_relevant, &c});
    if (j->nm) c.eval_params = xbt_new0(float, j->nm->net.nparams);
    job_record_numerics(j, res);
    setup_shards(&c);
    if (ts->ps.coordinator) {
        c.coord_host = c.shards[0].host;
        c.coord_ver = xbt_new0(int, c.K);
        if (ts->ps.enforce) {
            c.pinned = xbt_new(int, 2 * (size_t)c.P);
            for (int i = 0; i < 2 * c.P; i++)
                c.pinned[i] = -1;
        }
        start_coordinator(&c);
    }
    setup_workers(&c);
    start_input(&c);
    inject_start(&c.inj);
    job_watch(j, res);
    simgrid_run();

    if (ts->ps.mode == PS_SYNC)
        sync_rows(&c);
    else
        async_rows(&c);
    ps_evaluate(&c, true, res->total_s);
    fingerprint(&c);
    results(&c);
    version_spread(&c, res->total_s);
    job_finish(res, c.traffic);
    teardown(&c);
}
