/* kcost.c - what one GPU kernel costs, and how the host issues kernels (see kcost.h). */
#include "kcost.h"

#include "gemm.h"

#include <math.h>
#include <string.h>

/* A 3x3 stride-1 convolution's GEMM as Winograd: fused F(2x2, 3x3), the direct GEMM of K / 2.25;
 * or non-fused F(4x4, 3x3), the GEMM of K / 4 and the transforms through memory (its input's and
 * its output's elements, each read once and written 2.25 times as 6x6 tiles of 4x4 outputs, or
 * the reverse). The forward (M = c_out, K = 9 c_in) reads c_in N and writes c_out N elements; the
 * input gradient (M = 9 c_in, K = c_out) the reverse. The faster of the two. */
static double winograd_s(const struct kcost_gpu *g, const struct kernel *k, double M, double N,
                         double K, double count)
{
    struct gemm_est e2, e4;
    gemm_estimate(g->gpu, g->dt, g->mem_Bps, &(struct gemm_shape){M, N, K / WINOGRAD_F2x3, count},
                  &e2);
    gemm_estimate(g->gpu, g->dt, g->mem_Bps, &(struct gemm_shape){M, N, K / WINOGRAD_F4x3, count},
                  &e4);
    double io = k->winograd == 1 ? K / 9 * N + M * N : K * N + M / 9 * N;
    double moved = (1 + WINOGRAD_F2x3) * io * count * model_dtype_bytes(g->dt);
    return fmin(e2.seconds, e4.seconds + moved / g->mem_Bps);
}

/* A GEMM: measured for its shape, interpolated from the profile, or modelled from its shape. */
static void gemm_cost(const struct kcost_gpu *g, const struct kernel *k, int batch, struct kcost *c)
{
    double M = k->m, N = k->n, K = k->k, Kp = k->kpad > 0 ? k->kpad : k->k, count = 1;
    if (k->bdim == 1) {
        N *= batch;
    } else if (k->bdim == 2) {
        K *= batch;
        Kp *= batch;
    } else {
        count = (k->g > 0 ? k->g : 1) * batch;
    }
    double peak = g->gpu->peak_flops[g->dt], work = 2 * M * N * Kp * count;
    double bytes = (M * Kp + Kp * N + M * N) * count * model_dtype_bytes(g->dt);
    c->flops = 2 * M * N * K * count;
    bool any = false;
    double rate = calib_gemm_measured(g->cal, g->dt, M, N, Kp, &any);
    if (rate > 0 && count == 1) {
        c->s = fmax(work / rate, bytes / g->mem_Bps);
    } else if (any) {
        c->s = fmax(work / (peak * calib_gemm_eff(g->cal, g->gpu, g->dt, work)),
                    bytes / g->mem_Bps);
    }
    struct gemm_est e; /* its tiles and waves: the SMs it occupies, whoever timed it */
    gemm_estimate(g->gpu, g->dt, g->mem_Bps, &(struct gemm_shape){M, N, Kp, count}, &e);
    c->sm_frac = e.wave_eff > 0 ? fmin(1, e.wave_eff) : 1;
    if (!(rate > 0 && count == 1) && !any) {
        c->s = e.seconds;
        if (k->winograd && g->dt == DTYPE_FP32)
            c->s = fmin(c->s, winograd_s(g, k, M, N, Kp, count));
    }
    if (g->dt == DTYPE_FP8 && k->bdim == 1) { /* the activation operand, BF16 -> FP8 */
        c->cast_B = Kp * N * 3;
        c->cast_s = fmax(c->cast_B / g->mem_Bps, GPU_KERNEL_MIN_S);
    }
}

/* FlashAttention: forward or backward, in 16-bit (FP8 training runs it in BF16). */
static void flash_cost(const struct kcost_gpu *g, const struct kernel *k, int batch,
                       struct kcost *c)
{
    const struct gpu_model *gpu = g->gpu;
    double heads = k->g * batch, frac = gpu->sm >= 90 ? FLASH3_FWD : FLASH2_FWD;
    if (k->bwd) frac *= FLASH2_BWD / FLASH2_FWD;
    c->flops = k->flops * batch;
    double t = c->flops / (gemm_peak16(gpu) * frac);
    c->sm_frac = 1;
    if (gpu->sms > 0) {
        double tiles = heads * ceil(k->m / FLASH_BLOCK_Q), waves = ceil(tiles / gpu->sms);
        t *= waves * gpu->sms / tiles;
        c->sm_frac = tiles / (waves * gpu->sms);
    }
    /* forward: reads Q, K, V, writes O; backward: reads Q, K, V, O, dO, writes dQ, dK, dV */
    double mats = k->bwd ? 8 : 4, bytes = mats * k->m * k->k * heads * 2;
    c->s = fmax(t, bytes / g->mem_Bps);
}

void kcost_kernel(const struct kcost_gpu *g, const struct kernel *k, int batch, struct kcost *c)
{
    memset(c, 0, sizeof *c);
    if (k->cls == KC_GEMM) {
        gemm_cost(g, k, batch, c);
    } else if (k->cls == KC_ATTN) {
        flash_cost(g, k, batch, c);
    } else {
        c->bytes = k->bytes * batch;
        c->s = c->bytes / g->mem_Bps;
        c->sm_frac = kcost_sm_frac_mem(g->gpu, g->dt, c->bytes);
    }
    c->s = fmax(c->s, GPU_KERNEL_MIN_S);
}

double kcost_sm_frac_mem(const struct gpu_model *gpu, enum gpu_dtype dt, double bytes)
{
    if (gpu->sms <= 0) return 1;
    double blocks = ceil(bytes / (512.0 * 2 * model_dtype_bytes(dt)));
    return fmin(1, blocks / gpu->sms);
}

double kstream_issue(struct kstream *s, const struct kernel_costs *kc, double gpu_s)
{
    double before = s->gpu;
    if (kc->host == HOST_EAGER || !s->started) s->cpu += kc->launch_s;
    s->started = true;
    double start = fmax(s->gpu, s->cpu);
    s->wait += start - s->gpu;
    s->gpu = start + gpu_s;
    return s->gpu - before;
}

const char *kcost_host_name(enum host_mode h)
{
    return h == HOST_GRAPHS ? "graphs" : h == HOST_COMPILED ? "compiled" : "eager";
}

double kcost_amp_bytes_per_param(enum gpu_dtype dt, bool autocast)
{
    if (autocast && model_dtype_bytes(dt) == 2) return 12 + (dt == DTYPE_FP16 ? 8 : 0);
    return dt == DTYPE_FP16 ? 4 : dt == DTYPE_FP8 ? 3 : 0;
}
