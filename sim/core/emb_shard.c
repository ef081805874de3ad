/* emb_shard.c - embedding tables sharded over data-parallel GPUs (see emb_shard.h). */
#include "emb_shard.h"

#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ID_B 8.0 /* an ID: int64, as TorchRec's KeyedJaggedTensor values */
#define ROW_STATE \
    4.0 /* row-wise Adagrad: one FP32 sum of squares a row (FBGEMM's \
           EXACT_ROWWISE_ADAGRAD, TorchRec DLRM's and MLPerf's optimizer) */

static double row_state_B(enum optimizer opt)
{
    return opt == OPT_SGD ? 0 : ROW_STATE;
}

double emb_table_bytes(const struct emb_table *t, enum gpu_dtype dtype, enum optimizer opt)
{
    return t->rows * (t->dim * model_dtype_bytes(dtype) + row_state_B(opt));
}

void emb_dense_view(const struct model *m, struct model *dm)
{
    model_init(dm, m->name);
    for (size_t l = 0; l < m->nlayers; l++) {
        const struct layer *y = &m->layers[l];
        model_add(dm, y->name, 0, 0, 0, 0);
        if (!y->emb) dm->layers[dm->nlayers - 1] = *y;
    }
}

/* Table indices by bytes, largest first (ties: the lower index first). */
static size_t *by_size(const struct model *m, const double *bytes)
{
    size_t *ord = mem_new0(size_t, m->ntables + 1);
    for (size_t i = 0; i < m->ntables; i++) {
        size_t k = i;
        for (; k > 0 && bytes[ord[k - 1]] < bytes[i]; k--)
            ord[k] = ord[k - 1];
        ord[k] = i;
    }
    return ord;
}

/* Table t (bytes B) on GPU g, or on all of them (g < 0). */
static void hold(struct emb_plan *p, const struct emb_table *t, double B, int g)
{
    for (int k = 0; k < p->P; k++)
        if (g < 0 || k == g) {
            double share = g < 0 ? 1.0 / p->P : 1;
            p->gpu_B[k] += B * share;
            p->gpu_pool[k] += t->pooling * share;
            p->gpu_dim[k] += t->dim;
        }
}

void emb_plan_build(const struct model *m, int P, enum gpu_dtype dtype, enum optimizer opt,
                    double batch, double mem_B, struct emb_plan *p)
{
    struct model dm;
    emb_dense_view(m, &dm);
    memset(p, 0, sizeof *p);
    p->P = P;
    p->ntables = m->ntables;
    p->owner = mem_new0(int, m->ntables + 1);
    p->gpu_B = mem_new0(double, P);
    p->gpu_pool = mem_new0(double, P);
    p->gpu_dim = mem_new0(double, P);
    p->dense_B = model_memory(&dm, dtype, opt, batch).total_B;
    p->room_B = mem_B - p->dense_B;
    model_release(&dm);
    double *bytes = mem_new0(double, m->ntables + 1);
    for (size_t i = 0; i < m->ntables; i++)
        bytes[i] = emb_table_bytes(&m->tables[i], dtype, opt);
    size_t *ord = by_size(m, bytes);
    for (size_t i = 0; i < m->ntables; i++) /* first the tables no GPU has room for: by rows */
        if (bytes[i] > p->room_B && P > 1) {
            p->owner[i] = -1;
            hold(p, &m->tables[i], bytes[i], -1);
        }
    for (size_t k = 0; k < m->ntables; k++) { /* then the others whole, largest first */
        size_t i = ord[k];
        if (bytes[i] > p->room_B && P > 1) continue;
        int g = 0;
        for (int c = 1; c < P; c++)
            if (p->gpu_B[c] < p->gpu_B[g]) g = c;
        p->owner[i] = g;
        hold(p, &m->tables[i], bytes[i], g);
    }
    free(ord);
    free(bytes);
}

void emb_plan_release(struct emb_plan *p)
{
    free(p->owner);
    free(p->gpu_B);
    free(p->gpu_pool);
    free(p->gpu_dim);
    memset(p, 0, sizeof *p);
}

/* Elements of every table's pooled vector: a sample's input to the dense part. */
static double total_dim(const struct model *m)
{
    double d = 0;
    for (size_t i = 0; i < m->ntables; i++)
        d += m->tables[i].dim;
    return d;
}

struct memory_need emb_plan_memory(const struct model *m, const struct emb_plan *p,
                                   enum gpu_dtype dtype, enum optimizer opt, double batch, int g)
{
    struct model dm;
    emb_dense_view(m, &dm);
    struct memory_need n = model_memory(&dm, dtype, opt, batch);
    model_release(&dm);
    double state = 0, ea = model_act_bytes(dtype);
    for (size_t i = 0; i < m->ntables; i++)
        if (p->owner[i] == g || p->owner[i] < 0)
            state += m->tables[i].rows * row_state_B(opt) / (p->owner[i] < 0 ? p->P : 1);
    n.weights_B += p->gpu_B[g] - state;
    n.optimizer_B += state;
    /* the owner's bags for the global batch and the IDs it received (forward), then as many
     * gradients (backward); the GPU's own batch's bags, the dense part's input */
    n.act_B +=
            p->P * batch * (p->gpu_dim[g] * ea + p->gpu_pool[g] * ID_B) + batch * total_dim(m) * ea;
    n.total_B = n.weights_B + n.grads_B + n.optimizer_B + n.act_B;
    n.tables_B = p->gpu_B[g];
    n.tables_on_gpu = true;
    return n;
}

