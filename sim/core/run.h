/* run.h - the run record: everything a training run produced, as plain data.
 *
 * Every strategy fills one record (strategy.h); the report module prints it (report.h) and
 * <expect> reads it through the metric table (metric.h). The events log is the run's history for
 * every strategy: one row per completed step, fault, recovery action and checkpoint, in time
 * order; the per-step table, the CSV and the trace's instants all come from it.
 *
 * Derived figures are computed once, by run_finish, with one meaning each:
 *   throughput   samples whose gradients were computed in a completed step, applied or dropped
 *                by the policy (the "samples" of every step row), / run time;
 *   goodput      samples whose gradients are in the final model / run time;
 *   idle         1 - (compute time of all workers) / (workers x run time): the fraction of the
 *                workers' time not spent computing (forward, backward, update), whatever the
 *                strategy; communication not hidden by compute, waiting and recovery all count;
 *   mean step    run time / step rows; the 1-GPU step is one GPU's step alone at its nominal
 *                speed (nominal_step_s: the kernels of a batch and the update, unloaded), and
 *                scaling efficiency is the throughput over P x batch / that, so a straggler or
 *                a slowed GPU lowers it (issue 31: the slowest worker's compute as the baseline
 *                hid a GPU at half speed behind 99.6%). compute1_s, the mean compute of a step
 *                row (the slowest worker's), gives the effective FLOP/s.
 * Accounting: every gradient computed is applied, dropped stale, dropped late or lost to a
 * failure; every sample read is consumed (in the final model), skipped (a corrupt batch),
 * dropped (its gradient arrived too stale or too late and was discarded by the policy) or
 * replayed (lost to a failure and read again). run_identities_hold checks both.
 *
 * The record is common to every strategy: what only one strategy measures (the parameter
 * server's shards and versions, the hybrid strategy's step breakdown) is that strategy's part,
 * `own`, declared and attached by its NAME_metrics.h next to the metric rows that read it.
 */
#ifndef DMLSIM_RUN_H
#define DMLSIM_RUN_H

#include "model.h"
#include "strategies.h"

#include <stdbool.h>
#include <stddef.h>

#define RUN_HIST    17 /* staleness histogram bins: lag 0..15, and 16 or more */
#define RUN_CLASSES 12 /* link classes recorded */

enum run_event_kind { RUN_STEP, RUN_FAULT, RUN_RECOVERY, RUN_CHECKPOINT };

struct run_event {
    double t_s;               /* when */
    enum run_event_kind kind; /* what */
    int step;                 /* global step (step rows: 1, 2, ...), or -1 */
    double time_s;            /* step: time since the previous step row ended */
    double input_s;           /* step: the slowest member's wait for its batch (<data>) */
    double compute_s;         /* step: the slowest worker's compute in it */
    double samples;           /* step: samples whose gradients were computed in it */
    int workers;              /* members at that moment */
    int side;                 /* step: 0, or the side cut off from the store (split brain) */
    char what[96];            /* faults, recoveries, checkpoints: a short description */
    double start_s;           /* when what the row records began: a recovery's fault (while one
                                 is being recovered from), a checkpoint's write; else t_s. The
                                 trace's slices of recoveries and checkpoints span [start_s, t_s] */
    size_t seq;               /* order of insertion, for a stable sort */
    /* step rows, GPU activity (run_power.h): what the strategy says, then what run_finish
     * derives; a GPU is the mean or the slowest one, as compute_s */
    double gpu_busy_s;  /* the GPU's compute (its kernels and its waits for the host
                           between them); < 0 (the default): compute_s */
    double nccl_s;      /* time NCCL kernels were in flight with no compute kernel
                           running; < 0 (the default): time_s - gpu_busy_s - input_s, all
                           of it in NCCL kernels waiting on a collective or a peer */
    double gpu_util;    /* derived: the fraction of time_s at least one kernel ran */
    double sm_activity; /* derived: the time-weighted fraction of SMs with work */
    double power_w;     /* derived: mean power of a GPU over time_s, W */
};

struct trace;

