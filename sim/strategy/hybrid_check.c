/* hybrid_check.c - what the hybrid strategy accepts (see hybrid_check.h). */
#include "hybrid_check.h"

#include "collective.h"
#include "hybrid_input.h"
#include "hybrid_num.h"
#include "hybrid_recover.h"
#include "hygroup.h"
#include "par_fit.h"
#include "parallel.h"

#include <stdio.h>

static enum dmlsim_err fail(const struct scenario *sc, int line, struct dmlsim_error *err,
                            const char *what)
{
    return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: %s", sc->path, line, what);
}

/* Context parallelism's rules: a sequence of 2 cp chunks, FlashAttention (Transformer Engine
 * runs context parallelism in its flash and fused attention backends only: DotProductAttention's
 * backend selection in dot_product_attention/utils.py disables the unfused one with cp > 1), no
 * <recovery> (a restart re-forms the layout by replicas: hybrid_recover.c maps ranks by tensor,
 * stage and replica only) and no <numerics> (its MLP has no sequence to split). */
static enum dmlsim_err check_cp(const struct scenario *sc, const struct gpt_config *g,
                                struct dmlsim_error *err)
{
    const struct parallel_spec *p = &sc->train.par;
    char why[256];
    if (g->seq % (2 * p->cp) != 0) {
        snprintf(why, sizeof why,
                 "<parallel cp=\"%d\">: %s has %d tokens a sample; expected a multiple of 2 cp "
                 "(Megatron-Core splits the sequence into 2 cp chunks, 2 a context rank)",
                 p->cp, sc->model.preset, g->seq);
        return fail(sc, p->line, err, why);
    }
    if (g->attention != ATTN_FLASH)
        return fail(sc, p->line, err,
                    "<parallel cp>: context parallelism runs in Transformer Engine's flash and "
                    "fused attention only; expected the model's FlashAttention (the default)");
    if (sc->rec.present)
        return fail(sc, p->line, err,
                    "<parallel cp>: a restart (<recovery>) of a context-parallel layout is not "
                    "simulated yet; expected cp of 1 with <recovery>");
    if (sc->train.numerics.present)
        return fail(sc, p->line, err,
                    "<parallel cp>: the <numerics> network has no sequence to split; expected cp "
                    "of 1 with <numerics>");
    return DMLSIM_OK;
}

enum dmlsim_err hybrid_check_layout(const struct scenario *sc, int workers,
                                    struct dmlsim_error *err)
{
    const struct parallel_spec *p = &sc->train.par;
    struct gpt_config g;
    char why[320];
    if (sc->model.preset == NULL || !model_transformer_shape(sc->model.preset, &g))
        return fail(sc, sc->train.line, err,
                    "<training strategy=\"hybrid\">: it splits a "
                    "transformer's blocks; expected a <model> transformer preset (gpt, "
                    "bert-large, gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b)");
    g = sc->model.gpt;
    if (p->tp * par_cp(p) * p->pp * p->dp != workers) {
        char cp[24] = "";
        if (par_cp(p) > 1) snprintf(cp, sizeof cp, " cp=\"%d\"", p->cp);
        snprintf(why, sizeof why,
                 "<parallel tp=\"%d\"%s pp=\"%d\" dp=\"%d\">: %d GPUs; expected "
                 "tp x %spp x dp = the %d workers",
                 p->tp, cp, p->pp, p->dp, p->tp * par_cp(p) * p->pp * p->dp,
                 par_cp(p) > 1 ? "cp x " : "", workers);
        return fail(sc, p->line, err, why);
    }
    if (par_cp(p) > 1) {
        enum dmlsim_err rc = check_cp(sc, &g, err);
        if (rc != DMLSIM_OK) return rc;
    }
    int kv = g.kv_heads > 0 ? g.kv_heads : g.heads;
    char stages[240];
    if (par_uneven(p) && !par_stages_ok(p, g.layers, stages, sizeof stages)) {
        snprintf(why, sizeof why, "<parallel> uneven stages: %s: %s", sc->model.preset, stages);
        return fail(sc, p->line, err, why);
    }
    if (!par_shape_ok(p, &g)) {
        snprintf(why, sizeof why,
                 "<parallel tp=\"%d\" pp=\"%d\">: %s has %d blocks, %d heads and %d key/value "
                 "heads; expected pp (times the virtual stages) dividing the blocks and tp the "
                 "heads and the key/value heads (Megatron-Core splits whole query groups)",
                 p->tp, p->pp, sc->model.preset, g.layers, g.heads, kv);
        return fail(sc, p->line, err, why);
    }
    if (p->ep > 1 && p->tp > 1 && !p->sp)
        return fail(sc, p->line, err,
                    "<parallel ep tp>: with expert and tensor parallelism each tensor rank would "
                    "send every token to the experts; expected sequence-parallel=\"yes\" "
                    "(Megatron-Core requires it)");
    if (p->ep > 1 && (g.experts < p->ep || g.experts % p->ep != 0 || p->dp % p->ep != 0)) {
        snprintf(why, sizeof why,
                 "<parallel ep=\"%d\" dp=\"%d\">: %s has %d experts a block; "
                 "expected ep dividing the experts and dp (a mixture-of-experts preset such as "
                 "mixtral-8x7b)",
                 p->ep, p->dp, sc->model.preset, g.experts);
        return fail(sc, p->line, err, why);
    }
    return DMLSIM_OK;
}

/* What the strategy does not do yet, and the shape rules. */
static enum dmlsim_err check_shape(const struct job *j, struct dmlsim_error *err)
{
    enum dmlsim_err rc = hybrid_check_layout(j->sc, job_workers(j), err);
    return rc == DMLSIM_OK ? hyin_check(j, err) : rc; /* the batches: who reads them */
}

enum dmlsim_err hybrid_check(const struct job *j, struct dmlsim_error *err)
{
    const struct train_spec *ts = &j->sc->train;
    enum dmlsim_err rc = check_shape(j, err);
    if (rc == DMLSIM_OK) rc = job_check(j, err);
    if (rc == DMLSIM_OK) rc = hyrec_check(j, err);
    if (rc == DMLSIM_OK) rc = hynum_check(j, err); /* <numerics>: its MLP split too */
    if (rc != DMLSIM_OK) return rc;
    char why[640];
    if (par_check_fit(&ts->par, j->sc->model.preset, &j->sc->model.gpt, ts->dtype, ts->opt,
                      ts->batch, j->pf->models[0]->mem_B, why, sizeof why) != 0)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <parallel>: %s", j->sc->path, ts->par.line,
                           why);
    const char *no = hygroup_check(j);
    if (no != NULL)
        return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <training algo=\"%s\">: %s", j->sc->path,
                           ts->line, coll_algo_name(ts->algo), no);
    return DMLSIM_OK;
}
