/* ps_metrics.c - the parameter server strategy's own metric rows (see ps_metrics.h). */
#include "ps_metrics.h"

#include "mem.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The value of each metric in a run record: its parameter-server part's, 0 without one. */
#define GET(name, expr) \
    static double get_##name(const struct run_record *r) \
    { \
        const struct ps_record *p = ps_metrics_of(r); \
        return p != NULL ? (double)(expr) : 0; \
    }
GET(shards, p->nshards)
GET(version_spread, p->spread_max)
GET(disagree_fraction, p->spread_frac)
GET(coordinator_messages, p->coordinator_msgs)
GET(mixed_pulls, p->mixed_pulls)
GET(coordinator_version, p->coordinator_global)
GET(coordinator_spread, p->coordinator_spread)
GET(shard_imbalance, p->imbalance)
GET(lost_updates, p->lost_updates)
GET(emb_rows_pushed, p->rows_computed)
GET(emb_rows_applied, p->rows_applied)
GET(emb_rows_dropped, p->rows_dropped)
GET(emb_rows_lost, p->rows_lost)
GET(emb_rows_pulled, p->rows_pulled)
GET(emb_rows_cached, p->rows_cached)
GET(sparse_bytes, p->sparse_B)
GET(dense_equiv_bytes, p->dense_equiv_B)
#undef GET

/* The rows' identity: every row gradient pushed was applied, dropped or lost (1), else 0. */
static double get_emb_rows_ok(const struct run_record *r)
{
    const struct ps_record *p = ps_metrics_of(r);
    if (p == NULL) return 1;
    return fabs(p->rows_computed - p->rows_applied - p->rows_dropped - p->rows_lost) < 0.5;
}

static bool is_sparse(const struct run_record *r)
{
    return ps_metrics_of(r) != NULL && ps_metrics_of(r)->sparse;
}

static bool has_coordinator(const struct run_record *r)
{
    return ps_metrics_of(r) != NULL && ps_metrics_of(r)->coordinator;
}

