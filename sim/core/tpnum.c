/* tpnum.c - the numerics MLP split by tensor and pipeline parallelism (see tpnum.h). */
#include "tpnum.h"

#include "mem.h"

#include <cblas.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_column(enum tpnum_split s)
{
    return s != TPNUM_ROW;
}

/* Layer l's split width (its outputs, column; its inputs, row) and rank t's share of it. */
static void shard_range(const struct tpnum *tn, int l, int t, int *lo, int *hi)
{
    int w = tn->net->sizes[is_column(tn->split[l]) ? l + 1 : l];
    *lo = (int)((long long)w * t / tn->tp);
    *hi = (int)((long long)w * (t + 1) / tn->tp);
}

static void shard_alloc(struct tpnum *tn, int l, int t)
{
    struct tpnum_shard *sh = &tn->shard[l][t];
    int k = tn->net->sizes[l], m = tn->net->sizes[l + 1];
    size_t mb = (size_t)tn->mb;
    shard_range(tn, l, t, &sh->lo, &sh->hi);
    int w = sh->hi - sh->lo;
    bool col = is_column(tn->split[l]);
    sh->rows = col ? w : m;
    sh->cols = col ? k : w;
    size_t nw = (size_t)sh->rows * (size_t)sh->cols;
    sh->w = mem_new(float, nw);
    sh->gw = mem_new0(float, nw);
    sh->b = mem_new(float, (size_t)sh->rows); /* column: its outputs'; row: every output's */
    sh->gb = mem_new0(float, (size_t)sh->rows);
    sh->out = mem_new(float, mb *(size_t)(col ? w : m));
    sh->dout = mem_new(float, mb *(size_t)w);
    sh->dx = mem_new(float, mb *(size_t)k);
}

int tpnum_init(struct tpnum *tn, const struct nn *net, int tp, int pp, int mb, char *why,
               size_t why_n)
{
    int L = net->nlayers;
    memset(tn, 0, sizeof *tn);
    if (pp < 1 || pp > L) {
        snprintf(why, why_n, "%d pipeline stage(s) for a network of %d weight layer(s)", pp, L);
        return -1;
    }
    for (int l = 0; l < L; l++)
        if (tp < 1 || tp > net->sizes[l + 1]) {
            snprintf(why, why_n, "%d tensor rank(s) for a layer of %d unit(s)", tp,
                     net->sizes[l + 1]);
            return -1;
        }
    tn->net = net;
    tn->tp = tp;
    tn->pp = pp;
    tn->mb = mb;
    for (int s = 0; s <= pp; s++)
        tn->first[s] = L * s / pp;
    for (int s = 0; s < pp; s++) /* pairs from the stage's first layer, a lone one last */
        for (int l = tn->first[s]; l < tn->first[s + 1]; l += 2) {
            bool pair = l + 1 < tn->first[s + 1];
            tn->split[l] = pair ? TPNUM_COLUMN : TPNUM_COLUMN_GATHER;
            if (pair) tn->split[l + 1] = TPNUM_ROW;
        }
    for (int l = 0; l < L; l++) {
        tn->shard[l] = mem_new0(struct tpnum_shard, (size_t)tp);
        for (int t = 0; t < tp; t++)
            shard_alloc(tn, l, t);
    }
    for (int l = 0; l <= L; l++) {
        tn->act[l] = mem_new(float, (size_t)mb *(size_t)net->sizes[l]);
        tn->delta[l] = mem_new(float, (size_t)mb *(size_t)net->sizes[l]);
    }
    return 0;
}

void tpnum_release(struct tpnum *tn)
{
    for (int l = 0; tn->net && l < tn->net->nlayers; l++) {
        for (int t = 0; t < tn->tp; t++) {
            struct tpnum_shard *sh = &tn->shard[l][t];
            float *bufs[] = {sh->w, sh->b, sh->gw, sh->gb, sh->out, sh->dout, sh->dx};
            for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
                free(bufs[i]);
        }
        free(tn->shard[l]);
    }
    for (int l = 0; l <= NN_MAX_LAYERS; l++) {
        free(tn->act[l]);
        free(tn->delta[l]);
    }
    memset(tn, 0, sizeof *tn);
}