/* One GPU's step, for its trace counters (run_gpu_span_add; run_power.h derives its activity). */
struct run_gpu_span {
    int rank;      /* the GPU */
    double t0_s;   /* its step's start */
    double t1_s;   /* ... and end */
    double busy_s; /* its compute in the step (kernels and the host waits between them) */
    double nccl_s; /* the time NCCL kernels ran in it with no compute kernel; < 0: the span
                      less busy_s */
};

#define RUN_STAGES 3 /* input pipeline stages: read, decode, copy */
#define RUN_RESOURCES 5 /* what the input pipeline uses: nvme, store-disk, network, cpu, pcie */
extern const char *const run_resource_names[RUN_RESOURCES];

/* A resource the input pipeline uses: how much of it the batches trained on took, against what
 * it can give a second (summed over its instances: every node's NVMe, cores, PCIe). */
struct resource_report {
    double used;     /* bytes (disks, network, PCIe) or core-seconds (CPU) */
    double per_s;    /* capacity a second */
};
extern const char *const run_stage_names[RUN_STAGES]; /* "read", "decode", "copy" */

/* One stage of the input pipeline over the run. */
struct stage_report {
    char name[8];  /* "read", "decode", "copy" */
    double busy_s; /* time its actors spent in it, summed */
    double lanes;  /* its actors (that many could be busy at once) */
    double bytes;  /* bytes it moved */
};

#define RUN_CONFIG   16 /* configuration entries a strategy records */
#define RUN_KCLASSES 12 /* kernel classes of the compute breakdown */

/* One entry of a run's configuration, for the JSON: a key and its value as a JSON literal. */
struct run_config {
    char key[24];
    char value[64];
};