static const struct metric rows[] = {
        {.name = "shards", .unit = "1", .order = 310, .schema = "count",
         .meaning = "parameter server: shards",
         .text_for = METRIC_PS, .text = " to %.0f shard(s)", .scale = 1, .get = get_shards},
        {.name = "version_spread", .unit = "1", .order = 350, .schema = "count",
         .meaning = "largest difference between shard versions at one time",
         .text_for = METRIC_PS, .label = "shard versions", .text = "max spread %.0f", .scale = 1,
         .get = get_version_spread},
        {.name = "disagree_fraction", .unit = "1", .order = 360, .schema = "fraction",
         .meaning = "fraction of the run during which shards disagreed",
         .text_for = METRIC_PS, .text = ", shards disagreed %.1f%% of the time", .scale = 100,
         .get = get_disagree_fraction},
        {.name = "mixed_pulls", .unit = "1", .order = 370, .schema = "count",
         .meaning = "pulls whose shards answered with different versions (a mixed, split-brain "
                    "model)",
         .text_for = METRIC_PS, .text = ", %.0f pull(s) of mixed versions", .scale = 1,
         .get = get_mixed_pulls},
        {.name = "coordinator_messages", .unit = "1", .order = 380, .schema = "count",
         .meaning = "advances the version coordinator received",
         .text_for = METRIC_PS, .label = "coordinator", .text = "%.0f advances received",
         .scale = 1, .get = get_coordinator_messages, .shown = has_coordinator},
        {.name = "coordinator_version", .unit = "1", .order = 390, .schema = "count",
         .meaning = "the global version (minimum over shards) the coordinator last saw",
         .text_for = METRIC_PS, .text = ", global version %.0f", .scale = 1,
         .get = get_coordinator_version, .shown = has_coordinator},
        {.name = "coordinator_spread", .unit = "1", .order = 400, .schema = "count",
         .meaning = "the largest version disagreement the coordinator saw",
         .text_for = METRIC_PS, .text = ", largest disagreement %.0f", .scale = 1,
         .get = get_coordinator_spread, .shown = has_coordinator},
        {.name = "shard_imbalance", .unit = "1", .order = 410, .schema = "nonneg",
         .meaning = "largest shard's parameters / mean",
         .text_for = METRIC_PS, .label = "shard imbalance", .text = "largest / mean = %.3f",
         .scale = 1, .get = get_shard_imbalance},
        {.name = "lost_updates", .unit = "1", .order = 420, .schema = "count",
         .meaning = "shard versions lost to a shard crash",
         .text_for = METRIC_PS, .label = "lost updates", .line = METRIC_LINE_STALENESS,
         .text = "%.0f (shard versions lost to crashes)", .scale = 1, .get = get_lost_updates},
        {.name = "emb_rows_pushed", .unit = "1", .order = 421, .schema = "count",
         .meaning = "sparse: embedding-row gradients pushed (= applied + dropped + lost)",
         .text_for = METRIC_PS, .label = "embedding rows", .text = "%.0f pushed", .scale = 1,
         .get = get_emb_rows_pushed, .shown = is_sparse},
        {.name = "emb_rows_applied", .unit = "1", .order = 422, .schema = "count",
         .meaning = "sparse: embedding-row gradients applied by their shards",
         .text_for = METRIC_PS, .text = " = %.0f applied", .scale = 1,
         .get = get_emb_rows_applied, .shown = is_sparse},
        {.name = "emb_rows_dropped", .unit = "1", .order = 423, .schema = "count",
         .meaning = "sparse: embedding-row gradients dropped (stale or late)",
         .text_for = METRIC_PS, .text = " + %.0f dropped", .scale = 1,
         .get = get_emb_rows_dropped, .shown = is_sparse},
        {.name = "emb_rows_lost", .unit = "1", .order = 424, .schema = "count",
         .meaning = "sparse: embedding-row gradients lost to failures",
         .text_for = METRIC_PS, .text = " + %.0f lost", .scale = 1, .get = get_emb_rows_lost,
         .shown = is_sparse},
        {.name = "emb_rows_ok", .unit = "1", .order = 425, .schema = "flag",
         .meaning = "sparse: 1 when embedding rows pushed = applied + dropped + lost",
         .text_for = METRIC_PS, .scale = 1, .yes = ": the identity holds", .no = ": VIOLATED",
         .get = get_emb_rows_ok, .shown = is_sparse},
        {.name = "emb_rows_pulled", .unit = "1", .order = 426, .schema = "count",
         .meaning = "sparse: distinct embedding rows pulled from the shards",
         .text_for = METRIC_PS, .label = "rows pulled", .text = "%.0f", .scale = 1,
         .get = get_emb_rows_pulled, .shown = is_sparse},
        {.name = "emb_rows_cached", .unit = "1", .order = 427, .schema = "count",
         .meaning = "sparse: distinct rows a worker's cache served instead of a pull",
         .text_for = METRIC_PS, .text = ", %.0f from workers' caches", .scale = 1,
         .get = get_emb_rows_cached, .shown = is_sparse},
        {.name = "sparse_bytes", .unit = "B", .order = 428, .schema = "nonneg",
         .meaning = "sparse: bytes of embedding rows and their indices pulled and pushed",
         .text_for = METRIC_PS, .label = "sparse bytes", .text = "%.0f B", .scale = 1,
         .get = get_sparse_bytes, .shown = is_sparse},
        {.name = "dense_equiv_bytes", .unit = "B", .order = 429, .schema = "nonneg",
         .meaning = "sparse: what the same pulls and pushes would move with the tables whole "
                    "(sparse=\"no\")",
         .text_for = METRIC_PS, .text = " (the tables whole: %.0f B)", .scale = 1,
         .get = get_dense_equiv_bytes, .shown = is_sparse},
};

static bool staleness_lag(const struct run_record *r, const char *lag, double *out)
{
    char *end;
    long k = strtol(lag, &end, 10);
    if (end == lag || *end != '\0' || k < 0 || k >= RUN_HIST) return false;
    *out = ps_metrics_of(r) != NULL ? ps_metrics_of(r)->stale_hist[k] : 0;
    return true;
}

static const struct metric_family families[] = {
        {.prefix = "staleness_lag:", .arg = "N", .unit = "1", .order = 30,
         .meaning = "ps: applied slices with version lag N, 0..16 (16: 16 or more)",
         .get = staleness_lag},
};

const struct metric_table ps_metrics = {rows, sizeof rows / sizeof rows[0], families,
                                            sizeof families / sizeof families[0]};

static void record_free(void *own)
{
    struct ps_record *p = own;
    free(p->shards);
    free(p->first_push_s);
    free(p);
}

struct ps_record *ps_metrics_attach(struct run_record *rec)
{
    assert(rec->own == NULL && rec->strategy_id == STRAT_PS);
    struct ps_record *p = mem_new0(struct ps_record, 1);
    rec->own = p;
    rec->own_free = record_free;
    return p;
}

struct ps_record *ps_metrics_of(const struct run_record *rec)
{
    return rec->strategy_id == STRAT_PS ? rec->own : NULL;
}
