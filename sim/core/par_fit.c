/* par_fit.c - the memory check of a parallel layout and the smallest set of changes that fits
 * (see par_fit.h). */
#include "par_fit.h"

#include <stdio.h>

#define KNOB_OPTIONS 3 /* the most values a knob offers */

/* The values knob k offers from (p, b), smallest step first, into v; how many. */
static int options(const struct parallel_spec *p, int b, enum par_knob k, int *v)
{
    int n = 0;
    switch (k) {
    case PAR_KNOB_ZERO:
        for (int z = p->zero + 1; p->dp > 1 && z <= 3; z++)
            v[n++] = z;
        break;
    case PAR_KNOB_RECOMPUTE:
        for (int r = (int)p->recompute + 1; r <= RECOMPUTE_FULL; r++)
            v[n++] = r;
        break;
    case PAR_KNOB_SP:
        if (!p->sp && p->tp > 1) v[n++] = 1;
        break;
    case PAR_KNOB_PP:
    case PAR_KNOB_TP:
        for (int f = 2; f <= 4 && p->dp % f == 0; f *= 2)
            v[n++] = (k == PAR_KNOB_PP ? p->pp : p->tp) * f;
        break;
    case PAR_KNOB_BATCH:
        for (int d = 2; d <= 8 && b / d >= 1; d *= 2)
            v[n++] = b / d;
        break;
    default:
        break;
    }
    return n;
}

/* c applied to (q, *qb); false when the replicas do not divide. */
static bool apply(struct parallel_spec *q, int *qb, struct par_change c)
{
    switch (c.knob) {
    case PAR_KNOB_ZERO:
        q->zero = c.value;
        return true;
    case PAR_KNOB_RECOMPUTE:
        q->recompute = (enum recompute)c.value;
        return true;
    case PAR_KNOB_SP:
        q->sp = true;
        return true;
    case PAR_KNOB_PP:
    case PAR_KNOB_TP: {
        int *dim = c.knob == PAR_KNOB_PP ? &q->pp : &q->tp, f = c.value / *dim;
        if (q->dp % f != 0) return false;
        q->dp /= f;
        *dim = c.value;
        return true;
    }
    default:
        *qb = c.value;
        return true;
    }
}

/* The layouts of the n knobs kn[] (knob k's nval[k] values in val[k]), every tuple of values in
 * order; true and *f at the first that fits. */
static bool try_knobs(const struct parallel_spec *p, const char *preset, const struct gpt_config *g,
                      enum gpu_dtype dtype, enum optimizer opt, int b, double mem_B, int n,
                      const int *kn, int val[][KNOB_OPTIONS], const int *nval, struct par_fit *f)
{
    int idx[PAR_FIT_MAX_CHANGES] = {0};
    for (;;) {
        struct par_fit x = {.n = n, .p = *p, .b = b};
        bool ok = true;
        for (int i = 0; i < n && ok; i++) {
            x.change[i] = (struct par_change){(enum par_knob)kn[i], val[kn[i]][idx[i]]};
            ok = apply(&x.p, &x.b, x.change[i]);
        }
        if (ok && par_shape_ok(&x.p, g)) {
            x.mem = par_memory(&x.p, preset, g, dtype, opt, x.b);
            if (x.mem.total_B <= mem_B) {
                *f = x;
                return true;
            }
        }
        int i = n - 1; /* the next tuple: the last knob fastest */
        while (i >= 0 && ++idx[i] == nval[kn[i]])
            idx[i--] = 0;
        if (i < 0) return false;
    }
}

