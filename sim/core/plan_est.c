/* plan_est.c - a layout's first-order step time (see plan_est.h). */
#include "plan_est.h"

#include "kcost.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>

/* A model split (tp, sp, ep) and a microbatch size: each layer's times and parameters. */
struct split_costs {
    int tp, ep, b, cp;
    bool sp;
    int n;              /* layers: the embedding, the blocks, the output layer */
    double *fwd, *bwd;  /* per layer: seconds for one microbatch */
    double *params;     /* per layer: one tensor rank's parameters */
    double experts;     /* a block's experts, as one rank holds them */
    double attn_core_s; /* selective recomputation: a block's attention core's forward again */
};

struct plan_estimator {
    const struct scenario *sc;
    const struct calib *cal;
    struct split_costs *cache;
    int ncache;
};

struct plan_estimator *plan_est_new(const struct scenario *sc, const struct calib *cal)
{
    struct plan_estimator *e = mem_new0(struct plan_estimator, 1);
    e->sc = sc;
    e->cal = cal;
    return e;
}

void plan_est_free(struct plan_estimator *e)
{
    if (e == NULL) return;
    for (int k = 0; k < e->ncache; k++) {
        free(e->cache[k].fwd);
        free(e->cache[k].bwd);
        free(e->cache[k].params);
    }
    free(e->cache);
    free(e);
}

/* The seconds of one pass of a layer's kernels for b samples (no host: launches hidden). */
static double pass_s(const struct kcost_gpu *g, const struct layer *y, bool bwd, int b)
{
    const struct kernel *ks = bwd ? y->bwd : y->fwd;
    int n = bwd ? y->nbwd : y->nfwd;
    double t = 0;
    for (int i = 0; i < n; i++) {
        struct kcost c;
        kcost_kernel(g, &ks[i], b, &c);
        t += c.s + c.cast_s;
    }
    return t;
}

static void fill_costs(const struct plan_estimator *e, struct split_costs *c)
{
    const struct train_spec *ts = &e->sc->train;
    const struct gpu_model *gpu = e->sc->cluster.gpu;
    struct gpt_config g = e->sc->model.gpt, whole;
    whole = g;
    g.seq /= c->cp; /* a context rank's tokens (hy_cp.h) */
    g.tp = c->tp;
    g.sp = c->sp;
    g.ep = c->ep;
    g.autocast = ts->autocast;
    struct model m;
    model_preset(e->sc->model.preset, &g, ts->dtype, &m);
    struct kcost_gpu kg = {e->cal, gpu, ts->dtype, gpu->mem_bw_Bps * e->cal->mem_eff};
    c->n = (int)m.nlayers;
    c->fwd = mem_new0(double, c->n);
    c->bwd = mem_new0(double, c->n);
    c->params = mem_new0(double, c->n);
    for (int i = 0; i < c->n; i++) {
        c->fwd[i] = pass_s(&kg, &m.layers[i], false, c->b);
        c->bwd[i] = pass_s(&kg, &m.layers[i], true, c->b);
        c->params[i] = m.layers[i].params;
    }
    c->experts = model_expert_params(&g);
    model_release(&m);
    if (c->cp > 1) { /* the other cp - 1 steps of its causal attention share (hy_cp.h) */
        struct model core;
        model_attention_core(&g, ts->dtype, &core);
        double f = pass_s(&kg, &core.layers[0], false, c->b);
        double bw = pass_s(&kg, &core.layers[0], true, c->b);
        for (int i = 1; i <= whole.layers && i < c->n; i++) {
            c->fwd[i] += (c->cp - 1) * f;
            c->bwd[i] += (c->cp - 1) * bw;
        }
        model_release(&core);
    }
    if (g.attention != ATTN_FLASH) { /* as the strategy: FlashAttention recomputes it anyway */
        struct model core;
        model_attention_core(&g, ts->dtype, &core);
        c->attn_core_s = pass_s(&kg, &core.layers[0], false, c->b);
        model_release(&core);
    }
}

