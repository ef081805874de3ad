/* ps_agg.c - local aggregation (see ps_agg.h). */
#include "ps_agg.h"

#include "net.h"
#include "ps_account.h"
#include "ps_msg.h"
#include "trace.h"
#include "traffic.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>

#include <string.h>

void ps_agg_bcast_params(struct ps_worker *w, int it)
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
            if (!w->fgone[i] && !F->finished && !F->gave_up)
                ps_account_noticed(c); /* once a loss */
            w->fgone[i] = true;
            continue;
        }
        w->fgone[i] = false;
        size_t n = c->j->nm ? c->j->nm->net.nparams : 0; /* numerics: the values pulled */
        out[i] = ps_msg_new_data(c, MSG_PARAMS, 0, n);
        if (n) memcpy(out[i]->data, w->rep.params, n * sizeof *out[i]->data);
        out[i]->it = it;
        traffic_add(c->kit->traffic, c->pf->gpus[w->rank], c->pf->gpus[f], c->model_B);
        comms[i] = net_isend(ps_msg_to_follower(f), out[i], c->model_B);
    }
    double end = simgrid_get_clock() + c->sc->train.timeout_s;
    for (int i = 0; i < w->nfollow; i++)
        if (w->sent[i] && !(w->sent[i] = net_wait(comms[i], end) == NET_OK))
            ps_msg_free(c, out[i]); /* never received: still ours */
    trace_slice(c->res->trace, w->rank, "broadcast", t0, simgrid_get_clock());
}

/* Numerics: a follower's gradient into the leader's sum, in the order of its followers. */
static void add_gradient(struct ps_worker *w, const struct ps_msg *g)
{
    for (size_t i = 0; i < g->n; i++)
        w->rep.grad[i] += g->data[i];
    w->ngrads += g->grads;
}

void ps_agg_gather_grads(struct ps_worker *w)
{
    struct ps_ctx *c = w->c;
    sg_comm_t *comms = w->fcomms;
    struct ps_msg **in = w->fmsgs;
    double t0 = simgrid_get_clock();
    w->gathering = true;
    memset(in, 0, (size_t)w->nfollow * sizeof *in);
    for (int i = 0; i < w->nfollow; i++)
        if (w->sent[i])
            comms[i] = net_irecv(ps_msg_to_leader(w->rank, w->follow[i]), (void **)&in[i]);
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
        ps_msg_free(c, in[i]);
        in[i] = NULL;
    }
    w->gathering = false;
    if (n > 1) /* communication's kernel (as NCCL's reductions), not the model's compute */
        sg_actor_execute((n + 1) * w->reduce_amt);
    trace_slice(c->res->trace, w->rank, "gather", t0, simgrid_get_clock());
}

void ps_agg_hand_to_leader(struct ps_worker *w, bool corrupt)
{
    struct ps_ctx *c = w->c;
    struct ps_worker *L = &c->workers[w->leader];
    size_t n = c->j->nm && !corrupt ? c->j->nm->net.nparams : 0; /* numerics: its gradient */
    struct ps_msg *g = ps_msg_new_data(c, MSG_GRAD, 0, n);
    if (n) memcpy(g->data, w->rep.grad, n * sizeof *g->data);
    g->grads = !corrupt;
    g->samples = w->carry;
    double t0 = simgrid_get_clock(), B = corrupt ? REQUEST_B : c->model_B;
    if (!L->active) { /* its leader's process is gone (as it sees a follower's): kept */
        ps_msg_free(c, g);
        ps_account_unfinished(w);
        return;
    }
    enum net_status st = ps_msg_send(c, c->pf->gpus[w->rank], c->pf->gpus[L->rank],
                                     ps_msg_to_leader(L->rank, w->rank), g, B);
    trace_slice(c->res->trace, w->rank, "push", t0, simgrid_get_clock());
    if (st == NET_OK && L->gathering && L->in_step) {
        L->carry += w->carry;
        w->in_step = false;
    } else {
        ps_account_unfinished(w);
    }
}
