/* metric.c - the common metric table: what every strategy's record has (see metric.h). */
#include "metric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job's last evaluation (a side cut off from the store evaluates its own model), or NULL. */
static const struct run_eval *last_eval(const struct run_record *r)
{
    for (size_t i = r->nevals; i-- > 0;)
        if (r->evals[i].side == 0) return &r->evals[i];
    return NULL;
}

/* The value of each metric in a run record. */
#define GET(name, expr) \
    static double get_##name(const struct run_record *r) \
    { \
        return (double)(expr); \
    }
GET(workers, r->workers)
GET(global_batch, r->global_batch)
GET(time_s, r->total_s)
GET(steps, r->steps)
GET(mean_step_s, r->mean_step_s)
GET(throughput, r->throughput)
GET(one_gpu_step_s, r->one_gpu_s)
GET(efficiency, r->efficiency)
GET(compute_tflops, r->compute_flops_s / 1e12)
GET(compute_peak_fraction, r->compute_peak_frac)
GET(host_wait_fraction, r->host_wait_frac)
GET(gpu_util, r->gpu_util)
GET(sm_activity, r->sm_activity)
GET(gpu_power_w, r->gpu_power_w)
GET(gpu_tdp_w, r->gpu_tdp_w)
GET(gpu_power_fraction, r->gpu_tdp_w > 0 ? r->gpu_power_w / r->gpu_tdp_w : 0)
GET(gpu_energy_j, r->gpu_energy_j)
GET(exposed_s, r->exposed_s)
GET(idle_fraction, r->idle_frac)
GET(goodput, r->goodput)
GET(grad_bytes, r->grad_B)
GET(messages, r->messages)
GET(bytes, r->bytes)
GET(steps_completed, r->steps_completed)
GET(lost_steps, r->lost_steps)
GET(membership_changes, r->membership_changes)
GET(failures_detected, r->failures_detected)
GET(removed_stragglers, r->removed_stragglers)
GET(final_workers, r->final_workers)
GET(max_detect_s, r->max_detect_s)
GET(max_recover_s, r->max_recover_s)
GET(checkpoints, r->checkpoints)
GET(checkpoint_bytes, r->ckpt_B)
GET(checkpoint_overhead_s, r->ckpt_overhead_s)
GET(computed, r->computed)
GET(applied, r->applied)
GET(dropped_stale, r->dropped_stale)
GET(dropped_late, r->dropped_late)
GET(lost_gradients, r->lost_gradients)
GET(dropped_gradients, r->dropped_stale + r->dropped_late)
GET(read_samples, r->read_samples)
GET(consumed_samples, r->consumed_samples)
GET(skipped_samples, r->skipped_samples)
GET(dropped_samples, r->dropped_samples)
GET(replayed_samples, r->replayed_samples)
GET(accounting_ok, run_identities_hold(r))
GET(job_failed, r->job_failed)
GET(input_wait_s, r->input_wait_s)
GET(input_fraction, r->input_frac)
GET(input_bound, r->input_bound)
GET(shuffle_buffer_bytes, r->shuffle_buffer_B)
GET(shuffle_displacement, r->shuffle_moved)
GET(cache_hit_fraction, r->cache_hits + r->cache_misses > 0
                                ? r->cache_hits / (r->cache_hits + r->cache_misses)
                                : 0)
GET(final_accuracy, last_eval(r) ? last_eval(r)->accuracy : 0)
GET(final_loss, last_eval(r) ? last_eval(r)->loss : 0)
GET(time_to_accuracy_s, r->time_to_accuracy_s)
GET(steps_to_accuracy, r->steps_to_accuracy)
#undef GET

static bool has_gpu_power(const struct run_record *r)
{
    return r->gpu_tdp_w > 0;
}

static bool has_numerics(const struct run_record *r)
{
    return r->numerics;
}

static bool has_input(const struct run_record *r)
{
    return r->input;
}

static bool has_cache(const struct run_record *r)
{
    return r->cache;
}

static bool has_buffer(const struct run_record *r)
{
    return r->shuffle_buffer_B > 0;
}

static bool reached_target(const struct run_record *r)
{
    return r->numerics && r->steps_to_accuracy >= 0;
}

