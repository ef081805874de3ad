/* power.c - a GPU's power draw from what its kernels do (see power.h). */
#include "power.h"

#include <math.h>
#include <string.h>

double power_tdp_w(const struct gpu_model *gpu)
{
    return gpu ? gpu->tdp_w : 0;
}

double power_idle_w(const struct gpu_model *gpu)
{
    return gpu ? gpu->idle_w : 0;
}

double power_activity(double s, double flops, double bytes, double peak_flops, double mem_Bps)
{
    if (s <= 0) return 0;
    double uc = peak_flops > 0 ? flops / (s * peak_flops) : 0;
    double um = mem_Bps > 0 ? bytes / (s * mem_Bps) : 0;
    return fmin(1, uc + POWER_MEM_WEIGHT * um);
}

double power_mean_w(const struct gpu_model *gpu, double act_s, double t_s)
{
    double idle = power_idle_w(gpu), a = t_s > 0 ? fmin(1, fmax(0, act_s / t_s)) : 0;
    return idle + (power_tdp_w(gpu) - idle) * a;
}

/* NVLinks per GPU of each generation (NVIDIA's NVLink pages: P100 4, V100 6, A100 12, H100 and
 * B200 18). */
static int nvlinks_of(const char *intra)
{
    static const struct {
        const char *name;
        int links;
    } t[] = {{"nvlink1", 4}, {"nvlink2", 6}, {"nvlink3", 12}, {"nvlink4", 18}, {"nvlink5", 18}};
    for (size_t i = 0; intra && i < sizeof t / sizeof t[0]; i++)
        if (strcmp(intra, t[i].name) == 0) return t[i].links;
    return 0;
}

double power_nccl_sm_frac(const struct gpu_model *gpu)
{
    if (!gpu || gpu->sms <= 0) return 0;
    int links = nvlinks_of(gpu->intra), ch = links > 0 ? (int)fmin(32, 2 * links) : 2;
    return fmin(1, (double)ch / gpu->sms);
}