void tpnum_load(struct tpnum *tn, const float *params)
{
    const struct nn *n = tn->net;
    for (int l = 0; l < n->nlayers; l++) {
        int k = n->sizes[l];
        for (int t = 0; t < tn->tp; t++) {
            struct tpnum_shard *sh = &tn->shard[l][t];
            if (is_column(tn->split[l])) { /* rows lo..hi of W, contiguous */
                memcpy(sh->w, params + n->woff[l] + (size_t)sh->lo * k,
                       (size_t)sh->rows * (size_t)k * sizeof(float));
                memcpy(sh->b, params + n->boff[l] + sh->lo, (size_t)sh->rows * sizeof(float));
                continue;
            }
            for (int i = 0; i < sh->rows; i++) /* columns lo..hi of every row */
                memcpy(sh->w + (size_t)i * sh->cols, params + n->woff[l] + (size_t)i * k + sh->lo,
                       (size_t)sh->cols * sizeof(float));
            memcpy(sh->b, params + n->boff[l], (size_t)sh->rows * sizeof(float));
        }
    }
}

/* n rows of m values of layer l's output: + bias, then ReLU (a hidden layer) or softmax (the
 * last, shifted by the row's largest logit), as nn.c computes them. */
static void activate(const struct tpnum *tn, int l, float *z, const float *bias, int n, int m)
{
    bool hidden = l + 1 < tn->net->nlayers;
    for (int i = 0; i < n; i++) {
        float *row = z + (size_t)i * m;
        for (int j = 0; j < m; j++) {
            float v = row[j] + (bias ? bias[j] : 0);
            row[j] = hidden && v < 0 ? 0 : v;
        }
        if (!hidden) nn_softmax_row(row, m);
    }
}

/* Layer l forward for n examples, every tensor rank from its own shard. */
static void forward_layer(struct tpnum *tn, int l, int n)
{
    int k = tn->net->sizes[l], m = tn->net->sizes[l + 1];
    enum tpnum_split sp = tn->split[l];
    for (int t = 0; t < tn->tp; t++) {
        struct tpnum_shard *sh = &tn->shard[l][t];
        if (sp == TPNUM_ROW) { /* its partial sums from the column shard's outputs before it */
            const struct tpnum_shard *c = &tn->shard[l - 1][t];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, m, sh->cols, 1.0f, c->out,
                        sh->cols, sh->w, sh->cols, 0.0f, sh->out, m);
            continue;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, sh->rows, k, 1.0f, tn->act[l], k,
                    sh->w, k, 0.0f, sh->out, sh->rows);
        if (sp == TPNUM_COLUMN) activate(tn, l, sh->out, sh->b, n, sh->rows); /* hidden: ReLU */
    }
    float *y = tn->act[l + 1];
    if (sp == TPNUM_COLUMN) return; /* the outputs stay split */
    if (sp == TPNUM_ROW) {          /* the all-reduce: the sum of the shards' partial sums */
        memset(y, 0, (size_t)n * m * sizeof *y);
        for (int t = 0; t < tn->tp; t++)
            for (size_t i = 0; i < (size_t)n * m; i++)
                y[i] += tn->shard[l][t].out[i];
        activate(tn, l, y, tn->shard[l][0].b, n, m);
        return;
    }
    for (int t = 0; t < tn->tp; t++) { /* the all-gather: each shard's columns, biased */
        const struct tpnum_shard *sh = &tn->shard[l][t];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < sh->rows; j++)
                y[(size_t)i * m + sh->lo + j] = sh->out[(size_t)i * sh->rows + j] + sh->b[j];
    }
    activate(tn, l, y, NULL, n, m);
}

/* A column shard's weight and bias gradients from its output error and the layer's input, and
 * (l > 0) its partial input error. */
static void column_backward(struct tpnum *tn, int l, struct tpnum_shard *sh, int n)
{
    int k = tn->net->sizes[l];
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, sh->rows, k, n, 1.0f, sh->dout, sh->rows,
                tn->act[l], k, 1.0f, sh->gw, k);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < sh->rows; j++)
            sh->gb[j] += sh->dout[(size_t)i * sh->rows + j];
    if (l > 0)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, k, sh->rows, 1.0f, sh->dout,
                    sh->rows, sh->w, k, 0.0f, sh->dx, k);
}

/* A row shard's gradients from the replicated output error, and the error of the column shard
 * before it (the ReLU's derivative applied there: its outputs are the ReLU's). */
static void row_backward(struct tpnum *tn, int l, int t, int n)
{
    int m = tn->net->sizes[l + 1];
    const float *d = tn->delta[l + 1];
    struct tpnum_shard *sh = &tn->shard[l][t], *c = &tn->shard[l - 1][t];
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, sh->cols, n, 1.0f, d, m, c->out,
                sh->cols, 1.0f, sh->gw, sh->cols);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            sh->gb[j] += d[(size_t)i * m + j];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, sh->cols, m, 1.0f, d, m, sh->w,
                sh->cols, 0.0f, c->dout, sh->cols);
    for (size_t i = 0; i < (size_t)n * sh->cols; i++)
        if (c->out[i] <= 0) c->dout[i] = 0;
}

