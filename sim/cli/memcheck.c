/* memcheck.c - `dmlsim run --memory-only` (see memcheck.h). */
#include "memcheck.h"

#include "cmdline.h"
#include "emb_shard.h"
#include "hybrid_check.h"
#include "model.h"
#include "par_fit.h"
#include "parallel.h"
#include "scen_emb.h"
#include "strategies.h"

#include <stdio.h>
#include <stdlib.h>

/* What the check needs and the platform and strategy would have checked, before any output: a
 * <training>, the GPU of a <cluster> running the dtype, no more workers than its GPUs, the
 * hybrid layout's rules, a model of known size; the workers into *P. */
static enum dmlsim_err check_inputs(const struct scenario *sc, int *P, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    if (ts->strategy == STRAT_NONE)
        return dmlsim_fail(err, DMLSIM_EUSAGE,
                           "%s:0: --memory-only checks a training's memory; expected a scenario "
                           "with <training>",
                           sc->path);
    if (!sc->has_cluster)
        return dmlsim_fail(err, DMLSIM_EUSAGE,
                           "%s:%d: --memory-only takes the GPU from the catalog; expected a "
                           "<cluster> (a <platform> file's GPUs are known once SimGrid loads it)",
                           sc->path, sc->cluster_line);
    const struct cluster_spec *c = &sc->cluster;
    int all = c->nodes * c->gpus_per_node;
    *P = ts->gpus > 0 ? ts->gpus : all;
    if (*P > all)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <training gpus=\"%d\">: the platform has %d GPU(s); expected 1 "
                           "to %d",
                           sc->path, ts->line, *P, all, all);
    if (c->gpu->peak_flops[ts->dtype] <= 0)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: <training dtype=\"%s\">: %s has no %s support; expected one of "
                           "its dtypes (see dmlsim catalog)",
                           sc->path, ts->line, catalog_dtype_name(ts->dtype), c->gpu->name,
                           catalog_dtype_name(ts->dtype));
    if (ts->strategy == STRAT_HYBRID) return hybrid_check_layout(sc, *P, err);
    if (ts->numerics.present && ts->numerics.cost_model == NULL)
        return dmlsim_fail(err, DMLSIM_EUSAGE,
                           "%s:%d: --memory-only: the <numerics> network's size is known once "
                           "its data is read; expected a <model> or <numerics cost-model>",
                           sc->path, ts->numerics.line);
    return DMLSIM_OK;
}

/* Stage s's layers, "20 blocks + the embedding", into buf. */
static void stage_layers(const struct parallel_spec *p, int blocks, int s, char *buf, size_t len)
{
    snprintf(buf, len, "%d blocks%s%s", par_stage_blocks(p, blocks, s),
             s == 0 ? " + the embedding" : "", s == p->pp - 1 ? " + the output layer" : "");
}

/* The whole model's parameters (every rank's share together), as `dmlsim run` counts them. */
static void print_params(const struct scenario *sc)
{
    struct gpt_config whole = sc->model.gpt;
    struct model m;
    whole.tp = whole.ep = 1;
    whole.sp = false;
    if (model_preset(sc->model.preset, &whole, sc->train.dtype, &m) != 0) return;
    printf("# model         %s: %.0f parameters\n", m.name, model_params(&m));
    model_release(&m);
}

/* The hybrid strategy's rank groups: a line a pipeline stage; its out-of-memory error. */
static enum dmlsim_err hybrid_lines(const struct scenario *sc, int P, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    const struct parallel_spec *p = &ts->par;
    const struct gpt_config *g = &sc->model.gpt;
    double mem_B = sc->cluster.gpu->mem_B;
    struct par_memory *x = malloc(sizeof *x * (size_t)p->pp), most = {.stage = -1};
    par_memory_stages(p, sc->model.preset, g, ts->dtype, ts->opt, ts->batch, x);
    print_params(sc);
    printf("# memory        %s, hybrid: tp %d x pp %d x dp %d = %d GPUs, %s, %d microbatch(es) "
           "of %d, ZeRO-%d%s, recompute %s, %s, %s; %s: %.2f GB a GPU\n",
           sc->model.preset, p->tp, p->pp, p->dp, P, scenario_pp_schedule_name(p->schedule),
           p->microbatches, ts->batch, p->zero, p->sp ? ", sequence parallel" : "",
           scenario_recompute_name(p->recompute), catalog_dtype_name(ts->dtype),
           model_optimizer_name(ts->opt), sc->cluster.gpu->name, mem_B / 1e9);
    for (int s = 0; s < p->pp; s++) {
        char what[96];
        stage_layers(p, g->layers, s, what, sizeof what);
        printf("# memory/gpu    %.2f GB on stage %d = weights %.2f + gradients %.2f + optimizer "
               "%.2f + activations %.2f (%.2f microbatches in flight): %d GPUs, %s\n",
               x[s].total_B / 1e9, s, x[s].weights_B / 1e9, x[s].grads_B / 1e9,
               x[s].optimizer_B / 1e9, x[s].act_B / 1e9, par_in_flight(p, s), P / p->pp, what);
        if (most.stage < 0 || x[s].total_B > most.total_B) most = x[s];
    }
    free(x);
    char why[640];
    if (par_check_fit(p, sc->model.preset, g, ts->dtype, ts->opt, ts->batch, mem_B, why,
                      sizeof why) != 0)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <parallel>: %s", sc->path, p->line, why);
    printf("# memory fits   %.2f GB at most a GPU (stage %d), %.2f GB free of %.2f GB\n",
           most.total_B / 1e9, most.stage, (mem_B - most.total_B) / 1e9, mem_B / 1e9);
    return DMLSIM_OK;
}

