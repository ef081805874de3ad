/* worker.c - shared worker services (see worker.h). */
#include "worker.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <stdlib.h>

void worker_amounts(const struct calib *cal, const struct gpu_model *gpu, sg_host_t host,
                    enum gpu_dtype dtype, enum optimizer opt, const struct model *m, int batch,
                    struct worker_amounts *a)
{
    size_t n = m->nlayers ? m->nlayers : 1;
    a->fwd = xbt_new0(double, n);
    a->bwd = xbt_new0(double, n);
    a->fwd_all = 0;
    double speed = sg_host_get_speed(host), peak = gpu->peak_flops[dtype];
    for (size_t l = 0; l < m->nlayers; l++) {
        const struct layer *y = &m->layers[l];
        double gemm = y->gemm_m > 0 ? 2 * y->gemm_m * y->gemm_n * batch * y->gemm_k
                                    : y->fwd_flops * batch;
        double rate = peak * calib_gemm_eff(cal, gpu, dtype, gemm);
        a->fwd[l] = y->fwd_flops * batch * speed / rate;
        a->bwd[l] = y->bwd_flops * batch * speed / rate;
        a->fwd_all += a->fwd[l];
    }
    double update_B = model_params(m) * model_update_bytes_per_param(dtype, opt);
    a->update = update_B / calib_memory_rate(cal, gpu) * speed;
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

bool worker_read_batch(struct run_record *rec, const struct injector *inj, int step, int members)
{
    bool corrupt = inject_corrupt(inj, sg_host_self(), step);
    rec->read_samples += rec->batch;
    if (corrupt) {
        rec->skipped_samples += rec->batch;
        run_event_add(rec, simgrid_get_clock(), RUN_FAULT, step, members,
                      "corrupt batch skipped: %s step %d", sg_host_get_name(sg_host_self()), step);
    }
    return corrupt;
}

void worker_before_forward(const struct input_hook *h, int rank, int step)
{
    if (h != NULL && h->wait != NULL) h->wait(h->ctx, rank, step);
}
