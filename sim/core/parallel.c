/* parallel.c - tensor, pipeline and data parallelism as plain data (see parallel.h). */
#include "parallel.h"

#include <math.h>
#include <stdio.h>

/* Chunks a stage holds, and the replicas sharing one set of experts (0 in a spec: 1). */
static int chunks_of(const struct parallel_spec *p)
{
    return p->vstages > 1 ? p->vstages : 1;
}

static int ep_of(const struct parallel_spec *p)
{
    return p->ep > 1 ? p->ep : 1;
}

int par_cp(const struct parallel_spec *p)
{
    return p->cp > 1 ? p->cp : 1;
}

int par_rank_cp(const struct parallel_spec *p, int t, int c, int s, int d)
{
    int tc = t + p->tp * c, tpc = p->tp * par_cp(p); /* the context ranks next to the tensor's */
    return p->dp_outer ? tc + tpc * (s + p->pp * d) : tc + tpc * (d + p->dp * s);
}

void par_coords_cp(const struct parallel_spec *p, int rank, int *t, int *c, int *s, int *d)
{
    *t = rank % p->tp;
    *c = rank / p->tp % par_cp(p);
    int rest = rank / (p->tp * par_cp(p));
    if (p->dp_outer) {
        *s = rest % p->pp;
        *d = rest / p->pp;
    } else {
        *d = rest % p->dp;
        *s = rest / p->dp;
    }
}

int par_rank(const struct parallel_spec *p, int t, int s, int d)
{
    return par_rank_cp(p, t, 0, s, d);
}

void par_coords(const struct parallel_spec *p, int rank, int *t, int *s, int *d)
{
    int c;
    par_coords_cp(p, rank, t, &c, s, d);
}

void par_stage_layers(const struct parallel_spec *p, int blocks, int vs, int *first, int *last)
{
    int nv = p->pp * chunks_of(p), before = 0; /* blocks of the virtual stages before vs */
    for (int u = 0; u < vs; u++)
        before += par_vstage_blocks(p, blocks, u);
    *first = vs == 0 ? 0 : 1 + before;
    *last = vs == nv - 1 ? blocks + 2 : 1 + before + par_vstage_blocks(p, blocks, vs);
}

int par_schedule_len(const struct parallel_spec *p)
{
    return 2 * p->microbatches * chunks_of(p);
}

/* Forwards stage s runs before its first backward. */
static int warmup(const struct parallel_spec *p, int s)
{
    int total = par_schedule_len(p) / 2, w;
    if (p->schedule == PP_GPIPE) return total;
    if (p->schedule == PP_INTERLEAVED)
        w = p->microbatches == p->pp ? total : (p->pp - s - 1) * 2 + (chunks_of(p) - 1) * p->pp;
    else
        w = p->pp - 1 - s;
    return w < total ? w : total;
}

/* The k-th forward (or backward) of a stage: its microbatch and chunk. */
static struct pp_op nth(const struct parallel_spec *p, int k, bool backward)
{
    int pv = p->pp * chunks_of(p), chunk = (k % pv) / p->pp;
    if (p->schedule != PP_INTERLEAVED) return (struct pp_op){backward, k, 0};
    return (struct pp_op){backward, (k / pv) * p->pp + k % p->pp,
                          backward ? chunks_of(p) - 1 - chunk : chunk};
}

void par_schedule(const struct parallel_spec *p, int s, struct pp_op *ops)
{
    int total = par_schedule_len(p) / 2, warm = warmup(p, s), n = 0, f = 0, b = 0;
    while (f < warm)
        ops[n++] = nth(p, f++, false);
    while (f < total) { /* one forward, one backward */
        ops[n++] = nth(p, f++, false);
        ops[n++] = nth(p, b++, true);
    }
    while (b < total)
        ops[n++] = nth(p, b++, true);
}

double par_in_flight(const struct parallel_spec *p, int s)
{
    int total = par_schedule_len(p) / 2, w = warmup(p, s) + 1;
    if (p->schedule == PP_GPIPE) return p->microbatches;
    return (double)(w < total ? w : total) / chunks_of(p);
}

bool par_shape_ok(const struct parallel_spec *p, const struct gpt_config *g)
{
    int kv = g->kv_heads > 0 ? g->kv_heads : g->heads;
    return par_stages_ok(p, g->layers, NULL, 0) && g->heads % p->tp == 0 && kv % p->tp == 0 &&
           p->dp % ep_of(p) == 0 && (par_cp(p) == 1 || g->seq % (2 * par_cp(p)) == 0) &&
           (p->schedule != PP_INTERLEAVED || p->microbatches % p->pp == 0);
}

/* Activation bytes a rank keeps of one block for one sample, under p's recomputation: of its
 * s / cp tokens with context parallelism (Korthikanti's terms with s / cp; FlashAttention's, the
 * only attention context parallelism runs, keeps no s x s term: model.c's block_act_B). */
