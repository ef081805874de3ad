/* scenario_doc_presets.c - dmlsim-scenario(5)'s PRESETS: every catalog table's rows, listed. */
#include "attr_spec.h"
#include "campaign_causes.h"
#include "catalog.h"
#include "coll_op.h"
#include "model.h"
#include "model_recsys.h"
#include "scenario_doc.h"
#include "storage.h"

#include <stdio.h>
#include <string.h>

#define ROW 512

/* A heading and, in Markdown, the table's head. */
static void section(FILE *out, enum scenario_doc_format f, const char *title, const char *used)
{
    if (f == SCENARIO_DOC_ROFF) {
        fprintf(out, ".SS \"%s\"\n", title);
        scenario_doc_put(out, f, used);
        fputc('\n', out);
    } else {
        fprintf(out, "\n### %s\n\n", title);
        scenario_doc_put(out, f, used);
        fputs("\n\n| name | what it is |\n|---|---|\n", out);
    }
}

static void row(FILE *out, enum scenario_doc_format f, const char *name, const char *what)
{
    if (f == SCENARIO_DOC_ROFF) {
        fputs(".TP\n.B ", out);
        scenario_doc_put(out, f, name);
        fputc('\n', out);
        scenario_doc_put(out, f, what);
        fputc('\n', out);
    } else {
        fprintf(out, "| `%s` | ", name);
        scenario_doc_put(out, f, what);
        fputs(" |\n", out);
    }
}

/* Calls each(name) for every name of a "a, b, c" list. */
static void each_name(FILE *out, enum scenario_doc_format f, const char *list,
                      void (*each)(FILE *, enum scenario_doc_format, const char *))
{
    char name[64];
    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ", ");
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        if (n > 0) each(out, f, name);
        p += n;
        p += strspn(p, ", ");
    }
}

static void model_row(FILE *out, enum scenario_doc_format f, const char *name)
{
    struct model m;
    struct gpt_config g;
    char what[ROW];
    if (model_preset_any(name, NULL, DTYPE_FP32, &m) != 0) return;
    double p = model_params(&m);
    int used = snprintf(what, sizeof what, "%.4g%s parameters in %zu layers",
                        p >= 1e9 ? p / 1e9 : p / 1e6, p >= 1e9 ? "B" : "M", m.nlayers);
    if (model_transformer_shape(name, &g) && used > 0)
        snprintf(what + used, sizeof what - (size_t)used,
                 "; a transformer of %d blocks, hidden %d, %d heads, sequence %d, vocabulary %d%s",
                 g.layers, g.hidden, g.heads, g.seq, g.vocab,
                 g.experts ? ", a mixture of experts" : "");
    else if (model_recsys_is(name) && used > 0)
        snprintf(what + used, sizeof what - (size_t)used,
                 "; a recommendation model with %zu "
                 "embedding tables",
                 m.ntables);
    model_release(&m);
    row(out, f, name, what);
}

static void gpu_rows(FILE *out, enum scenario_doc_format f)
{
    size_t n;
    const struct gpu_model *g = catalog_gpus(&n);
    char what[ROW], half[64];
    for (size_t i = 0; i < n; i++) {
        enum gpu_dtype h = g[i].peak_flops[DTYPE_BF16] > 0 ? DTYPE_BF16 : DTYPE_FP16;
        snprintf(half, sizeof half, "%s %.0f", catalog_dtype_name(h), g[i].peak_flops[h] / 1e12);
        snprintf(what, sizeof what,
                 "%s: %.0f GB at %.0f GB/s, dense TFLOP/s fp32 %.1f, %s; compute capability "
                 "%d.%d; default pcie %s, intra %s",
                 g[i].long_name, g[i].mem_B / 1e9, g[i].mem_bw_Bps / 1e9,
                 g[i].peak_flops[DTYPE_FP32] / 1e12, half, g[i].sm / 10, g[i].sm % 10, g[i].pcie,
                 g[i].intra);
        row(out, f, g[i].name, what);
    }
}

static void link_rows(FILE *out, enum scenario_doc_format f)
{
    static const char *const kinds[] = {[LINK_PCIE] = "pcie",
                                        [LINK_NVLINK] = "nvlink",
                                        [LINK_IB] = "ib",
                                        [LINK_ROCE] = "roce",
                                        [LINK_TCP] = "tcp"};
    size_t n;
    const struct link_class *l = catalog_links(&n);
    char what[ROW];
    for (size_t i = 0; i < n; i++) {
        snprintf(what, sizeof what,
                 "%s class: %.2f GB/s line, %.2f GB/s effective a direction, %.2f us a hop",
                 kinds[l[i].kind], l[i].line_bw_Bps / 1e9, l[i].bw_Bps / 1e9, l[i].hop_lat_s * 1e6);
        row(out, f, l[i].name, what);
    }
}

