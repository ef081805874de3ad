/* ps_push.c - a worker's pushes (see ps_push.h). */
#include "ps_push.h"

#include "net.h"
#include "ps_account.h"
#include "ps_msg.h"
#include "ps_rpc.h"
#include "ps_sparse.h"
#include "psnum.h"
#include "trace.h"
#include "traffic.h"
#include "worker.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>

/* Pushes every shard's slice at once, stamped with the version it came from; in async mode
 * waits for each shard's verdict. comms and in have room for K. */
/* Serialises and posts the push of shard k's slice, stamped with the version it came from. */
static void post_push(struct ps_worker *w, int k, const int *version, sg_comm_t *comms)
{
    struct ps_ctx *c = w->c;
    const struct pslice *sl = &c->shards[k].num.sl;
    struct ps_msg *g = ps_msg_new_data(c, MSG_PUSH, version[k], c->j->nm ? sl->n : 0);
    if (c->j->nm) pslice_gather(sl, w->rep.grad, g->data);
    g->grads = w->ngrads;
    g->it = w->next_it;
    g->samples = w->carry / c->K;
    w->last_key[k] = c->sc->train.ps.prefetch ? g->it : g->version;
    double B = ps_sparse_push(c, w, g->it, w->carry, k, g); /* the dense slice and the rows */
    ps_rpc_worker(c, w->rank, RPC_SERVE, B, true, c->shards[k].rpcs); /* out of the GPU, sent */
    traffic_add(c->kit->traffic, c->pf->gpus[w->rank], c->shards[k].host, B);
    comms[k] = net_isend(ps_msg_to_port(k, w->rank), g, B);
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
    struct trace_args a = TRACE_ARGS;
    a.step = it + 1;
    trace_slice_args(c->res->trace, w->rank, "push", push0, simgrid_get_clock(), a);
    if (w->delivered < c->K) ps_account_noticed(c);
    ps_account_lose_slices(c, c->K - w->delivered, (c->K - w->delivered) * w->carry / c->K,
                           w->rows_handed - w->rows_delivered);
    w->rows_handed = w->rows_delivered = 0;
    w->in_step = false;
    if (it == 0) ps_metrics_of(c->res)->first_push_s[w->rank] = simgrid_get_clock() - push0;
    if (c->sc->train.ps.mode != PS_ASYNC) return;
    for (int k = 0; k < c->K; k++)
        comms[k] = net_irecv(ps_msg_to_worker(w->rank, k), (void **)&in[k]);
    double end = simgrid_get_clock() + span;
    for (int k = 0; k < c->K; k++) {
        net_wait(comms[k], end);
        ps_msg_free(c, in[k]);
        in[k] = NULL;
    }
}

void ps_push_all(struct ps_worker *w, int it, const int *version, sg_comm_t *comms,
                 struct ps_msg **in)
{
    struct ps_ctx *c = w->c;
    c->res->computed += c->K;
    w->handed = c->K;
    for (int k = 0; k < c->K; k++)
        post_push(w, k, version, comms);
    finish_pushes(w, it, comms, in, simgrid_get_clock(), false);
}

void ps_push_empty(struct ps_worker *w, int it, const int *version, sg_comm_t *comms)
{
    struct ps_ctx *c = w->c;
    for (int k = 0; k < c->K; k++) {
        struct ps_msg *g = ps_msg_new(c, MSG_PUSH, version[k]);
        g->it = it;
        g->empty = 1;
        w->last_key[k] = c->sc->train.ps.prefetch ? it : version[k];
        ps_rpc_worker(c, w->rank, RPC_SERVE, REQUEST_B, false, 1);
        traffic_add(c->kit->traffic, c->pf->gpus[w->rank], c->shards[k].host, REQUEST_B);
        comms[k] = net_isend(ps_msg_to_port(k, w->rank), g, REQUEST_B);
    }
    wait_sends(w, comms); /* one that never arrived is left to teardown (the run's list) */
    w->in_step = false;
}

void ps_push_actor(int argc, char **argv)
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

void ps_push_backward(struct ps_worker *w, int it, const int *version, double scale,
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
