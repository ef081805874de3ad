/* train.h - synchronous data-parallel training, simulated step by step.
 *
 * Each worker (one per GPU) is two SimGrid actors on its GPU host:
 *   compute: forward layer by layer, backward layer by layer in reverse, then the optimizer
 *            update; every layer is one sg_actor_execute whose amount makes it last
 *            FLOPs x batch / (peak for the dtype x calibrated efficiency) on an unloaded host, so
 *            a slower host slows exactly the compute;
 *   comm:    all-reduces the gradient buckets in order with the scenario's algorithm, one at a
 *            time, as real messages (collective.h).
 * Buckets are filled in backward order (as PyTorch DDP): a bucket closes once it holds at least
 * `bucket` bytes of gradients. With overlap on, a bucket is handed to the comm actor as soon as
 * the layer that closes it finishes its backward, so its all-reduce runs during the rest of the
 * backward; with overlap off, all buckets are handed over after the backward. The update starts
 * when every bucket is reduced; a step ends when the last worker's update ends.
 *
 * Everything reported is read off the simulation's events (clock at exec and step boundaries);
 * nothing is computed from a formula.
 */
#ifndef DMLSIM_TRAIN_H
#define DMLSIM_TRAIN_H

#include "calib.h"
#include "error.h"
#include "model.h"
#include "platform.h"
#include "scenario.h"
#include "trace.h"
#include "traffic.h"

#include <stdio.h>

#define PS_HIST 17 /* staleness histogram bins: lag 0..15, and 16 or more */

struct shard_report {
    sg_host_t host;   /* where the shard runs */
    double params;    /* parameters it owns */
    double bytes_in;  /* gradient bytes received */
    double bytes_out; /* parameter bytes sent */
    double link_Bps;  /* bottleneck bandwidth between it and worker 0 */
    double update_s;  /* time spent applying updates */
    double versions;  /* versions it advanced */
};

struct train_result {
    int workers;             /* P */
    int steps;               /* steps simulated */
    double global_batch;     /* P x batch per GPU */
    double *step_s;          /* per step: time from the previous step's end (max over workers) */
    double *compute_s;       /* per step: rank 0's forward + backward + update time */
    double *exposed_s;       /* per step: step time - compute time, >= 0 */
    double total_s;          /* end of the last step */
    double compute1_s;       /* mean compute time of a step: what 1 GPU would take per step */
    size_t nbuckets;         /* gradient buckets per step */
    double grad_B;           /* gradient bytes all-reduced per step */
    double messages;         /* messages sent by all workers */
    double failures;         /* collectives that ended in a timeout or failure */
    struct traffic *traffic; /* bytes per link class */
    struct memory_need mem;  /* memory per GPU */
    double idle_frac;        /* mean over workers of the time not computing / run time */
    /* parameter server only (nshards > 0) */
    int nshards;                 /* K */
    struct shard_report *shards; /* K shards */
    double imbalance;            /* largest shard's parameters / mean */
    double computed;             /* gradient slices computed (worker iterations x K) */
    double applied;              /* slices applied */
    double dropped_stale;        /* async: slices dropped for lag > tau */
    double dropped_late;         /* sync: slices that missed their version's quorum */
    double stale_hist[PS_HIST];  /* applied slices by version lag */
    double applied_samples;      /* samples whose gradients were applied (goodput numerator) */
    double spread_max;           /* largest difference between shard versions at one time */
    double spread_frac;          /* fraction of the run during which shards disagreed */
    double coordinator_msgs;     /* messages the coordinator received */
    double coordinator_global;   /* the global version (minimum over shards) it last saw */
    double coordinator_spread;   /* the largest version disagreement it saw */
    double *first_push_s;        /* per worker: duration of its first push (all shards) */
    /* faults and recovery (all strategies) */
    double steps_completed;    /* global steps committed (all-reduce) / versions (sync PS) */
    double membership_changes; /* all-reduce: new memberships formed after the first */
    double failures_detected;  /* failures the survivors noticed (rendezvous reports) */
    double final_workers;      /* workers in the last membership */
    double removed_stragglers; /* workers removed for being persistently slow */
    double lost_steps;         /* step executions thrown away (failed or rolled back) */
    double lost_gradients;     /* gradients lost to failures */
    double lost_updates;       /* PS: shard updates lost to a shard crash */
    double read_samples;       /* samples read by all workers */
    double consumed_samples;   /* samples whose gradients are in the final model */
    double skipped_samples;    /* samples in corrupt batches */
    double replayed_samples;   /* samples read in work that was thrown away */
    double checkpoints;        /* checkpoints completed */
    double ckpt_B;             /* size of one checkpoint */
    double ckpt_overhead_s;    /* training time spent blocked on checkpoints */
    double max_detect_s;       /* longest time from a fault to its first report */
    double max_recover_s;      /* longest time from a fault to training resuming */
    struct timeline *timeline; /* events for the CSV and plots (may be NULL) */
    struct trace *trace;       /* the Perfetto trace when asked for, else NULL */
};