/* Layer l backward for n examples; a column layer's input errors are all-reduced into
 * delta[l], times the ReLU's derivative of the layer before. */
static void backward_layer(struct tpnum *tn, int l, int n)
{
    int k = tn->net->sizes[l], m = tn->net->sizes[l + 1];
    for (int t = 0; t < tn->tp; t++) {
        struct tpnum_shard *sh = &tn->shard[l][t];
        if (tn->split[l] == TPNUM_ROW) {
            row_backward(tn, l, t, n);
            continue;
        }
        if (tn->split[l] == TPNUM_COLUMN_GATHER) /* its columns of the replicated error */
            for (int i = 0; i < n; i++)
                memcpy(sh->dout + (size_t)i * sh->rows, tn->delta[l + 1] + (size_t)i * m + sh->lo,
                       (size_t)sh->rows * sizeof(float));
        column_backward(tn, l, sh, n);
    }
    if (tn->split[l] == TPNUM_ROW || l == 0) return;
    float *d = tn->delta[l];
    memset(d, 0, (size_t)n * k * sizeof *d);
    for (int t = 0; t < tn->tp; t++) /* the backward's all-reduce */
        for (size_t i = 0; i < (size_t)n * k; i++)
            d[i] += tn->shard[l][t].dx[i];
    for (size_t i = 0; i < (size_t)n * k; i++)
        if (tn->act[l][i] <= 0) d[i] = 0;
}

/* One microbatch of n examples through the stages and back; its summed cross-entropy. */
static double microbatch(struct tpnum *tn, const float *x, const unsigned char *y, int n, int b)
{
    const struct nn *net = tn->net;
    int L = net->nlayers, c = net->sizes[L];
    memcpy(tn->act[0], x, (size_t)n * net->sizes[0] * sizeof(float));
    for (int s = 0; s < tn->pp; s++) /* stage s's output is stage s + 1's input */
        for (int l = tn->first[s]; l < tn->first[s + 1]; l++)
            forward_layer(tn, l, n);
    double loss = 0;
    for (int i = 0; i < n; i++) {
        const float *p = tn->act[L] + (size_t)i * c;
        loss -= log(fmax(p[y[i]], 1e-30));
        for (int j = 0; j < c; j++)
            tn->delta[L][(size_t)i * c + j] = (p[j] - (j == y[i])) / (float)b;
    }
    for (int s = tn->pp; s-- > 0;)
        for (int l = tn->first[s + 1]; l-- > tn->first[s];)
            backward_layer(tn, l, n);
    return loss;
}

/* The shards' gradients into nn.h's layout (a row layer's replicated bias: rank 0's copy). */
static void reassemble(const struct tpnum *tn, float *grad)
{
    const struct nn *n = tn->net;
    for (int l = 0; l < n->nlayers; l++) {
        int k = n->sizes[l];
        for (int t = 0; t < tn->tp; t++) {
            const struct tpnum_shard *sh = &tn->shard[l][t];
            if (is_column(tn->split[l])) {
                memcpy(grad + n->woff[l] + (size_t)sh->lo * k, sh->gw,
                       (size_t)sh->rows * (size_t)k * sizeof(float));
                memcpy(grad + n->boff[l] + sh->lo, sh->gb, (size_t)sh->rows * sizeof(float));
                continue;
            }
            for (int i = 0; i < sh->rows; i++)
                memcpy(grad + n->woff[l] + (size_t)i * k + sh->lo, sh->gw + (size_t)i * sh->cols,
                       (size_t)sh->cols * sizeof(float));
            if (t == 0) memcpy(grad + n->boff[l], sh->gb, (size_t)sh->rows * sizeof(float));
        }
    }
}

double tpnum_loss_grad(struct tpnum *tn, const float *x, const unsigned char *y, int b, int m,
                       float *grad)
{
    const struct nn *net = tn->net;
    for (int l = 0; l < net->nlayers; l++)
        for (int t = 0; t < tn->tp; t++) {
            struct tpnum_shard *sh = &tn->shard[l][t];
            memset(sh->gw, 0, (size_t)sh->rows * sh->cols * sizeof(float));
            memset(sh->gb, 0, (size_t)sh->rows * sizeof(float)); /* a row layer's: all m */
        }
    double loss = 0;
    for (int q = 0; q < m; q++) {
        int lo = (int)((long long)b * q / m), hi = (int)((long long)b * (q + 1) / m);
        if (hi == lo) continue;
        loss += microbatch(tn, x + (size_t)lo * net->sizes[0], y + lo, hi - lo, b);
    }
    reassemble(tn, grad);
    return b > 0 ? loss / b : 0;
}
