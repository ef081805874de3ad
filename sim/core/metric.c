/* metric.c - the metric table (see metric.h). */
#include "metric.h"

#include <stdio.h>
#include <string.h>

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
#undef GET

/* Text lines are runs of consecutive rows with the same label, in this order. */
static const struct metric metrics[] = {
        {"workers", "1", "workers at the start", METRIC_ALL, "workers", "%.0f", 1, NULL, NULL,
         "gpus", 1, 8, 0, get_workers},
        {"global_batch", "samples",
         "samples of one step at the start (workers x batch, or the PS quorum)", METRIC_ALL,
         "workers", ", global batch %.0f", 1, NULL, NULL, "batch", 2, 8, 0, get_global_batch},
        {"time_s", "s", "run time: when the last step ended", METRIC_ALL, "run time", "%.6f s", 1,
         NULL, NULL, NULL, 0, 0, 0, get_time_s},
        {"steps", "1", "step rows (completed steps, repeats after a rollback included)", METRIC_ALL,
         "run time", ", %.0f step(s)", 1, NULL, NULL, NULL, 0, 0, 0, get_steps},
        {"throughput", "samples/s",
         "samples whose gradients were computed in a completed step (applied or dropped) / run "
         "time",
         METRIC_ALL, "throughput", "%.1f samples/s", 1, NULL, NULL, "samples/s", 4, 12, 1,
         get_throughput},
        {"mean_step_s", "s", "run time / step rows", METRIC_ALL, "throughput",
         ", mean step %.3f ms", 1000, NULL, NULL, "step_ms", 3, 12, 3, get_mean_step_s},
        {"one_gpu_step_s", "s", "mean compute of a step (the slowest worker's): a step on one GPU",
         METRIC_ALL, "1-GPU step", "%.3f ms (compute only)", 1000, NULL, NULL, NULL, 0, 0, 0,
         get_one_gpu_step_s},
        {"efficiency", "1", "throughput / (workers x batch / one_gpu_step_s)", METRIC_ALL,
         "1-GPU step", ": scaling efficiency %.1f%%", 100, NULL, NULL, "eff", 5, 10, 4,
         get_efficiency},
        {"exposed_s", "s", "mean over step rows of the step time not covered by compute",
         METRIC_ALL, "exposed", "%.3f ms per step not covered by compute", 1000, NULL, NULL,
         "exposed_ms", 6, 12, 3, get_exposed_s},
        {"idle_fraction", "1", "1 - compute time of all workers / (workers x run time)", METRIC_ALL,
         "idle fraction", "%.4f (workers' time not computing)", 1, NULL, NULL, "idle", 8, 8, 4,
         get_idle_fraction},
        {"goodput", "samples/s", "samples whose gradients are in the final model / run time",
         METRIC_ALL, "goodput", "%.1f samples/s (samples in the final model)", 1, NULL, NULL,
         "goodput", 10, 12, 1, get_goodput},
        {"grad_bytes", "B", "gradient bytes a worker exchanges per step", METRIC_ALL,
         "gradient bytes", "%.0f B per step", 1, NULL, NULL, NULL, 0, 0, 0, get_grad_bytes},
        {"buckets", "1", "all-reduce: gradient buckets per step", METRIC_ALLREDUCE,
         "gradient bytes", " in %.0f bucket(s)", 1, NULL, NULL, NULL, 0, 0, 0, get_buckets},
        {"shards", "1", "parameter server: shards", METRIC_PS, "gradient bytes",
         " to %.0f shard(s)", 1, NULL, NULL, NULL, 0, 0, 0, get_shards},
        {"messages", "1", "simulated messages sent", METRIC_ALL, "messages", "%.0f sent", 1, NULL,
         NULL, "messages", 7, 12, 0, get_messages},
        {"bytes", "B", "bytes of the simulated messages", METRIC_ALL, "messages", ", %.0f B", 1,
         NULL, NULL, NULL, 0, 0, 0, get_bytes},
        {"failed_collectives", "1", "collectives that ended in a timeout or failure",
         METRIC_ALLREDUCE, "failed collectives", "%.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_failed_collectives},
        {"version_spread", "1", "largest difference between shard versions at one time", METRIC_PS,
         "shard versions", "max spread %.0f", 1, NULL, NULL, NULL, 0, 0, 0, get_version_spread},
        {"disagree_fraction", "1", "fraction of the run during which shards disagreed", METRIC_PS,
         "shard versions", ", shards disagreed %.1f%% of the time", 100, NULL, NULL, NULL, 0, 0, 0,
         get_disagree_fraction},
        {"coordinator_messages", "1", "advances the version coordinator received", METRIC_PS,
         "coordinator", "%.0f advances received", 1, NULL, NULL, NULL, 0, 0, 0,
         get_coordinator_messages},
        {"coordinator_version", "1",
         "the global version (minimum over shards) the coordinator last saw", METRIC_PS,
         "coordinator", ", global version %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_coordinator_version},
        {"coordinator_spread", "1", "the largest version disagreement the coordinator saw",
         METRIC_PS, "coordinator", ", largest disagreement %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_coordinator_spread},
        {"shard_imbalance", "1", "largest shard's parameters / mean", METRIC_PS, "shard imbalance",
         "largest / mean = %.3f", 1, NULL, NULL, NULL, 0, 0, 0, get_shard_imbalance},
        {"lost_updates", "1", "shard versions lost to a shard crash", METRIC_PS, "lost updates",
         "%.0f (shard versions lost to crashes)", 1, NULL, NULL, NULL, 0, 0, 0, get_lost_updates},
        {"steps_completed", "1",
         "global steps committed (all-reduce) / versions every shard reached (ps)", METRIC_ALL,
         "steps committed", "%.0f", 1, NULL, NULL, NULL, 0, 0, 0, get_steps_completed},
        {"lost_steps", "1", "step executions thrown away (failed or rolled back)", METRIC_ALL,
         "steps committed", "; step executions lost %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_lost_steps},
        {"membership_changes", "1", "memberships formed after the first", METRIC_ALL,
         "steps committed", "; memberships after the first %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_membership_changes},
        {"failures_detected", "1", "failures the survivors reported", METRIC_ALL, "steps committed",
         "; failures reported %.0f", 1, NULL, NULL, NULL, 0, 0, 0, get_failures_detected},
        {"removed_stragglers", "1", "workers removed for being persistently slow", METRIC_ALL,
         "steps committed", "; stragglers removed %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_removed_stragglers},
        {"final_workers", "1",
         "all-reduce: live workers of the last membership; ps: workers that finished every step",
         METRIC_ALL, "steps committed", "; final workers %.0f", 1, NULL, NULL, NULL, 0, 0, 0,
         get_final_workers},
        {"max_detect_s", "s", "longest time from a fault to its first report", METRIC_ALL,
         "detect/recover", "longest %.6f s to detect", 1, NULL, NULL, NULL, 0, 0, 0,
         get_max_detect_s},
        {"max_recover_s", "s", "longest time from a fault to training progressing again",
         METRIC_ALL, "detect/recover", ", %.6f s to resume training", 1, NULL, NULL, NULL, 0, 0, 0,
         get_max_recover_s},
        {"checkpoints", "1", "checkpoints completed", METRIC_ALL, "checkpoints", "%.0f", 1, NULL,
         NULL, NULL, 0, 0, 0, get_checkpoints},
        {"checkpoint_bytes", "B", "size of one checkpoint (all shards)", METRIC_ALL, "checkpoints",
         " of %.0f B", 1, NULL, NULL, NULL, 0, 0, 0, get_checkpoint_bytes},
        {"checkpoint_overhead_s", "s", "training time spent blocked on checkpoints", METRIC_ALL,
         "checkpoints", "; writers blocked %.6f s", 1, NULL, NULL, NULL, 0, 0, 0,
         get_checkpoint_overhead_s},
        {"computed", "1", "gradients computed (all-reduce: replicas; ps: slices)", METRIC_ALL,
         "gradients", "%.0f computed", 1, NULL, NULL, NULL, 0, 0, 0, get_computed},
        {"applied", "1", "gradients applied", METRIC_ALL, "gradients", " = %.0f applied", 1, NULL,
         NULL, NULL, 0, 0, 0, get_applied},
        {"dropped_stale", "1", "gradients dropped for a version lag above the bound", METRIC_ALL,
         "gradients", " + %.0f dropped stale", 1, NULL, NULL, NULL, 0, 0, 0, get_dropped_stale},
        {"dropped_late", "1", "gradients that missed their version's quorum", METRIC_ALL,
         "gradients", " + %.0f dropped late", 1, NULL, NULL, NULL, 0, 0, 0, get_dropped_late},
        {"lost_gradients", "1", "gradients lost to failures", METRIC_ALL, "gradients",
         " + %.0f lost to failures", 1, NULL, NULL, NULL, 0, 0, 0, get_lost_gradients},
        {"dropped_gradients", "1", "dropped_stale + dropped_late", 0, NULL, NULL, 1, NULL, NULL,
         "dropped", 9, 10, 0, get_dropped_gradients},
        {"read_samples", "samples", "samples read by all workers", METRIC_ALL, "samples",
         "%.0f read", 1, NULL, NULL, NULL, 0, 0, 0, get_read_samples},
        {"consumed_samples", "samples", "samples whose gradients are in the final model",
         METRIC_ALL, "samples", " = %.0f consumed", 1, NULL, NULL, NULL, 0, 0, 0,
         get_consumed_samples},
        {"skipped_samples", "samples", "samples in corrupt batches", METRIC_ALL, "samples",
         " + %.0f skipped corrupt", 1, NULL, NULL, NULL, 0, 0, 0, get_skipped_samples},
        {"dropped_samples", "samples", "samples whose gradients were dropped stale or late",
         METRIC_ALL, "samples", " + %.0f dropped stale or late", 1, NULL, NULL, NULL, 0, 0, 0,
         get_dropped_samples},
        {"replayed_samples", "samples", "samples read in work lost to a failure (read again)",
         METRIC_ALL, "samples", " + %.0f replayed", 1, NULL, NULL, NULL, 0, 0, 0,
         get_replayed_samples},
        {"accounting_ok", "1", "1 if both accounting identities hold", METRIC_ALL, "accounting",
         NULL, 1, "both identities hold", "VIOLATED", NULL, 0, 0, 0, get_accounting_ok},
        {"job_failed", "1", "1 if the simulated job could not finish its steps", METRIC_ALL, "job",
         NULL, 1, "FAILED (see stderr)", "completed", NULL, 0, 0, 0, get_job_failed},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

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
    }
    return buf;
}

unsigned metric_strategy_bit(const struct run_record *r)
{
    return r->strategy && strcmp(r->strategy, "ps") == 0 ? METRIC_PS : METRIC_ALLREDUCE;
}
