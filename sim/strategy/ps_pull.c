/* ps_pull.c - a worker's pulls (see ps_pull.h). */
#include "ps_pull.h"

#include "net.h"
#include "ps_msg.h"
#include "ps_rpc.h"
#include "ps_sparse.h"
#include "psnum.h"
#include "runkit.h"
#include "traffic.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>

#include <math.h>
#include <string.h>

/* A worker retries a shard that did not answer after RETRY_S, then backs off by RETRY_MULT up to
 * RETRY_MAX_S (gRPC's connection backoff multiplier and cap, grpc/doc/connection-backoff.md),
 * until the replacement timeout; then it gives up and leaves the job. */
#define RETRY_S     0.05
#define RETRY_MULT  1.6
#define RETRY_MAX_S 120.0

/* coordinator="enforce": asks the coordinator for the global version (once it is at least
 * `need`); -1 when no answer came within the deadline (the pull then takes each shard's latest). */
static int ask_global(struct ps_worker *w, const struct shard_bufs *b, int need)
{
    struct ps_ctx *c = w->c;
    int buf = (int)(b - w->bufs), seq = ++w->asks;
    struct ps_msg *q = ps_msg_new(c, MSG_GLOBAL, need);
    q->shard = w->rank;
    q->buf = buf;
    q->it = seq;
    ps_msg_cost(c, REQUEST_B, false, 1);
    if (ps_msg_send(c, c->pf->gpus[w->rank], c->coord_host, runkit_mailbox("coordinator"), q,
                    REQUEST_B) != NET_OK)
        return -1;
    double end = simgrid_get_clock() + c->sc->train.timeout_s;
    for (;;) {
        struct ps_msg *a;
        if (net_recv(ps_msg_reply_box(w->rank, buf), (void **)&a, end - simgrid_get_clock()) !=
            NET_OK)
            return -1;
        int g = a->it == seq ? a->version : -1; /* an older question's late answer: dropped */
        ps_msg_free(c, a);
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
        ps_msg_free(c, *in);
        *in = NULL;
        *comm = net_irecv(ps_msg_to_worker(rank, k), (void **)in);
    }
}

/* Pulls every shard's parameters; a shard that does not answer is asked again, backing off,
 * until it does (its keys are blocked) or the replacement timeout passes (w->gave_up). Fills
 * version[]; false if some shard never answered, answered only after a retry, or answered with
 * a version older than one it gave before (it restarted from an older state): a failure
 * noticed. */
static bool pull_all(struct ps_worker *w, struct shard_bufs *b, int it, int batch, int *version)
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
    double smp = (double)ts->batch * (w->nfollow + 1); /* the batches whose rows it pulls */
    int need = ts->ps.mode == PS_SYNC ? it : 0,
        g = ts->ps.enforce ? ask_global(w, b, need) : -1; /* the one version every shard gives */
    for (int left = c->K; left > 0;) {
        for (int k = 0; k < c->K; k++) {
            if (got[k]) continue;
            req[k] = ps_msg_new(c, MSG_PULL, g >= 0 ? g : need);
            req[k]->exact = g >= 0;
            double req_B = ps_sparse_pull(c, w, batch, smp, k, req[k]); /* the rows' indices */
            ps_rpc_worker(c, w->rank, RPC_CLIENT, req_B, false, 1);
            traffic_add(c->kit->traffic, me, c->shards[k].host, req_B);
            comms[k] = net_isend(ps_msg_to_port(k, w->rank), req[k], req_B);
            comms[c->K + k] = net_irecv(ps_msg_to_worker(w->rank, k), (void **)&in[k]);
        }
        double end = simgrid_get_clock() + ts->timeout_s;
        for (int k = 0; k < c->K; k++) {
            if (got[k]) continue;
            bool asked = net_wait(comms[k], end) == NET_OK;
            if (!asked) ps_msg_free(c, req[k]); /* never received */
            req[k] = NULL;
            /* sync: a port holds a pull while its shard collects the version before the one
             * asked for, up to the shard's quorum deadline; the answer has a deadline of its
             * own, so a pull that reached its port is waited for two deadlines (the shard may
             * wait one for a missing push: that is no failure of this shard) */
            double until = asked && ts->ps.mode == PS_SYNC ? end + ts->timeout_s : end;
            if (recv_params(c, w->rank, k, &comms[c->K + k], &in[k], until)) {
                version[k] = in[k]->version;
                ps_sparse_pulled(c, k, in[k]);
                /* a shard whose version went back restarted from an older state: noticed */
                if (version[k] < w->seen[k] && !ts->ps.enforce) rolled_back = true;
                w->seen[k] = version[k];
                if (b->params) pslice_scatter(&c->shards[k].num.sl, in[k]->data, b->params);
                got[k] = true;
                left--;
                ps_rpc_worker(c, w->rank, RPC_CLIENT, in[k]->reply_B, true, /* into the GPU */
                              c->shards[k].rpcs);
            }
            ps_msg_free(c, in[k]);
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
    if (all && mixed(c, version)) ps_metrics_of(c->res)->mixed_pulls += 1;
    return all && !retried && !rolled_back;
}

void ps_pull_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct ps_worker *w = sg_actor_self_get_data();
    for (;;) { /* a daemon */
        sg_sem_acquire(w->pull_go);
        /* the version the current iteration computes from, for the next iteration's batch */
        w->pull_ok = pull_all(w, &w->bufs[1], w->pull_needed, w->pull_needed + 1, w->pf_version);
        sg_sem_release(w->pull_done);
    }
}

bool ps_pull_get_params(struct ps_worker *w, int need, int *version)
{
    struct ps_ctx *c = w->c;
    const struct shard_bufs *b = &w->bufs[0];
    bool ok = true;
    if (!c->sc->train.ps.prefetch || !w->pf_pending) {
        ok = pull_all(w, &w->bufs[0], need, need, version);
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

void ps_pull_prefetch_next(struct ps_worker *w, int it)
{
    if (!w->c->sc->train.ps.prefetch || it + 1 >= w->c->sc->train.steps) return;
    w->pull_needed = it;
    w->pf_pending = true;
    sg_sem_release(w->pull_go);
}

int ps_pull_sync_iteration(const struct ps_worker *w, const int *version)
{
    const struct ps_ctx *c = w->c;
    int p = version[0];
    for (int k = 1; k < c->K; k++)
        p = version[k] < p ? version[k] : p;
    if (c->sc->train.ps.prefetch) return p + 1 == w->next_it ? w->next_it : p;
    return p < w->next_it ? p : w->next_it;
}