/* Events over simulated time: one row per committed step, fault and recovery action. */
struct timeline_row {
    double t_s;       /* when */
    char kind[12];    /* "step", "fault", "recovery", "checkpoint" */
    int step;         /* global step, or -1 */
    double value;     /* step: its duration; others: 0 */
    double samples_s; /* step: samples/s of that step */
    int workers;      /* members at that moment */
    char what[96];    /* a short description */
};

struct timeline {
    struct timeline_row *rows;
    size_t n, cap;
};

void timeline_add(struct timeline *tl, double t_s, const char *kind, int step, double value,
                  double samples_s, int workers, const char *fmt, ...)
        __attribute__((format(printf, 8, 9)));

/* The workers of a run: <training gpus>, or every GPU of the platform. */
int train_workers(const struct scenario *sc, const struct platform *pf);

/* Checks shared by every strategy: the worker count against the platform, the dtype on every
 * worker's GPU, and the memory per GPU; errors name the <training> line. */
enum dmlsim_err train_check_workers(const struct scenario *sc, const struct platform *pf,
                                    const struct model *m, struct dmlsim_error *err);

/* Checks what can only be checked against the loaded platform (enough GPUs, dtype support, the
 * algorithm's needs) and the memory per GPU; errors name the <training> line. */
enum dmlsim_err train_check(const struct scenario *sc, const struct platform *pf,
                            const struct model *m, struct dmlsim_error *err);

/* Runs the training (calls simgrid_run) and fills `res` (train_result_release). */
enum dmlsim_err train_run(const struct scenario *sc, const struct platform *pf,
                          const struct model *m, const struct calib *cal, struct train_result *res,
                          struct dmlsim_error *err);

void train_result_release(struct train_result *res);

/* Shared by the strategies: runs an exec on the current host and returns the time it took. */
double train_timed_exec(double amount);

/* Exec amounts of every layer's forward and backward for one batch on `host` of `gpu`: FLOPs x
 * batch x host speed / (peak of the dtype x the calibrated GEMM efficiency at the layer's GEMM
 * size). Returns new arrays of m->nlayers owned by the caller (free). */
void train_layer_amounts(const struct calib *cal, const struct gpu_model *gpu, sg_host_t host,
                         enum gpu_dtype dtype, const struct model *m, int batch, double **fwd,
                         double **bwd);

/* Samples per second over the whole run. */
double train_throughput(const struct train_result *res);

/* Throughput / (P x the 1-GPU throughput batch / compute1_s). */
double train_efficiency(const struct train_result *res, int batch);

/* The per-step table and the summary, as "#"-headed fixed-width text. */
void train_print(const struct scenario *sc, const struct train_result *res, FILE *out);

/* The fault, recovery and accounting part of the summary. */
void train_print_faults(const struct train_result *res, FILE *out);

/* Every gradient computed is applied, dropped stale, dropped late or lost; every sample read is
 * consumed, skipped corrupt or replayed. */
bool train_identities_hold(const struct train_result *res);

/* Machine-readable outputs: per-step CSV; JSON with configuration, steps and summary; and the
 * one-line summary table that `dmlsim sweep` merges (header line + values line). */
void train_write_csv(const struct train_result *res, int batch, FILE *out);
void train_write_json(const struct scenario *sc, const struct model *m,
                      const struct train_result *res, FILE *out);
void train_write_summary(const struct scenario *sc, const struct train_result *res, FILE *out);

#endif
