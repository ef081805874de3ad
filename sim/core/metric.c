/* metric.c - the metric table (see metric.h). */
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
GET(one_gpu_step_s, r->compute1_s)
GET(efficiency, r->efficiency)
GET(compute_tflops, r->compute_flops_s / 1e12)
GET(compute_peak_fraction, r->compute_peak_frac)
GET(host_wait_fraction, r->host_wait_frac)
GET(exposed_s, r->exposed_s)
GET(idle_fraction, r->idle_frac)
GET(goodput, r->goodput)
GET(grad_bytes, r->grad_B)
GET(buckets, r->nbuckets)
GET(shards, r->nshards)
GET(messages, r->messages)
GET(bytes, r->bytes)
GET(failed_collectives, r->failures)
GET(version_spread, r->spread_max)
GET(disagree_fraction, r->spread_frac)
GET(coordinator_messages, r->coordinator_msgs)
GET(mixed_pulls, r->mixed_pulls)
GET(coordinator_version, r->coordinator_global)
GET(coordinator_spread, r->coordinator_spread)
GET(shard_imbalance, r->imbalance)
GET(lost_updates, r->lost_updates)
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
GET(sides, r->sides)
GET(divergence_l2, r->divergence_l2)
GET(final_accuracy, last_eval(r) ? last_eval(r)->accuracy : 0)
GET(final_loss, last_eval(r) ? last_eval(r)->loss : 0)
GET(time_to_accuracy_s, r->time_to_accuracy_s)
GET(steps_to_accuracy, r->steps_to_accuracy)
GET(mfu, r->mfu)
GET(tokens_per_s, r->tokens_s)
GET(pipeline_s, r->par_pipe_s)
GET(bubble_fraction, r->par_bubble_frac)
GET(par_compute_s, r->par_compute_s)
GET(tp_exposed_s, r->par_tp_s)
GET(bubble_s, r->par_bubble_s)
GET(dp_exposed_s, r->par_dp_s)
GET(update_s, r->par_update_s)
GET(tp_bytes, r->par_bytes[0])
GET(pp_bytes, r->par_bytes[1])
GET(dp_bytes, r->par_bytes[2])
GET(ep_bytes, r->par_bytes[3])
GET(memory_per_gpu_bytes, r->mem.total_B)
#undef GET

static bool has_numerics(const struct run_record *r)
{
    return r->numerics;
}

