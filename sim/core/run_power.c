/* run_power.c - a run's GPU activity and power (see run_power.h). */
#include "run_power.h"

#include "power.h"

#include <math.h>

/* What one unloaded step's kernels say: the share of compute time kernels run, their mean SM
 * fraction and their mean dynamic activity. */
struct kern_mix {
    double run_frac, sm, act;
};

static struct kern_mix kern_mix(const struct run_record *r)
{
    struct kern_mix k = {1, 1, 0};
    double all = 0;
    for (size_t i = 0; i < r->nkclasses; i++)
        all += r->kclass_s[i];
    double kern = all - r->host_wait_s;
    if (all > 0) k.run_frac = kern / all;
    if (kern > 0) {
        k.sm = fmin(1, r->kern_sm_s / kern);
        k.act = fmin(1, r->kern_act_s / kern);
    }
    return k;
}

/* One step row: its activity, SM activity and power. */
static void step_power(const struct run_record *r, const struct kern_mix *k, double nccl_act_s,
                       double nccl_sm, struct run_event *e)
{
    double T = e->time_s;
    double busy = e->gpu_busy_s >= 0 ? e->gpu_busy_s : e->compute_s;
    double K = fmin(T, busy * k->run_frac);
    double C = e->nccl_s >= 0 ? e->nccl_s : e->time_s - e->compute_s - e->input_s;
    C = fmax(0, fmin(T - K, C));
    e->gpu_util = T > 0 ? fmin(1, (K + C) / T) : 0;
    e->sm_activity = T > 0 ? fmin(1, (K * k->sm + C * nccl_sm) / T) : 0;
    e->power_w = power_mean_w(r->gpu, K * k->act + (C > 0 ? nccl_act_s : 0), T);
}

void run_power_finish(struct run_record *r)
{
    r->gpu_util = r->sm_activity = r->gpu_power_w = r->gpu_tdp_w = r->gpu_energy_j = 0;
    if (!r->gpu || r->steps <= 0) return;
    struct kern_mix k = kern_mix(r);
    double sent_B = r->workers > 0 ? r->bytes / (r->workers * r->steps) : 0;
    double nccl_act_s = r->peak_mem_Bps > 0
                                ? POWER_MEM_WEIGHT * POWER_NCCL_HBM_PER_B * sent_B / r->peak_mem_Bps
                                : 0;
    double nccl_sm = power_nccl_sm_frac(r->gpu), T = 0, util = 0, sm = 0, energy = 0;
    for (size_t i = 0; i < r->nev; i++) {
        struct run_event *e = &r->ev[i];
        if (e->kind != RUN_STEP) continue;
        step_power(r, &k, nccl_act_s, nccl_sm, e);
        T += e->time_s;
        util += e->gpu_util * e->time_s;
        sm += e->sm_activity * e->time_s;
        energy += e->power_w * e->time_s;
    }
    r->gpu_tdp_w = power_tdp_w(r->gpu);
    if (T <= 0) return;
    r->gpu_util = util / T;
    r->sm_activity = sm / T;
    r->gpu_power_w = energy / T;
    r->gpu_energy_j = r->gpu_power_w * r->workers * r->total_s;
}
