/* model_recsys.c - recommendation-model presets (see model_recsys.h). */
#include "model_recsys.h"

#include <stdio.h>
#include <string.h>

/* A dense layer n_in -> n_out (n_in x n_out weights and n_out biases; 2 n_in n_out FLOPs a
 * sample), then a ReLU unless `last`; `first`: no input gradient (its input is data). */
static void dense(struct model *m, const char *name, double elem_B, double in, double out,
                  bool relu, bool first)
{
    model_add(m, name, in * out + out, 2 * in * out, -1, out * elem_B * (relu ? 2 : 1));
    model_set_gemm(m, out, 1, in);
    model_add_gemm(m, out, 1, in, first);
    if (relu) model_add_memk(m, KC_ACT, out, elem_B, 2, 3); /* 1 read, 1 write; bwd 2 + 1 */
}

static void mlp(struct model *m, const char *prefix, double elem_B, double in, const int *sizes,
                int n, bool relu_last, bool first)
{
    char name[48];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s.%d", prefix, i);
        dense(m, name, elem_B, in, sizes[i], i + 1 < n || relu_last, first && i == 0);
        in = sizes[i];
    }
}

static void tables(struct model *m, double elem_B, const char *prefix, const double *rows,
                   const int *pooling, int n, double dim, enum emb_dist dist, double zipf_s)
{
    for (int i = 0; i < n; i++) {
        struct emb_table t = {
                .rows = rows[i], .dim = dim, .pooling = pooling[i], .dist = dist, .zipf_s = zipf_s};
        snprintf(t.name, sizeof t.name, "%s%d", prefix, i);
        model_add_table(m, &t, elem_B);
    }
}

/* DCN-v2's low-rank cross layer (Wang et al. 2021, "DCN V2", eq. 2 with W = U V^T, section 3.3):
 * x_{l+1} = x_0 * (U (V^T x_l) + b) + x_l over d features at rank r: 2 d r + d parameters, two
 * GEMMs, an elementwise product and a residual add. */
static void cross(struct model *m, const char *name, double elem_B, double d, double r)
{
    model_add(m, name, 2 * d * r + d, 4 * d * r + 2 * d, -1, (2 * d + r) * elem_B);
    model_set_gemm(m, r, 1, d);
    model_add_gemm(m, r, 1, d, false);
    model_add_gemm(m, d, 1, r, false);
    model_add_memk(m, KC_ELTWISE, d, elem_B, 3, 5); /* x_0 * (.): 2 reads, 1 write; bwd 5 */
    model_add_memk(m, KC_ELTWISE, d, elem_B, 3, 3); /* + x_l */
}

/* MLPerf Training's DLRM-DCNv2 reference (mlcommons/training, recommendation_v2/torchrec_dlrm,
 * README and dlrm_main.py's arguments; TorchRec's DLRM_DCN): 13 dense features through a bottom
 * MLP 512-256-128; 26 sparse features, tables of dimension 128 with Criteo 1TB's row counts capped
 * at 40,000,000 (num_embeddings_per_feature) and the multi-hot sizes of its synthetic multi-hot
 * dataset (multi_hot_sizes), sum-pooled; the 27 vectors concatenated (3,456 features) through 3
 * low-rank cross layers of rank 512; a top MLP 1024-1024-512-256-1. */
static void dlrm_dcnv2(struct model *m, double elem_B, enum emb_dist dist, double zipf_s)
{
    static const double rows[26] = {40000000, 39060,  17295,    7424,    20265,  3,        7122,
                                    1543,     63,     40000000, 3067956, 405282, 10,       2209,
                                    11938,    155,    4,        976,     14,     40000000, 40000000,
                                    40000000, 590152, 12973,    108,     36};
    static const int hot[26] = {3, 2, 1, 2, 6, 1, 1,  1,   1,  7,  3, 8, 1,
                                6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1};
    static const int bottom[3] = {512, 256, 128}, top[5] = {1024, 1024, 512, 256, 1};
    tables(m, elem_B, "t", rows, hot, 26, 128, dist, zipf_s);
    mlp(m, "bottom", elem_B, 13, bottom, 3, true, true);
    double d = 27 * 128;
    model_add(m, "interaction", 0, 0, 0, d * elem_B); /* the concatenation: a copy */
    model_add_memk(m, KC_ELTWISE, d, elem_B, 2, 2);
    for (int i = 0; i < 3; i++) {
        char name[48];
        snprintf(name, sizeof name, "cross.%d", i);
        cross(m, name, elem_B, d, 512);
    }
    mlp(m, "top", elem_B, d, top, 5, false, false);
}

/* A two-tower retrieval model as TorchRec's example (torchrec/examples/retrieval,
 * two_tower_train.py: tables of 1024 x 1024 rows, dimension 64, towers 128-64, one ID a sample
 * for each tower) for the seeds' user-restaurant recommender: a user table and a restaurant
 * table, each tower an MLP over its embedding; the score is their dot product. */
static void two_tower(struct model *m, double elem_B, enum emb_dist dist, double zipf_s)
{
    static const double rows[2] = {1048576, 1048576};
    static const int one[2] = {1, 1}, tower[2] = {128, 64};
    tables(m, elem_B, "t", rows, one, 2, 64, dist, zipf_s);
    snprintf(m->tables[0].name, sizeof m->tables[0].name, "user");
    snprintf(m->tables[1].name, sizeof m->tables[1].name, "restaurant");
    snprintf(m->layers[0].name, sizeof m->layers[0].name, "emb.user");
    snprintf(m->layers[1].name, sizeof m->layers[1].name, "emb.restaurant");
    mlp(m, "user_tower", elem_B, 64, tower, 2, false, false);
    mlp(m, "restaurant_tower", elem_B, 64, tower, 2, false, false);
    model_add(m, "score", 0, 2 * 64, -1, 64 * elem_B); /* the dot product */
    model_add_memk(m, KC_ELTWISE, 64, elem_B, 2, 3);
}

int model_preset_any(const char *name, const struct gpt_config *g, enum gpu_dtype dtype,
                     struct model *m)
{
    if (!model_recsys_is(name)) return model_preset(name, g, dtype, m);
    double elem_B = dtype == DTYPE_FP8 ? 2 : model_dtype_bytes(dtype); /* activations in BF16 */
    model_recsys_preset(name, elem_B, g ? (enum emb_dist)g->ids : EMB_UNIFORM, g ? g->zipf : 0, m);
    return 0;
}

bool model_recsys_is(const char *name)
{
    return strcmp(name, "dlrm-dcnv2") == 0 || strcmp(name, "two-tower") == 0;
}

bool model_recsys_preset(const char *name, double elem_B, enum emb_dist dist, double zipf_s,
                         struct model *m)
{
    if (!model_recsys_is(name)) return false;
    model_init(m, name);
    if (strcmp(name, "dlrm-dcnv2") == 0)
        dlrm_dcnv2(m, elem_B, dist, zipf_s);
    else
        two_tower(m, elem_B, dist, zipf_s);
    return true;
}
