/* scen_train.c - <model> and <training> with its <ps> and <parallel> (see scen_train.h). */
#include "scen_train.h"

#include "mem.h"
#include "model_recsys.h"
#include "scen_cluster.h"
#include "scen_data.h"
#include "scen_emb.h"
#include "units.h"

#include <stdlib.h>
#include <string.h>

/* <model attention> (transformers), <model head> (bert-large), <model layout> (CNNs). */
static enum dmlsim_err read_model_impl(struct reader *r, xmlNodePtr n, struct model_spec *ms,
                                       bool transformer)
{
    static const char *const heads[] = {"none", "pretraining", "squad"}; /* enum bert_head */
    char *at = attr_dup(n, "attention"), *hd = attr_dup(n, "head"), *ly = attr_dup(n, "layout");
    enum dmlsim_err rc = DMLSIM_OK;
    if (ly && (!ms->preset || transformer))
        rc = attr_fail(r, n, "<model layout>: only meaningful with a convolutional preset");
    else if (at && !transformer)
        rc = attr_fail(r, n, "<model attention>: only meaningful with a transformer preset");
    else if (hd && (!ms->preset || strcmp(ms->preset, "bert-large") != 0))
        rc = attr_fail(r, n, "<model head>: only meaningful with preset=\"bert-large\"");
    ms->attn_set = at != NULL;
    ms->gpt.attention = at && strcmp(at, "materialised") == 0 ? ATTN_MATERIALISED : ATTN_FLASH;
    ms->gpt.head = (enum bert_head)attr_get_choice(n, "head", heads, ATTR_N_OF(heads));
    ms->gpt.layout = !ly ? LAYOUT_AUTO : strcmp(ly, "nchw") == 0 ? LAYOUT_NCHW : LAYOUT_NHWC;
    free(at);
    free(hd);
    free(ly);
    return rc;
}

enum dmlsim_err scen_train_read_model(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct model_spec *ms = &sc->model;
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    ms->present = true;
    ms->line = (int)attr_line(n);
    ms->preset = attr_dup(n, "preset");
    ms->gpt = model_gpt_defaults();
    char *name = attr_dup(n, "name");
    model_init(&ms->explicit_, name ? name : (ms->preset ? ms->preset : "model"));
    free(name);
    bool has_children = false;
    for (xmlNodePtr c = n->children; c != NULL; c = c->next)
        has_children |= c->type == XML_ELEMENT_NODE;
    if (ms->preset != NULL) {
        struct model probe;
        if (model_preset_any(ms->preset, NULL, DTYPE_FP32, &probe) != 0)
            return attr_fail(r, n, "<model preset=\"%s\">: unknown preset; expected one of: %s",
                             ms->preset, model_preset_names());
        model_release(&probe);
        if (has_children)
            return attr_fail(r, n,
                             "<model preset=\"%s\">: a preset has no <layer> or <embedding> "
                             "children; expected either a preset or layers",
                             ms->preset);
    } else if (!has_children) {
        return attr_fail(r, n,
                         "<model>: no preset and no layers; expected preset=\"...\" (%s) or "
                         "<layer> children",
                         model_preset_names());
    }
    static const char *const shape[] = {"layers", "hidden", "heads", "seq", "vocab"};
    int *field[] = {&ms->gpt.layers, &ms->gpt.hidden, &ms->gpt.heads, &ms->gpt.seq, &ms->gpt.vocab};
    /* a transformer's shape (bert-large: its maximum sequence length, 512) */
    bool transformer = ms->preset && model_transformer_shape(ms->preset, &ms->gpt);
    for (int i = 0; i < 5; i++) {
        if (!xmlHasProp(n, (const xmlChar *)shape[i])) continue;
        bool ok = ms->preset && (strcmp(ms->preset, "gpt") == 0 || (transformer && i == 3));
        if (!ok)
            return attr_fail(r, n, "<model %s>: only meaningful with preset=\"gpt\"%s", shape[i],
                             i == 3 ? " or another transformer preset" : "");
        DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, shape[i], &v), out);
        *field[i] = (int)v;
    }
    DMLSIM_CHECK_GOTO(rc, read_model_impl(r, n, ms, transformer), out);
    DMLSIM_CHECK_GOTO(rc, scen_emb_read_model(r, n, ms), out);
    if (ms->gpt.hidden % ms->gpt.heads != 0)
        return attr_fail(r, n,
                         "<model hidden=\"%d\" heads=\"%d\">: expected hidden divisible by "
                         "heads",
                         ms->gpt.hidden, ms->gpt.heads);
    for (xmlNodePtr c = n->children; c != NULL; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (strcmp((const char *)c->name, "embedding") == 0) {
            DMLSIM_CHECK_GOTO(rc, scen_emb_read_table(r, c, ms), out);
            continue;
        }
        double params, flops, bwd = -1, act;
        char *lname = attr_dup(c, "name");
        static const char *const num[] = {"params", "flops", "backward-flops"};
        double *dst[] = {&params, &flops, &bwd};
        for (int i = 0; i < 3 && rc == DMLSIM_OK; i++) {
            char *val = attr_dup(c, num[i]);
            const struct attr_spec *sp = attr_spec_get("layer", num[i]);
            if (val &&
                (units_parse_real(val, dst[i]) != 0 || *dst[i] < sp->min || *dst[i] > sp->max))
                rc = attr_fail(r, c,
                               "<layer %s=\"%s\">: expected a number in [%g, %g] (a count, such "
                               "as 2.5e9)",
                               num[i], val, sp->min, sp->max);
            free(val);
        }
        if (rc == DMLSIM_OK) rc = attr_get_quantity(r, c, "activation", &act);
        if (rc == DMLSIM_OK) model_add(&ms->explicit_, lname, params, flops, bwd, act);
        free(lname);
        if (rc != DMLSIM_OK) goto out;
    }
