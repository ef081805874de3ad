/* metric.c - the metric table (see metric.h). */
#include "metric.h"

#include <stdio.h>
#include <string.h>

static double get_workers(const struct run_record *r)
{
    return (double)(r->workers);
}

static double get_global_batch(const struct run_record *r)
{
    return (double)(r->global_batch);
}

static double get_time_s(const struct run_record *r)
{
    return (double)(r->total_s);
}

static double get_steps(const struct run_record *r)
{
    return (double)(r->steps);
}

static double get_mean_step_s(const struct run_record *r)
{
    return (double)(r->mean_step_s);
}

static double get_throughput(const struct run_record *r)
{
    return (double)(r->throughput);
}

static double get_one_gpu_step_s(const struct run_record *r)
{
    return (double)(r->compute1_s);
}

static double get_efficiency(const struct run_record *r)
{
    return (double)(r->efficiency);
}

static double get_exposed_s(const struct run_record *r)
{
    return (double)(r->exposed_s);
}

static double get_idle_fraction(const struct run_record *r)
{
    return (double)(r->idle_frac);
}

static double get_goodput(const struct run_record *r)
{
    return (double)(r->goodput);
}

static double get_grad_bytes(const struct run_record *r)
{
    return (double)(r->grad_B);
}

static double get_buckets(const struct run_record *r)
{
    return (double)(r->nbuckets);
}

static double get_shards(const struct run_record *r)
{
    return (double)(r->nshards);
}

static double get_messages(const struct run_record *r)
{
    return (double)(r->messages);
}

static double get_bytes(const struct run_record *r)
{
    return (double)(r->bytes);
}

static double get_failed_collectives(const struct run_record *r)
{
    return (double)(r->failures);
}

static double get_version_spread(const struct run_record *r)
{
    return (double)(r->spread_max);
}

static double get_disagree_fraction(const struct run_record *r)
{
    return (double)(r->spread_frac);
}

static double get_coordinator_messages(const struct run_record *r)
{
    return (double)(r->coordinator_msgs);
}

static double get_coordinator_version(const struct run_record *r)
{
    return (double)(r->coordinator_global);
}

static double get_coordinator_spread(const struct run_record *r)
{
    return (double)(r->coordinator_spread);
}

static double get_shard_imbalance(const struct run_record *r)
{
    return (double)(r->imbalance);
}

static double get_lost_updates(const struct run_record *r)
{
    return (double)(r->lost_updates);
}

static double get_steps_completed(const struct run_record *r)
{
    return (double)(r->steps_completed);
}

static double get_lost_steps(const struct run_record *r)
{
    return (double)(r->lost_steps);
}

static double get_membership_changes(const struct run_record *r)
{
    return (double)(r->membership_changes);
}

static double get_failures_detected(const struct run_record *r)
{
    return (double)(r->failures_detected);
}

static double get_removed_stragglers(const struct run_record *r)
{
    return (double)(r->removed_stragglers);
}

static double get_final_workers(const struct run_record *r)
{
    return (double)(r->final_workers);
}

static double get_max_detect_s(const struct run_record *r)
{
    return (double)(r->max_detect_s);
}

static double get_max_recover_s(const struct run_record *r)
{
    return (double)(r->max_recover_s);
}

static double get_checkpoints(const struct run_record *r)
{
    return (double)(r->checkpoints);
}

static double get_checkpoint_bytes(const struct run_record *r)
{
    return (double)(r->ckpt_B);
}

static double get_checkpoint_overhead_s(const struct run_record *r)
{
    return (double)(r->ckpt_overhead_s);
}

static double get_computed(const struct run_record *r)
{
    return (double)(r->computed);
}

static double get_applied(const struct run_record *r)
{
    return (double)(r->applied);
}

static double get_dropped_stale(const struct run_record *r)
{
    return (double)(r->dropped_stale);
}

static double get_dropped_late(const struct run_record *r)
{
    return (double)(r->dropped_late);
}

static double get_lost_gradients(const struct run_record *r)
{
    return (double)(r->lost_gradients);
}

static double get_dropped_gradients(const struct run_record *r)
{
    return (double)(r->dropped_stale + r->dropped_late);
}

static double get_read_samples(const struct run_record *r)
{
    return (double)(r->read_samples);
}

static double get_consumed_samples(const struct run_record *r)
{
    return (double)(r->consumed_samples);
}

static double get_skipped_samples(const struct run_record *r)
{
    return (double)(r->skipped_samples);
}

static double get_dropped_samples(const struct run_record *r)
{
    return (double)(r->dropped_samples);
}

static double get_replayed_samples(const struct run_record *r)
{
    return (double)(r->replayed_samples);
}

static double get_accounting_ok(const struct run_record *r)
{
    return (double)(run_identities_hold(r));
}

static double get_job_failed(const struct run_record *r)
{
    return (double)(r->job_failed);
}

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
        {"throughput", "samples/s", "samples of completed steps / run time", METRIC_ALL,
         "throughput", "%.1f samples/s", 1, NULL, NULL, "samples/s", 4, 12, 1, get_throughput},
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
        {"final_workers", "1", "workers in the last membership (ps: workers that finished)",
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
