/* hy_cp.c - context parallelism's attention in the hybrid strategy (see hy_cp.h). */
#include "hy_cp.h"

#include "runkit.h"

#include <simgrid/engine.h>

#include <math.h>

double hycp_kv_bytes(const struct parallel_spec *p, const struct gpt_config *g, int b,
                     double elem_B)
{
    double kv = g->kv_heads > 0 ? g->kv_heads : g->heads, hd = (double)g->hidden / g->heads;
    return 2.0 * b * ((double)g->seq / par_cp(p)) * (kv / p->tp) * hd * elem_B;
}

void hycp_init(struct hycp *h, const struct job *j, const struct parallel_spec *p,
               const struct gpt_config *gc, const struct kernel_costs *kc,
               struct worker_amounts *amt, struct traffic *traffic)
{
    const struct train_spec *ts = &j->sc->train;
    *h = (struct hycp){.p = p, .pf = j->pf, .traffic = traffic, .timeout_s = ts->timeout_s};
    if (par_cp(p) < 2) return;
    h->kv_B = hycp_kv_bytes(p, &j->sc->model.gpt, ts->batch, model_act_bytes(ts->dtype));
    struct model core;
    struct worker_amounts a = {0};
    model_attention_core(gc, ts->dtype, &core);
    worker_amounts(j->cal, j->pf->models[0], j->pf->gpus[0], ts->dtype, ts->opt, &core, ts->batch,
                   kc, &a);
    h->core_fwd = a.fwd[0];
    h->core_bwd = a.bwd[0];
    for (int i = 1; i <= gc->layers; i++) { /* the blocks' */
        amt->fwd[i] = fmax(0, amt->fwd[i] - h->core_fwd);
        amt->bwd[i] = fmax(0, amt->bwd[i] - h->core_bwd);
        amt->fwd_all += (par_cp(p) - 1) * h->core_fwd;
    }
    worker_amounts_release(&a);
    model_release(&core);
}

/* The message of step i of cp: the forward's K and V chunk (none at the last step); the
 * backward's K and V (step 0), K, V, dK and dV (the middle steps), dK and dV (the last). */
static double step_B(const struct hycp *h, int cp, int i, bool backward)
{
    if (!backward) return i < cp - 1 ? h->kv_B : 0;
    return i == 0 || i == cp - 1 ? h->kv_B : 2 * h->kv_B;
}

/* Waits for a message of the ring; false (the hook told) if it failed. */
static bool ring_wait(const struct hycp *h, sg_comm_t comm, const struct hycp_hooks *k,
                      const char *what)
{
    if (comm == NULL) return true;
    enum net_status st = net_wait(comm, simgrid_get_clock() + h->timeout_s);
    if (st != NET_OK) k->wait_failed(k->ctx, st, what);
    return st == NET_OK;
}

/* TE's ring: cp steps, each posting its message to the next context rank and the receive of the
 * previous rank's, running one step's attention, then waiting for both. */
static double ring(const struct hycp *h, int t, int c, int s, int d, bool backward,
                   const struct hycp_hooks *k)
{
    const struct parallel_spec *p = h->p;
    int cp = par_cp(p), next = (c + 1) % cp, prev = (c + cp - 1) % cp;
    sg_host_t me = h->pf->gpus[par_rank_cp(p, t, c, s, d)];
    sg_host_t to = h->pf->gpus[par_rank_cp(p, t, next, s, d)];
    sg_mailbox_t out = runkit_mailbox("cp:%d:%d:%d:%d>%d", d, t, s, c, next);
    sg_mailbox_t in = runkit_mailbox("cp:%d:%d:%d:%d>%d", d, t, s, prev, c);
    static int token;
    void *payload;
    double exposed = 0;
    for (int i = 0; i < cp; i++) {
        double size_B = step_B(h, cp, i, backward);
        sg_comm_t snd = NULL, rcv = NULL;
        if (size_B > 0) {
            snd = net_isend(out, &token, size_B);
            rcv = net_irecv(in, &payload);
            traffic_add(h->traffic, me, to, size_B);
        }
        k->exec(k->ctx, backward ? h->core_bwd : h->core_fwd);
        double t0 = simgrid_get_clock();
        bool ok = ring_wait(h, rcv, k, "context-parallel receive");
        if (!ok && snd) net_wait(snd, simgrid_get_clock()); /* released, not waited for */
        ok = ok && ring_wait(h, snd, k, "context-parallel send");
        exposed += simgrid_get_clock() - t0;
        if (!ok) break;
    }
    return exposed;
}

/* Llama 3's all-gather: K and V gathered (again in the backward), the rank's attention, dK and
 * dV reduce-scattered after the backward's. */
static double gathered(const struct hycp *h, bool backward, const struct hycp_hooks *k)
{
    int cp = par_cp(h->p);
    double t0 = simgrid_get_clock(), exposed;
    k->collective(k->ctx, COLL_ALLGATHER, cp * h->kv_B);
    exposed = simgrid_get_clock() - t0;
    k->exec(k->ctx, cp * (backward ? h->core_bwd : h->core_fwd));
    if (!backward) return exposed;
    t0 = simgrid_get_clock();
    k->collective(k->ctx, COLL_REDUCESCATTER, cp * h->kv_B);
    return exposed + simgrid_get_clock() - t0;
}

double hycp_attention(const struct hycp *h, int t, int c, int s, int d, bool backward,
                      const struct hycp_hooks *k)
{
    if (par_cp(h->p) < 2) return 0;
    return h->p->cp_allgather ? gathered(h, backward, k) : ring(h, t, c, s, d, backward, k);
}
