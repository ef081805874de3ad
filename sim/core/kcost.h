/* kcost.h - what one GPU kernel of a model costs, and how the host issues kernels.
 *
 * A kernel lasts the roofline of its work on the GPU, and never less than GPU_KERNEL_MIN_S:
 *   - a GEMM: a measured profile's rate for exactly its shape; else, when the profile measured
 *     GEMMs of the dtype, its rate interpolated by FLOPs (calib_gemm_eff); else the shape model
 *     of gemm.h (tile and wave quantization, operand reuse, the GPU's ceiling); capped by its three
 *     matrices at the memory rate;
 *   - fused attention (FlashAttention): its FLOPs at FlashAttention's published fraction of the
 *     16-bit peak, over waves of one thread block per 128 queries of one head of one sample
 *     (FlashAttention-2, section 3.2); capped by reading Q, K, V and writing O;
 *   - any other kernel: its bytes at the memory rate.
 * A 3x3 stride-1 convolution in FP32 may run as Winograd (WINOGRAD_F2x3).
 * FP8 GEMMs (Transformer Engine) first cast their activation operand from BF16: one kernel reading
 * 2 and writing 1 byte per element (a KC_CAST kernel of its own).
 *
 * The host issues the kernels (CUDA's asynchronous launches: the GPU runs ahead of the CPU only as
 * far as the CPU has issued): eagerly, each costs the CPU `launch_s` (the framework's dispatch and
 * the launch) and cannot start before the CPU issued it; a step is CPU-bound when its kernels are
 * shorter. With CUDA graphs the whole step is one launch and its kernels run back to back;
 * compiled (torch.compile's reduce-overhead mode, XLA) is graphs plus fusion of the memory-bound
 * kernels between two GEMMs into one, which moves the largest of their traffics (an elementwise
 * chain over the same elements reads its inputs once and writes its output once). A step begins
 * with the CPU and GPU in step (the loss's or GradScaler's .item() synchronises every step).
 */
#ifndef DMLSIM_KCOST_H
#define DMLSIM_KCOST_H

#include "calib.h"
#include "catalog.h"
#include "model.h"

#include <stdbool.h>

/* The host's cost of issuing one kernel eagerly (<training kernel-launch>'s default): a CUDA
 * kernel launch takes 5-20 us on the CPU side (Meta, HolisticTraceAnalysis, docs/source/features/
 * cuda_kernel_launch_stats.rst): the lower end; an eager PyTorch op costs 3.6 us on tiny tensors
 * (280,000 ops/s, H. He, "Making Deep Learning Go Brrrr From First Principles") to 5-7 us
 * (pytorch/pytorch issue #41383). */
#define KCOST_LAUNCH_S 5e-6

/* A kernel's least GPU time: 80 small kernels in one CUDA graph take 70 us (CUDA.jl
 * documentation, "CUDA graphs", RK4 example), 0.875 us each. */
#define GPU_KERNEL_MIN_S (70e-6 / 80)

/* FlashAttention's fraction of the 16-bit dense peak. FlashAttention-2 (Dao 2023, abstract and
 * section 4.1): forward up to 73%, backward up to 63% of A100's; FlashAttention-3 (Shah et al.
 * 2024): forward 740 TFLOP/s in FP16 on H100, 75% of 989; its backward is given only as 1.5-1.75x
 * FlashAttention-2's, so the backward takes FlashAttention-2's backward/forward ratio (63/73). */
#define FLASH2_FWD    0.73
#define FLASH2_BWD    0.63
#define FLASH3_FWD    (740.0 / 989)
#define FLASH_BLOCK_Q 128 /* queries per thread block (FlashAttention-2, section 3.2) */

/* Winograd (Lavin and Gray 2016, "Fast Algorithms for Convolutional Neural Networks"): F(2x2,
 * 3x3) multiplies 16 times for a 2x2 output tile instead of 36 (2.25x fewer), F(4x4, 3x3) 36
 * times for 4x4 outputs instead of 144 (4x). cuDNN runs 3x3 stride-1 convolutions in FP32 as
 * fused F(2x2) (transforms in shared memory) or non-fused F(4x4) (transforms through memory) when
 * faster than implicit GEMM (cudnn.benchmark / cuDNN's heuristics); the model takes the fastest
 * of the three for the forward and the input gradient in FP32. */
