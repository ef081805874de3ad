/* nn.c - MLP numerics on CBLAS (see nn.h). */
#include "nn.h"

#include "mem.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int nn_shape(struct nn *n, int in, const int *hidden, int nh, int classes)
{
    if (nh < 0 || nh > NN_MAX_LAYERS - 1 || in < 1 || classes < 2) return -1;
    memset(n, 0, sizeof *n);
    n->nlayers = nh + 1;
    n->sizes[0] = in;
    for (int i = 0; i < nh; i++) {
        if (hidden[i] < 1) return -1;
        n->sizes[i + 1] = hidden[i];
    }
    n->sizes[nh + 1] = classes;
    for (int l = 0; l < n->nlayers; l++) {
        n->woff[l] = n->nparams;
        n->nparams += (size_t)n->sizes[l + 1] * (size_t)n->sizes[l];
        n->boff[l] = n->nparams;
        n->nparams += (size_t)n->sizes[l + 1];
    }
    return 0;
}

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a small generator whose stream is the same
 * on every platform. */
static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s)
{
    return ((splitmix64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0); /* (0, 1) */
}

void nn_init(const struct nn *n, uint64_t seed, float *params)
{
    uint64_t s = seed;
    memset(params, 0, n->nparams * sizeof *params);
    for (int l = 0; l < n->nlayers; l++) {
        double sd = sqrt(2.0 / n->sizes[l]);
        size_t count = (size_t)n->sizes[l + 1] * (size_t)n->sizes[l];
        for (size_t i = 0; i < count; i++) { /* Box-Muller */
            double u = uniform01(&s), v = uniform01(&s);
            params[n->woff[l] + i] = (float)(sd * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
        }
    }
}

void nn_work_init(struct nn_work *w, const struct nn *n, int batch)
{
#ifdef OPENBLAS_VERSION
    openblas_set_num_threads(1); /* one thread: the same bits on every run */
#endif
    memset(w, 0, sizeof *w);
    w->batch = batch;
    int widest = 0;
    for (int l = 0; l <= n->nlayers; l++) {
        w->act[l] = mem_new(float, (size_t)batch * (size_t)n->sizes[l]);
        widest = n->sizes[l] > widest ? n->sizes[l] : widest;
    }
    for (int i = 0; i < 2; i++)
        w->delta[i] = mem_new(float, (size_t)batch * (size_t)widest);
}

void nn_work_release(struct nn_work *w)
{
    for (int l = 0; l <= NN_MAX_LAYERS; l++)
        free(w->act[l]);
    free(w->delta[0]);
    free(w->delta[1]);
    memset(w, 0, sizeof *w);
}

/* act[l+1] = act[l] W_l^T + b_l, then ReLU on hidden layers; the output rows become softmax
 * probabilities. act[0] is x. */
static void forward(const struct nn *n, const float *p, const float *x, int b, struct nn_work *w)
{
    const float *in = x;
    for (int l = 0; l < n->nlayers; l++) {
        int k = n->sizes[l], m = n->sizes[l + 1];
        float *out = w->act[l + 1];
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, b, m, k, 1.0f, in, k, p + n->woff[l],
                    k, 0.0f, out, m);
        for (int i = 0; i < b; i++)
            for (int j = 0; j < m; j++) {
                float z = out[(size_t)i * m + j] + p[n->boff[l] + j];
                out[(size_t)i * m + j] = l + 1 < n->nlayers && z < 0 ? 0 : z;
            }
        in = out;
    }
    int c = n->sizes[n->nlayers];
    for (int i = 0; i < b; i++)
        nn_softmax_row(w->act[n->nlayers] + (size_t)i * c, c);
}

void nn_softmax_row(float *row, int c)
{
    float top = row[0];
    for (int j = 1; j < c; j++)
        top = row[j] > top ? row[j] : top;
    double sum = 0;
    for (int j = 0; j < c; j++)
        sum += row[j] = expf(row[j] - top);
    for (int j = 0; j < c; j++)
        row[j] = (float)(row[j] / sum);
}

/* Backpropagation from the output error (probabilities - one-hot) / b. */
static void backward(const struct nn *n, const float *p, const float *x, const unsigned char *y,
                     int b, float *grad, struct nn_work *w)
{
    int L = n->nlayers, c = n->sizes[L];
    float *d = w->delta[0], *next = w->delta[1];
    for (int i = 0; i < b; i++)
        for (int j = 0; j < c; j++)
            d[(size_t)i * c + j] = (w->act[L][(size_t)i * c + j] - (j == y[i])) / (float)b;
    for (int l = L - 1; l >= 0; l--) {
        int k = n->sizes[l], m = n->sizes[l + 1];
        const float *in = l == 0 ? x : w->act[l];
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, k, b, 1.0f, d, m, in, k, 0.0f,
                    grad + n->woff[l], k);
        for (int j = 0; j < m; j++) {
            float s = 0;
            for (int i = 0; i < b; i++)
                s += d[(size_t)i * m + j];
            grad[n->boff[l] + j] = s;
        }
        if (l == 0) break;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, k, m, 1.0f, d, m,
                    p + n->woff[l], k, 0.0f, next, k);
        for (size_t i = 0; i < (size_t)b * k; i++)
            if (w->act[l][i] <= 0) next[i] = 0; /* ReLU's derivative */
        float *t = d;
        d = next;
        next = t;
    }
}