static const struct split_costs *costs_of(struct plan_estimator *e, const struct parallel_spec *p,
                                          int b)
{
    int ep = p->ep > 1 ? p->ep : 1, cp = par_cp(p);
    for (int k = 0; k < e->ncache; k++) {
        const struct split_costs *c = &e->cache[k];
        if (c->tp == p->tp && c->sp == p->sp && c->ep == ep && c->b == b && c->cp == cp) return c;
    }
    struct split_costs c = {.tp = p->tp, .ep = ep, .b = b, .sp = p->sp, .cp = cp};
    fill_costs(e, &c);
    MEM_PUSH(e->cache, e->ncache, c);
    return &e->cache[e->ncache - 1];
}

/* A ring's time for `share` of S bytes over n ranks (all-reduce 2 (n - 1)/n, reduce-scatter or
 * all-gather (n - 1)/n), with `hops` latencies a rank step. */
static double ring_s(double S, int n, double share, double bw, double lat)
{
    if (n < 2 || S <= 0) return 0;
    return share * (n - 1) / n * S / bw + share * (n - 1) * lat;
}

/* The rate and hop latency of a group of n ranks `stride` apart (ranks are packed onto nodes in
 * order, tp <= a node's GPUs): the intra-node class when the group stays in a node, else the
 * inter-node rate per GPU. */
static void group_link(const struct cluster_spec *cl, int stride, int n, double *bw, double *lat)
{
    if ((long)stride * n <= cl->gpus_per_node || cl->nic == NULL) {
        *bw = cl->intra->bw_Bps;
        *lat = cl->intra->hop_lat_s;
        return;
    }
    *bw = cl->nic->bw_Bps * cl->nics_per_node / cl->gpus_per_node;
    if (*bw > cl->nic->bw_Bps) *bw = cl->nic->bw_Bps;
    *lat = cl->nic->hop_lat_s;
}

/* One microbatch of stage s (all its chunks): kernels, and the tensor-parallel collectives and
 * expert all-to-alls of its blocks. */
static void stage_mb(const struct plan_estimator *e, const struct split_costs *c,
                     const struct parallel_spec *p, int s, double *comp, double *comm)
{
    const struct scenario *sc = e->sc;
    const struct gpt_config *g = &sc->model.gpt;
    double bw, lat,
            tpB = (double)c->b * g->seq / c->cp * g->hidden * model_act_bytes(sc->train.dtype);
    group_link(&sc->cluster, 1, p->tp, &bw, &lat);
    double tpc = ring_s(tpB, p->tp, 2, bw, lat); /* an all-reduce, or a reduce-scatter and an
                                                    all-gather: the same bytes */
    double a2a = 0;
    if (c->ep > 1) { /* a rank's tokens to their experts: (ep - 1)/ep of them leave */
        double ebw, elat, aB = tpB / (p->sp ? p->tp : 1) * g->topk;
        group_link(&sc->cluster, p->tp, c->ep, &ebw, &elat);
        a2a = (c->ep - 1.0) / c->ep * aB / ebw + elat;
    }
    int per_block = p->recompute == RECOMPUTE_FULL ? 3 : 2; /* passes with collectives */
    *comp = *comm = 0;
    for (int ch = 0; ch < p->vstages; ch++) {
        int first, last;
        par_stage_layers(p, g->layers, ch * p->pp + s, &first, &last);
        for (int i = first; i < last && i < c->n; i++) {
            bool block = i >= 1 && i <= g->layers;
            *comp += c->fwd[i] + c->bwd[i];
            if (!block) continue;
            if (p->recompute == RECOMPUTE_FULL) *comp += c->fwd[i];
            if (p->recompute == RECOMPUTE_SELECTIVE) *comp += c->attn_core_s;
            *comm += per_block * (2 * tpc + 2 * a2a);
        }
    }
}

