/* worker.c - shared worker services (see worker.h). */
#include "worker.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One kernel for one batch: its seconds on an unloaded GPU, and its FLOPs / bytes by class. */
static double kernel_time(const struct kernel *k, int batch, const struct calib *cal,
                          const struct gpu_model *gpu, enum gpu_dtype dt,
                          const struct kernel_costs *kc, struct worker_amounts *a)
{
    double mem_rate = gpu->mem_bw_Bps * cal->mem_eff, t;
    if (k->cls == KC_GEMM) {
        double M = k->m, N = k->n, K = k->k, e = model_dtype_bytes(dt);
        if (k->bdim == 1)
            N *= batch;
        else
            K *= batch;
        double flops = 2 * M * N * K, bytes = (M * K + K * N + M * N) * e;
        t = fmax(flops / (gpu->peak_flops[dt] * calib_gemm_eff(cal, gpu, dt, flops)),
                 bytes / mem_rate);
        a->class_flops[KC_GEMM] += flops;
    } else {
        t = k->bytes * batch / mem_rate;
        a->class_bytes[k->cls] += k->bytes * batch;
    }
    t = fmax(t, kc->launch_s);
    a->class_s[k->cls] += t;
    return t;
}

/* One pass of one layer: its kernels, or one GEMM of `flops` at the layer's GEMM size. */
static double pass_time(const struct layer *y, bool bwd, int batch, const struct calib *cal,
                        const struct gpu_model *gpu, enum gpu_dtype dt,
                        const struct kernel_costs *kc, struct worker_amounts *a)
{
    const struct kernel *ks = bwd ? y->bwd : y->fwd;
    int n = bwd ? y->nbwd : y->nfwd;
    double t = 0, flops = (bwd ? y->bwd_flops : y->fwd_flops) * batch;
    for (int i = 0; i < n; i++)
        t += kernel_time(&ks[i], batch, cal, gpu, dt, kc, a);
    if (n > 0 || flops <= 0) return t;
    double gemm = y->gemm_m > 0 ? 2 * y->gemm_m * y->gemm_n * batch * y->gemm_k : flops;
    t = flops / (gpu->peak_flops[dt] * calib_gemm_eff(cal, gpu, dt, gemm));
    a->class_s[KC_GEMM] += t;
    a->class_flops[KC_GEMM] += flops;
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
    double per_param = model_update_bytes_per_param(dtype, opt), update = 0;
    for (size_t l = 0; l < m->nlayers; l++) {
        const struct layer *y = &m->layers[l];
        a->fwd[l] = pass_time(y, false, batch, cal, gpu, dtype, kc, a) * speed;
        a->bwd[l] = pass_time(y, true, batch, cal, gpu, dtype, kc, a) * speed;
        a->fwd_all += a->fwd[l];
        if (kc->per_tensor_opt && y->params > 0)
            update += fmax(y->params * per_param / upd_rate, kc->launch_s);
    }
    if (!kc->per_tensor_opt) update = model_params(m) * per_param / upd_rate;
    a->class_s[KC_COUNT] = update;
    a->class_bytes[KC_COUNT] = model_params(m) * per_param;
    a->update = update * speed;
}

const char *worker_class_name(int i)
{
    return i < KC_COUNT ? kernel_class_name((enum kernel_class)i) : "optimizer";
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
