/* gemm.c - a GEMM's time and efficiency from its shape (see gemm.h). */
#include "gemm.h"

#include "model.h"

#include <math.h>
#include <string.h>

/* The tiles cuBLAS chooses among (the Matrix Multiplication Background guide, "tile
 * quantization": 256x128, 128x256, 128x128, 128x64, 64x128, 64x64), the largest first. */
static const int tiles[][2] = {{256, 128}, {128, 256}, {128, 128}, {128, 64}, {64, 128}, {64, 64}};

#define FLAT_EFF 0.78 /* a GPU the catalog gives no SM count or ceiling */

double gemm_peak16(const struct gpu_model *g)
{
    return g->peak_flops[DTYPE_BF16] > 0 ? g->peak_flops[DTYPE_BF16] : g->peak_flops[DTYPE_FP16];
}

static double reuse(int mt, int nt)
{
    return (double)mt * nt / (mt + nt);
}

/* Padding to 16 bytes on tensor cores (the guide: FP16 dimensions multiple of 8, TF32 of 4). */
static double align(double x, enum gpu_dtype dt)
{
    if (dt == DTYPE_FP32) return x;
    double q = 16 / model_dtype_bytes(dt);
    return ceil(x / q) * q;
}

/* The operand-reuse efficiency of a tile: its reuse over the largest tile's, scaled by how many
 * operand bytes per second the dtype's rate needs against the 16-bit tensor rate (FP32 SIMT needs
 * far fewer, so no tile is operand-bound there). */
static double reuse_eff(const struct gpu_model *g, enum gpu_dtype dt, int mt, int nt)
{
    double p16 = gemm_peak16(g);
    if (p16 <= 0 || g->peak_flops[dt] <= 0) return 1;
    double need = g->peak_flops[dt] * model_dtype_bytes(dt) / (p16 * 2);
    return fmin(1, reuse(mt, nt) / reuse(tiles[0][0], tiles[0][1]) / need);
}

/* One tile choice, K cut in `split` slices: the call's time at the ceiling, plus the split's
 * reduction of its partial outputs (FP32, written and read once each) at the memory rate. */
static double tile_time(const struct gpu_model *g, enum gpu_dtype dt, const struct gemm_shape *s,
                        int ti, double split, double mem_Bps, struct gemm_est *e)
{
    int mt = tiles[ti][0], nt = tiles[ti][1];
    double m = align(s->m, dt), n = align(s->n, dt), k = align(s->k, dt) / split;
    double nm = ceil(m / mt), nn = ceil(n / nt);
    double count = s->count > 0 ? s->count : 1;
    e->tile_m = mt;
    e->tile_n = nt;
    e->split = split;
    e->memory_bound = false;
    e->tiles = nm * nn * count * split;
    e->waves = ceil(e->tiles / g->sms);
    e->wave_eff = e->tiles / (e->waves * g->sms);
    e->quant_eff = s->m * s->n * s->k / (nm * mt * nn * nt * k * split);
    e->reuse_eff = reuse_eff(g, dt, mt, nt);
    e->k_eff = k / (k + GEMM_K_FILL);
    double sm_rate = g->peak_flops[dt] / g->sms * g->gemm_ceiling[dt] * e->reuse_eff;
    double reduce = split > 1 && mem_Bps > 0 ? 2 * split * m * n * count * 4 / mem_Bps : 0;
    return e->waves * 2.0 * mt * nt * (k + GEMM_K_FILL) / sm_rate + reduce;
}

void gemm_estimate(const struct gpu_model *gpu, enum gpu_dtype dt, double mem_Bps,
                   const struct gemm_shape *s, struct gemm_est *e)
{
    double count = s->count > 0 ? s->count : 1, flops = 2 * s->m * s->n * s->k * count;
    double bytes = (s->m * s->k + s->k * s->n + s->m * s->n) * count * model_dtype_bytes(dt);
    double peak = gpu->peak_flops[dt];
    memset(e, 0, sizeof *e);
    if (gpu->sms <= 0 || gpu->gemm_ceiling[dt] <= 0) {
        e->seconds = flops / (peak * FLAT_EFF);
    } else {
        struct gemm_est t = {0};
        e->seconds = INFINITY;
        for (int i = 0; i < (int)(sizeof tiles / sizeof tiles[0]); i++)
            for (double sp = 1; sp == 1 || (sp <= GEMM_MAX_SPLIT && s->k / sp >= GEMM_MIN_SLICE);
                 sp *= 2) {
                double sec = tile_time(gpu, dt, s, i, sp, mem_Bps, &t);
                if (sec < e->seconds) {
                    *e = t;
                    e->seconds = sec;
                }
            }
    }
    double mem_s = mem_Bps > 0 ? bytes / mem_Bps : 0;
    if (mem_s > e->seconds) {
        e->seconds = mem_s;
        e->memory_bound = true;
    }
    e->eff = e->seconds > 0 ? flops / (e->seconds * peak) : 0;
}