/* The parameters of stage s (one tensor rank's), and of them its experts'. */
static double stage_params(const struct split_costs *c, const struct parallel_spec *p, int layers,
                           int s, double *experts)
{
    double n = 0;
    *experts = 0;
    for (int ch = 0; ch < p->vstages; ch++) {
        int first, last;
        par_stage_layers(p, layers, ch * p->pp + s, &first, &last);
        for (int i = first; i < last && i < c->n; i++) {
            n += c->params[i];
            *experts += i >= 1 && i <= layers ? c->experts : 0;
        }
    }
    return n;
}

/* The data-parallel collectives of a stage of `params` parameters a rank, over dp ranks (the
 * last microbatch's backward taking last_bwd_s). */
static double dp_time(const struct plan_estimator *e, const struct parallel_spec *p, double params,
                      double compute_s, double last_bwd_s)
{
    const struct cluster_spec *cl = &e->sc->cluster;
    double bw, lat, S = params * model_dtype_bytes(e->sc->train.dtype);
    int n = p->dp * par_cp(p); /* the data- and context-parallel ranks: the same parameters */
    group_link(cl, p->dp_outer ? p->tp * p->pp : p->tp, n, &bw, &lat);
    double ar = ring_s(S, n, 2, bw, lat), half = ring_s(S, n, 1, bw, lat);
    if (p->overlap_grad && p->zero <= 1) /* hy_dpov.h: the gradients' part behind the last
                                            microbatch's backward; the gathers exposed unless
                                            overlap-param-gather hides them in the forward */
        return fmax(0, (p->zero ? half : ar) - last_bwd_s) + (p->zero && !p->overlap_params) * half;
    switch (p->zero) {
    case 0:
    case 1:
        return ar; /* or reduce-scatter + all-gather */
    case 2:
        return p->microbatches * half + half; /* a reduce-scatter a microbatch */
    default:
        return fmax(0, 3 * p->microbatches * half - compute_s); /* behind the compute */
    }
}

void plan_est_run(struct plan_estimator *e, const struct parallel_spec *p, int b,
                  struct plan_est *out)
{
    const struct scenario *sc = e->sc;
    const struct gpt_config *g = &sc->model.gpt;
    const struct split_costs *c = costs_of(e, p, b);
    double worst = 0, wcomp = 0, wcomm = 0, wparams = 0, wexp = 0;
    for (int s = 0; s < p->pp; s++) {
        double comp, comm, ex, prm = stage_params(c, p, g->layers, s, &ex);
        stage_mb(e, c, p, s, &comp, &comm);
        if (comp + comm > worst) {
            worst = comp + comm;
            wcomp = comp;
            wcomm = comm;
            wparams = prm;
            wexp = ex;
        }
    }
    double m = p->microbatches, v = p->vstages, bw, lat;
    double actB = (double)b * g->seq / par_cp(p) * g->hidden * model_act_bytes(sc->train.dtype) /
                  (p->sp ? p->tp : 1);
    int tc = p->tp * par_cp(p);
    group_link(&sc->cluster, p->dp_outer ? tc : tc * p->dp, p->pp, &bw, &lat);
    out->compute_s = m * wcomp;
    out->tp_s = m * wcomm;
    out->bubble_s = (p->pp - 1) / v * worst + 2 * (p->pp * v - 1) * (actB / bw + lat);
    if (p->pp == 1) out->bubble_s = 0;
    double dense = wparams - wexp, ep = p->ep > 1 ? p->ep : 1;
    out->dp_s = dp_time(e, p, wparams, out->compute_s, wcomp / 2);
    double dc = (double)p->dp * par_cp(p);
    double share = p->zero >= 1 ? dense / dc + wexp / (dc / ep) : wparams;
    out->update_s = share * model_update_bytes_per_param(sc->train.dtype, sc->train.opt) /
                    calib_memory_rate(e->cal, sc->cluster.gpu);
    out->step_s = out->compute_s + out->tp_s + out->bubble_s + out->dp_s + out->update_s;
}
