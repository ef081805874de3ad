/* gemm.h - a GEMM's time and efficiency from its shape, as cuBLAS runs it on a GPU.
 *
 * NVIDIA's "Matrix Multiplication Background User's Guide" (docs.nvidia.com/deeplearning/
 * performance/dl-performance-matrix-multiplication) describes how a GEMM runs: its M x N output
 * is cut into tiles (cuBLAS's tiles include 256x128, 128x256, 128x128, 128x64, 64x128 and 64x64),
 * each tile goes to one SM, and the tiles run in waves of one tile per SM. Three mechanisms follow,
 * each modelled here:
 *   - tile quantization: a dimension that is not a multiple of the tile computes the padding;
 *   - wave quantization: the last wave of ceil(tiles / SMs) may leave SMs idle;
 *   - operand reuse: a tile of mt x nt loads (mt + nt) elements per step of K and does mt nt
 *     multiply-adds, so larger tiles need less operand bandwidth per FLOP ("larger tiles are more
 *     efficient", the guide). The largest tile runs at the GPU's ceiling; a smaller one at the
 *     ceiling x its reuse mt nt / (mt + nt) over the largest's, relative to the 16-bit tensor-core
 *     rate per operand byte of the same GPU (so SIMT FP32, 4-15x slower, is never operand-bound).
 * A call of few tiles and a long K (a weight gradient: K is the batch's pixels or tokens) splits
 * K over more SMs (split-K: CUTLASS's "split-K" GEMMs, cuBLAS's reduction schemes): `split`
 * slices of K run as tiles of their own and a reduction adds their FP32 partial outputs (each
 * written and read once, at the memory rate); the model tries 1, 2, 4 ... GEMM_MAX_SPLIT slices
 * of at least GEMM_MIN_SLICE elements of K.
 * A tile's K loop pays a fixed fill (GEMM_K_FILL elements of K: the pipeline's prologue and the
 * epilogue's write of the tile). cuBLAS's heuristic picks a tile per shape; the model takes the
 * fastest. The memory roofline caps the result: the three matrices at the given memory rate.
 * The ceiling is the GPU's large-GEMM efficiency per dtype (the catalog's gemm_ceiling, from
 * published maximum-achievable-matmul measurements). Dimensions are padded to 16 bytes for tensor
 * cores (the guide's alignment rule: multiples of 8 FP16 elements, of 4 TF32 elements).
 */
#ifndef DMLSIM_GEMM_H
#define DMLSIM_GEMM_H

#include "catalog.h"

#include <stdbool.h>

/* Fill of a tile's K loop, in elements of K: fitted (with the tile rule above, nothing else) on
 * a third of the 308 cuBLAS shapes measured on the H200 (kernels/measured/h200-2026-12-04/
 * calibrate.txt, every third row); the README reports the other two thirds. */
#define GEMM_K_FILL    64.0
#define GEMM_MAX_SPLIT 256.0 /* slices of K, at most */
#define GEMM_MIN_SLICE 256.0 /* elements of K in a slice, at least (4 fills) */

/* One GEMM call: `count` independent products of an M x K by a K x N matrix (count 1: a plain
 * GEMM; attention's batched GEMMs: heads x batch). */
struct gemm_shape {
    double m, n, k, count;
};

/* What the model found for one shape. */
struct gemm_est {
    double seconds;     /* the call's duration */
    double eff;         /* FLOPs / (seconds x dtype peak) */
    int tile_m, tile_n; /* the tile taken */
    double split;       /* slices of K (split-K; 1: none) */
    double tiles;       /* tiles of the call */
    double waves;       /* ceil(tiles / SMs) */
    double wave_eff;    /* tiles / (waves x SMs): wave quantization */
    double quant_eff;   /* useful over padded outputs: tile quantization and alignment */
    double reuse_eff;   /* the tile's operand reuse against the largest tile's (<= 1) */
    double k_eff;       /* K / (K + GEMM_K_FILL) */
    bool memory_bound;  /* the memory roofline, not the tiles, set the time */
};

/* The GPU's 16-bit tensor-core peak (BF16, else FP16; 0 without one). */
double gemm_peak16(const struct gpu_model *gpu);

/* Estimates one GEMM call on `gpu` in `dt`, its matrices moving at `mem_Bps`. A GPU without SM
 * count or ceiling (neither is 0 in the catalog) gets eff = ceiling 0.78 flat. */
void gemm_estimate(const struct gpu_model *gpu, enum gpu_dtype dt, double mem_Bps,
                   const struct gemm_shape *s, struct gemm_est *e);

#endif