out:
    return rc;
}

/* How a worker's parameters and gradients travel: prefetch, RPCs, push, local aggregation. Needs
 * ps->mode (and backup-workers read from the element). */
static enum dmlsim_err read_ps_paths(struct reader *r, xmlNodePtr n, struct ps_spec *ps)
{
    ps->prefetch = attr_get_is(n, "prefetch", "yes");
    if (ps->prefetch && ps->mode == PS_ASYNC)
        return attr_fail(r, n,
                         "<ps prefetch=\"yes\">: only with mode=\"sync\" (async workers take "
                         "each shard's verdict on the mailbox the parameters come on)");
    ps->per_tensor_rpc = attr_get_is(n, "rpc", "per-tensor");
    ps->push_during = attr_get_is(n, "push", "during-backward");
    ps->local_agg = attr_get_is(n, "local-aggregation", "yes");
    if (!ps->local_agg) return DMLSIM_OK;
    if (ps->mode == PS_ASYNC || ps->push_during)
        return attr_fail(r, n,
                         "<ps local-aggregation=\"yes\">: a node reduces whole gradients before "
                         "its one push; expected mode=\"sync\" and push=\"after-backward\"");
    if (xmlHasProp(n, (const xmlChar *)"backup-workers"))
        return attr_fail(r, n,
                         "<ps local-aggregation=\"yes\">: every node's push is waited for; "
                         "expected no backup-workers");
    return DMLSIM_OK;
}