bool par_fit_search(const struct parallel_spec *p, const char *preset, const struct gpt_config *g,
                    enum gpu_dtype dtype, enum optimizer opt, int b, double mem_B,
                    struct par_fit *f)
{
    int val[PAR_KNOBS][KNOB_OPTIONS], nval[PAR_KNOBS], live[PAR_KNOBS], nlive = 0;
    for (int k = 0; k < PAR_KNOBS; k++) {
        nval[k] = options(p, b, (enum par_knob)k, val[k]);
        if (nval[k] > 0) live[nlive++] = k; /* the knobs that can change */
    }
    for (int n = 1; n <= PAR_FIT_MAX_CHANGES && n <= nlive; n++) {
        int c[PAR_FIT_MAX_CHANGES], kn[PAR_FIT_MAX_CHANGES];
        for (int i = 0; i < n; i++)
            c[i] = i;
        for (;;) { /* the n-knob sets in lexicographic order */
            for (int i = 0; i < n; i++)
                kn[i] = live[c[i]];
            if (try_knobs(p, preset, g, dtype, opt, b, mem_B, n, kn, val, nval, f)) return true;
            int i = n - 1;
            while (i >= 0 && c[i] == nlive - n + i)
                i--;
            if (i < 0) break;
            c[i]++;
            for (int j = i + 1; j < n; j++)
                c[j] = c[j - 1] + 1;
        }
    }
    return false;
}

void par_fit_describe(const struct par_fit *f, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->n && at < len; i++) {
        const char *sep = i ? " " : "";
        int v = f->change[i].value, w = 0;
        switch (f->change[i].knob) {
        case PAR_KNOB_ZERO:
            w = snprintf(buf + at, len - at, "%szero=\"%d\"", sep, v);
            break;
        case PAR_KNOB_RECOMPUTE:
            w = snprintf(buf + at, len - at, "%srecompute=\"%s\"", sep,
                         scenario_recompute_name((enum recompute)v));
            break;
        case PAR_KNOB_SP:
            w = snprintf(buf + at, len - at, "%ssequence-parallel=\"yes\"", sep);
            break;
        case PAR_KNOB_PP: /* the replicas after the last of pp and tp */
        case PAR_KNOB_TP: {
            bool tp_next = i + 1 < f->n && f->change[i + 1].knob == PAR_KNOB_TP;
            w = snprintf(buf + at, len - at, "%s%s=\"%d\"", sep,
                         f->change[i].knob == PAR_KNOB_PP ? "pp" : "tp", v);
            if (w > 0 && !tp_next && at + (size_t)w < len)
                w += snprintf(buf + at + w, len - at - (size_t)w, " dp=\"%d\"", f->p.dp);
            break;
        }
        default:
            w = snprintf(buf + at, len - at, "%sbatch-per-gpu=\"%d\"", sep, v);
            break;
        }
        at += w > 0 ? (size_t)w : 0;
    }
}

/* The name of the largest term of x. */
static const char *largest(const struct par_memory *x)
{
    double v[] = {x->weights_B, x->grads_B, x->optimizer_B, x->act_B};
    static const char *const names[] = {"weights", "gradients", "optimizer state", "activations"};
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (v[i] > v[k]) k = i;
    return names[k];
}

int par_check_fit(const struct parallel_spec *p, const char *preset, const struct gpt_config *g,
                  enum gpu_dtype dtype, enum optimizer opt, int b, double mem_B, char *why,
                  size_t len)
{
    struct par_memory x = par_memory(p, preset, g, dtype, opt, b);
    if (x.total_B <= mem_B) return 0;
    char change[256], list[200];
    struct par_fit f;
    if (par_fit_search(p, preset, g, dtype, opt, b, mem_B, &f)) {
        par_fit_describe(&f, list, sizeof list);
        snprintf(change, sizeof change, "%s (%.2f GB)", list, f.mem.total_B / 1e9);
    } else {
        snprintf(change, sizeof change, "more GPUs (no set of up to %d changes fits)",
                 PAR_FIT_MAX_CHANGES);
    }
    snprintf(why, len,
             "%s needs %.2f GB per GPU on pipeline stage %d (weights %.2f + gradients %.2f + "
             "optimizer %.2f + activations %.2f GB), the largest its %s; a GPU has %.2f GB; "
             "expected %s",
             preset, x.total_B / 1e9, x.stage, x.weights_B / 1e9, x.grads_B / 1e9,
             x.optimizer_B / 1e9, x.act_B / 1e9, largest(&x), mem_B / 1e9, change);
    return -1;
}
