/* run_power.c - a run's GPU activity and power (see run_power.h). */
#include "run_power.h"

#include "power.h"

#include <math.h>

/* What one unloaded step's kernels say: the share of compute time kernels run, their mean SM
 * fraction and their mean dynamic activity. */
struct kern_mix {
    double run_frac, sm, act;
};

/* The activity-seconds of a step's NCCL traffic through HBM: POWER_NCCL_HBM_PER_B bytes for
 * each byte a GPU sends (the run's message bytes / workers / steps), at the memory weight. */
static double nccl_act_s(const struct run_record *r)
{
    double sent_B = r->workers > 0 && r->steps > 0 ? r->bytes / (r->workers * r->steps) : 0;
    return r->peak_mem_Bps > 0 ? POWER_MEM_WEIGHT * POWER_NCCL_HBM_PER_B * sent_B / r->peak_mem_Bps
                               : 0;
}

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

/* A GPU's span of T seconds with `busy` compute and `nccl` of NCCL kernels alone (< 0: what
 * compute and `input` leave of T): its activity into *util, *sm and *power_w. */
static void span_power(const struct run_record *r, const struct kern_mix *k, double T, double busy,
                       double nccl, double input, double *util, double *sm, double *power_w)
{
    double K = fmax(0, fmin(T, busy * k->run_frac));
    double C = nccl >= 0 ? nccl : T - busy - input;
    C = fmax(0, fmin(T - K, C));
    *util = T > 0 ? fmin(1, (K + C) / T) : 0;
    *sm = T > 0 ? fmin(1, (K * k->sm + C * power_nccl_sm_frac(r->gpu)) / T) : 0;
    *power_w = power_mean_w(r->gpu, K * k->act + (C > 0 ? nccl_act_s(r) : 0), T);
}

void run_power_finish(struct run_record *r)
{
    r->gpu_util = r->sm_activity = r->gpu_power_w = r->gpu_tdp_w = r->gpu_energy_j = 0;
    if (!r->gpu || r->steps <= 0) return;
    struct kern_mix k = kern_mix(r);
    double T = 0, util = 0, sm = 0, energy = 0;
    for (size_t i = 0; i < r->nev; i++) {
        struct run_event *e = &r->ev[i];
        if (e->kind != RUN_STEP) continue;
        span_power(r, &k, e->time_s, e->gpu_busy_s >= 0 ? e->gpu_busy_s : e->compute_s, e->nccl_s,
                   e->input_s, &e->gpu_util, &e->sm_activity, &e->power_w);
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

void run_power_gpu_span(const struct run_record *r, const struct run_gpu_span *g, double *util,
                        double *sm, double *power_w)
{
    *util = *sm = *power_w = 0;
    if (!r->gpu) return;
    struct kern_mix k = kern_mix(r);
    span_power(r, &k, g->t1_s - g->t0_s, g->busy_s, g->nccl_s, 0, util, sm, power_w);
}