static enum dmlsim_err read_ps(struct reader *r, xmlNodePtr n, struct ps_spec *ps)
{
    enum dmlsim_err rc;
    long v;
    ps->line = (int)attr_line(n);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "shards", &v), out);
    ps->shards = (int)v;
    ps->dedicated = attr_get_is(n, "placement", "dedicated");
    ps->split_bytes = attr_get_is(n, "split", "bytes");
    ps->mode = attr_get_is(n, "mode", "async") ? PS_ASYNC : PS_SYNC;
    ps->enforce = attr_get_is(n, "coordinator", "enforce");
    ps->coordinator = ps->enforce || attr_get_is(n, "coordinator", "yes");
    if (ps->mode == PS_SYNC && xmlHasProp(n, (const xmlChar *)"staleness")) {
        rc = attr_fail(r, n, "<ps staleness>: only meaningful with mode=\"async\"");
        goto out;
    }
    if (ps->mode == PS_ASYNC && xmlHasProp(n, (const xmlChar *)"backup-workers")) {
        rc = attr_fail(r, n, "<ps backup-workers>: only meaningful with mode=\"sync\"");
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "staleness", &v), out);
    ps->staleness = (int)v;
    ps->bounded = attr_get_is(n, "consistency", "bounded");
    DMLSIM_CHECK_GOTO(rc, read_ps_paths(r, n, ps), out);
    DMLSIM_CHECK_GOTO(rc, scen_emb_read_ps(r, n, ps), out);
    char *a = attr_dup(n, "transport");
    ps->transport = catalog_transport(a ? a : attr_spec_get("ps", "transport")->def_text);
    if (ps->transport == NULL) {
        rc = attr_fail(r, n, "<ps transport=\"%s\">: unknown; expected one of: %s", a,
                       catalog_transport_names());
        free(a);
        goto out;
    }
    free(a);
    if (ps->mode == PS_SYNC && xmlHasProp(n, (const xmlChar *)"consistency")) {
        rc = attr_fail(r, n, "<ps consistency>: only meaningful with mode=\"async\"");
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "backup-workers", &v), out);
    ps->backup = (int)v;
out:
    return rc;
}

/* FlashAttention needs compute capability 8.0 and FP16 or BF16 inputs (Dao-AILab/flash-attention
 * README, "Installation and features"; FP8 training runs it in BF16): a transformer uses it by
 * default where it can, the materialised path elsewhere; asking for it elsewhere is an error. A
 * <platform> file's GPUs are not known here: it gets FlashAttention unless the scenario says
 * attention="materialised" (README, Compute). BERT's heads are not among the hybrid strategy's
 * stages: refused there. */
static enum dmlsim_err resolve_attention(struct reader *r, struct scenario *sc)
{
    struct model_spec *ms = &sc->model;
    const struct gpu_model *g = sc->has_cluster ? sc->cluster.gpu : NULL;
    enum gpu_dtype dt = sc->train.dtype;
    bool can = (g == NULL || g->sm >= 80) && model_dtype_bytes(dt) <= 2;
    if (ms->preset == NULL) return DMLSIM_OK; /* <model preset>, or hybrid_numerics_model's */
    if (ms->gpt.head != BERT_HEAD_NONE && sc->train.strategy == STRAT_HYBRID)
        return dmlsim_fail(r->err, DMLSIM_EVALUE,
                           "%s:%d: <model head>: the hybrid strategy's stages hold the encoder "
                           "only; expected no head with strategy=\"hybrid\"",
                           r->path, ms->line);
    if (!ms->attn_set) {
        ms->gpt.attention = can ? ATTN_FLASH : ATTN_MATERIALISED;
        return DMLSIM_OK;
    }
    if (ms->gpt.attention != ATTN_FLASH || can) return DMLSIM_OK;
    return dmlsim_fail(r->err, DMLSIM_EVALUE,
                       "%s:%d: <model attention=\"flash\">: FlashAttention needs compute "
                       "capability 8.0 or later and fp16, bf16 or fp8 training (here %s, %s); "
                       "expected attention=\"materialised\"",
                       r->path, ms->line, g ? g->name : "?", catalog_dtype_name(dt));
}

/* Under strategy="hybrid", <numerics cost-model> names the transformer whose blocks the stages
 * split for the timing, as <model preset> would (the MLP is what learns, as with the all-reduce's
 * cost-model proxy). */
