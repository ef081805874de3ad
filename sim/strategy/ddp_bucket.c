/* ddp_bucket.c - PyTorch DDP's gradient buckets and their costs (see ddp_bucket.h). */
#include "ddp_bucket.h"

#include <math.h>

size_t ddp_buckets_assign(const struct model *m, double elem_B, double first_B, double cap_B,
                          double *size_B, int *close, size_t *off)
{
    size_t n = 0;
    double acc = 0, below = 0; /* below: parameters of every layer before l */
    for (size_t i = 0; i < m->nlayers; i++)
        below += m->layers[i].params;
    for (size_t l = m->nlayers; l-- > 0;) {
        below -= m->layers[l].params;
        acc += m->layers[l].params * elem_B;
        double limit = n == 0 ? first_B : cap_B;
        if (acc > 0 && (acc >= limit || l == 0)) {
            size_B[n] = acc;
            off[n] = (size_t)below;
            close[n++] = (int)l;
            acc = 0;
        }
    }
    return n;
}

/* One gradient's kernel: it reads and writes the gradient (at least a kernel's least time). */
static double grad_kernel_s(double params, double elem_B, double mem_Bps)
{
    return fmax(2 * params * elem_B / mem_Bps, GPU_KERNEL_MIN_S);
}

double ddp_after_backward(void *ctx, size_t l, struct kstream *st, const struct kernel_costs *kc)
{
    struct ddp_hooks *h = ctx;
    const struct layer *y = &h->m->layers[l];
    double added = 0;
    if (y->params <= 0) return 0;
    /* mark_variable_ready_dense: mul_out into the bucket, or div_ in place */
    added += kstream_issue(st, kc, grad_kernel_s(y->params, h->elem_B, h->mem_Bps));
    for (size_t b = 0; b < h->nbuckets; b++) {
        if (h->close[b] != (int)l) continue;
        st->cpu += h->launch_s; /* all_reduce_bucket: the collective's launch */
        h->launch_at_s[b] = st->cpu;
    }
    return added;
}

double ddp_copy_out_s(const struct model *m, double elem_B, double mem_Bps, bool as_view)
{
    double s = 0;
    for (size_t l = 0; !as_view && l < m->nlayers; l++)
        if (m->layers[l].params > 0 && m->layers[l].nbwd > 0)
            s += grad_kernel_s(m->layers[l].params, elem_B, mem_Bps);
    return s;
}