static double block_act(const struct parallel_spec *p, const struct gpt_config *g,
                        const struct layer *l, double e)
{
    double sh = (double)g->seq / par_cp(p) * g->hidden, t = p->tp;
    switch (p->recompute) {
    case RECOMPUTE_SELECTIVE: /* the attention's s x s tensors recomputed: no 5as/h term */
        return (p->sp ? 34 * sh / t : sh * (10 + 24 / t)) * e / 2;
    case RECOMPUTE_FULL: /* the block's input only */
        return 2 * sh / (p->sp ? t : 1) * e / 2;
    default:
        return l->act_B;
    }
}

/* Stage s's memory per rank under p, of the model m (g's shape split by p), its activations of
 * ma (m at a rank's s / cp tokens). ZeRO shards over the data- and context-parallel ranks, which
 * hold the same parameters (Megatron-Core's distributed optimizer over its DP-CP group). */
static struct par_memory stage_memory(const struct parallel_spec *p, const struct gpt_config *g,
                                      const struct model *m, const struct model *ma,
                                      enum gpu_dtype dtype, enum optimizer opt, int b, int s)
{
    double e = model_dtype_bytes(dtype), o = model_optimizer_bytes(dtype, opt);
    double d = (double)p->dp * par_cp(p);
    double ea = model_act_bytes(dtype); /* activations */
    struct gpt_config gt = *g;
    gt.tp = p->tp;
    gt.sp = p->sp;
    gt.ep = ep_of(p);
    double ex = model_expert_params(&gt), de = d / ep_of(p); /* experts' replicas */
    double params = 0, experts = 0, act = 0;
    for (int c = 0; c < chunks_of(p); c++) { /* its chunks */
        int first, last;
        par_stage_layers(p, g->layers, c * p->pp + s, &first, &last);
        for (int i = first; i < last && i < (int)m->nlayers; i++) {
            params += m->layers[i].params;
            bool block = i >= 1 && i <= g->layers;
            experts += block ? ex : 0;
            act += block ? block_act(p, g, &ma->layers[i], ea) : ma->layers[i].act_B;
        }
    }
    /* ZeRO shards the dense share over the dp replicas, the experts over their dp / ep */
    double dense = params - experts;
#define SHARDED(stage) (p->zero >= (stage) ? dense / d + experts / de : params)
    struct par_memory x = {.weights_B = SHARDED(3) * e,
                           .grads_B = SHARDED(2) * e,
                           .optimizer_B = SHARDED(1) * o,
                           .act_B = act * b * par_in_flight(p, s),
                           .stage = s};
#undef SHARDED
    x.total_B = x.weights_B + x.grads_B + x.optimizer_B + x.act_B;
    return x;
}

/* The model g's shape gives split by p. */
static void split_model(const struct parallel_spec *p, const char *preset,
                        const struct gpt_config *g, enum gpu_dtype dtype, struct model *m)
{
    struct gpt_config gt = *g;
    gt.tp = p->tp;
    gt.sp = p->sp;
    gt.ep = ep_of(p);
    model_preset(preset, &gt, dtype, m);
}

/* The models of p's memory: m with the parameters, and with context parallelism *ma, the same at
 * a rank's s / cp tokens for the activations (else *ma is m). Release with release_models. */
static void split_models(const struct parallel_spec *p, const char *preset,
                         const struct gpt_config *g, enum gpu_dtype dtype, struct model *m,
                         struct model *mc, const struct model **ma)
{
    split_model(p, preset, g, dtype, m);
    *ma = m;
    if (par_cp(p) > 1) {
        struct gpt_config gc = *g;
        gc.seq = g->seq / par_cp(p);
        split_model(p, preset, &gc, dtype, mc);
        *ma = mc;
    }
}

static void release_models(const struct parallel_spec *p, struct model *m, struct model *mc)
{
    model_release(m);
    if (par_cp(p) > 1) model_release(mc);
}

void par_memory_stages(const struct parallel_spec *p, const char *preset,
                       const struct gpt_config *g, enum gpu_dtype dtype, enum optimizer opt, int b,
                       struct par_memory *x)
{
    struct model m, mc;
    const struct model *ma;
    split_models(p, preset, g, dtype, &m, &mc, &ma);
    for (int s = 0; s < p->pp; s++)
        x[s] = stage_memory(p, g, &m, ma, dtype, opt, b, s);
    release_models(p, &m, &mc);
}

struct par_memory par_memory(const struct parallel_spec *p, const char *preset,
                             const struct gpt_config *g, enum gpu_dtype dtype, enum optimizer opt,
                             int b)
{
    struct model m, mc;
    const struct model *ma;
    split_models(p, preset, g, dtype, &m, &mc, &ma);
    struct par_memory best = {.stage = -1};
    for (int s = 0; s < p->pp; s++) {
        struct par_memory x = stage_memory(p, g, &m, ma, dtype, opt, b, s);
        if (best.stage < 0 || x.total_B > best.total_B) best = x;
    }
    release_models(p, &m, &mc);
    return best;
}