static enum dmlsim_err hybrid_numerics_model(struct reader *r, struct scenario *sc)
{
    const struct numerics_spec *nm = &sc->train.numerics;
    struct gpt_config g;
    if (sc->train.strategy != STRAT_HYBRID || !nm->present) return DMLSIM_OK;
    if (nm->cost_model == NULL || !model_transformer_shape(nm->cost_model, &g))
        return dmlsim_fail(r->err, DMLSIM_EVALUE,
                           "%s:%d: <numerics%s%s%s>: the hybrid strategy times a transformer's "
                           "blocks (the MLP is what learns); expected cost-model=\"gpt\" or "
                           "another transformer preset",
                           r->path, nm->line, nm->cost_model ? " cost-model=\"" : "",
                           nm->cost_model ? nm->cost_model : "", nm->cost_model ? "\"" : "");
    sc->model.preset = mem_strdup(nm->cost_model);
    sc->model.gpt = g;
    sc->model.line = nm->line;
    return DMLSIM_OK;
}

/* The framework's costs: kernel launch, per bucket, per step; the optimizer's kernels. */
static enum dmlsim_err read_costs(struct reader *r, xmlNodePtr n, struct train_spec *t)
{
    enum dmlsim_err rc;
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "kernel-launch", &t->kernel_launch_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "bucket-overhead", &t->bucket_overhead_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "step-overhead", &t->step_overhead_s), out);
    static const char *const hosts[] = {"eager", "graphs", "compiled"}; /* enum host_mode */
    t->per_tensor_opt = attr_get_is(n, "optimizer-kernels", "per-tensor");
    t->autocast = attr_get_is(n, "amp", "autocast");
    t->host = attr_get_choice(n, "host", hosts, ATTR_N_OF(hosts));
    /* PyTorch DDP syncs the module's state from rank 0 at construction (torch/nn/parallel/
     * distributed.py, _sync_module_states) */
    t->broadcast = attr_get_is(n, "broadcast", "yes");
    t->horovod = attr_get_is(n, "fusion", "horovod");
    /* Horovod >= 0.21 defaults: 1 ms cycle, 128 MiB fusion buffer (horovod/horovod #2468,
     * horovod/common/operations.cc) */
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "cycle-time", &t->cycle_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "fusion-threshold", &t->fusion_B), out);
out:
    return rc;
}

static const char *const pp_schedules[] = {"1f1b", "gpipe", "interleaved"}; /* pp_schedule */
static const char *const recomputes[] = {"none", "selective", "full"};      /* enum recompute */

/* <parallel>'s data-parallel overlap (hy_dpov.h): Megatron's --overlap-grad-reduce (ZeRO 0 or
 * 1: ZeRO-2 and -3 reduce inside the backward already) and --overlap-param-gather (arguments.py
 * asserts the distributed optimizer, ZeRO-1 here, and --overlap-grad-reduce), both off by
 * default as Megatron's store_true flags; bucket-size in parameters (--ddp-bucket-size). */
static enum dmlsim_err read_overlap(struct reader *r, xmlNodePtr n, struct parallel_spec *p)
{
    long v;
    enum dmlsim_err rc = attr_get_int(r, n, "bucket-size", &v); /* 0: hy_dpov's max(40M, 1M dp) */
    p->bucket_params = v;
    p->overlap_grad = attr_get_is(n, "overlap-grad-reduce", "yes");
    p->overlap_params = attr_get_is(n, "overlap-param-gather", "yes");
    if (rc == DMLSIM_OK && p->overlap_grad && p->zero >= 2)
        rc = attr_fail(r, n,
                       "<parallel overlap-grad-reduce=\"yes\" zero=\"%d\">: ZeRO-2 and -3 "
                       "reduce inside the backward already; expected zero of 0 or 1",
                       p->zero);
    if (rc == DMLSIM_OK && p->overlap_params && (p->zero != 1 || !p->overlap_grad))
        rc = attr_fail(r, n,
                       "<parallel overlap-param-gather=\"yes\">: gathers the distributed "
                       "optimizer's parameters; expected zero=\"1\" and "
                       "overlap-grad-reduce=\"yes\" (Megatron's)");
    return rc;
}

