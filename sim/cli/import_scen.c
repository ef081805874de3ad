/* import_scen.c - an imported model matched to the scenario format's presets, and the scenario
 * written from it (see import_scen.h). */
#include "import_scen.h"

#include "model.h"

#include <stdlib.h>
#include <string.h>

/* The first property of a SwiGLU model m that no SwiGLU preset has (the Llama and Mixtral
 * presets: untied head, no biases, RMSNorm, rotary positions); NULL when none. */
static const char *llama_gap(const struct import_model *m)
{
    if (!m->untied) return "its output head tied to the embedding";
    if (m->bias) return "biases in its linear layers";
    if (!m->rmsnorm) return "LayerNorm";
    if (m->positions > 0) return "learned absolute positions";
    if (m->head_dim > 0 && m->head_dim * m->heads != m->hidden) return "heads of their own width";
    return NULL;
}

/* The same for a GELU model and preset="gpt" (tied head, biases, LayerNorm, learned positions, an
 * MLP of 4h, as many key/value heads as heads, dense). */
static const char *gpt_gap(const struct import_model *m)
{
    if (m->experts > 0) return "a mixture of GELU experts (the only MoE preset is SwiGLU)";
    if (m->untied) return "an untied output head";
    if (!m->bias) return "no biases";
    if (m->rmsnorm) return "RMSNorm";
    if (m->positions == 0) return "no learned positions (rotary)";
    if (m->ffn != 4 * m->hidden) return "an MLP width other than 4 x hidden";
    if (m->kv_heads != m->heads) return "grouped-query attention";
    if (m->head_dim > 0 && m->head_dim * m->heads != m->hidden) return "heads of their own width";
    return NULL;
}

/* Whether transformer preset g is m's shape. */
static bool same_shape(const struct gpt_config *g, const struct import_model *m)
{
    long kv = g->kv_heads > 0 ? g->kv_heads : g->heads, ffn = g->ffn > 0 ? g->ffn : 4L * g->hidden;
    return g->llama == m->gated && g->layers == m->layers && g->hidden == m->hidden &&
           g->heads == m->heads && kv == m->kv_heads && ffn == m->ffn && g->vocab == m->vocab &&
           g->experts == m->experts && (m->experts == 0 || g->topk == m->topk);
}

/* The large transformer preset of m's shape, or NULL; the SwiGLU presets' names into names. The
 * names come from model_preset_names(), so a preset added to model.c is matched here too. */