/* The common rows, in order. */
static const struct metric metrics[] = {
        {.name = "workers", .unit = "1", .order = 10, .schema = "count",
         .meaning = "workers at the start",
         .text_for = METRIC_ALL, .label = "workers", .text = "%.0f", .scale = 1,
         .column = "gpus", .col = 1, .width = 8, .prec = 0, .get = get_workers},
        {.name = "global_batch", .unit = "samples", .order = 20, .schema = "count",
         .meaning = "samples of one step at the start (workers x batch, or the PS quorum)",
         .text_for = METRIC_ALL, .text = ", global batch %.0f", .scale = 1,
         .column = "batch", .col = 2, .width = 8, .prec = 0, .get = get_global_batch},
        {.name = "time_s", .unit = "s", .order = 30, .schema = "nonneg",
         .meaning = "run time: when the last step ended",
         .text_for = METRIC_ALL, .label = "run time", .text = "%.6f s", .scale = 1,
         .get = get_time_s},
        {.name = "steps", .unit = "1", .order = 40, .schema = "count",
         .meaning = "step rows (completed steps, repeats after a rollback included)",
         .text_for = METRIC_ALL, .text = ", %.0f step(s)", .scale = 1, .get = get_steps},
        {.name = "throughput", .unit = "samples/s", .order = 50, .schema = "nonneg",
         .meaning = "samples whose gradients were computed in a completed step (applied or "
                    "dropped) / run time",
         .text_for = METRIC_ALL, .label = "throughput", .text = "%.1f samples/s", .scale = 1,
         .column = "samples/s", .col = 4, .width = 12, .prec = 1, .get = get_throughput},
        {.name = "mean_step_s", .unit = "s", .order = 60, .schema = "nonneg",
         .meaning = "run time / step rows",
         .text_for = METRIC_ALL, .text = ", mean step %.3f ms", .scale = 1000,
         .column = "step_ms", .col = 3, .width = 12, .prec = 3, .col_scale = 1e3,
         .get = get_mean_step_s},
        {.name = "one_gpu_step_s", .unit = "s", .order = 70, .schema = "nonneg",
         .meaning = "one GPU's step alone at its nominal speed (its kernels and the update, "
                    "unloaded): the scaling baseline; 0 for hybrid, where no GPU holds the "
                    "whole model",
         .text_for = METRIC_DATA_PARALLEL, .label = "1-GPU step", .text = "%.3f ms (compute only)",
         .scale = 1000, .get = get_one_gpu_step_s},
        {.name = "efficiency", .unit = "1", .order = 80, .schema = "nonneg",
         .meaning = "throughput / (workers x batch / one_gpu_step_s): a straggler lowers it; "
                    "0 where no one-GPU baseline exists (hybrid)",
         .text_for = METRIC_DATA_PARALLEL, .text = ": scaling efficiency %.1f%%", .scale = 100,
         .column = "eff", .col = 5, .width = 10, .prec = 4, .get = get_efficiency},
        {.name = "compute_tflops", .unit = "TFLOP/s", .order = 90, .schema = "nonneg",
         .meaning = "effective compute rate of a GPU: the FLOPs of a step / its mean compute time",
         .text_for = METRIC_DATA_PARALLEL, .label = "compute", .line = METRIC_LINE_KERNELS,
         .text = "%.1f TFLOP/s per GPU", .scale = 1, .get = get_compute_tflops},
        {.name = "compute_peak_fraction", .unit = "1", .order = 100, .schema = "nonneg",
         .meaning = "compute_tflops / the GPU's dense peak for the dtype",
         .text_for = METRIC_DATA_PARALLEL, .text = ", %.1f%% of the dtype's peak", .scale = 100,
         .get = get_compute_peak_fraction},
        {.name = "host_wait_fraction", .unit = "1", .order = 110, .schema = "nonneg",
         .meaning = "share of a step's GPU time spent waiting for the host to issue kernels "
                    "(eager launches, kcost.h): the step is CPU-bound when it is large",
         .text_for = METRIC_DATA_PARALLEL, .label = "host wait",
         .text = "%.1f%% of the GPU's step waiting for the CPU", .scale = 100,
         .get = get_host_wait_fraction},
        {.name = "gpu_util", .unit = "1", .order = 112, .schema = "fraction",
         .meaning = "a GPU's GPU-Util as nvidia-smi reports it: the fraction of the steps' time "
                    "at least one kernel (compute or NCCL) runs (run_power.h)",
         .text_for = METRIC_ALL, .label = "gpu activity",
         .text = "GPU-Util %.1f%%", .scale = 100, .get = get_gpu_util, .shown = has_gpu_power},
        {.name = "sm_activity", .unit = "1", .order = 113, .schema = "fraction",
         .meaning = "a GPU's SM activity as DCGM's SM_ACTIVE: the time-weighted fraction of its "
                    "SMs with work over the steps",
         .text_for = METRIC_ALL, .text = ", SM activity %.1f%%",
         .scale = 100, .get = get_sm_activity, .shown = has_gpu_power},
        {.name = "gpu_power_w", .unit = "W", .order = 114, .schema = "nonneg",
         .meaning = "a GPU's mean power over the steps: idle plus the kernels' dynamic part, "
                    "capped at TDP (power.h)",
         .text_for = METRIC_ALL, .text = ", power %.0f W", .scale = 1,
         .get = get_gpu_power_w, .shown = has_gpu_power},
        {.name = "gpu_tdp_w", .unit = "W", .order = 115, .schema = "nonneg",
         .meaning = "the GPU's TDP, the catalog's board power limit",
         .text_for = METRIC_ALL, .text = " of %.0f W TDP", .scale = 1,
         .get = get_gpu_tdp_w, .shown = has_gpu_power},
        {.name = "gpu_power_fraction", .unit = "1", .order = 116, .schema = "fraction",
         .meaning = "gpu_power_w / gpu_tdp_w",
         .text_for = METRIC_ALL, .text = " (%.0f%%)", .scale = 100,
         .get = get_gpu_power_fraction, .shown = has_gpu_power},
        {.name = "gpu_energy_j", .unit = "J", .order = 117, .schema = "nonneg",
         .meaning = "the GPUs' energy: gpu_power_w x workers x run time",
         .text_for = METRIC_ALL, .label = "gpu energy",
         .text = "%.1f J (mean power x GPUs x run time)", .scale = 1, .get = get_gpu_energy_j,
         .shown = has_gpu_power},
        {.name = "exposed_s", .unit = "s", .order = 120, .schema = "nonneg",
         .meaning = "mean over step rows of the step time not covered by compute",
         .text_for = METRIC_ALL, .label = "exposed",
         .text = "%.3f ms per step not covered by compute", .scale = 1000,
         .column = "exposed_ms", .col = 6, .width = 12, .prec = 3, .col_scale = 1e3,
         .get = get_exposed_s},
        {.name = "idle_fraction", .unit = "1", .order = 130, .schema = "fraction",
         .meaning = "1 - compute time of all workers / (workers x run time)",
         .text_for = METRIC_ALL, .label = "idle fraction",
         .text = "%.4f (workers' time not computing)", .scale = 1,
         .column = "idle", .col = 8, .width = 8, .prec = 4, .get = get_idle_fraction},
        {.name = "goodput", .unit = "samples/s", .order = 140, .schema = "nonneg",
         .meaning = "samples whose gradients are in the final model / run time",
         .text_for = METRIC_ALL, .label = "goodput",
         .text = "%.1f samples/s (samples in the final model)", .scale = 1,
         .column = "goodput", .col = 10, .width = 12, .prec = 1, .get = get_goodput},
        {.name = "grad_bytes", .unit = "B", .order = 150, .schema = "nonneg",
         .meaning = "gradient bytes a worker exchanges per step",
         .text_for = METRIC_DATA_PARALLEL, .label = "gradient bytes", .text = "%.0f B per step",
         .scale = 1, .get = get_grad_bytes},
        {.name = "messages", .unit = "1", .order = 320, .schema = "count",
         .meaning = "simulated messages sent",
         .text_for = METRIC_ALL, .label = "messages", .line = METRIC_LINE_LINK_CLASSES,
         .text = "%.0f sent", .scale = 1, .column = "messages", .col = 7, .width = 12, .prec = 0,
         .get = get_messages},
        {.name = "bytes", .unit = "B", .order = 330, .schema = "nonneg",
         .meaning = "bytes of the simulated messages",
         .text_for = METRIC_ALL, .text = ", %.0f B", .scale = 1, .get = get_bytes},
        {.name = "steps_completed", .unit = "1", .order = 430, .schema = "count",
         .meaning = "global steps committed (all-reduce) / versions every shard reached (ps)",
         .text_for = METRIC_ALL, .label = "steps committed", .line = METRIC_LINE_ELASTIC,
         .text = "%.0f", .scale = 1, .get = get_steps_completed},
        {.name = "lost_steps", .unit = "1", .order = 440, .schema = "count",
         .meaning = "step executions thrown away (failed or rolled back)",
         .text_for = METRIC_ALL, .text = "; step executions lost %.0f", .scale = 1,
         .get = get_lost_steps},
        {.name = "membership_changes", .unit = "1", .order = 450, .schema = "count",
         .meaning = "memberships formed after the first",
         .text_for = METRIC_ALL, .text = "; memberships after the first %.0f", .scale = 1,
         .get = get_membership_changes},
        {.name = "failures_detected", .unit = "1", .order = 460, .schema = "count",
         .meaning = "failures the survivors reported",
         .text_for = METRIC_ALL, .text = "; failures reported %.0f", .scale = 1,
         .get = get_failures_detected},
        {.name = "removed_stragglers", .unit = "1", .order = 470, .schema = "count",
         .meaning = "workers removed for being persistently slow",
         .text_for = METRIC_ALL, .text = "; stragglers removed %.0f", .scale = 1,
         .get = get_removed_stragglers},
        {.name = "final_workers", .unit = "1", .order = 480, .schema = "count",
         .meaning = "all-reduce: live workers of the last membership; ps: workers that finished "
                    "every step",
         .text_for = METRIC_ALL, .text = "; final workers %.0f", .scale = 1,
         .get = get_final_workers},
        {.name = "max_detect_s", .unit = "s", .order = 490, .schema = "nonneg",
         .meaning = "longest time from a fault to its first report",
         .text_for = METRIC_ALL, .label = "detect/recover", .text = "longest %.6f s to detect",
         .scale = 1, .get = get_max_detect_s},
        {.name = "max_recover_s", .unit = "s", .order = 500, .schema = "nonneg",
         .meaning = "longest time from a fault to training progressing again",
         .text_for = METRIC_ALL, .text = ", %.6f s to resume training", .scale = 1,
         .get = get_max_recover_s},
        {.name = "input_wait_s", .unit = "s", .order = 510, .schema = "nonneg",
         .meaning = "<data>: a worker's mean wait for its next batch before a forward",
         .text_for = METRIC_ALL, .label = "input", .line = METRIC_LINE_INPUT,
         .text = "%.6f s a batch waited for", .scale = 1,
         .column = "input_ms", .col = 14, .width = 10, .prec = 3, .col_scale = 1e3,
         .get = get_input_wait_s,
         .shown = has_input},
        {.name = "input_fraction", .unit = "1", .order = 520, .schema = "fraction",
         .meaning = "<data>: the workers' time spent waiting for batches (their waits / (workers "
                    "x run time))",
         .text_for = METRIC_ALL, .text = ", %.1f%% of the workers' time", .scale = 100,
         .get = get_input_fraction, .shown = has_input},
        {.name = "input_bound", .unit = "1", .order = 530, .schema = "flag",
         .meaning = "<data>: 1 if waiting for batches is at least 1% of the workers' time and "
                    "most of their idle time (the pipeline holds the GPUs back)",
         .text_for = METRIC_ALL, .scale = 1, .yes = "; input-bound", .no = "; not input-bound",
         .get = get_input_bound, .shown = has_input},
        {.name = "cache_hit_fraction", .unit = "1", .order = 540, .schema = "fraction",
         .meaning = "<data cache>: the share of the samples trained on that their node's cache "
                    "tier held",
         .text_for = METRIC_ALL, .text = "; cache hits %.1f%%", .scale = 100,
         .get = get_cache_hit_fraction, .shown = has_cache},
        {.name = "shuffle_buffer_bytes", .unit = "B", .order = 550, .schema = "nonneg",
         .meaning = "<data shuffle=\"buffer\">: the shuffle buffers of a GPU's loader workers "
                    "(workers x buffer x sample size)",
         .text_for = METRIC_ALL, .text = "; shuffle buffers %.0f B a GPU", .scale = 1,
         .get = get_shuffle_buffer_bytes, .shown = has_buffer},
        {.name = "shuffle_displacement", .unit = "samples", .order = 560, .schema = "nonneg",
         .meaning = "<data shuffle=\"buffer\">: how far a sample moves through a buffer, on "
                    "average (a full shuffle: about a third of the stream)",
         .text_for = METRIC_ALL, .text = ", a sample moved %.1f places", .scale = 1,
         .get = get_shuffle_displacement, .shown = has_buffer},
        {.name = "checkpoints", .unit = "1", .order = 590, .schema = "count",
         .meaning = "checkpoints completed",
         .text_for = METRIC_ALL, .label = "checkpoints", .text = "%.0f", .scale = 1,
         .get = get_checkpoints},
        {.name = "checkpoint_bytes", .unit = "B", .order = 600, .schema = "nonneg",
         .meaning = "size of one checkpoint (all shards)",
         .text_for = METRIC_ALL, .text = " of %.0f B", .scale = 1, .get = get_checkpoint_bytes},
        {.name = "checkpoint_overhead_s", .unit = "s", .order = 610, .schema = "nonneg",
         .meaning = "training time spent blocked on checkpoints",
         .text_for = METRIC_ALL, .text = "; writers blocked %.6f s", .scale = 1,
         .get = get_checkpoint_overhead_s},
        {.name = "computed", .unit = "1", .order = 620, .schema = "count",
         .meaning = "gradients computed (all-reduce: replicas; ps: slices)",
         .text_for = METRIC_ALL, .label = "gradients", .line = METRIC_LINE_IDENTITY,
         .text = "%.0f computed", .scale = 1, .get = get_computed},
        {.name = "applied", .unit = "1", .order = 630, .schema = "count",
         .meaning = "gradients applied",
         .text_for = METRIC_ALL, .text = " = %.0f applied", .scale = 1, .get = get_applied},
        {.name = "dropped_stale", .unit = "1", .order = 640, .schema = "count",
         .meaning = "gradients dropped for a version lag above the bound",
         .text_for = METRIC_ALL, .text = " + %.0f dropped stale", .scale = 1,
         .get = get_dropped_stale},
        {.name = "dropped_late", .unit = "1", .order = 650, .schema = "count",
         .meaning = "gradients that missed their version's quorum",
         .text_for = METRIC_ALL, .text = " + %.0f dropped late", .scale = 1,
         .get = get_dropped_late},
        {.name = "lost_gradients", .unit = "1", .order = 660, .schema = "count",
         .meaning = "gradients lost to failures",
         .text_for = METRIC_ALL, .text = " + %.0f lost to failures", .scale = 1,
         .get = get_lost_gradients},
        {.name = "dropped_gradients", .unit = "1", .order = 670, .schema = "count",
         .meaning = "dropped_stale + dropped_late",
         .scale = 1, .column = "dropped", .col = 9, .width = 10, .prec = 0,
         .get = get_dropped_gradients},
        {.name = "read_samples", .unit = "samples", .order = 680, .schema = "count",
         .meaning = "samples read by all workers",
         .text_for = METRIC_ALL, .label = "samples", .line = METRIC_LINE_IDENTITY,
         .text = "%.0f read", .scale = 1, .get = get_read_samples},
        {.name = "consumed_samples", .unit = "samples", .order = 690, .schema = "count",
         .meaning = "samples whose gradients are in the final model",
         .text_for = METRIC_ALL, .text = " = %.0f consumed", .scale = 1,
         .get = get_consumed_samples},
        {.name = "skipped_samples", .unit = "samples", .order = 700, .schema = "count",
         .meaning = "samples skipped as corrupt: whole corrupt batches, and the samples of "
                    "corrupt shards",
         .text_for = METRIC_ALL, .text = " + %.0f skipped corrupt", .scale = 1,
         .get = get_skipped_samples},
        {.name = "dropped_samples", .unit = "samples", .order = 710, .schema = "count",
         .meaning = "samples whose gradients were dropped stale or late",
         .text_for = METRIC_ALL, .text = " + %.0f dropped stale or late", .scale = 1,
         .get = get_dropped_samples},
        {.name = "replayed_samples", .unit = "samples", .order = 720, .schema = "count",
         .meaning = "samples read in work lost to a failure (read again)",
         .text_for = METRIC_ALL, .text = " + %.0f replayed", .scale = 1,
         .get = get_replayed_samples},
        {.name = "accounting_ok", .unit = "1", .order = 730, .schema = "flag",
         .meaning = "1 if both accounting identities hold",
         .text_for = METRIC_ALL, .label = "accounting", .scale = 1,
         .yes = "both identities hold", .no = "VIOLATED", .get = get_accounting_ok},
        {.name = "job_failed", .unit = "1", .order = 740, .schema = "flag",
         .meaning = "1 if the simulated job could not finish its steps",
         .text_for = METRIC_ALL, .label = "job", .scale = 1,
         .yes = "FAILED (see stderr)", .no = "completed",
         .column = "failed", .col = 11, .width = 7, .prec = 0, .get = get_job_failed},
        {.name = "final_accuracy", .unit = "1", .order = 750, .schema = "fraction",
         .meaning = "numerics: test accuracy at the last evaluation",
         .text_for = METRIC_ALL, .label = "accuracy", .text = "%.4f at the end", .scale = 1,
         .column = "accuracy", .col = 12, .width = 9, .prec = 4, .get = get_final_accuracy,
         .shown = has_numerics},
        {.name = "final_loss", .unit = "1", .order = 760, .schema = "nonneg",
         .meaning = "numerics: test loss (mean cross-entropy) at the last evaluation",
         .text_for = METRIC_ALL, .text = ", test loss %.4f", .scale = 1, .get = get_final_loss,
         .shown = has_numerics},
        {.name = "time_to_accuracy_s", .unit = "s", .order = 770,
         .schema = "{\"type\": [\"number\", \"null\"], \"minimum\": 0}",
         .meaning = "numerics: simulated time of the first evaluation at or above the target "
                    "(inf: not reached)",
         .text_for = METRIC_ALL, .label = "time to target", .text = "%.6f s", .scale = 1,
         .column = "tta_ms", .col = 13, .width = 10, .prec = 3, .col_scale = 1e3,
         .get = get_time_to_accuracy_s,
         .shown = has_numerics},
        {.name = "steps_to_accuracy", .unit = "1", .order = 780,
         .schema = "{\"type\": \"integer\", \"minimum\": -1}",
         .meaning = "numerics: steps committed at that evaluation (-1: not reached)",
         .text_for = METRIC_ALL, .text = ", step %.0f", .scale = 1, .get = get_steps_to_accuracy,
         .shown = reached_target},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

static bool bytes_on(const struct run_record *r, const char *cls, double *out)
{
    *out = 0;
    for (size_t i = 0; i < r->nclasses; i++)
        if (strcmp(r->class_name[i], cls) == 0) *out = r->class_B[i];
    return cls[0] != '\0';
}

/* An input pipeline's figure of the entry `arg` names among names[0..n): value(r, i), or 0 with
 * no pipeline; false if no entry is called that. */
static bool input_entry(const struct run_record *r, const char *arg, const char *const *names,
                        int n, double (*value)(const struct run_record *, int), double *out)
{
    *out = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0) {
            if (r->input) *out = value(r, i);
            return true;
        }
    return false;
}

