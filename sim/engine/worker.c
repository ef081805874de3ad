/* worker.c - shared worker services (see worker.h). */
#include "worker.h"

#include "power.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A step's kernels as the host issues them, and where their time goes. */
struct pass_ctx {
    struct kcost_gpu g;
    const struct kernel_costs *kc;
    struct kstream st;
    struct worker_amounts *a;
    int batch;
};

/* Issues one kernel of `s` GPU seconds occupying `sm` of the SMs: returns the GPU time it added
 * (waiting included). */
static double issue(struct pass_ctx *p, int cls, double s, double flops, double bytes, double sm)
{
    const struct gpu_model *gpu = p->g.gpu;
    p->a->class_s[cls] += s;
    p->a->class_flops[cls] += flops;
    p->a->class_bytes[cls] += bytes;
    p->a->sm_s += s * sm;
    p->a->act_s += s * power_activity(s, flops, bytes, gpu->peak_flops[p->g.dt], gpu->mem_bw_Bps);
    return kstream_issue(&p->st, p->kc, s);
}

/* A memory-bound kernel moving `bytes` in `s` (the update, mixed precision's casts). */
static double issue_mem(struct pass_ctx *p, int cls, double s, double bytes)
{
    return issue(p, cls, s, 0, bytes, kcost_sm_frac_mem(p->g.gpu, p->g.dt, bytes));
}

/* A layer without kernels (explicit layers): one GEMM of its FLOPs at its GEMM size, at the
 * profile's efficiency, outside the host model (such a model has no kernels to issue). */
static double explicit_pass(struct pass_ctx *p, const struct layer *y, bool bwd)
{
    double flops = (bwd ? y->bwd_flops : y->fwd_flops) * p->batch;
    if (flops <= 0) return 0;
    const struct kcost_gpu *g = &p->g;
    double gemm = y->gemm_m > 0 ? 2 * y->gemm_m * y->gemm_n * p->batch * y->gemm_k : flops;
    double t = flops / (g->gpu->peak_flops[g->dt] * calib_gemm_eff(g->cal, g->gpu, g->dt, gemm));
    p->a->class_s[KC_GEMM] += t;
    p->a->class_flops[KC_GEMM] += flops;
    p->a->sm_s += t; /* a GEMM of the model's size: every SM */
    p->a->act_s += t * power_activity(t, flops, 0, g->gpu->peak_flops[g->dt], g->gpu->mem_bw_Bps);
    return t;
}

/* One pass of one layer: its kernels in order; compiled, the memory-bound kernels between two
 * compute kernels fused into one (the largest of their traffics). */
static double pass_time(struct pass_ctx *p, const struct layer *y, bool bwd)
{
    const struct kernel *ks = bwd ? y->bwd : y->fwd;
    int n = bwd ? y->nbwd : y->nfwd, fcls = 0;
    if (n == 0) return explicit_pass(p, y, bwd);
    double t = 0, fused = 0, fbytes = 0, fsm = 0;
    for (int i = 0; i < n; i++) {
        struct kcost c;
        kcost_kernel(&p->g, &ks[i], p->batch, &c);
        if (p->kc->host == HOST_COMPILED && ks[i].cls != KC_GEMM && ks[i].cls != KC_ATTN) {
            if (c.s > fused) {
                fused = c.s;
                fcls = ks[i].cls;
                fbytes = c.bytes;
                fsm = c.sm_frac;
            }
            continue;
        }
        if (fused > 0) t += issue(p, fcls, fused, 0, fbytes, fsm);
        fused = 0;
        if (c.cast_s > 0) t += issue_mem(p, KC_CAST, c.cast_s, c.cast_B);
        t += issue(p, ks[i].cls, c.s, c.flops, c.bytes, c.sm_frac);
    }
    if (fused > 0) t += issue(p, fcls, fused, 0, fbytes, fsm);
    return t;
}

/* The optimizer update (and the mixed-precision per-step kernels) on the stream; a model of
 * explicit layers (no kernels) has no stream: its update is its bytes at the memory rate (per
 * tensor: each at least a launch), as before the host model. */