static const char *find_preset(const struct import_model *m, char *names, size_t len)
{
    static char list[512];
    const char *found = NULL;
    snprintf(list, sizeof list, "%s", model_preset_names());
    names[0] = '\0';
    for (char *save = NULL, *w = strtok_r(list, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        struct gpt_config g;
        if (strcmp(w, "gpt") == 0 || strcmp(w, "bert-large") == 0) continue;
        if (!model_transformer_shape(w, &g)) continue;
        if (g.llama) {
            size_t n = strlen(names);
            snprintf(names + n, len - n, "%s%s", n ? ", " : "", w);
        }
        if (found == NULL && same_shape(&g, m)) found = w;
    }
    return found;
}

int import_scen_match(const struct import_model *m, const char **preset, char *why, size_t len)
{
    char names[256];
    const char *gap = m->gated ? llama_gap(m) : gpt_gap(m);
    if (gap != NULL) {
        snprintf(why, len,
                 "a %s model with %s: the scenario format has no attribute for that; expected a "
                 "shape of the presets (%s) or a GPT-style model (GELU MLP of 4 x hidden, tied "
                 "head, biases, LayerNorm, learned positions)",
                 m->gated ? "SwiGLU" : "GELU", gap, model_preset_names());
        return -1;
    }
    *preset = find_preset(m, names, sizeof names);
    if (*preset == NULL && !m->gated) *preset = "gpt";
    if (*preset != NULL) return 0;
    snprintf(why, len,
             "a SwiGLU model of %ld blocks of %ld (%ld heads, %ld key/value heads, MLP %ld, "
             "vocabulary %ld%s) is none of the SwiGLU presets (%s), and the scenario format has "
             "no attributes for another one's MLP width and key/value heads; expected one of "
             "their shapes",
             m->layers, m->hidden, m->heads, m->kv_heads, m->ffn, m->vocab,
             m->experts > 0 ? ", experts" : "", names);
    return -1;
}

int import_scen_cluster(const struct import_opts *o, long world, long gpn, struct import_job *j,
                        char *why, size_t len)
{
    if (gpn == 0) gpn = o->gpus_per_node > 0 ? o->gpus_per_node : 8;
    if (world < gpn) gpn = world;
    if (world % gpn != 0) {
        snprintf(why, len,
                 "%ld GPUs are not whole nodes of %ld; expected a multiple of %ld (or "
                 "--gpus-per-node)",
                 world, gpn, gpn);
        return -1;
    }
    j->nodes = world / gpn;
    j->gpus_per_node = gpn;
    j->gpu = o->gpu ? o->gpu : "h100";
    j->nic = o->nic ? o->nic : "ib-ndr";
    j->nics = o->nics > 0 ? o->nics : gpn < 64 ? gpn : 64;
    return 0;
}

/* The preset's shape with m's sequence length (and, for "gpt", m's whole shape). */
static struct gpt_config shape_of(const char *preset, const struct import_model *m)
{
    struct gpt_config g;
    if (!model_transformer_shape(preset, &g)) g = model_gpt_defaults();
    if (strcmp(preset, "gpt") == 0)
        g = (struct gpt_config){.layers = (int)m->layers,
                                .hidden = (int)m->hidden,
                                .heads = (int)m->heads,
                                .vocab = (int)m->vocab};
    g.seq = (int)m->seq;
    return g;
}

double import_scen_params(const char *preset, const struct import_model *m)
{
    struct gpt_config g = shape_of(preset, m);
    struct model mod;
    if (model_preset(preset, &g, DTYPE_BF16, &mod) != 0) return -1;
    double p = model_params(&mod);
    model_release(&mod);
    return p;
}

/* Comment text from column *col, words wrapped before column 100 and continued at column 5; a
 * run of dashes becomes one, as "--" may not appear inside an XML comment. */
static void put_comment_text(FILE *out, const char *s, int *col)
{
    while (*s) {
        size_t len = strcspn(s, " \n");
        if (*col > 5 && *col + 1 + (int)len > 95) {
            fputs("\n     ", out);
            *col = 5;
        }
        if (*col > 5) *col += fprintf(out, " ");
        for (size_t i = 0; i < len; i++)
            if (!(s[i] == '-' && i + 1 < len && s[i + 1] == '-')) *col += fprintf(out, "%c", s[i]);
        s += len;
        s += strspn(s, " \n");
    }
}

static void write_model(FILE *out, const char *preset, const struct import_model *m,
                        const struct import_job *j)
{
    fprintf(out, "  <model preset=\"%s\"", preset);
    if (strcmp(preset, "gpt") == 0)
        fprintf(out, " layers=\"%ld\" hidden=\"%ld\" heads=\"%ld\" vocab=\"%ld\"", m->layers,
                m->hidden, m->heads, m->vocab);
    fprintf(out, " seq=\"%ld\"%s/>\n", m->seq,
            j->materialised ? " attention=\"materialised\"" : "");
}

static void write_parallel(FILE *out, const struct import_job *j)
{
    static const char *const rc[] = {"none", "selective", "full"};
    fprintf(out, "    <parallel tp=\"%ld\" pp=\"%ld\" dp=\"%ld\"", j->tp, j->pp, j->dp);
    if (j->cp > 1) fprintf(out, " cp=\"%ld\"", j->cp);
    if (j->ep > 1) fprintf(out, " ep=\"%ld\"", j->ep);
    fprintf(out, " microbatches=\"%ld\"", j->microbatches);
    if (j->vstages > 1)
        fprintf(out, " schedule=\"interleaved\" virtual-stages=\"%ld\"", j->vstages);
    if (j->first_layers > 0) fprintf(out, " first-stage-layers=\"%ld\"", j->first_layers);
    if (j->last_layers > 0) fprintf(out, " last-stage-layers=\"%ld\"", j->last_layers);
    fprintf(out, "\n              zero=\"%d\" recompute=\"%s\"", j->zero1 ? 1 : 0,
            rc[j->recompute]);
    if (j->sp) fprintf(out, " sequence-parallel=\"yes\"");
    if (j->tp_overlap) fprintf(out, " tp-comm-overlap=\"yes\"");
    if (j->overlap_grad) fprintf(out, " overlap-grad-reduce=\"yes\"");
    if (j->overlap_param) fprintf(out, " overlap-param-gather=\"yes\"");
    fprintf(out, "/>\n");
}

void import_scen_write(FILE *out, const char *source, const char *preset,
                       const struct import_model *m, const struct import_job *j, const char *notes)
{
    char head[512];
    int col = 5;
    snprintf(head, sizeof head,
             "Written by `dmlsim import %s`: %s, %.0f parameters (%ld blocks of %ld, %ld heads, "
             "%ld key/value heads, MLP %ld, vocabulary %ld, %ld tokens).",
             source, preset, import_scen_params(preset, m), m->layers, m->hidden, m->heads,
             m->kv_heads, m->ffn, m->vocab, m->seq);
    fprintf(out, "<?xml version=\"1.0\"?>\n<!-- ");
    put_comment_text(out, head, &col);
    if (notes) put_comment_text(out, notes, &col);
    fprintf(out, " -->\n<scenario name=\"import-%s\" seed=\"1\">\n", preset);
    fprintf(out, "  <cluster nodes=\"%ld\" gpus-per-node=\"%ld\" gpu=\"%s\"", j->nodes,
            j->gpus_per_node, j->gpu);
    if (j->nodes > 1) fprintf(out, " nic=\"%s\" nics-per-node=\"%ld\"", j->nic, j->nics);
    fprintf(out, "/>\n");
    write_model(out, preset, m, j);
    fprintf(out,
            "  <training strategy=\"hybrid\" batch-per-gpu=\"%ld\" steps=\"%ld\" dtype=\"%s\" "
            "optimizer=\"%s\"\n            level=\"flow\">\n",
            j->micro, j->steps, j->dtype, j->optimizer);
    write_parallel(out, j);
    fprintf(out, "  </training>\n</scenario>\n");
}
