/* plan_space.c - the layouts `dmlsim plan` considers (see plan_space.h). */
#include "plan_space.h"

#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reject_why[PLAN_REJECTS] = {
        [PLAN_TP_HEADS] = "tp does not divide the attention heads or the key/value heads",
        [PLAN_PP_BLOCKS] = "pp x virtual stages does not divide the blocks",
        [PLAN_BATCH] = "dp x microbatch size does not divide the global batch",
        [PLAN_INTERLEAVE] = "interleaved schedule: microbatches not a multiple of pp",
        [PLAN_EP] = "expert with tensor parallelism needs sequence parallelism",
        [PLAN_MEMORY] = "does not fit a GPU's memory",
};

unsigned plan_fix_bit(const char *name)
{
    static const char *const names[] = {"zero", "recompute", "sequence-parallel", "order", "cp"};
    for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k]) == 0) return 1u << k;
    return 0;
}

const char *plan_reject_why(enum plan_reject r)
{
    return reject_why[r];
}

void plan_describe(const struct parallel_spec *p, int b, char *buf, size_t len)
{
    char sched[16] = "1f1b", ep[32] = "";
    if (p->schedule == PP_INTERLEAVED) snprintf(sched, sizeof sched, "int%d", p->vstages);
    if (p->ep > 1) snprintf(ep, sizeof ep, " ep %d", p->ep);
    if (par_cp(p) > 1) snprintf(ep + strlen(ep), sizeof ep - strlen(ep), " cp %d", p->cp);
    snprintf(buf, len, "tp %d pp %d dp %d%s b %d m %d %s zero %d %s%s %s", p->tp, p->pp, p->dp, ep,
             b, p->microbatches, p->pp > 1 ? sched : "-", p->zero,
             scenario_recompute_name(p->recompute), p->sp ? " sp" : "",
             p->dp_outer ? "tp-pp-dp" : "tp-dp-pp");
}

/* The enumeration's state: the scenario's shape, and the space filled. */
struct walk {
    const struct scenario *sc;
    const struct gpt_config *g;
    double mem_B;
    struct plan_space *s;
};

static void reject(struct walk *w, enum plan_reject r, const struct parallel_spec *p, int b)
{
    if (w->s->rejected[r]++ == 0) plan_describe(p, b, w->s->example[r], sizeof w->s->example[r]);
}

/* The first rule of plan_space.h that p breaks, or PLAN_REJECTS when it breaks none. */
static enum plan_reject first_rule(const struct walk *w, const struct parallel_spec *p, int b)
{
    int kv = w->g->kv_heads > 0 ? w->g->kv_heads : w->g->heads;
    if (w->g->heads % p->tp != 0 || kv % p->tp != 0) return PLAN_TP_HEADS;
    if (w->g->layers % (p->pp * p->vstages) != 0) return PLAN_PP_BLOCKS;
    if (w->s->global_batch % (p->dp * b) != 0) return PLAN_BATCH;
    if (p->schedule == PP_INTERLEAVED && p->microbatches % p->pp != 0) return PLAN_INTERLEAVE;
    if (p->ep > 1 && p->tp > 1 && !p->sp) return PLAN_EP;
    return PLAN_REJECTS;
}

/* Layout p with microbatch size b: set aside, or kept with its memory. */
static void consider(struct walk *w, struct parallel_spec p, int b)
{
    const struct train_spec *ts = &w->sc->train;
    w->s->considered++;
    if (w->s->global_batch % (p.dp * b) == 0) p.microbatches = w->s->global_batch / (p.dp * b);
    enum plan_reject r = first_rule(w, &p, b);
    if (r == PLAN_REJECTS && !par_shape_ok(&p, w->g)) r = PLAN_PP_BLOCKS; /* the strategy's */
    if (r != PLAN_REJECTS) {
        reject(w, r, &p, b);
        return;
    }
    struct par_memory x = par_memory(&p, w->sc->model.preset, w->g, ts->dtype, ts->opt, b);
    if (x.total_B > w->mem_B) {
        reject(w, PLAN_MEMORY, &p, b);
        return;
    }
    struct plan_cand c = {.p = p, .b = b, .mem = x, .id = w->s->n + 1};
    MEM_PUSH(w->s->c, w->s->n, c);
}