struct run_record {
    enum strategy_id strategy_id;         /* who filled it */
    const char *strategy;                 /* its name: "allreduce", "ps" */
    const char *step_compute;             /* what a step row's compute_s is, in words (the
                                             per-step table's legend); NULL: not said */
    struct run_config config[RUN_CONFIG]; /* what the strategy says of its configuration */
    size_t nconfig;
    int workers;            /* P */
    int batch;              /* samples per worker per step */
    int steps_planned;      /* steps the scenario asks for */
    double global_batch;    /* samples of one step at the start (P x batch, or the PS quorum) */
    struct run_event *ev;   /* the events log (run_event_add) */
    size_t nev, cap;        /* rows, capacity */
    double total_s;         /* run time: when the last step ended */
    double *busy_s;         /* per worker: compute time (forward, backward, update) */
    double grad_B;          /* gradient bytes exchanged per worker per step */
    double messages, bytes; /* simulated messages and their bytes */
    size_t nclasses;        /* link classes seen */
    char class_name[RUN_CLASSES][24];
    double class_B[RUN_CLASSES]; /* bytes carried per link class */
    double failures;             /* collectives that ended in a timeout or failure */
    struct memory_need mem;      /* memory per GPU */
    /* compute of one step of rank 0 on an unloaded GPU, by kernel class */
    size_t nkclasses;
    char kclass_name[RUN_KCLASSES][12];
    double kclass_s[RUN_KCLASSES];     /* seconds */
    double kclass_flops[RUN_KCLASSES]; /* FLOPs (GEMMs) */
    double kclass_bytes[RUN_KCLASSES]; /* bytes moved (memory-bound kernels) */
    double host_wait_s;                /* of kclass_s: the GPU waiting for the host (kcost.h) */
    double step_flops;                 /* FLOPs of one worker's step */
    double nominal_step_s;             /* data parallel: one GPU's whole step (its kernels and
                                          the update) at the GPU's nominal speed, unloaded: the
                                          kernel classes' sum (job_record_nominal); 0: unknown */
    double peak_flops;                 /* rank 0's GPU: dense peak of the dtype */
    double peak_mem_Bps;               /* ... and memory bandwidth */
    const struct gpu_model *gpu;       /* rank 0's GPU (its power, power.h); NULL: unknown */
    double kern_sm_s;                  /* of kclass_s's kernels: seconds x the fraction of the
                                          SMs each occupies */
    double kern_act_s;                 /* ... seconds x each one's dynamic activity (power.h) */
    /* accounting (gradients: all-reduce replicas, or PS slices) */
    double computed, applied, dropped_stale, dropped_late, lost_gradients;
    double read_samples, consumed_samples, skipped_samples, dropped_samples, replayed_samples;
    /* faults and recovery */
    double steps_completed;    /* global steps committed (all-reduce) / versions every shard has */
    double membership_changes; /* new memberships formed after the first */
    double failures_detected;  /* failures the survivors reported */
    double final_workers;      /* workers in the last membership / that finished */
    double removed_stragglers; /* workers removed for being persistently slow */
    double lost_steps;         /* step executions thrown away (failed or rolled back) */
    double sides;              /* the most sides training apart at one time (split brain) */
    double divergence_l2;      /* numerics: the largest L2 distance between two sides' models
                                  when they merged or when the run ended split */
    double checkpoints;        /* checkpoints completed */
    double ckpt_B;             /* size of one checkpoint (all shards) */
    double ckpt_overhead_s;    /* training time spent blocked on checkpoints */
    double max_detect_s;       /* longest time from a fault to its first report */
    double max_recover_s;      /* longest time from a fault to training progressing again */
    bool outage;               /* a fault is being recovered from now (the injector keeps it) */
    double outage_s;           /* ... since this time: recovery rows start there (start_s) */
    double progress_s;         /* when training last progressed: a step committed (run_step_add),
                                  or a strategy's inject_progress (progress.h watches it) */
    int progress_step;         /* the furthest step committed (run_step_add): at steps_planned
                                  the job's work is done, whatever still waits (progress.h) */
    bool job_failed;           /* the simulated job could not finish its steps */
    char failure[160];         /* why, when job_failed */
    /* derived by run_finish */
    double steps; /* step rows */
    double throughput, goodput, mean_step_s, compute1_s, efficiency, idle_frac, exposed_s;
    double one_gpu_s; /* the scaling baseline: nominal_step_s; 0 when unknown (hybrid) */
    double compute_flops_s;   /* step_flops / the mean compute of a step: effective FLOP/s */
    double compute_peak_frac; /* that / peak_flops */
    double host_wait_frac;    /* the GPU's step time spent waiting for the host to issue kernels
                                 (host_wait_s / the kernel classes' sum) */
    double input_wait_s;      /* a worker's mean wait for a batch (input_wait_total_s / batches) */
    double input_frac;        /* the workers' time spent waiting for batches: input_wait_run_s
                                 / (workers x run time) */
    bool input_bound;         /* the pipeline holds the GPUs back: that is at least 1% and most
                                 of the workers' idle time (idle_frac) */
    /* GPU activity and power over the step rows (run_power.h); 0 without a GPU */
    double gpu_util;     /* the fraction of time at least one kernel (compute or NCCL) ran */
    double sm_activity;  /* the time-weighted fraction of SMs with work */
    double gpu_power_w;  /* a GPU's mean power over the steps, W */
    double gpu_tdp_w;    /* its TDP, W */
    double gpu_energy_j; /* gpu_power_w x workers x run time, J */
    struct trace *trace; /* the Perfetto trace when asked for, else NULL (owned by the caller) */
    struct run_gpu_span *gpu_spans; /* with a trace: each GPU's steps (run_gpu_span_add) */
    size_t ngpu_spans, gpu_spans_cap;
    /* numerics (<numerics>): evaluations on the test set */
    bool numerics;             /* the workers really trained */
    double target_accuracy;    /* 0: none */
    struct run_eval *evals;    /* run_eval_add */
    size_t nevals, evals_cap;
    double time_to_accuracy_s; /* the first evaluation at or above the target; inf: not reached */
    int steps_to_accuracy;     /* its step; -1: not reached */
    unsigned long long params_fnv; /* FNV-1a (64 bits) of the final parameters' bytes */
    char proxy[48];                /* the cost-model preset whose timing the steps took, or "" */
    /* the input pipeline (<data>, loader.h) */
    bool input;                    /* a pipeline fed the workers */
    double input_wait_total_s;     /* every worker's waits for its batches */
    double input_wait_run_s;       /* ... the part of them within the run's time (a PS worker
                                      may wait on after the last version the run counts) */
    double input_batches;          /* batches the workers took from the pipeline */
    bool cache;                    /* a cache tier in front of the remote store */
    double shuffle_buffer_B;       /* WebDataset's shuffle buffers of a GPU's loader workers */
    double shuffle_moved;          /* ... and how far a sample moves through one, on average */
    double cache_hits, cache_misses; /* samples the loaders found in it, and did not */
    struct stage_report stages[RUN_STAGES]; /* read, decode, copy */
    struct resource_report resources[RUN_RESOURCES]; /* run_resource_names */
    /* the strategy's own results (NAME_metrics.h: the rows of its metric table read them) */
    void *own;                   /* its part of the record, or NULL */
    void (*own_free)(void *own); /* frees it: run_release calls it */
};

