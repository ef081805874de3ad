/* scen_emb.c - a scenario's embedding tables and sparse parameter server (see scen_emb.h). */
#include "scen_emb.h"

#include "mem.h"
#include "model_recsys.h"

#include <stdlib.h>
#include <string.h>

#define EMB_FILE_MAX (1L << 26) /* IDs read from a file (512 MiB of them) */
#define DRAWS_MAX     (1L << 26) /* IDs a worker draws for one table a batch (67M; the sparse
                                    path's hash set then takes 1 GiB) */

static const char *const dist_names[] = {"uniform", "zipf", "file"};

/* ids= and zipf= of n (an <embedding> or a recommendation preset's <model>). */
static enum dmlsim_err read_dist(struct reader *r, xmlNodePtr n, const char *elem, bool file_ok,
                                 enum emb_dist *dist, double *s)
{
    *dist = (enum emb_dist)attr_get_choice(n, "ids", dist_names, 3);
    if (*dist == EMB_FILE && !file_ok)
        return attr_fail(r, n,
                         "<%s ids=\"file\">: a preset's tables have no ID file; expected "
                         "ids=\"uniform\" or \"zipf\" (or <embedding> tables of your own)",
                         elem);
    if (*dist != EMB_ZIPF && xmlHasProp(n, (const xmlChar *)"zipf"))
        return attr_fail(r, n, "<%s zipf>: only meaningful with ids=\"zipf\"", elem);
    enum dmlsim_err rc = attr_get_real(r, n, "zipf", s);
    if (rc == DMLSIM_OK && *s > attr_get_max(n, "zipf"))
        rc = attr_fail(r, n, "<%s zipf=\"%g\">: expected an exponent in (0, %g]", elem, *s,
                       attr_get_max(n, "zipf"));
    return rc;
}

enum dmlsim_err scen_emb_read_model(struct reader *r, xmlNodePtr n, struct model_spec *ms)
{
    bool has = xmlHasProp(n, (const xmlChar *)"ids") || xmlHasProp(n, (const xmlChar *)"zipf");
    if (!has) return DMLSIM_OK;
    if (!ms->preset || !model_recsys_is(ms->preset))
        return attr_fail(r, n,
                         "<model ids>: only meaningful with a recommendation preset "
                         "(dlrm-dcnv2, two-tower); expected <embedding ids> on tables of "
                         "your own");
    enum emb_dist d;
    enum dmlsim_err rc = read_dist(r, n, "model", false, &d, &ms->gpt.zipf);
    ms->gpt.ids = (int)d;
    return rc;
}

/* ids="file" file="PATH": the IDs, kept in ms. */
static enum dmlsim_err read_file_ids(struct reader *r, xmlNodePtr n, struct model_spec *ms,
                                     struct emb_table *t)
{
    char *f = attr_dup(n, "file");
    enum dmlsim_err rc = DMLSIM_OK;
    if ((f != NULL) != (t->dist == EMB_FILE)) {
        rc = attr_fail(r, n, "<embedding%s>: %s", f ? " file" : " ids=\"file\"",
                       f ? "only meaningful with ids=\"file\"" : "no file; expected file=\"PATH\"");
        goto out;
    }
    if (f == NULL) goto out;
    char *path = attr_path(r, f), why[256];
    uint64_t *ids = NULL;
    size_t nids = 0;
    if (emb_ids_load(path, (uint64_t)t->rows, EMB_FILE_MAX, &ids, &nids, why, sizeof why) != 0)
        rc = attr_fail(r, n, "<embedding file=\"%s\">: %s%s", f, why,
                       strstr(why, "expected") ? "" : "; expected one decimal ID a line");
    free(path);
    if (rc != DMLSIM_OK) goto out;
    ms->idfiles = mem_realloc(ms->idfiles, (ms->nidfiles + 1) * sizeof *ms->idfiles);
    ms->idfiles[ms->nidfiles++] = ids;
    t->file = ids;
    t->nfile = nids;
out:
    free(f);
    return rc;
}

enum dmlsim_err scen_emb_read_table(struct reader *r, xmlNodePtr n, struct model_spec *ms)
{
    struct emb_table t = {0};
    enum dmlsim_err rc;
    long v;
    char *name = attr_dup(n, "name");
    snprintf(t.name, sizeof t.name, "%s", name ? name : "table");
    free(name);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "rows", &v), out);
    t.rows = (double)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "dim", &v), out);
    t.dim = (double)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "pooling", &v), out);
    t.pooling = (double)v;
    DMLSIM_CHECK_GOTO(rc, read_dist(r, n, "embedding", true, &t.dist, &t.zipf_s), out);
    DMLSIM_CHECK_GOTO(rc, read_file_ids(r, n, ms, &t), out);
    model_add_table(&ms->explicit_, &t, 4); /* activations in bytes are the layers' own */
out:
    return rc;
}