/* <parallel stage-layers="19,20,21,20">: pp counts of 1 or more blocks into p. */
static enum dmlsim_err read_stage_list(struct reader *r, xmlNodePtr n, struct parallel_spec *p,
                                       const char *list)
{
    const char *at = list;
    char *end;
    p->nstage_blocks = 0;
    while (p->nstage_blocks < PAR_STAGES_MAX) {
        long v = strtol(at, &end, 10);
        if (end == at || v < 1 || v > 1L << 20 || (*end != ',' && *end != '\0')) break;
        p->stage_blocks[p->nstage_blocks++] = (int)v;
        if (*end == '\0') {
            if (p->nstage_blocks == p->pp) return DMLSIM_OK;
            break;
        }
        at = end + 1;
    }
    return attr_fail(r, n,
                     "<parallel stage-layers=\"%s\">: expected pp (%d) comma-separated block "
                     "counts of 1 or more, one a stage (at most %d stages)",
                     list, p->pp, PAR_STAGES_MAX);
}

/* <parallel>'s uneven stages (Megatron-Core's: core/par_stages.h): first-stage-layers,
 * last-stage-layers, stage-layers, account-for-embedding, account-for-loss; whether they add up
 * to the model's blocks is the strategy's check. */
static enum dmlsim_err read_stages(struct reader *r, xmlNodePtr n, struct parallel_spec *p)
{
    enum dmlsim_err rc;
    long f, l;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "first-stage-layers", &f), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "last-stage-layers", &l), out);
    p->first_blocks = (int)f;
    p->last_blocks = (int)l;
    p->embed_split = attr_get_is(n, "account-for-embedding", "yes");
    p->loss_split = attr_get_is(n, "account-for-loss", "yes");
    char *list = attr_dup(n, "stage-layers");
    if (list) rc = read_stage_list(r, n, p, list);
    free(list);
    if (rc != DMLSIM_OK) goto out;
    if ((f || l) && p->pp < 2)
        rc = attr_fail(r, n,
                       "<parallel first-stage-layers last-stage-layers>: the first and last of "
                       "several stages; expected pp of 2 or more");
    else if ((f || l) && p->nstage_blocks > 0)
        rc = attr_fail(r, n,
                       "<parallel stage-layers>: it names every stage's blocks; expected no "
                       "first-stage-layers or last-stage-layers with it");
    else if ((p->embed_split || p->loss_split) && (f || l || p->nstage_blocks > 0))
        rc = attr_fail(r, n,
                       "<parallel account-for-embedding account-for-loss>: they shape the even "
                       "split; expected no uneven stages with them (Megatron-Core refuses both)");
out:
    return rc;
}