/* An evaluation of the model on the test set. */
struct run_eval {
    double t_s;      /* simulated time */
    int step;        /* steps committed */
    double accuracy; /* test accuracy */
    double loss;     /* test loss */
    int side;        /* 0: the job's model; k > 0: the model of a side cut off from the store
                        (split brain, <recovery rendezvous="per-side">) */
};

/* Appends an evaluation of side `side`'s model, and the time to accuracy if it is the job's
 * (side 0) first at or above the target. */
void run_eval_add(struct run_record *r, int side, double t_s, int step, double accuracy,
                  double loss);

/* Zeroes the record and sets who fills it; busy_s gets `workers` zeroed entries. */
void run_init(struct run_record *r, enum strategy_id strategy, int workers, int batch, int steps);

/* Records a configuration entry: a string (quoted in the JSON) or a number / true / false. */
void run_config_str(struct run_record *r, const char *key, const char *value);
void run_config_num(struct run_record *r, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Appends a fault, recovery or checkpoint row (what: printf format); returns it, valid until the
 * next row is added (a caller that knows when the action began sets its start_s). */
struct run_event *run_event_add(struct run_record *r, double t_s, enum run_event_kind kind,
                                int step, int workers, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));

/* Appends a step row ending at t_s (side: 0, or the split-brain side that committed it). */
struct run_event *run_step_add(struct run_record *r, double t_s, int step, double time_s,
                               double compute_s, double samples, int workers, int side);

/* Called by run_step_add with each step row's end time, step and the steps planned (the
 * command line's progress line); NULL, the default, for none. Process-wide: one run a process. */
void run_set_step_hook(void (*hook)(double t_s, int step, int steps_planned));

/* The hybrid strategy's groups, as par_bytes and group_class (hybrid_metrics.h) order them:
 * "tensor", "pipeline", "data", "expert". */
extern const char *const run_group_names[4];

/* With a trace, records GPU `rank`'s step [t0_s, t1_s] of busy_s compute and nccl_s of NCCL
 * kernels alone (its per-GPU activity and power counters); without one, nothing. */
void run_gpu_span_add(struct run_record *r, int rank, double t0_s, double t1_s, double busy_s,
                      double nccl_s);

/* Losses: a step execution thrown away with its batch (its `samples` read again: those it
 * trained on, none of a corrupt batch) and, if it was computed, its gradient. */
void run_lose_step(struct run_record *r, int samples, bool computed);

/* Sorts the log by time (stable) and derives the figures above. Call once, after the run. */
void run_finish(struct run_record *r);
/* Fails the job (job_failed, failure) unless every requested step was committed with at least
 * one gradient applied; run_finish calls it last. */
void run_verdict(struct run_record *r);

bool run_identities_hold(const struct run_record *r);

/* A step row's exposed time: its time not covered by compute, >= 0. */
double run_step_exposed(const struct run_event *e);

/* Input stage s's busy fraction: its actors' busy time over theirs x the run time (0 with no
 * actor). */
double run_stage_busy(const struct run_record *r, int s);

/* Resource i's utilisation: what was used over its capacity x the run time (0 without one). */
double run_resource_util(const struct run_record *r, int i);

const char *run_event_kind_name(enum run_event_kind k);

void run_release(struct run_record *r);

#endif