static double mean_xent(const struct nn *n, const unsigned char *y, int b, const struct nn_work *w)
{
    int c = n->sizes[n->nlayers];
    double loss = 0;
    for (int i = 0; i < b; i++)
        loss -= log(fmax(w->act[n->nlayers][(size_t)i * c + y[i]], 1e-30));
    return loss / b;
}

double nn_loss_grad(const struct nn *n, const float *params, const float *x,
                    const unsigned char *y, int b, float *grad, struct nn_work *w)
{
    forward(n, params, x, b, w);
    if (grad) backward(n, params, x, y, b, grad, w);
    return mean_xent(n, y, b, w);
}

double nn_accuracy(const struct nn *n, const float *params, const float *x,
                   const unsigned char *y, int N, struct nn_work *w, double *loss)
{
    int c = n->sizes[n->nlayers], right = 0;
    double total = 0;
    for (int at = 0; at < N; at += w->batch) {
        int b = N - at < w->batch ? N - at : w->batch;
        forward(n, params, x + (size_t)at * n->sizes[0], b, w);
        total += mean_xent(n, y + at, b, w) * b;
        for (int i = 0; i < b; i++) {
            const float *row = w->act[n->nlayers] + (size_t)i * c;
            int best = 0;
            for (int j = 1; j < c; j++)
                best = row[j] > row[best] ? j : best;
            right += best == y[at + i];
        }
    }
    if (loss) *loss = N > 0 ? total / N : 0;
    return N > 0 ? (double)right / N : 0;
}

void nn_opt_init(struct nn_opt *o, enum nn_optimizer kind, double lr, size_t nparams)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->lr = lr;
    o->momentum = 0.9;
    o->beta1 = 0.9;
    o->beta2 = 0.999;
    o->eps = 1e-8;
    o->n = nparams;
    if (kind != NN_SGD) o->m = mem_new0(float, nparams);
    if (kind == NN_ADAM) o->v = mem_new0(float, nparams);
}

void nn_opt_release(struct nn_opt *o)
{
    free(o->m);
    free(o->v);
    memset(o, 0, sizeof *o);
}

void nn_opt_step(struct nn_opt *o, float *params, const float *grad)
{
    o->t++;
    float lr = (float)o->lr;
    if (o->kind == NN_SGD) {
        for (size_t i = 0; i < o->n; i++)
            params[i] -= lr * grad[i];
    } else if (o->kind == NN_MOMENTUM) { /* v = mu v + g; p -= lr v (PyTorch's SGD) */
        float mu = (float)o->momentum;
        for (size_t i = 0; i < o->n; i++) {
            o->m[i] = mu * o->m[i] + grad[i];
            params[i] -= lr * o->m[i];
        }
    } else { /* Adam in the paper's efficient form (section 2): the bias corrections folded into
              * the step, lr sqrt(1 - b2^t) / (1 - b1^t), and into eps */
        float b1 = (float)o->beta1, b2 = (float)o->beta2;
        double c1 = 1 - pow(o->beta1, (double)o->t), c2 = 1 - pow(o->beta2, (double)o->t);
        float step = (float)(o->lr * sqrt(c2) / c1), eps = (float)(o->eps * sqrt(c2));
        for (size_t i = 0; i < o->n; i++) {
            o->m[i] = b1 * o->m[i] + (1 - b1) * grad[i];
            o->v[i] = b2 * o->v[i] + (1 - b2) * grad[i] * grad[i];
            params[i] -= step * o->m[i] / (sqrtf(o->v[i]) + eps);
        }
    }
}

static float *copy_floats(const float *a, size_t n)
{
    if (a == NULL) return NULL;
    float *b = mem_new(float, n ? n : 1);
    memcpy(b, a, n * sizeof *a);
    return b;
}

void nn_state_save(struct nn_state *s, const float *params, const struct nn_opt *o, int step,
                   long long pos)
{
    s->step = step;
    s->pos = pos;
    s->n = o->n;
    s->params = copy_floats(params, o->n);
    s->m = copy_floats(o->m, o->n);
    s->v = copy_floats(o->v, o->n);
    s->t = o->t;
}

void nn_state_load(const struct nn_state *s, float *params, struct nn_opt *o)
{
    memcpy(params, s->params, s->n * sizeof *params);
    if (o->m) memcpy(o->m, s->m, s->n * sizeof *o->m);
    if (o->v) memcpy(o->v, s->v, s->n * sizeof *o->v);
    o->t = s->t;
}

void nn_state_release(struct nn_state *s)
{
    free(s->params);
    free(s->m);
    free(s->v);
    memset(s, 0, sizeof *s);
}