static void transport_rows(FILE *out, enum scenario_doc_format f)
{
    size_t n;
    const struct transport *t = catalog_transports(&n);
    char what[ROW];
    for (size_t i = 0; i < n; i++) {
        snprintf(what, sizeof what, "%.3g us a message, %.3g ns a byte of CPU time on each end",
                 t[i].msg_s * 1e6, t[i].byte_s * 1e9);
        row(out, f, t[i].name, what);
    }
}

static void dataset_row(FILE *out, enum scenario_doc_format f, const char *name)
{
    const struct dataset *d = catalog_dataset(name);
    char what[ROW];
    if (d == NULL) return;
    snprintf(what, sizeof what,
             "%.0f samples of %.0f stored bytes (mean), %.0f decoded, %.3g ms to decode on a core",
             d->samples, d->sample_B, d->decoded_B, d->decode_s * 1e3);
    row(out, f, name, what);
}

static void algo_row(FILE *out, enum scenario_doc_format f, const char *name)
{
    enum coll_algo_id id;
    char what[ROW];
    if (!coll_algo_find(name, &id)) return;
    snprintf(what, sizeof what, "%s%s",
             coll_algo_has_flow(id) ? "message and flow levels" : "message level",
             (coll_algo_ops(id) & COLL_OP_BIT(COLL_ALLGATHER)) ? "" : "; all-reduce only");
    row(out, f, name, what);
}

static void mix_row(FILE *out, enum scenario_doc_format f, const char *name)
{
    size_t n;
    const struct camp_cause *c = campaign_causes(name, &n);
    char what[ROW];
    double rate = 0;
    for (size_t i = 0; i < n; i++)
        rate += c[i].per_gpu_hour;
    snprintf(what, sizeof what, "%zu causes, %.3g failures a GPU-hour in all%s%s", n, rate,
             n ? "; " : "", n ? c[0].source : "");
    row(out, f, name, what);
}

static void store_rows(FILE *out, enum scenario_doc_format f)
{
    size_t n;
    const struct store_preset *s = storage_presets(&n);
    char what[ROW];
    for (size_t i = 0; i < n; i++) {
        const struct store_params *p = &s[i].p;
        snprintf(what, sizeof what,
                 "%s: read %.3g GB/s, write %.3g GB/s (0: no limit), %.3g ms a request, "
                 "%.4g GET/s and %.4g PUT/s (0: no limit), %d connection(s)",
                 storage_kind_name(s[i].kind), p->read_Bps / 1e9, p->write_Bps / 1e9,
                 p->latency_s * 1e3, p->get_per_s, p->put_per_s, p->connections);
        row(out, f, s[i].name, what);
    }
}

void scenario_doc_write_presets(FILE *out, enum scenario_doc_format f, const char *mixes)
{
    fputs(f == SCENARIO_DOC_ROFF ? ".SH PRESETS\n" : "\n## Presets\n", out);
    section(out, f, "Model presets",
            "<model preset> and <numerics cost-model> (model.c, model_recsys.c).");
    each_name(out, f, model_preset_names(), model_row);
    section(out, f, "GPU models", "<cluster gpu>; dmlsim catalog gives each number's source.");
    gpu_rows(out, f);
    section(out, f, "Link classes",
            "<cluster intra>, <cluster pcie> and <cluster nic>; dmlsim catalog gives each number's "
            "source.");
    link_rows(out, f);
    section(out, f, "Parameter-server transports", "<ps transport> (catalog.c).");
    transport_rows(out, f);
    section(out, f, "Datasets", "<data preset> (catalog.c).");
    each_name(out, f, catalog_dataset_names(), dataset_row);
    section(out, f, "Storage presets",
            "<storage preset>; dmlsim catalog stores gives each number's source.");
    store_rows(out, f);
    section(out, f, "Collective algorithms", "<benchmark algo> and <training algo> (coll_op.c).");
    each_name(out, f, coll_algo_names(), algo_row);
    section(out, f, "Failure mixes", "<campaign failures> (campaign_causes.c).");
    each_name(out, f, mixes, mix_row);
}