static bool stage_busy(const struct run_record *r, const char *stage, double *out)
{
    return input_entry(r, stage, run_stage_names, RUN_STAGES, run_stage_busy, out);
}

static bool resource_util(const struct run_record *r, const char *res, double *out)
{
    return input_entry(r, res, run_resource_names, RUN_RESOURCES, run_resource_util, out);
}

static const struct metric_family families[] = {
        {.prefix = "bytes_on:", .arg = "CLASS", .unit = "B", .order = 10,
         .meaning = "bytes carried by link class CLASS (bytes_on:ib-ndr; 0 if unused)",
         .get = bytes_on},
        {.prefix = "stage_busy:", .arg = "STAGE", .unit = "1", .order = 40,
         .meaning = "<data>: fraction of the run the input stage STAGE (read, decode, copy) kept "
                    "its actors busy",
         .get = stage_busy},
        {.prefix = "resource_util:", .arg = "RES", .unit = "1", .order = 50,
         .meaning = "<data>: what the input pipeline used of resource RES (nvme, store-disk, "
                    "network, cpu, pcie) over its capacity and the run",
         .get = resource_util},
};
#define NFAMILIES (sizeof families / sizeof families[0])

static const struct metric_table common = {metrics, NMETRICS, families, NFAMILIES};

const struct metric_table *metric_common(void)
{
    return &common;
}

unsigned metric_strategy_bit(const struct run_record *r)
{
    return METRIC_FOR(r->strategy_id);
}
