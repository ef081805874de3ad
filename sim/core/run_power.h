/* run_power.h - a run's GPU activity and power, per step and over the run (GPU-Util, SM
 * activity, power, energy), from its kernels and its step rows.
 *
 * What the GPU does in a step row of time T (for the GPU the row describes, as compute_s):
 *   - compute: gpu_busy_s (default compute_s), of which the share kernels run is that of one
 *     unloaded step's kernels (kclass_s less host_wait_s, over kclass_s): the rest is the GPU
 *     waiting for the host to issue (eager launches, kcost.h). K = gpu_busy_s x that share;
 *   - NCCL: C = nccl_s (default T - gpu_busy_s - input_s: the time not computing and not waiting
 *     for a batch is spent in NCCL kernels, which occupy the GPU while they wait on the network
 *     or on a peer: a data-parallel step's collective; in the hybrid strategy the tensor- and
 *     data-parallel collectives and the pipeline's waits, whose receive kernels (Megatron's
 *     batched isend/irecv are NCCL send/recv kernels on the stream) are posted before the peer
 *     sends, so a pipeline bubble reads as GPU-Util too, at the channels' SM share; the parameter
 *     server's workers wait on RPCs with no kernel: 0).
 * Then, as nvidia-smi and DCGM define them:
 *   gpu_util    = min(1, (K + C) / T)            NVML: "percent of time over the past sample
 *                                                period during which one or more kernels was
 *                                                executing on the GPU"
 *   sm_activity = (K s_k + C s_n) / T            DCGM_FI_PROF_SM_ACTIVE: the fraction of time
 *                                                an SM has a warp resident, averaged over SMs
 *   power_w     = power_mean_w(K a_k + a_n, T)   power.h
 * with s_k, a_k the kernels' time-weighted SM fraction and activity (kern_sm_s, kern_act_s over
 * their time), s_n an NCCL kernel's SM fraction (power_nccl_sm_frac) and a_n the activity-seconds
 * of NCCL's HBM traffic: POWER_MEM_WEIGHT x POWER_NCCL_HBM_PER_B x the bytes a GPU sent in the
 * step (the run's message bytes / workers / steps) / the HBM bandwidth.
 * Over the run each is the time-weighted mean over the step rows; energy = gpu_power_w x workers
 * x run time. A step row that absorbs a fault's detection and recovery counts that wait as NCCL
 * time (a hung collective's kernel spins until the timeout), a process restart included. Left
 * out: NCCL kernels that run while compute kernels wait for the host (GPU-Util is a lower bound
 * there); a GPU's power outside its step rows is taken as the mean.
 */
#ifndef DMLSIM_RUN_POWER_H
#define DMLSIM_RUN_POWER_H

#include "run.h"

/* Derives each step row's gpu_util, sm_activity and power_w and the run's means (run.h); no-op
 * (all 0) when r->gpu is NULL. Call after run_finish (job_finish does). */
void run_power_finish(struct run_record *r);

/* GPU span g's activity (run_gpu_span_add), as a step row's: after run_power_finish. */
void run_power_gpu_span(const struct run_record *r, const struct run_gpu_span *g, double *util,
                        double *sm, double *power_w);

#endif