/* <parallel>: the dimensions and how the state is split over them. */
static enum dmlsim_err read_parallel(struct reader *r, xmlNodePtr n, struct parallel_spec *p)
{
    enum dmlsim_err rc;
    long v[4];
    static const char *const dims[] = {"tp", "pp", "dp", "microbatches"};
    for (int i = 0; i < 4; i++)
        DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, dims[i], &v[i]), out);
    p->tp = (int)v[0];
    p->pp = (int)v[1];
    p->dp = (int)v[2];
    p->microbatches = (int)v[3];
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "ep", &v[0]), out);
    p->ep = (int)v[0];
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "cp", &v[0]), out);
    p->cp = (int)v[0];
    p->cp_allgather = attr_get_is(n, "cp-comm", "all-gather");
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "zero", &v[0]), out);
    p->zero = (int)v[0];
    p->schedule =
            (enum pp_schedule)attr_get_choice(n, "schedule", pp_schedules, ATTR_N_OF(pp_schedules));
    bool interleaved = p->schedule == PP_INTERLEAVED;
    DMLSIM_CHECK_GOTO(rc, attr_get_int_def(r, n, "virtual-stages", interleaved ? 2 : 1, &v[0]),
                      out);
    p->vstages = (int)v[0];
    if (p->vstages > 1 && !interleaved) {
        rc = attr_fail(r, n,
                       "<parallel virtual-stages=\"%d\">: model chunks a rank are the "
                       "interleaved schedule's; expected schedule=\"interleaved\"",
                       p->vstages);
        goto out;
    }
    if (interleaved && (p->vstages < 2 || p->pp < 2)) {
        rc = attr_fail(r, n,
                       "<parallel schedule=\"interleaved\">: model chunks over pipeline "
                       "stages; expected pp of 2 or more and virtual-stages of 2 or more");
        goto out;
    }
    if (interleaved && p->microbatches % p->pp != 0) {
        rc = attr_fail(r, n,
                       "<parallel schedule=\"interleaved\" microbatches=\"%d\">: expected "
                       "a multiple of pp (%d), as Megatron's",
                       p->microbatches, p->pp);
        goto out;
    }
    p->recompute =
            (enum recompute)attr_get_choice(n, "recompute", recomputes, ATTR_N_OF(recomputes));
    p->sp = attr_get_is(n, "sequence-parallel", "yes");
    p->no_prefetch = attr_get_is(n, "prefetch", "no");
    p->tp_overlap = attr_get_is(n, "tp-comm-overlap", "yes");
    p->no_scatter_gather = attr_get_is(n, "scatter-gather", "no");
    p->dp_outer = attr_get_is(n, "order", "tp-pp-dp");
    p->line = (int)attr_line(n);
    DMLSIM_CHECK_GOTO(rc, read_stages(r, n, p), out);
    if (p->sp && p->tp < 2)
        rc = attr_fail(r, n,
                       "<parallel sequence-parallel=\"yes\">: it splits the sequence over "
                       "the tensor-parallel ranks; expected tp of 2 or more");
    else if (p->tp_overlap && !p->sp) /* Megatron: "Tensor parallel communication/GEMM overlap
                                         can happen only when sequence parallelism is enabled" */
        rc = attr_fail(
                r, n,
                "<parallel tp-comm-overlap=\"yes\">: it overlaps the all-gathers and "
                "reduce-scatters of sequence parallelism; expected sequence-parallel=\"yes\" "
                "and tp of 2 or more");
    if (rc == DMLSIM_OK) rc = read_overlap(r, n, p);
out:
    return rc;
}

const char *scenario_pp_schedule_name(enum pp_schedule s)
{
    return pp_schedules[s];
}

const char *scenario_recompute_name(enum recompute r)
{
    return recomputes[r];
}

/* What is trained: a <model> (timings only), or the <numerics> network, which is then also the
 * simulated model, so the two exclude each other; numerics needs fp32 (its gradients are the
 * floats the collectives carry). */
static enum dmlsim_err check_model_source(struct reader *r, xmlNodePtr n, const struct scenario *sc)
{
    const struct train_spec *t = &sc->train;
    if (!sc->model.present && !t->numerics.present)
        return attr_fail(r, n,
                         "<training>: nothing to train; expected a <model> before it, or a "
                         "<numerics> in it");
    if (sc->model.present && t->numerics.present)
        return attr_fail(r, n,
                         "<training>: <numerics> trains its own network, which is also the "
                         "simulated model; expected no <model>");
    if (t->numerics.present && t->dtype != DTYPE_FP32)
        return attr_fail(r, n,
                         "<training dtype=\"%s\">: <numerics> trains in fp32; expected "
                         "dtype=\"fp32\"",
                         catalog_dtype_name(t->dtype));
    return DMLSIM_OK;
}

/* embeddings="sharded" (all-reduce, a model with embedding tables): the DLRM / TorchRec layout,
 * tables model-parallel and exchanged by all-to-alls (emb_shard.h); "replicated" (default): on
 * every GPU, their gradients all-reduced with the rest. */
static enum dmlsim_err read_embeddings(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct train_spec *t = &sc->train;
    t->emb_sharded = attr_get_is(n, "embeddings", "sharded");
    if (!t->emb_sharded) return DMLSIM_OK;
    const struct model_spec *ms = &sc->model;
    bool tables = ms->explicit_.ntables > 0 || (ms->preset && model_recsys_is(ms->preset));
    if (t->strategy != STRAT_ALLREDUCE)
        return attr_fail(r, n,
                         "<training embeddings=\"sharded\">: only the all-reduce strategy shards "
                         "tables over its GPUs; expected strategy=\"allreduce\" (or no "
                         "embeddings attribute)");
    if (!tables || t->numerics.present)
        return attr_fail(r, n,
                         "<training embeddings=\"sharded\">: the model has no embedding tables; "
                         "expected a recommendation preset (dlrm-dcnv2, two-tower) or <embedding> "
                         "tables in <model>");
    return DMLSIM_OK;
}

