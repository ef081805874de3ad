/* hybrid_metrics.c - the hybrid strategy's own metric rows (see hybrid_metrics.h). */
#include "hybrid_metrics.h"

#include "mem.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The value of each metric in a run record: its hybrid part's, 0 without one. */
#define GET(name, expr) \
    static double get_##name(const struct run_record *r) \
    { \
        const struct hybrid_record *p = hybrid_metrics_of(r); \
        return p != NULL ? (double)(expr) : 0; \
    }
GET(mfu, p->mfu)
GET(tokens_per_s, p->tokens_s)
GET(pipeline_s, p->par_pipe_s)
GET(bubble_fraction, p->par_bubble_frac)
GET(par_compute_s, p->par_compute_s)
GET(tp_exposed_s, p->par_tp_s)
GET(bubble_s, p->par_bubble_s)
GET(dp_exposed_s, p->par_dp_s)
GET(update_s, p->par_update_s)
GET(tp_bytes, p->par_bytes[0])
GET(pp_bytes, p->par_bytes[1])
GET(dp_bytes, p->par_bytes[2])
GET(ep_bytes, p->par_bytes[3])
#undef GET

/* every record has one (hybrid: on the stage that needs the most) */
static double get_memory_per_gpu_bytes(const struct run_record *r)
{
    return r->mem.total_B;
}

static bool has_hybrid(const struct run_record *r)
{
    return hybrid_metrics_of(r) != NULL;
}

static const struct metric rows[] = {
        {.name = "mfu", .unit = "1", .order = 160, .schema = "fraction",
         .meaning = "hybrid: model FLOPs utilisation, the model's forward and backward FLOPs (no "
                    "recomputation) of the samples trained / (run time x GPUs x the dtype's "
                    "dense peak)",
         .text_for = METRIC_HYBRID, .label = "parallel", .text = "MFU %.1f%%", .scale = 100,
         .column = "mfu", .col = 15, .width = 7, .prec = 4, .get = get_mfu, .shown = has_hybrid},
        {.name = "tokens_per_s", .unit = "tokens/s", .order = 170, .schema = "nonneg",
         .meaning = "hybrid: tokens trained a second (samples x sequence length)",
         .text_for = METRIC_HYBRID, .text = ", %.0f tokens/s", .scale = 1,
         .column = "tokens/s", .col = 16, .width = 12, .prec = 0, .get = get_tokens_per_s,
         .shown = has_hybrid},
        {.name = "memory_per_gpu_bytes", .unit = "B", .order = 180, .schema = "nonneg",
         .meaning = "memory per GPU (the \"# memory/gpu\" line; hybrid: on the stage that needs "
                    "the most)",
         .text_for = METRIC_HYBRID, .text = ", %.0f B per GPU", .scale = 1,
         .get = get_memory_per_gpu_bytes, .shown = has_hybrid},
        {.name = "par_compute_s", .unit = "s", .order = 190, .schema = "nonneg",
         .meaning = "hybrid: a rank's kernels in a step (mean over ranks and steps)",
         .text_for = METRIC_HYBRID, .label = "step breakdown", .text = "compute %.3f ms",
         .scale = 1000, .get = get_par_compute_s, .shown = has_hybrid},
        {.name = "tp_exposed_s", .unit = "s", .order = 200, .schema = "nonneg",
         .meaning = "hybrid: a rank's tensor-parallel collectives and expert all-to-alls in a "
                    "step (on the critical path)",
         .text_for = METRIC_HYBRID, .text = " + tensor-parallel %.3f ms", .scale = 1000,
         .column = "tp_ms", .col = 18, .width = 10, .prec = 3, .col_scale = 1e3, .get = get_tp_exposed_s,
         .shown = has_hybrid},
        {.name = "bubble_s", .unit = "s", .order = 210, .schema = "nonneg",
         .meaning = "hybrid: the pipeline phase a rank spends neither computing nor in "
                    "collectives (the bubble and the waits for activations)",
         .text_for = METRIC_HYBRID, .text = " + bubble %.3f ms", .scale = 1000, .get = get_bubble_s,
         .shown = has_hybrid},
        {.name = "dp_exposed_s", .unit = "s", .order = 220, .schema = "nonneg",
         .meaning = "hybrid: a rank's data-parallel collectives in a step (gradients; ZeRO's "
                    "gathers)",
         .text_for = METRIC_HYBRID, .text = " + data-parallel %.3f ms", .scale = 1000,
         .column = "dp_ms", .col = 19, .width = 10, .prec = 3, .col_scale = 1e3, .get = get_dp_exposed_s,
         .shown = has_hybrid},
        {.name = "update_s", .unit = "s", .order = 230, .schema = "nonneg",
         .meaning = "hybrid: a rank's optimizer in a step",
         .text_for = METRIC_HYBRID, .text = " + update %.3f ms", .scale = 1000, .get = get_update_s,
         .shown = has_hybrid},
        {.name = "pipeline_s", .unit = "s", .order = 240, .schema = "nonneg",
         .meaning = "hybrid: a step's pipeline phase, from its start to its last backward",
         .text_for = METRIC_HYBRID, .label = "pipeline", .text = "%.3f ms a step", .scale = 1000,
         .get = get_pipeline_s, .shown = has_hybrid},
        {.name = "bubble_fraction", .unit = "1", .order = 250, .schema = "fraction",
         .meaning = "hybrid: bubble_s / pipeline_s ((p - 1) / (m + p - 1) for uniform stages and "
                    "free messages)",
         .text_for = METRIC_HYBRID, .text = ", bubble %.1f%% of it", .scale = 100,
         .column = "bubble", .col = 17, .width = 7, .prec = 4, .get = get_bubble_fraction,
         .shown = has_hybrid},
        {.name = "tp_bytes", .unit = "B", .order = 260, .schema = "nonneg",
         .meaning = "hybrid: bytes of the tensor-parallel collectives' messages",
         .text_for = METRIC_HYBRID, .label = "bytes by group", .line = METRIC_LINE_GROUP_CLASSES,
         .text = "tensor %.0f B", .scale = 1, .get = get_tp_bytes, .shown = has_hybrid},
        {.name = "pp_bytes", .unit = "B", .order = 270, .schema = "nonneg",
         .meaning = "hybrid: bytes of the pipeline's activations and their gradients",
         .text_for = METRIC_HYBRID, .text = ", pipeline %.0f B", .scale = 1, .get = get_pp_bytes,
         .shown = has_hybrid},
        {.name = "dp_bytes", .unit = "B", .order = 280, .schema = "nonneg",
         .meaning = "hybrid: bytes of the data-parallel collectives' messages",
         .text_for = METRIC_HYBRID, .text = ", data %.0f B", .scale = 1, .get = get_dp_bytes,
         .shown = has_hybrid},
        {.name = "ep_bytes", .unit = "B", .order = 290, .schema = "nonneg",
         .meaning = "hybrid: bytes of the expert all-to-alls' messages",
         .text_for = METRIC_HYBRID, .text = ", expert %.0f B", .scale = 1, .get = get_ep_bytes,
         .shown = has_hybrid},
};