#define WINOGRAD_F2x3 2.25
#define WINOGRAD_F4x3 4.0

enum host_mode {
    HOST_EAGER,    /* every kernel issued by the CPU (PyTorch eager) */
    HOST_GRAPHS,   /* one CUDA graph a step */
    HOST_COMPILED, /* a graph of fused kernels (torch.compile, XLA) */
};

struct kstream;

/* What a GPU kernel costs besides its work (the framework and driver; <training>): */
struct kernel_costs {
    double launch_s;     /* the CPU's cost of issuing one kernel (eager), or one graph */
    bool per_tensor_opt; /* the optimizer runs one kernel per parameter tensor (else fused) */
    enum host_mode host; /* how the host issues the kernels */
    bool autocast;       /* 16-bit as PyTorch's autocast (kcost_amp_bytes_per_param) */
    /* the framework's work on the host and the stream after layer l's backward kernels are
     * issued (DDP's autograd hooks); returns the GPU time it adds. NULL: none */
    double (*after_bwd)(void *ctx, size_t l, struct kstream *st, const struct kernel_costs *kc);
    void *after_bwd_ctx; /* its context */
};

/* Where a kernel runs. */
struct kcost_gpu {
    const struct calib *cal;
    const struct gpu_model *gpu;
    enum gpu_dtype dt;
    double mem_Bps; /* the calibrated memory rate */
};

/* One kernel's cost for a batch: GPU seconds, and its FLOPs (GEMMs and attention) and bytes
 * (memory-bound kernels). FP8's cast before a GEMM is returned apart in *cast_s and *cast_B. */
struct kcost {
    double s, flops, bytes, cast_s, cast_B;
    double sm_frac; /* the time-weighted fraction of the GPU's SMs its thread blocks occupy
                       (kcost_sm_frac_mem, gemm.h's tiles and waves, FlashAttention's blocks) */
};
void kcost_kernel(const struct kcost_gpu *g, const struct kernel *k, int batch, struct kcost *c);

/* The fraction of the SMs a memory-bound kernel moving `bytes` of dtype dt occupies: PyTorch's
 * elementwise kernels run 128 threads of 4 elements a block (ATen's CUDA thread constants:
 * num_threads() 128, thread_work_size() 4), each element read and written once at least:
 * blocks = bytes / (512 x 2 x element bytes), min(1, blocks / SMs). */
double kcost_sm_frac_mem(const struct gpu_model *gpu, enum gpu_dtype dt, double bytes);

/* The host issuing kernels: its clock, the GPU's, and the GPU's time spent waiting for it. */
struct kstream {
    double cpu, gpu, wait;
    bool started;
};

/* Issues one kernel of `gpu_s` on the stream; returns the GPU time it added (waiting included). */
double kstream_issue(struct kstream *s, const struct kernel_costs *kc, double gpu_s);

/* Bytes per parameter per step of mixed precision's own kernels. Pure 16-bit (a 16-bit model,
 * FP32 master weights in the optimizer): FP16's loss scaling unscales and checks every 16-bit
 * gradient (PyTorch GradScaler, _amp_foreach_non_finite_check_and_unscale_: 2 bytes read, 2
 * written); FP8 casts every BF16 weight to FP8 (Transformer Engine: 2 read, 1 written); BF16
 * none (its range needs no loss scaling). Autocast (FP32 weights and gradients): each weight cast
 * to 16-bit once a forward (autocast_mode.cpp's cached_cast: 4 read, 2 written) and its 16-bit
 * gradient cast back to FP32 (2 read, 4 written), and in FP16 the unscale over FP32 gradients (4
 * read, 4 written). FP32 and TF32: none. */
double kcost_amp_bytes_per_param(enum gpu_dtype dt, bool autocast);

/* The host mode's name (eager, graphs, compiled). */
const char *kcost_host_name(enum host_mode h);

#endif
