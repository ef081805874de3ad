/* power.h - a GPU's power draw from what its kernels do: idle plus a dynamic part, capped at TDP.
 *
 * The model (plain data, no SimGrid). While a kernel runs for s seconds doing F FLOPs and moving B
 * bytes through HBM on a GPU of dense peak R (the dtype's) and bandwidth W:
 *   u_c = F / (s R)                      compute intensity (tensor-core / FLOP rate vs. peak)
 *   u_m = B / (s W)                      memory intensity
 *   a   = min(1, u_c + POWER_MEM_WEIGHT u_m)   its dynamic activity
 *   P   = P_idle + (P_TDP - P_idle) a    its power
 * and with no kernel running P = P_idle. Over a step, the GPU's mean power is the time-weighted
 * mean of those (each kernel's activity capped on its own), so energy = P_idle T + (P_TDP -
 * P_idle) x (the kernels' activity-seconds).
 *
 * The weights are measurements, not fits:
 *   - compute: a kernel at the dtype's dense peak draws TDP (u_c = 1 gives a = 1): TDP is the
 *     board's rated power at full load, and tensor cores "running dense matrix multiplications at
 *     full throughput draw close to TDP" (the seed notes, "Reading nvidia-smi"); the achievable
 *     GEMM (80% of the peak on an H100, stas00's MAMF table) then draws 80% of the dynamic range;
 *   - memory: POWER_MEM_WEIGHT below, from LLM decode on an H200, which saturates HBM and draws
 *     at most 300 W of 700 W (Ma et al. 2026, "The Illusion of Power Capping in LLM Decode",
 *     arXiv 2605.11999: 137-300 W across four attention architectures): (300 - 70) / (700 - 70);
 *   - P_idle: P0 with no kernel running, measured on idle boards (catalog.c cites each); P_TDP the
 *     datasheet's board power. The form is AccelWattch's (Kandiah et al., MICRO 2021): constant
 *     and static power plus activity-weighted dynamic power, at the granularity of kernels
 *     rather than instructions.
 * NCCL kernels: while a collective is in flight its kernel occupies one SM per channel (NCCL
 * runs a channel's work on one thread block) and counts for GPU-Util even while it waits on the
 * network; its power is the HBM traffic of its reductions (POWER_NCCL_HBM_PER_B bytes per byte
 * it sends), at the memory weight: a V100 whose GPU-Util reads 100% while its job waits for
 * input (its collective waiting on peers) draws 66 W against 53 W idle of 300 W (zai-org/GLM-130B
 * issue #32); the model gives such a GPU 61 W (tools/power.sh).
 * Rejected: a power term per active SM (AccelWattch's idle-SM power): no published per-SM figure
 * for these GPUs was found; frequency scaling (DVFS) and thermal throttling: not modelled, so a
 * power-capped GPU is not slowed.
 */
#ifndef DMLSIM_POWER_H
#define DMLSIM_POWER_H

#include "catalog.h"

/* Dynamic activity per unit of memory intensity: HBM saturated by LLM decode draws 300 W of an
 * H200's 700 W (Ma et al. 2026, arXiv 2605.11999, abstract), idle 70 W (catalog.c, H100/H200). */
#define POWER_MEM_WEIGHT ((300.0 - 70) / (700.0 - 70))

/* HBM bytes an NCCL reduction moves per byte it sends: it loads its own chunk and the received
 * one and stores the sum (NCCL's reduceCopy in prims: 2 loads + 1 store). */
#define POWER_NCCL_HBM_PER_B 3.0

/* The GPU's board power limit and idle draw, W (catalog.c cites them). */
double power_tdp_w(const struct gpu_model *gpu);
double power_idle_w(const struct gpu_model *gpu);

/* A kernel's dynamic activity in [0, 1]: s seconds doing `flops` FLOPs at dense peak
 * `peak_flops` and moving `bytes` at bandwidth `mem_Bps` (formula above); 0 when s <= 0. */
double power_activity(double s, double flops, double bytes, double peak_flops, double mem_Bps);

/* Mean power, W, of a GPU over a span of t_s seconds whose kernels' activity-seconds (the sum of
 * each kernel's time x activity) are act_s: P_idle + (P_TDP - P_idle) x min(1, act_s / t_s). */
double power_mean_w(const struct gpu_model *gpu, double act_s, double t_s);

/* The fraction of the GPU's SMs an NCCL kernel occupies: its channels (NCCL's count on one node,
 * min(32, 2 x NVLinks per GPU): ncclTopoPostset doubles the one channel per NVLink its search
 * finds, nccl_tune.h; 2 over PCIe) over the SMs. */
double power_nccl_sm_frac(const struct gpu_model *gpu);

#endif