/* group_bytes_on:GROUP.CLASS: the bytes a hybrid group's messages put on a link class. */
static bool group_bytes_on(const struct run_record *r, const char *arg, double *out)
{
    const struct hybrid_record *h = hybrid_metrics_of(r);
    *out = 0;
    const char *dot = strchr(arg, '.');
    for (int g = 0; dot && g < 4; g++) {
        size_t n = strlen(run_group_names[g]);
        if ((size_t)(dot - arg) != n || strncmp(arg, run_group_names[g], n) != 0) continue;
        for (size_t k = 0; h != NULL && k < h->group_nclasses[g]; k++)
            if (strcmp(h->group_class[g][k], dot + 1) == 0) *out = h->group_class_B[g][k];
        return dot[1] != '\0';
    }
    return false;
}

static const struct metric_family families[] = {
        {.prefix = "group_bytes_on:", .arg = "GROUP.CLASS", .unit = "B", .order = 20,
         .meaning = "hybrid: bytes group GROUP's messages (tensor, pipeline, data, expert) put on "
                    "link class CLASS (group_bytes_on:pipeline.ib-ndr; 0 if unused)",
         .pattern = "(tensor|pipeline|data|expert)\\..+", .get = group_bytes_on},
};

const struct metric_table hybrid_metrics = {rows, sizeof rows / sizeof rows[0], families,
                                            sizeof families / sizeof families[0]};

static void record_free(void *own)
{
    free(own);
}

struct hybrid_record *hybrid_metrics_attach(struct run_record *rec)
{
    assert(rec->own == NULL && rec->strategy_id == STRAT_HYBRID);
    struct hybrid_record *p = mem_new0(struct hybrid_record, 1);
    rec->own = p;
    rec->own_free = record_free;
    return p;
}

struct hybrid_record *hybrid_metrics_of(const struct run_record *rec)
{
    return rec->strategy_id == STRAT_HYBRID ? rec->own : NULL;
}