/* The memory-side choices of a split: ZeRO stage, recomputation, sequence parallelism. */
static void memory_choices(struct walk *w, struct parallel_spec p, int b)
{
    const struct parallel_spec *cur = &w->sc->train.par;
    int zmin = cur->overlap_params ? 1 : 0, zmax = p.dp == 1 ? 0 : p.pp > 1 ? 1 : 3;
    if (cur->overlap_grad && zmax > 1) zmax = 1; /* Megatron's overlap: ZeRO 0 or 1 */
    unsigned fx = w->s->fixed;
    for (int z = zmin; z <= zmax; z++)
        for (int rc = RECOMPUTE_NONE; rc <= RECOMPUTE_FULL; rc++)
            for (int sp = 0; sp <= (p.tp > 1); sp++) {
                if (((fx & PLAN_FIX_ZERO) && z != cur->zero) ||
                    ((fx & PLAN_FIX_RECOMPUTE) && rc != (int)cur->recompute) ||
                    ((fx & PLAN_FIX_SP) && sp != cur->sp))
                    continue;
                p.zero = z;
                p.recompute = (enum recompute)rc;
                p.sp = sp;
                consider(w, p, b);
            }
}

/* The schedules of a split with microbatch size b: 1F1B, and interleaved with v chunks. */
static void schedules(struct walk *w, struct parallel_spec p, int b)
{
    static const int chunks[] = {1, 2, 3, 4, 6, 8};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        if (k > 0 && p.pp == 1) break;
        p.vstages = chunks[k];
        p.schedule = chunks[k] > 1 ? PP_INTERLEAVED : PP_1F1B;
        for (int order = 0; order <= (p.pp > 1 && p.dp > 1); order++) {
            bool both = p.pp > 1 && p.dp > 1; /* else the orders are the same */
            if ((w->s->fixed & PLAN_FIX_ORDER) && both && order != w->sc->train.par.dp_outer)
                continue;
            p.dp_outer = order;
            memory_choices(w, p, b);
        }
    }
}

/* The expert ranks and microbatch sizes of a tp x pp x dp split. */
static void split(struct walk *w, int tp, int cp, int pp, int dp)
{
    int experts = w->g->experts;
    for (int ep = 1; ep <= dp; ep++) {
        if (dp % ep != 0 || (ep > 1 && (experts < ep || experts % ep != 0))) continue;
        for (int b = 1; b <= 16; b *= 2) {
            const struct parallel_spec *cur = &w->sc->train.par; /* what plan keeps */
            struct parallel_spec p = {.tp = tp,
                                      .pp = pp,
                                      .dp = dp,
                                      .ep = ep,
                                      .microbatches = 1,
                                      .vstages = 1,
                                      .cp = cp,
                                      .cp_allgather = cur->cp_allgather,
                                      .no_prefetch = cur->no_prefetch,
                                      .overlap_grad = cur->overlap_grad,
                                      .overlap_params = cur->overlap_params,
                                      .bucket_params = cur->bucket_params,
                                      .line = cur->line};
            schedules(w, p, b);
        }
    }
}

void plan_enumerate(const struct scenario *sc, unsigned fixed, struct plan_space *s)
{
    memset(s, 0, sizeof *s);
    s->fixed = fixed;
    const struct parallel_spec *cur = &sc->train.par;
    s->global_batch = cur->dp * cur->microbatches * sc->train.batch;
    struct walk w = {sc, &sc->model.gpt, sc->cluster.gpu->mem_B, s};
    int G = cluster_gpu_count(&sc->cluster), node = sc->cluster.gpus_per_node;
    /* context parallelism where the strategy takes it (hybrid_check.c): FlashAttention, neither
       <recovery> nor <numerics>, the sequence a multiple of 2 cp */
    bool cp_ok = sc->model.gpt.attention == ATTN_FLASH && !sc->rec.present &&
                 !sc->train.numerics.present;
    for (int tp = 1; tp <= node && G % tp == 0; tp *= 2)
        for (int cp = 1; G % (tp * cp) == 0 && (cp == 1 || cp_ok); cp *= 2) {
            if (cp > 1 && sc->model.gpt.seq % (2 * cp) != 0) break;
            if ((fixed & PLAN_FIX_CP) && cp != par_cp(cur)) continue;
            int rest = G / (tp * cp);
            for (int pp = 1; pp <= rest && pp <= sc->model.gpt.layers; pp++)
                if (rest % pp == 0) split(&w, tp, cp, pp, rest / pp);
        }
}

void plan_space_release(struct plan_space *s)
{
    free(s->c);
    memset(s, 0, sizeof *s);
}
