/* ps_sparse.c - the parameter server's sparse embedding path (see ps_sparse.h). */
#include "ps_sparse.h"

#include "ps_msg.h"

#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <string.h>

/* One batch's distinct rows on each shard: not cached, and cached (their elements too). */
struct sparse_batch {
    int key;        /* the batch (iteration) drawn, -1: none yet */
    double samples; /* its samples */
    double *rows;   /* K: distinct rows outside the cache */
    double *elems;  /* K: ... their elements */
    double *crows;  /* K: distinct rows in the cache */
    double *celems; /* K: ... their elements */
};

struct ps_sparse {
    struct emb_sampler *smp;             /* per table */
    struct emb_scratch scratch;          /* the dedup set, shared: emb_count never yields */
    double *t_rows, *t_draws, *t_cached; /* K each: one table's counts */
    double elem_B;                       /* bytes an element */
    double per_elem_B;                   /* update traffic an element (weights, gradient, state) */
    double share_B;        /* a shard's share of the tables, in bytes (what sparse="no" moves) */
    double push_B, pushes; /* the rows' bytes of every push, and the pushes (to one shard) */
};

static void batch_alloc(struct sparse_batch *b, int K)
{
    b->key = -1;
    b->rows = xbt_new0(double, (size_t)K);
    b->elems = xbt_new0(double, (size_t)K);
    b->crows = xbt_new0(double, (size_t)K);
    b->celems = xbt_new0(double, (size_t)K);
}

static void batch_free(struct sparse_batch *b)
{
    free(b->rows);
    free(b->elems);
    free(b->crows);
    free(b->celems);
}

void ps_sparse_setup(struct ps_ctx *c)
{
    const struct model *m = c->m;
    const struct train_spec *ts = &c->sc->train;
    if (ps_sparse_rowwise(c) == 0) return;
    struct ps_sparse *sp = xbt_new0(struct ps_sparse, 1);
    sp->smp = xbt_new0(struct emb_sampler, m->ntables);
    for (size_t t = 0; t < m->ntables; t++) {
        const struct emb_table *e = &m->tables[t];
        emb_sampler_init(&sp->smp[t], e->dist, (uint64_t)e->rows, e->zipf_s, e->file, e->nfile);
    }
    sp->t_rows = xbt_new0(double, (size_t)c->K);
    sp->t_draws = xbt_new0(double, (size_t)c->K);
    sp->t_cached = xbt_new0(double, (size_t)c->K);
    sp->elem_B = model_dtype_bytes(ts->dtype);
    sp->per_elem_B = model_update_bytes_per_param(ts->dtype, ts->opt);
    sp->share_B = ps_sparse_rowwise(c) * sp->elem_B;
    for (int r = 0; r < c->P; r++) {
        c->workers[r].sp = xbt_new0(struct sparse_batch, 2);
        batch_alloc(&c->workers[r].sp[0], c->K);
        batch_alloc(&c->workers[r].sp[1], c->K);
    }
    c->sparse = sp;
    ps_metrics_of(c->res)->sparse = true;
}

void ps_sparse_release(struct ps_ctx *c)
{
    struct ps_sparse *sp = c->sparse;
    if (sp == NULL) return;
    for (int r = 0; r < c->P; r++) {
        batch_free(&c->workers[r].sp[0]);
        batch_free(&c->workers[r].sp[1]);
        free(c->workers[r].sp);
    }
    emb_scratch_release(&sp->scratch);
    free(sp->smp);
    free(sp->t_rows);
    free(sp->t_draws);
    free(sp->t_cached);
    free(sp);
    c->sparse = NULL;
}

double ps_sparse_rowwise(const struct ps_ctx *c)
{
    bool on = c->m->ntables > 0 && !c->sc->train.ps.dense_tables;
    return on ? model_table_params(c->m) / c->K : 0;
}

double ps_sparse_dense_params(const struct ps_ctx *c)
{
    return model_params(c->m) - ps_sparse_rowwise(c) * c->K;
}

/* Draws worker w's batch `key` of `samples` samples (or finds it drawn): its distinct rows on
 * each shard, in and out of the cache. */