static bool has_hybrid(const struct run_record *r)
{
    return r->hybrid;
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

static bool split_brain(const struct run_record *r)
{
    return r->sides > 1;
}

static bool split_numerics(const struct run_record *r)
{
    return r->sides > 1 && r->numerics;
}

static bool reached_target(const struct run_record *r)
{
    return r->numerics && r->steps_to_accuracy >= 0;
}

static bool has_coordinator(const struct run_record *r)
{
    return r->coordinator;
}

/* Text lines are runs of consecutive rows with the same label, in this order. */
static const struct metric metrics[] = {
        {"workers", "1", "workers at the start", METRIC_ALL, "workers", "%.0f", 1, NULL, NULL,
         "gpus", 1, 8, 0, get_workers, NULL},
        {"global_batch", "samples",
         "samples of one step at the start (workers x batch, or the PS quorum)", METRIC_ALL,
         "workers", ", global batch %.0f", 1, NULL, NULL, "batch", 2, 8, 0, get_global_batch, NULL},
        {"time_s", "s", "run time: when the last step ended", METRIC_ALL, "run time", "%.6f s", 1,
         NULL, NULL, NULL, 0, 0, 0, get_time_s, NULL},
        {"steps", "1", "step rows (completed steps, repeats after a rollback included)", METRIC_ALL,
         "run time", ", %.0f step(s)", 1, NULL, NULL, NULL, 0, 0, 0, get_steps, NULL},
        {"throughput", "samples/s",
         "samples whose gradients were computed in a completed step (applied or dropped) / run "
         "time",
         METRIC_ALL, "throughput", "%.1f samples/s", 1, NULL, NULL, "samples/s", 4, 12, 1,
         get_throughput, NULL},
        {"mean_step_s", "s", "run time / step rows", METRIC_ALL, "throughput",
         ", mean step %.3f ms", 1000, NULL, NULL, "step_ms", 3, 12, 3, get_mean_step_s, NULL},
        {"one_gpu_step_s", "s", "mean compute of a step (the slowest worker's): a step on one GPU",
         METRIC_DATA_PARALLEL, "1-GPU step", "%.3f ms (compute only)", 1000, NULL, NULL, NULL, 0, 0, 0,
         get_one_gpu_step_s, NULL},
        {"efficiency", "1", "throughput / (workers x batch / one_gpu_step_s)", METRIC_DATA_PARALLEL,
         "1-GPU step", ": scaling efficiency %.1f%%", 100, NULL, NULL, "eff", 5, 10, 4,
         get_efficiency, NULL},
        {"compute_tflops", "TFLOP/s",
         "effective compute rate of a GPU: the FLOPs of a step / its mean compute time", METRIC_DATA_PARALLEL,
         "compute", "%.1f TFLOP/s per GPU", 1, NULL, NULL, NULL, 0, 0, 0, get_compute_tflops, NULL},
        {"compute_peak_fraction", "1", "compute_tflops / the GPU's dense peak for the dtype",
         METRIC_DATA_PARALLEL, "compute", ", %.1f%% of the dtype's peak", 100, NULL, NULL, NULL, 0, 0, 0,
         get_compute_peak_fraction, NULL},
        {"host_wait_fraction", "1",
         "share of a step's GPU time spent waiting for the host to issue kernels (eager "
         "launches, kcost.h): the step is CPU-bound when it is large",
         METRIC_DATA_PARALLEL, "host wait", "%.1f%% of the GPU's step waiting for the CPU", 100,
         NULL, NULL, NULL, 0, 0, 0, get_host_wait_fraction, NULL},
        {"exposed_s", "s", "mean over step rows of the step time not covered by compute",
         METRIC_ALL, "exposed", "%.3f ms per step not covered by compute", 1000, NULL, NULL,
         "exposed_ms", 6, 12, 3, get_exposed_s, NULL},
        {"idle_fraction", "1", "1 - compute time of all workers / (workers x run time)", METRIC_ALL,
         "idle fraction", "%.4f (workers' time not computing)", 1, NULL, NULL, "idle", 8, 8, 4,
         get_idle_fraction, NULL},
        {"goodput", "samples/s", "samples whose gradients are in the final model / run time",
         METRIC_ALL, "goodput", "%.1f samples/s (samples in the final model)", 1, NULL, NULL,
         "goodput", 10, 12, 1, get_goodput, NULL},
        {"grad_bytes", "B", "gradient bytes a worker exchanges per step", METRIC_DATA_PARALLEL,
         "gradient bytes", "%.0f B per step", 1, NULL, NULL, NULL, 0, 0, 0, get_grad_bytes, NULL},
        {"mfu", "1",
         "hybrid: model FLOPs utilisation, the model's forward and backward FLOPs (no "
         "recomputation) of the samples trained / (run time x GPUs x the dtype's dense peak)",
         METRIC_HYBRID, "parallel", "MFU %.1f%%", 100, NULL, NULL, "mfu", 15, 7, 4, get_mfu,
         has_hybrid},
        {"tokens_per_s", "tokens/s", "hybrid: tokens trained a second (samples x sequence length)",
         METRIC_HYBRID, "parallel", ", %.0f tokens/s", 1, NULL, NULL, "tokens/s", 16, 12, 0,
         get_tokens_per_s, has_hybrid},
        {"memory_per_gpu_bytes", "B",
         "memory per GPU (the \"# memory/gpu\" line; hybrid: on the stage that needs the most)",
         METRIC_HYBRID, "parallel", ", %.0f B per GPU", 1, NULL, NULL, NULL, 0, 0, 0,
         get_memory_per_gpu_bytes, has_hybrid},
        {"par_compute_s", "s", "hybrid: a rank's kernels in a step (mean over ranks and steps)",
         METRIC_HYBRID, "step breakdown", "compute %.3f ms", 1000, NULL, NULL, NULL, 0, 0, 0,
         get_par_compute_s, has_hybrid},
        {"tp_exposed_s", "s",
         "hybrid: a rank's tensor-parallel collectives and expert all-to-alls in a step (on the "
         "critical path)",
         METRIC_HYBRID, "step breakdown", " + tensor-parallel %.3f ms", 1000, NULL, NULL, NULL, 0,
         0, 0, get_tp_exposed_s, has_hybrid},
        {"bubble_s", "s",
         "hybrid: the pipeline phase a rank spends neither computing nor in collectives (the "
         "bubble and the waits for activations)",
         METRIC_HYBRID, "step breakdown", " + bubble %.3f ms", 1000, NULL, NULL, NULL, 0, 0, 0,
         get_bubble_s, has_hybrid},
        {"dp_exposed_s", "s",
         "hybrid: a rank's data-parallel collectives in a step (gradients; ZeRO's gathers)",
         METRIC_HYBRID, "step breakdown", " + data-parallel %.3f ms", 1000, NULL, NULL, NULL, 0, 0,
         0, get_dp_exposed_s, has_hybrid},
        {"update_s", "s", "hybrid: a rank's optimizer in a step", METRIC_HYBRID, "step breakdown",
         " + update %.3f ms", 1000, NULL, NULL, NULL, 0, 0, 0, get_update_s, has_hybrid},
        {"pipeline_s", "s", "hybrid: a step's pipeline phase, from its start to its last backward",
         METRIC_HYBRID, "pipeline", "%.3f ms a step", 1000, NULL, NULL, NULL, 0, 0, 0,
         get_pipeline_s, has_hybrid},
        {"bubble_fraction", "1", "hybrid: bubble_s / pipeline_s ((p - 1) / (m + p - 1) for "
         "uniform stages and free messages)", METRIC_HYBRID, "pipeline", ", bubble %.1f%% of it",
         100, NULL, NULL, "bubble", 17, 7, 4, get_bubble_fraction, has_hybrid},
        {"tp_bytes", "B", "hybrid: bytes of the tensor-parallel collectives' messages",
         METRIC_HYBRID, "bytes by group", "tensor %.0f B", 1, NULL, NULL, NULL, 0, 0, 0,
         get_tp_bytes, has_hybrid},
        {"pp_bytes", "B", "hybrid: bytes of the pipeline's activations and their gradients",
         METRIC_HYBRID, "bytes by group", ", pipeline %.0f B", 1, NULL, NULL, NULL, 0, 0, 0,
         get_pp_bytes, has_hybrid},
        {"dp_bytes", "B", "hybrid: bytes of the data-parallel collectives' messages",
         METRIC_HYBRID, "bytes by group", ", data %.0f B", 1, NULL, NULL, NULL, 0, 0, 0,
         get_dp_bytes, has_hybrid},
        {"ep_bytes", "B", "hybrid: bytes of the expert all-to-alls' messages", METRIC_HYBRID,
         "bytes by group", ", expert %.0f B", 1, NULL, NULL, NULL, 0, 0, 0, get_ep_bytes,
         has_hybrid},
        {"buckets", "1", "all-reduce: gradient buckets per step", METRIC_ALLREDUCE,
         "gradient bytes", " in %.0f bucket(s)", 1, NULL, NULL, NULL, 0, 0, 0, get_buckets, NULL},
        {"shards", "1", "parameter server: shards", METRIC_PS, "gradient bytes",
         " to %.0f shard(s)", 1, NULL, NULL, NULL, 0, 0, 0, get_shards, NULL},
        {"messages", "1", "simulated messages sent", METRIC_ALL, "messages", "%.0f sent", 1, NULL,
         NULL, "messages", 7, 12, 0, get_messages, NULL},
        {"bytes", "B", "bytes of the simulated messages", METRIC_ALL, "messages", ", %.0f B", 1,
         NULL, NULL, NULL, 0, 0, 0, get_bytes, NULL},
        {"failed_collectives", "1", "collectives that ended in a timeout or failure",
         METRIC_ALLREDUCE, "failed collectives", "%.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_failed_collectives, NULL},
        {"version_spread", "1", "largest difference between shard versions at one time", METRIC_PS,
         "shard versions", "max spread %.0f", 1, NULL, NULL, NULL, 0, 0, 0, get_version_spread,
         NULL},
        {"disagree_fraction", "1", "fraction of the run during which shards disagreed", METRIC_PS,
         "shard versions", ", shards disagreed %.1f%% of the time", 100, NULL, NULL, NULL, 0, 0, 0,
         get_disagree_fraction, NULL},
        {"mixed_pulls", "1",
         "pulls whose shards answered with different versions (a mixed, split-brain model)",
         METRIC_PS, "shard versions", ", %.0f pull(s) of mixed versions", 1, NULL, NULL, NULL, 0,
         0, 0, get_mixed_pulls, NULL},
        {"coordinator_messages", "1", "advances the version coordinator received", METRIC_PS,
         "coordinator", "%.0f advances received", 1, NULL, NULL, NULL, 0, 0, 0,
         get_coordinator_messages, has_coordinator},
        {"coordinator_version", "1",
         "the global version (minimum over shards) the coordinator last saw", METRIC_PS,
         "coordinator", ", global version %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_coordinator_version, has_coordinator},
        {"coordinator_spread", "1", "the largest version disagreement the coordinator saw",
         METRIC_PS, "coordinator", ", largest disagreement %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_coordinator_spread, has_coordinator},
        {"shard_imbalance", "1", "largest shard's parameters / mean", METRIC_PS, "shard imbalance",
         "largest / mean = %.3f", 1, NULL, NULL, NULL, 0, 0, 0, get_shard_imbalance, NULL},
        {"lost_updates", "1", "shard versions lost to a shard crash", METRIC_PS, "lost updates",
         "%.0f (shard versions lost to crashes)", 1, NULL, NULL, NULL, 0, 0, 0, get_lost_updates,
         NULL},
        {"steps_completed", "1",
         "global steps committed (all-reduce) / versions every shard reached (ps)", METRIC_ALL,
         "steps committed", "%.0f", 1, NULL, NULL, NULL, 0, 0, 0, get_steps_completed, NULL},
        {"lost_steps", "1", "step executions thrown away (failed or rolled back)", METRIC_ALL,
         "steps committed", "; step executions lost %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_lost_steps, NULL},
        {"membership_changes", "1", "memberships formed after the first", METRIC_ALL,
         "steps committed", "; memberships after the first %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_membership_changes, NULL},
        {"failures_detected", "1", "failures the survivors reported", METRIC_ALL, "steps committed",
         "; failures reported %.0f", 1, NULL, NULL, NULL, 0, 0, 0, get_failures_detected, NULL},
        {"removed_stragglers", "1", "workers removed for being persistently slow", METRIC_ALL,
         "steps committed", "; stragglers removed %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_removed_stragglers, NULL},
        {"final_workers", "1",
         "all-reduce: live workers of the last membership; ps: workers that finished every step",
         METRIC_ALL, "steps committed", "; final workers %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_final_workers, NULL},
        {"max_detect_s", "s", "longest time from a fault to its first report", METRIC_ALL,
         "detect/recover", "longest %.6f s to detect", 1, NULL, NULL, NULL, 0, 0, 0,
         get_max_detect_s, NULL},
        {"max_recover_s", "s", "longest time from a fault to training progressing again",
         METRIC_ALL, "detect/recover", ", %.6f s to resume training", 1, NULL, NULL, NULL, 0, 0, 0,
         get_max_recover_s, NULL},
        {"input_wait_s", "s", "<data>: a worker's mean wait for its next batch before a forward",
         METRIC_ALL, "input", "%.6f s a batch waited for", 1, NULL, NULL, "input_ms", 14, 10, 3,
         get_input_wait_s, has_input},
        {"input_fraction", "1",
         "<data>: the workers' time spent waiting for batches (their waits / (workers x run "
         "time))",
         METRIC_ALL, "input", ", %.1f%% of the workers' time", 100, NULL, NULL, NULL, 0, 0, 0,
         get_input_fraction, has_input},
        {"input_bound", "1",
         "<data>: 1 if waiting for batches is at least 1% of the workers' time and most of their "
         "idle time (the pipeline holds the GPUs back)",
         METRIC_ALL, "input", NULL, 1, "; input-bound", "; not input-bound", NULL, 0, 0, 0,
         get_input_bound, has_input},
        {"cache_hit_fraction", "1",
         "<data cache>: the share of the samples trained on that their node's cache tier held",
         METRIC_ALL, "input", "; cache hits %.1f%%", 100, NULL, NULL, NULL, 0, 0, 0,
         get_cache_hit_fraction, has_cache},
        {"shuffle_buffer_bytes", "B",
         "<data shuffle=\"buffer\">: the shuffle buffers of a GPU's loader workers (workers x "
         "buffer x sample size)",
         METRIC_ALL, "input", "; shuffle buffers %.0f B a GPU", 1, NULL, NULL, NULL, 0, 0, 0,
         get_shuffle_buffer_bytes, has_buffer},
        {"shuffle_displacement", "samples",
         "<data shuffle=\"buffer\">: how far a sample moves through a buffer, on average (a full "
         "shuffle: about a third of the stream)",
         METRIC_ALL, "input", ", a sample moved %.1f places", 1, NULL, NULL, NULL, 0, 0, 0,
         get_shuffle_displacement, has_buffer},
        {"sides", "1",
         "all-reduce, rendezvous=\"per-side\": the most sides of a partition training apart at "
         "one time (1: none)",
         METRIC_ALLREDUCE, "split brain", "%.0f sides trained apart", 1, NULL, NULL, NULL, 0, 0, 0,
         get_sides, split_brain},
        {"divergence_l2", "1",
         "numerics: the largest L2 distance between two sides' models when they merged or the "
         "run ended split",
         METRIC_ALLREDUCE, "split brain", "; their models %.6g apart (L2)", 1, NULL, NULL, NULL, 0,
         0, 0, get_divergence_l2, split_numerics},
        {"checkpoints", "1", "checkpoints completed", METRIC_ALL, "checkpoints", "%.0f", 1, NULL,
         NULL, NULL, 0, 0, 0, get_checkpoints, NULL},
        {"checkpoint_bytes", "B", "size of one checkpoint (all shards)", METRIC_ALL, "checkpoints",
         " of %.0f B", 1, NULL, NULL, NULL, 0, 0, 0, get_checkpoint_bytes, NULL},
        {"checkpoint_overhead_s", "s", "training time spent blocked on checkpoints", METRIC_ALL,
         "checkpoints", "; writers blocked %.6f s", 1, NULL, NULL, NULL, 0, 0, 0,
         get_checkpoint_overhead_s, NULL},
        {"computed", "1", "gradients computed (all-reduce: replicas; ps: slices)", METRIC_ALL,
         "gradients", "%.0f computed", 1, NULL, NULL, NULL, 0, 0, 0, get_computed, NULL},
        {"applied", "1", "gradients applied", METRIC_ALL, "gradients", " = %.0f applied", 1, NULL,
         NULL, NULL, 0, 0, 0, get_applied, NULL},
        {"dropped_stale", "1", "gradients dropped for a version lag above the bound", METRIC_ALL,
         "gradients", " + %.0f dropped stale", 1, NULL, NULL, NULL, 0, 0, 0, get_dropped_stale,
         NULL},
        {"dropped_late", "1", "gradients that missed their version's quorum", METRIC_ALL,
         "gradients", " + %.0f dropped late", 1, NULL, NULL, NULL, 0, 0, 0, get_dropped_late, NULL},
        {"lost_gradients", "1", "gradients lost to failures", METRIC_ALL, "gradients",
         " + %.0f lost to failures", 1, NULL, NULL, NULL, 0, 0, 0, get_lost_gradients, NULL},
        {"dropped_gradients", "1", "dropped_stale + dropped_late", 0, NULL, NULL, 1, NULL, NULL,
         "dropped", 9, 10, 0, get_dropped_gradients, NULL},
        {"read_samples", "samples", "samples read by all workers", METRIC_ALL, "samples",
         "%.0f read", 1, NULL, NULL, NULL, 0, 0, 0, get_read_samples, NULL},
        {"consumed_samples", "samples", "samples whose gradients are in the final model",
         METRIC_ALL, "samples", " = %.0f consumed", 1, NULL, NULL, NULL, 0, 0, 0,
         get_consumed_samples, NULL},
        {"skipped_samples", "samples", "samples skipped as corrupt: whole corrupt batches, and the samples of corrupt shards", METRIC_ALL, "samples",
         " + %.0f skipped corrupt", 1, NULL, NULL, NULL, 0, 0, 0, get_skipped_samples, NULL},
        {"dropped_samples", "samples", "samples whose gradients were dropped stale or late",
         METRIC_ALL, "samples", " + %.0f dropped stale or late", 1, NULL, NULL, NULL, 0, 0, 0,
         get_dropped_samples, NULL},
        {"replayed_samples", "samples", "samples read in work lost to a failure (read again)",
         METRIC_ALL, "samples", " + %.0f replayed", 1, NULL, NULL, NULL, 0, 0, 0,
         get_replayed_samples, NULL},
        {"accounting_ok", "1", "1 if both accounting identities hold", METRIC_ALL, "accounting",
         NULL, 1, "both identities hold", "VIOLATED", NULL, 0, 0, 0, get_accounting_ok, NULL},
        {"job_failed", "1", "1 if the simulated job could not finish its steps", METRIC_ALL, "job",
         NULL, 1, "FAILED (see stderr)", "completed", "failed", 11, 7, 0, get_job_failed, NULL},
        {"final_accuracy", "1", "numerics: test accuracy at the last evaluation", METRIC_ALL,
         "accuracy", "%.4f at the end", 1, NULL, NULL, "accuracy", 12, 9, 4, get_final_accuracy,
         has_numerics},
        {"final_loss", "1", "numerics: test loss (mean cross-entropy) at the last evaluation",
         METRIC_ALL, "accuracy", ", test loss %.4f", 1, NULL, NULL, NULL, 0, 0, 0, get_final_loss,
         has_numerics},
        {"time_to_accuracy_s", "s",
         "numerics: simulated time of the first evaluation at or above the target (inf: not "
         "reached)",
         METRIC_ALL, "time to target", "%.6f s", 1, NULL, NULL, "tta_ms", 13, 10, 3,
         get_time_to_accuracy_s, has_numerics},
        {"steps_to_accuracy", "1", "numerics: steps committed at that evaluation (-1: not reached)",
         METRIC_ALL, "time to target", ", step %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_steps_to_accuracy, reached_target},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

static bool bytes_on(const struct run_record *r, const char *cls, double *out)
{
    *out = 0;
    for (size_t i = 0; i < r->nclasses; i++)
        if (strcmp(r->class_name[i], cls) == 0) *out = r->class_B[i];
    return cls[0] != '\0';
}

/* group_bytes_on:GROUP.CLASS: the bytes a hybrid group's messages put on a link class. */
static bool group_bytes_on(const struct run_record *r, const char *arg, double *out)
{
    *out = 0;
    const char *dot = strchr(arg, '.');
    for (int g = 0; dot && g < 4; g++) {
        size_t n = strlen(run_group_names[g]);
        if ((size_t)(dot - arg) != n || strncmp(arg, run_group_names[g], n) != 0) continue;
        for (size_t k = 0; k < r->group_nclasses[g]; k++)
            if (strcmp(r->group_class[g][k], dot + 1) == 0) *out = r->group_class_B[g][k];
        return dot[1] != '\0';
    }
    return false;
}

static bool staleness_lag(const struct run_record *r, const char *lag, double *out)
{
    char *end;
    long k = strtol(lag, &end, 10);
    if (end == lag || *end != '\0' || k < 0 || k >= RUN_HIST) return false;
    *out = r->stale_hist[k];
    return true;
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
        {"bytes_on:", "CLASS", "B",
         "bytes carried by link class CLASS (bytes_on:ib-ndr; 0 if unused)", bytes_on},
        {"group_bytes_on:", "GROUP.CLASS", "B",
         "hybrid: bytes group GROUP's messages (tensor, pipeline, data, expert) put on link class "
         "CLASS (group_bytes_on:pipeline.ib-ndr; 0 if unused)",
         group_bytes_on},
        {"staleness_lag:", "N", "1",
         "ps: applied slices with version lag N, 0..16 (16: 16 or more)", staleness_lag},
        {"stage_busy:", "STAGE", "1",
         "<data>: fraction of the run the input stage STAGE (read, decode, copy) kept its actors "
         "busy", stage_busy},
        {"resource_util:", "RES", "1",
         "<data>: what the input pipeline used of resource RES (nvme, store-disk, network, cpu, "
         "pcie) over its capacity and the run",
         resource_util},
};
#define NFAMILIES (sizeof families / sizeof families[0])

size_t metric_family_count(void)
{
    return NFAMILIES;
}

const struct metric_family *metric_family_at(size_t i)
{
    return i < NFAMILIES ? &families[i] : NULL;
}

bool metric_value(const char *name, const struct run_record *r, double *out)
{
    const struct metric *m = metric_find(name);
    if (m != NULL) {
        *out = m->get(r);
        return true;
    }
    for (size_t i = 0; name && i < NFAMILIES; i++) {
        size_t n = strlen(families[i].prefix);
        if (strncmp(name, families[i].prefix, n) == 0) return families[i].get(r, name + n, out);
    }
    return false;
}

bool metric_known(const char *name)
{
    struct run_record empty;
    double v;
    memset(&empty, 0, sizeof empty);
    return metric_value(name, &empty, &v);
}

size_t metric_count(void)
{
    return NMETRICS;
}

const struct metric *metric_at(size_t i)
{
    return i < NMETRICS ? &metrics[i] : NULL;
}

const struct metric *metric_find(const char *name)
{
    for (size_t i = 0; name && i < NMETRICS; i++)
        if (strcmp(metrics[i].name, name) == 0) return &metrics[i];
    return NULL;
}

const char *metric_names(void)
{
    static char buf[2048];
    if (buf[0] == '\0') {
        size_t used = 0;
        for (size_t i = 0; i < NMETRICS; i++) {
            int k = snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "", metrics[i].name);
            if (k > 0 && (size_t)k < sizeof buf - used) used += (size_t)k;
        }
        for (size_t i = 0; i < NFAMILIES; i++) {
            int k = snprintf(buf + used, sizeof buf - used, ", %s%s", families[i].prefix,
                             families[i].arg);
            if (k > 0 && (size_t)k < sizeof buf - used) used += (size_t)k;
        }
    }
    return buf;
}

unsigned metric_strategy_bit(const struct run_record *r)
{
    return METRIC_FOR(r->strategy_id);
}