enum dmlsim_err scen_emb_read_ps(struct reader *r, xmlNodePtr n, struct ps_spec *ps)
{
    static const char *const shard_names[] = {"hash", "range"};
    enum dmlsim_err rc;
    long v;
    static const char *const given[] = {"sparse", "shard-by", "cache-rows", "dense"};
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        ps->sparse_given |= xmlHasProp(n, (const xmlChar *)given[i]) != 0;
    ps->dense_tables = attr_get_is(n, "sparse", "no");
    ps->dense_allreduce = attr_get_is(n, "dense", "allreduce");
    ps->shard_by =
            attr_get_choice(n, "shard-by", shard_names, 2) == 1 ? EMB_SHARD_RANGE : EMB_SHARD_HASH;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "cache-rows", &v), out);
    ps->cache_rows = (double)v;
    bool has_st = xmlHasProp(n, (const xmlChar *)"cache-staleness");
    if (has_st != (ps->cache_rows > 0)) {
        rc = attr_fail(r, n, "<ps %s>: %s", has_st ? "cache-staleness" : "cache-rows",
                       has_st ? "only meaningful with cache-rows=\"N\" (N > 0)"
                              : "a cache needs its staleness bound; expected "
                                "cache-staleness=\"S\" (iterations between refreshes)");
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "cache-staleness", &v), out);
    ps->cache_staleness = (int)v;
    if (ps->dense_tables && (ps->cache_rows > 0 || xmlHasProp(n, (const xmlChar *)"shard-by")))
        rc = attr_fail(r, n,
                       "<ps sparse=\"no\">: tables move whole; expected no cache-rows or "
                       "shard-by (or sparse=\"yes\")");
out:
    return rc;
}

/* The sparse path's limits on the tables (the model's, a preset's built here): IDs drawn a batch,
 * and a cache only over ranked IDs. */
static enum dmlsim_err check_tables(struct reader *r, const struct scenario *sc)
{
    const struct ps_spec *ps = &sc->train.ps;
    struct model m;
    if (sc->model.preset) model_preset_any(sc->model.preset, &sc->model.gpt, DTYPE_FP32, &m);
    const struct model *x = sc->model.preset ? &m : &sc->model.explicit_;
    const char *why = NULL;
    const struct emb_table *t = NULL;
    for (size_t i = 0; i < x->ntables && why == NULL; i++) {
        t = &x->tables[i];
        if ((double)sc->train.batch * t->pooling > (double)DRAWS_MAX)
            why = "batch-per-gpu x pooling IDs a batch; expected at most 2^26";
        else if (ps->cache_rows > 0 && t->dist == EMB_FILE)
            why = "a cache keeps the lowest IDs, the hottest only when IDs are ranked (zipf) or "
                  "alike (uniform); expected no cache-rows with ids=\"file\"";
    }
    enum dmlsim_err rc = DMLSIM_OK;
    if (why)
        rc = dmlsim_fail(r->err, DMLSIM_EVALUE, "%s:%d: <ps> with table %s: %s", r->path,
                         ps->line, t->name, why);
    if (sc->model.preset) model_release(&m);
    return rc;
}

enum dmlsim_err scen_emb_check(struct reader *r, const struct scenario *sc)
{
    const struct ps_spec *ps = &sc->train.ps;
    const struct model_spec *ms = &sc->model;
    bool tables = ms->present && (ms->explicit_.ntables > 0 ||
                                  (ms->preset != NULL && model_recsys_is(ms->preset)));
    bool sparse = tables && sc->train.strategy == STRAT_PS && !ps->dense_tables;
    if (sparse && ps->local_agg)
        return dmlsim_fail(r->err, DMLSIM_EVALUE,
                           "%s:%d: <ps local-aggregation=\"yes\">: a node's leader would pull "
                           "and push its followers' rows, which the node's own transfers do not "
                           "carry; expected local-aggregation=\"no\" or sparse=\"no\"",
                           r->path, ps->line);
    if (sparse) {
        enum dmlsim_err rc = check_tables(r, sc);
        if (rc != DMLSIM_OK) return rc;
    }
    if (ps->sparse_given && !tables)
        return dmlsim_fail(r->err, DMLSIM_EVALUE,
                           "%s:%d: <ps sparse, shard-by, cache-rows, dense>: the model has no "
                           "embedding tables; expected <embedding> tables or a recommendation "
                           "preset (dlrm-dcnv2, two-tower)",
                           r->path, ps->line);
    if (ps->dense_allreduce && sc->nfaults > 0)
        return dmlsim_fail(r->err, DMLSIM_EVALUE,
                           "%s:%d: <ps dense=\"allreduce\">: its all-reduce has no membership to "
                           "recover; expected no <faults>",
                           r->path, ps->line);
    return DMLSIM_OK;
}

bool scen_emb_tables_on_gpu(const struct train_spec *ts)
{
    return !(ts->strategy == STRAT_PS && !ts->ps.dense_tables);
}

void scen_emb_release(struct model_spec *ms)
{
    for (size_t i = 0; i < ms->nidfiles; i++)
        free(ms->idfiles[i]);
    free(ms->idfiles);
    ms->idfiles = NULL;
    ms->nidfiles = 0;
}