static const struct sparse_batch *batch_of(struct ps_ctx *c, struct ps_worker *w, int key,
                                           double samples)
{
    struct ps_sparse *sp = c->sparse;
    struct sparse_batch *b = &w->sp[key & 1];
    if (b->key == key && b->samples == samples) return b;
    b->key = key;
    b->samples = samples;
    size_t K = (size_t)c->K;
    memset(b->rows, 0, K * sizeof *b->rows);
    memset(b->elems, 0, K * sizeof *b->elems);
    memset(b->crows, 0, K * sizeof *b->crows);
    memset(b->celems, 0, K * sizeof *b->celems);
    double cache = c->sc->train.ps.cache_rows;
    for (size_t t = 0; t < c->m->ntables; t++) {
        const struct emb_table *e = &c->m->tables[t];
        memset(sp->t_rows, 0, K * sizeof *sp->t_rows);
        memset(sp->t_draws, 0, K * sizeof *sp->t_draws);
        memset(sp->t_cached, 0, K * sizeof *sp->t_cached);
        long n = lround(samples * e->pooling);
        emb_count(&sp->smp[t], emb_stream(c->sc->seed, w->rank, key, (int)t), n, c->K,
                  c->sc->train.ps.shard_by, (uint64_t)fmin(cache, e->rows), sp->t_rows, sp->t_draws,
                  sp->t_cached, &sp->scratch);
        for (size_t k = 0; k < K; k++) {
            b->rows[k] += sp->t_rows[k];
            b->elems[k] += sp->t_rows[k] * e->dim;
            b->crows[k] += sp->t_cached[k];
            b->celems[k] += sp->t_cached[k] * e->dim;
        }
    }
    return b;
}

double ps_sparse_pull(struct ps_ctx *c, struct ps_worker *w, int key, double samples, int k,
                      struct ps_msg *req)
{
    struct ps_sparse *sp = c->sparse;
    req->reply_B = c->shards[k].bytes;
    req->rows = 0;
    if (sp == NULL) return REQUEST_B;
    const struct sparse_batch *b = batch_of(c, w, key, samples);
    int st = c->sc->train.ps.cache_staleness;
    bool refresh = st > 0 && key % st == 0; /* the cache's rows are fetched anew */
    double rows = b->rows[k] + (refresh ? b->crows[k] : 0);
    double elems = b->elems[k] + (refresh ? b->celems[k] : 0);
    req->rows = rows;
    req->row_elems = refresh ? 0 : b->crows[k]; /* PULL: the rows its cache serves instead */
    req->reply_B += elems * sp->elem_B;
    return REQUEST_B + rows * SPARSE_INDEX_B;
}

double ps_sparse_push(struct ps_ctx *c, struct ps_worker *w, int key, double samples, int k,
                      struct ps_msg *g)
{
    struct ps_sparse *sp = c->sparse;
    g->rows = g->row_elems = 0;
    if (sp == NULL) return c->shards[k].bytes;
    const struct sparse_batch *b = batch_of(c, w, key, samples);
    g->rows = b->rows[k] + b->crows[k];
    g->row_elems = b->elems[k] + b->celems[k];
    double B = g->row_elems * sp->elem_B + g->rows * SPARSE_INDEX_B;
    struct ps_record *pr = ps_metrics_of(c->res);
    pr->rows_computed += g->rows;
    pr->sparse_B += B;
    pr->dense_equiv_B += sp->share_B;
    w->rows_handed += g->rows;
    sp->push_B += B;
    sp->pushes += 1;
    return c->shards[k].bytes + B;
}

void ps_sparse_pulled(struct ps_ctx *c, int k, const struct ps_msg *answer)
{
    struct ps_sparse *sp = c->sparse;
    if (sp == NULL) return;
    struct ps_record *pr = ps_metrics_of(c->res);
    pr->rows_pulled += answer->rows;
    pr->rows_cached += answer->row_elems;
    pr->sparse_B += answer->reply_B - c->shards[k].bytes + answer->rows * SPARSE_INDEX_B;
    pr->dense_equiv_B += sp->share_B;
}

double ps_sparse_grad_B(const struct ps_ctx *c)
{
    /* dense="allreduce": the dense gradient goes to the other workers, not to the shards */
    double dense = c->sc->train.ps.dense_allreduce
                           ? 0
                           : ps_sparse_dense_params(c) * model_dtype_bytes(c->sc->train.dtype);
    struct ps_sparse *sp = c->sparse;
    return sp && sp->pushes > 0 ? dense + sp->push_B / sp->pushes * c->K : dense;
}

double ps_sparse_elem_B(const struct ps_ctx *c)
{
    return c->sparse ? c->sparse->elem_B : 0;
}

double ps_sparse_update_amt(struct shard *s)
{
    struct ps_sparse *sp = s->c->sparse;
    double amt = s->update_amt;
    if (sp != NULL && s->pend_elems > 0)
        amt += s->pend_elems * sp->per_elem_B / (PS_CPU_MEM_BW * PS_CPU_MEM_EFF) *
               sg_host_get_pstate_speed(s->host, 0); /* its nominal rate: a straggler slows it */
    s->pend_elems = 0;
    return amt;
}