int emb_plan_worst(const struct model *m, const struct emb_plan *p, enum gpu_dtype dtype,
                   enum optimizer opt, double batch)
{
    int w = 0;
    double most = -1;
    for (int g = 0; g < p->P; g++) {
        double b = emb_plan_memory(m, p, dtype, opt, batch, g).total_B;
        if (b > most) {
            most = b;
            w = g;
        }
    }
    return w;
}

double emb_plan_ids_B(const struct emb_plan *p, int i, int j, double batch)
{
    return i == j ? 0 : batch * p->gpu_pool[j] * ID_B;
}

double emb_plan_pooled_B(const struct emb_plan *p, int i, int j, double batch, double elem_B)
{
    return i == j ? 0 : batch * p->gpu_dim[i] * elem_B;
}

void emb_plan_gpu_model(const struct model *m, const struct emb_plan *p, int g,
                        enum gpu_dtype dtype, enum optimizer opt, struct model *out)
{
    model_init(out, "shard");
    for (size_t i = 0; i < m->ntables; i++) {
        if (p->owner[i] != g && p->owner[i] >= 0) continue;
        struct emb_table t = m->tables[i];
        double share = p->owner[i] < 0 ? 1.0 / p->P : 1;
        t.rows *= share;
        t.pooling *= share;
        model_add_table(out, &t, model_act_bytes(dtype));
        /* FBGEMM's fused backward updates each looked-up row's optimizer state in place */
        if (row_state_B(opt) > 0) model_add_memk(out, KC_EMBED, t.pooling, ROW_STATE, 0, 2);
    }
}

/* "t0, t3 (rows)" of GPU g's tables into buf. */
static void gpu_tables(const struct model *m, const struct emb_plan *p, int g, char *buf,
                       size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m->ntables && n + 1 < len; i++) {
        if (p->owner[i] != g && p->owner[i] >= 0) continue;
        int k = snprintf(buf + n, len - n, "%s%s%s", n ? ", " : "", m->tables[i].name,
                         p->owner[i] < 0 ? " (rows)" : "");
        n += k > 0 ? (size_t)k : 0;
    }
    if (n == 0) snprintf(buf, len, "none");
}

int emb_plan_check(const struct model *m, const struct emb_plan *p, enum gpu_dtype dtype,
                   enum optimizer opt, double batch, double mem_B, const char *gpu_name, char *why,
                   size_t len)
{
    int g = emb_plan_worst(m, p, dtype, opt, batch);
    struct memory_need n = emb_plan_memory(m, p, dtype, opt, batch, g);
    if (n.total_B <= mem_B) return 0;
    char tables[256];
    gpu_tables(m, p, g, tables, sizeof tables);
    snprintf(why, len,
             "%s with embeddings sharded over %d GPUs: GPU %d needs %.2f GB (dense replica %.2f "
             "GB + tables %s %.2f GB + all-to-all buffers %.2f GB); a %s has %.2f GB",
             m->name, p->P, g, n.total_B / 1e9, p->dense_B / 1e9, tables, n.tables_B / 1e9,
             (n.total_B - p->dense_B - n.tables_B) / 1e9, gpu_name, mem_B / 1e9);
    return -1;
}

#define PRINT_GPUS 16 /* GPUs listed one a line; the others summed up */

void emb_plan_print(FILE *out, const struct model *m, const struct emb_plan *p,
                    enum gpu_dtype dtype, enum optimizer opt, double batch)
{
    int g = emb_plan_worst(m, p, dtype, opt, batch), rw = 0;
    struct memory_need n = emb_plan_memory(m, p, dtype, opt, batch, g);
    double all = 0;
    for (size_t i = 0; i < m->ntables; i++) {
        rw += p->owner[i] < 0;
        all += emb_table_bytes(&m->tables[i], dtype, opt);
    }
    fprintf(out,
            "# memory/gpu    %.2f GB = weights %.2f + gradients %.2f + optimizer %.2f + "
            "activations %.2f (batch %.0f; GPU %d, the most)\n",
            n.total_B / 1e9, n.weights_B / 1e9, n.grads_B / 1e9, n.optimizer_B / 1e9, n.act_B / 1e9,
            batch, g);
    fprintf(out,
            "# tables        %zu embedding table(s), %.2f GB of weights and row-wise optimizer "
            "state, sharded over %d GPUs: %zu whole (largest first to the least loaded), %d "
            "split by rows over all\n",
            m->ntables, all / 1e9, p->P, m->ntables - (size_t)rw, rw);
    char tables[256];
    for (int k = 0; k < p->P && k < PRINT_GPUS; k++) {
        gpu_tables(m, p, k, tables, sizeof tables);
        fprintf(out, "# tables gpu %-3d %.3f GB: %s\n", k, p->gpu_B[k] / 1e9, tables);
    }
    if (p->P > PRINT_GPUS) fprintf(out, "# tables gpu ... %d more GPU(s)\n", p->P - PRINT_GPUS);
}
