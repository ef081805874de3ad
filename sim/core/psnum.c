/* psnum.c - a parameter-server shard's real state (see psnum.h). */
#include "psnum.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

void pslice_make(const struct nn *net, int K, bool by_bytes, int k, struct pslice *sl)
{
    memset(sl, 0, sizeof *sl);
    if (by_bytes) {
        size_t a = net->nparams * (size_t)k / (size_t)K, b = net->nparams * (size_t)(k + 1) / (size_t)K;
        sl->off[0] = a;
        sl->len[0] = b - a;
        sl->nr = b > a;
        sl->n = b - a;
        return;
    }
    for (int l = k; l < net->nlayers; l += K) { /* ps_split: layer l to shard l mod K */
        size_t len = net->boff[l] + (size_t)net->sizes[l + 1] - net->woff[l];
        sl->off[sl->nr] = net->woff[l];
        sl->len[sl->nr++] = len;
        sl->n += len;
    }
}

void pslice_gather(const struct pslice *sl, const float *full, float *packed)
{
    for (int i = 0; i < sl->nr; packed += sl->len[i++])
        memcpy(packed, full + sl->off[i], sl->len[i] * sizeof *packed);
}

void pslice_scatter(const struct pslice *sl, const float *packed, float *full)
{
    for (int i = 0; i < sl->nr; packed += sl->len[i++])
        memcpy(full + sl->off[i], packed, sl->len[i] * sizeof *packed);
}

void psnum_init(struct psnum *p, const struct numerics *nm, int K, bool by_bytes, int k)
{
    memset(p, 0, sizeof *p);
    pslice_make(&nm->net, K, by_bytes, k, &p->sl);
    float *full = mem_new(float, nm->net.nparams);
    nn_init(&nm->net, nm->seed, full);
    p->w = mem_new(float, p->sl.n ? p->sl.n : 1);
    p->acc = mem_new0(float, p->sl.n ? p->sl.n : 1);
    pslice_gather(&p->sl, full, p->w);
    free(full);
    nn_opt_init(&p->opt, nm->opt, nm->lr, p->sl.n);
}

void psnum_release(struct psnum *p)
{
    free(p->w);
    free(p->acc);
    nn_opt_release(&p->opt);
    memset(p, 0, sizeof *p);
}

void psnum_reset(struct psnum *p, const struct numerics *nm, int K, bool by_bytes, int k)
{
    psnum_release(p);
    psnum_init(p, nm, K, by_bytes, k);
}

void psnum_add(struct psnum *p, const float *grad, int grads)
{
    if (grads <= 0) return;
    bool first = p->nacc == 0;
    p->nacc += grads;
    if (first) { /* a copy, so one gradient is applied as it came */
        memcpy(p->acc, grad, p->sl.n * sizeof *grad);
        return;
    }
    for (size_t i = 0; i < p->sl.n; i++)
        p->acc[i] += grad[i];
}

int psnum_apply(struct psnum *p, double lr)
{
    int n = p->nacc;
    if (n == 0) return 0;
    p->opt.lr = lr;
    if (n > 1) {
        float scale = 1.0f / (float)n;
        for (size_t i = 0; i < p->sl.n; i++)
            p->acc[i] *= scale;
    }
    nn_opt_step(&p->opt, p->w, p->acc);
    p->nacc = 0;
    return n;
}
