/* allreduce_metrics.c - the all-reduce strategy's own metric rows (see allreduce_metrics.h). */
#include "allreduce_metrics.h"

#include "mem.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>

/* The value of each metric in a run record. */
#define GET(name, expr) \
    static double get_##name(const struct run_record *r) \
    { \
        return (double)(expr); \
    }
static double get_buckets(const struct run_record *r)
{
    return allreduce_metrics_of(r) != NULL ? allreduce_metrics_of(r)->nbuckets : 0;
}
/* a sharded-embeddings figure: 0 without the all-reduce part */
#define EMB(name) \
    static double get_##name(const struct run_record *r) \
    { \
        const struct allreduce_record *p = allreduce_metrics_of(r); \
        return p != NULL ? p->name : 0; \
    }
EMB(emb_a2a_s)
EMB(emb_lookup_s)
EMB(emb_update_s)
EMB(emb_ids_B)
EMB(emb_pooled_B)
#undef EMB
GET(failed_collectives, r->failures)
GET(sides, r->sides)
GET(divergence_l2, r->divergence_l2)
#undef GET

static bool split_brain(const struct run_record *r)
{
    return r->sides > 1;
}

static bool emb_sharded(const struct run_record *r)
{
    return allreduce_metrics_of(r) != NULL && allreduce_metrics_of(r)->emb_sharded > 0;
}

static bool split_numerics(const struct run_record *r)
{
    return r->sides > 1 && r->numerics;
}

static const struct metric rows[] = {
        {.name = "buckets", .unit = "1", .order = 300, .schema = "count",
         .meaning = "all-reduce: gradient buckets per step",
         .text_for = METRIC_ALLREDUCE, .text = " in %.0f bucket(s)", .scale = 1,
         .get = get_buckets},
        {.name = "emb_a2a_s", .unit = "s", .order = 301, .schema = "nonneg",
         .meaning = "all-reduce, embeddings=\"sharded\": a rank's all-to-alls of IDs, pooled "
                    "embeddings and their gradients in a step (exposed; mean over ranks and steps)",
         .text_for = METRIC_ALLREDUCE, .label = "embeddings", .text = "all-to-all %.3f ms",
         .scale = 1000, .get = get_emb_a2a_s, .shown = emb_sharded},
        {.name = "emb_lookup_s", .unit = "s", .order = 302, .schema = "nonneg",
         .meaning = "all-reduce, embeddings=\"sharded\": a rank's lookups of its tables for the "
                    "global batch in a step (mean over ranks and steps)",
         .text_for = METRIC_ALLREDUCE, .text = " + lookups %.3f ms", .scale = 1000,
         .get = get_emb_lookup_s, .shown = emb_sharded},
        {.name = "emb_update_s", .unit = "s", .order = 303, .schema = "nonneg",
         .meaning = "all-reduce, embeddings=\"sharded\": a rank's fused backward and sparse "
                    "update of its tables' looked-up rows in a step (mean over ranks and steps)",
         .text_for = METRIC_ALLREDUCE, .text = " + fused updates %.3f ms a step", .scale = 1000,
         .get = get_emb_update_s, .shown = emb_sharded},
        {.name = "emb_ids_bytes", .unit = "B", .order = 304, .schema = "nonneg",
         .meaning = "all-reduce, embeddings=\"sharded\": bytes a GPU sends in a step's "
                    "all-to-all of IDs (mean over GPUs)",
         .text_for = METRIC_ALLREDUCE, .text = "; sent per GPU: IDs %.0f B", .scale = 1,
         .get = get_emb_ids_B, .shown = emb_sharded},
        {.name = "emb_pooled_bytes", .unit = "B", .order = 305, .schema = "nonneg",
         .meaning = "all-reduce, embeddings=\"sharded\": bytes a GPU sends in a step's "
                    "all-to-all of pooled embeddings (mean over GPUs; their gradients' as many)",
         .text_for = METRIC_ALLREDUCE, .text = ", pooled %.0f B (and as many backward)",
         .scale = 1, .get = get_emb_pooled_B, .shown = emb_sharded},
        {.name = "failed_collectives", .unit = "1", .order = 340, .schema = "count",
         .meaning = "collectives that ended in a timeout or failure",
         .text_for = METRIC_ALLREDUCE, .label = "failed collectives", .text = "%.0f", .scale = 1,
         .get = get_failed_collectives},
        {.name = "sides", .unit = "1", .order = 570,
         .schema = "{\"type\": \"integer\", \"minimum\": 1}",
         .meaning = "all-reduce, rendezvous=\"per-side\": the most sides of a partition training "
                    "apart at one time (1: none)",
         .text_for = METRIC_ALLREDUCE, .label = "split brain", .text = "%.0f sides trained apart",
         .scale = 1, .get = get_sides, .shown = split_brain},
        {.name = "divergence_l2", .unit = "1", .order = 580, .schema = "nonneg",
         .meaning = "numerics: the largest L2 distance between two sides' models when they merged "
                    "or the run ended split",
         .text_for = METRIC_ALLREDUCE, .text = "; their models %.6g apart (L2)", .scale = 1,
         .get = get_divergence_l2, .shown = split_numerics},
};

const struct metric_table allreduce_metrics = {rows, sizeof rows / sizeof rows[0], NULL, 0};

static void record_free(void *own)
{
    free(own);
}

struct allreduce_record *allreduce_metrics_attach(struct run_record *rec)
{
    assert(rec->own == NULL && rec->strategy_id == STRAT_ALLREDUCE);
    struct allreduce_record *p = mem_new0(struct allreduce_record, 1);
    rec->own = p;
    rec->own_free = record_free;
    return p;
}

struct allreduce_record *allreduce_metrics_of(const struct run_record *rec)
{
    return rec->strategy_id == STRAT_ALLREDUCE ? rec->own : NULL;
}