static double update_time(struct pass_ctx *p, const struct model *m, enum optimizer opt,
                          double upd_rate, bool kernels)
{
    double per_param = model_update_bytes_per_param(p->g.dt, opt), t = 0;
    double amp = kcost_amp_bytes_per_param(p->g.dt, p->kc->autocast) * model_params(m);
    int slot = KC_COUNT;
    if (!kernels) {
        for (size_t l = 0; p->kc->per_tensor_opt && l < m->nlayers; l++)
            if (m->layers[l].params > 0)
                t += fmax(m->layers[l].params * per_param / upd_rate, p->kc->launch_s);
        if (!p->kc->per_tensor_opt) t = model_params(m) * per_param / upd_rate;
        double b = model_params(m) * per_param;
        p->a->class_s[slot] += t;
        p->a->class_bytes[slot] += b;
        p->a->sm_s += t * kcost_sm_frac_mem(p->g.gpu, p->g.dt, b);
        p->a->act_s += t * power_activity(t, 0, b, 0, p->g.gpu->mem_bw_Bps);
        return t;
    }
    if (amp > 0) t += issue_mem(p, KC_CAST, fmax(amp / upd_rate, GPU_KERNEL_MIN_S), amp);
    if (!p->kc->per_tensor_opt) {
        double b = model_params(m) * per_param;
        return t + issue_mem(p, slot, fmax(b / upd_rate, GPU_KERNEL_MIN_S), b);
    }
    for (size_t l = 0; l < m->nlayers; l++) {
        double b = m->layers[l].params * per_param;
        if (b > 0) t += issue_mem(p, slot, fmax(b / upd_rate, GPU_KERNEL_MIN_S), b);
    }
    return t;
}

void worker_amounts(const struct calib *cal, const struct gpu_model *gpu, sg_host_t host,
                    enum gpu_dtype dtype, enum optimizer opt, const struct model *m, int batch,
                    const struct kernel_costs *kc, struct worker_amounts *a)
{
    size_t n = m->nlayers ? m->nlayers : 1;
    memset(a, 0, sizeof *a);
    a->fwd = xbt_new0(double, n);
    a->bwd = xbt_new0(double, n);
    double speed = sg_host_get_speed(host), upd_rate = calib_memory_rate(cal, gpu);
    struct pass_ctx p = {
            {cal, gpu, dtype, gpu->mem_bw_Bps * cal->mem_eff}, kc, {0, 0, 0, false}, a, batch};
    for (size_t l = 0; l < m->nlayers; l++) {
        a->fwd[l] = pass_time(&p, &m->layers[l], false) * speed;
        a->fwd_all += a->fwd[l];
    }
    for (size_t l = m->nlayers; l-- > 0;) {
        double t = pass_time(&p, &m->layers[l], true);
        if (kc->after_bwd && m->layers[l].nbwd > 0)
            t += kc->after_bwd(kc->after_bwd_ctx, l, &p.st, kc);
        a->bwd[l] = t * speed;
    }
    bool kernels = false;
    for (size_t l = 0; l < m->nlayers && !kernels; l++)
        kernels = m->layers[l].nfwd + m->layers[l].nbwd > 0;
    a->update = update_time(&p, m, opt, upd_rate, kernels) * speed;
    a->class_s[WORKER_HOST] = p.st.wait;
}

const char *worker_class_name(int i)
{
    return i < KC_COUNT    ? kernel_class_name((enum kernel_class)i)
           : i == KC_COUNT ? "optimizer"
                           : "host-wait";
}

void worker_amounts_release(struct worker_amounts *a)
{
    free(a->fwd);
    free(a->bwd);
    a->fwd = a->bwd = NULL;
}

double worker_exec(struct run_record *rec, int rank, double amount)
{
    double t0 = simgrid_get_clock();
    if (amount > 0) sg_actor_execute(amount);
    double dt = simgrid_get_clock() - t0;
    if (rank >= 0 && rank < rec->workers) rec->busy_s[rank] += dt;
    return dt;
}

int worker_read_batch(struct run_record *rec, const struct injector *inj,
                      const struct input_hook *h, int rank, int step, int pos, int members)
{
    bool corrupt = inject_corrupt(inj, sg_host_self(), step);
    rec->read_samples += rec->batch;
    if (corrupt) {
        rec->skipped_samples += rec->batch;
        run_event_add(rec, simgrid_get_clock(), RUN_FAULT, step, members,
                      "corrupt batch skipped: %s step %d", sg_host_get_name(sg_host_self()), step);
        return 0;
    }
    int bad = h != NULL && h->corrupt != NULL ? h->corrupt(h->ctx, rank, pos, members) : 0;
    rec->skipped_samples += bad;
    return rec->batch - bad;
}

void worker_before_forward(const struct input_hook *h, int rank, int step)
{
    if (h != NULL && h->wait != NULL) h->wait(h->ctx, rank, step);
}