/* A child of <training>: <ps>, <parallel>, <data> or <numerics> (the DTD admits no other). */
static enum dmlsim_err read_training_child(struct reader *r, xmlNodePtr c, struct scenario *sc)
{
    struct train_spec *t = &sc->train;
    const char *name = (const char *)c->name;
    if (strcmp(name, "ps") == 0) return read_ps(r, c, &t->ps);
    if (strcmp(name, "parallel") == 0) return read_parallel(r, c, &t->par);
    if (strcmp(name, "data") == 0) return scen_data_read(r, c, sc);
    return scen_data_read_numerics(r, c, &t->numerics);
}

enum dmlsim_err scen_train_read(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct train_spec *t = &sc->train;
    enum dmlsim_err rc;
    long v;
    char *strat = attr_dup(n, "strategy");
    t->strategy = STRAT_ALLREDUCE; /* the DTD's default */
    for (int id = STRAT_NONE + 1; strat && id < STRAT_COUNT; id++)
        if (strcmp(strat, strategy_name((enum strategy_id)id)) == 0) t->strategy = id;
    free(strat);
    t->line = (int)attr_line(n);
    t->par = (struct parallel_spec){
            .tp = 1, .pp = 1, .dp = 1, .ep = 1, .microbatches = 1, .vstages = 1, .line = t->line};
    t->ps = (struct ps_spec){.shards = 1,
                             .dedicated = false,
                             .split_bytes = true,
                             .mode = PS_SYNC,
                             .staleness = 0,
                             .backup = 0,
                             .line = t->line};
    for (xmlNodePtr c = n->children; c != NULL; c = c->next)
        if (c->type == XML_ELEMENT_NODE) DMLSIM_CHECK_GOTO(rc, read_training_child(r, c, sc), out);
    DMLSIM_CHECK_GOTO(rc,
                      scen_cluster_coll_attrs(r, n, COLL_ALLREDUCE, &t->algo, &t->nccl, &t->level,
                                              &t->gpus, &t->chunks),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "batch-per-gpu", &v), out);
    t->batch = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "steps", &v), out);
    t->steps = (int)v;
    t->dtype = DTYPE_FP32;
    for (int d = 0; d < DTYPE_COUNT; d++)
        if (attr_get_is(n, "dtype", catalog_dtype_name((enum gpu_dtype)d))) t->dtype = d;
    t->opt = attr_get_is(n, "optimizer", "adam")       ? OPT_ADAM
             : attr_get_is(n, "optimizer", "momentum") ? OPT_MOMENTUM
                                                       : OPT_SGD;
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "bucket", &t->bucket_B), out);
    t->overlap = attr_get_is(n, "overlap", "yes");
    /* DDP's gradient_as_bucket_view, False by default (torch/nn/parallel/distributed.py) */
    t->grad_as_view = attr_get_is(n, "gradient-as-bucket-view", "yes");
    t->replay = attr_get_is(n, "replay", "yes");
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "timeout", &t->timeout_s), out);
    DMLSIM_CHECK_GOTO(rc, read_costs(r, n, t), out);
    DMLSIM_CHECK_GOTO(rc, hybrid_numerics_model(r, sc), out);
    DMLSIM_CHECK_GOTO(rc, resolve_attention(r, sc), out);
    DMLSIM_CHECK_GOTO(rc, check_model_source(r, n, sc), out);
    rc = read_embeddings(r, n, sc);
    /* what needs the platform (GPU count, dtype support, memory, placement hosts, backup
     * workers) is checked once, against the loaded platform, by the strategy (strategy.h) */
out:
    return rc;
}