/* The other strategies: every GPU a replica of the whole model. */
/* Where the embedding tables are: on every GPU (part of the memory line), or on the shards. */
void memcheck_print_tables(const struct scenario *sc, const struct model *m,
                           const struct memory_need *need)
{
    const struct train_spec *ts = &sc->train;
    double rows = 0, state_B = model_table_params(m) * (model_dtype_bytes(ts->dtype) +
                                                        model_optimizer_bytes(ts->dtype, ts->opt));
    for (size_t t = 0; t < m->ntables; t++)
        rows += m->tables[t].rows;
    printf("# tables        %zu embedding table(s), %.0f rows, %.2f GB of weights and optimizer "
           "state: ",
           m->ntables, rows, state_B / 1e9);
    if (need->tables_on_gpu)
        printf("on every GPU (%.2f GB of its memory, with their gradients)\n",
               need->tables_B / 1e9);
    else
        printf("on the %d parameter-server shard(s), %.2f GB each; a GPU holds its batch's (and "
               "cached) rows "
               "(%.2f GB at most)\n",
               ts->ps.shards, state_B / ts->ps.shards / 1e9, need->tables_B / 1e9);
}

/* embeddings="sharded": the tables over the P GPUs (emb_shard.h), each GPU's memory. */
static enum dmlsim_err sharded_lines(const struct scenario *sc, const struct model *m, int P,
                                     struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    const struct gpu_model *gpu = sc->cluster.gpu;
    struct emb_plan p;
    emb_plan_build(m, P, ts->dtype, ts->opt, ts->batch, gpu->mem_B, &p);
    printf("# memory        %s, %s: %d GPUs, the dense part a replica each, the tables sharded, "
           "batch %d, %s, %s; %s: %.2f GB a GPU\n",
           m->name, strategy_name(ts->strategy), P, ts->batch, catalog_dtype_name(ts->dtype),
           model_optimizer_name(ts->opt), gpu->name, gpu->mem_B / 1e9);
    emb_plan_print(stdout, m, &p, ts->dtype, ts->opt, ts->batch);
    char why[640];
    enum dmlsim_err rc = DMLSIM_OK;
    if (emb_plan_check(m, &p, ts->dtype, ts->opt, ts->batch, gpu->mem_B, gpu->name, why,
                       sizeof why) != 0)
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:%d: <training embeddings=\"sharded\">: %s; expected more GPUs, a "
                         "smaller batch-per-gpu or smaller tables",
                         sc->path, ts->line, why);
    else {
        int g = emb_plan_worst(m, &p, ts->dtype, ts->opt, ts->batch);
        double most = emb_plan_memory(m, &p, ts->dtype, ts->opt, ts->batch, g).total_B;
        printf("# memory fits   %.2f GB at most a GPU (GPU %d), %.2f GB free of %.2f GB\n",
               most / 1e9, g, (gpu->mem_B - most) / 1e9, gpu->mem_B / 1e9);
    }
    emb_plan_release(&p);
    return rc;
}

static enum dmlsim_err replica_lines(const struct scenario *sc, int P, struct dmlsim_error *err)
{
    const struct train_spec *ts = &sc->train;
    const struct gpu_model *gpu = sc->cluster.gpu;
    struct model m;
    if (ts->numerics.present)
        model_preset(ts->numerics.cost_model, NULL, ts->dtype, &m);
    else
        scenario_build_model(sc, &m);
    if (ts->emb_sharded) {
        enum dmlsim_err rc = sharded_lines(sc, &m, P, err);
        model_release(&m);
        return rc;
    }
    bool on_gpu = scen_emb_tables_on_gpu(ts);
    struct memory_need need =
            model_memory_placed(&m, ts->dtype, ts->opt, ts->batch, on_gpu, ts->ps.cache_rows);
    printf("# memory        %s, %s: %d GPUs each a replica, batch %d, %s, %s; %s: %.2f GB a GPU\n",
           m.name, strategy_name(ts->strategy), P, ts->batch, catalog_dtype_name(ts->dtype),
           model_optimizer_name(ts->opt), gpu->name, gpu->mem_B / 1e9);
    printf("# memory/gpu    %.2f GB = weights %.2f + gradients %.2f + optimizer %.2f + "
           "activations %.2f (batch %d)\n",
           need.total_B / 1e9, need.weights_B / 1e9, need.grads_B / 1e9, need.optimizer_B / 1e9,
           need.act_B / 1e9, ts->batch);
    if (m.ntables > 0) memcheck_print_tables(sc, &m, &need);
    char why[512];
    enum dmlsim_err rc = DMLSIM_OK;
    if (model_check_fit_placed(&m, ts->dtype, ts->opt, ts->batch, on_gpu, ts->ps.cache_rows, gpu,
                               why, sizeof why) != 0)
        rc = dmlsim_fail(err, DMLSIM_EVALUE,
                         "%s:%d: <training>: %s; expected a smaller batch-per-gpu or model",
                         sc->path, ts->line, why);
    else
        printf("# memory fits   %.2f GB a GPU, %.2f GB free of %.2f GB\n", need.total_B / 1e9,
               (gpu->mem_B - need.total_B) / 1e9, gpu->mem_B / 1e9);
    model_release(&m);
    return rc;
}

enum dmlsim_err memcheck_run(const struct scenario *sc, struct dmlsim_error *err)
{
    int P = 0;
    enum dmlsim_err rc = check_inputs(sc, &P, err);
    if (rc != DMLSIM_OK) return rc;
    printf("# dmlsim %s\n", DMLSIM_VERSION);
    printf("# scenario      %s (name \"%s\", seed %lu), memory only: no simulation\n", sc->path,
           sc->name, sc->seed);
    return sc->train.strategy == STRAT_HYBRID ? hybrid_lines(sc, P, err)
                                              : replica_lines(sc, P, err);
}
