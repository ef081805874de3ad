/* campaign.h - weeks of training under failures: a discrete-event simulation over the costs
 * dmlsim simulates for one step, one checkpoint and one restart.
 *
 * A pre-training run is weeks long at thousands of GPUs. Simulating its every step is out of
 * reach, but its time is made of a few costs that repeat: the step, the checkpoint's blocking
 * time, and a failure's detection, restart and reload. The campaign takes those costs as dmlsim's
 * own simulation of the scenario measured them (campaign_probe in the CLI: each distinct
 * configuration simulated once) and plays the run's failures, checkpoints, spares and repairs as
 * discrete events over days to months, many replications in seconds.
 *
 * The model, one replication (campaign_run_one):
 *  - The job runs steps of `step_s` (the slowest replica's: a fail-slow GPU stretches every step
 *    of the synchronous job by its slowed step's time) and, after every `every_steps` steps, a
 *    checkpoint that blocks training `ckpt_block_s` and counts `ckpt_commit_s` after the block
 *    ends (0 when synchronous; asynchronous: the background write). A checkpoint starts only
 *    after the previous one counted (CheckFreq's rule, FAST '21 §4.2).
 *  - Failures arrive as a Poisson process of rate sum(cause rate per GPU-hour) x GPUs in use:
 *    the superposition of many independent components' renewal processes tends to Poisson
 *    (the Palm-Khintchine theorem), and the published fleet figures are counts over a period
 *    (Llama 3, Table 5). The arrivals are drawn at the full size's rate and, while the job runs
 *    shrunk, kept with probability GPUs in use / full GPUs (thinning), so every policy of one
 *    replication meets the same failures (common random numbers: a sweep's differences are the
 *    policy's, not the draws').
 *  - An unplanned failure rolls the job back to its last checkpoint that counted: the work since
 *    is lost. The job is down for the cause's detection time, waits for nodes if it must, then
 *    restarts (`restart_s`) and reloads (`reload_s`). A failure while down starts the recovery
 *    over (Daly's model: a restart can fail too).
 *  - A failure that takes hardware (scope gpu: its node; node; rack: `rack_nodes` nodes) sends
 *    the nodes to repair for the cause's repair time; a spare node from the pool replaces each.
 *    Without enough spares the job waits for repairs (policy wait) or restarts with fewer data-
 *    parallel replicas (policy shrink: the largest dp' the nodes allow among `shrunk` sizes,
 *    each simulated), and grows back, after its next checkpoint, once nodes return.
 *  - A planned interruption checkpoints first (no lost work), then stops as a failure does.
 *  - A fail-slow event (kind slow) stretches the steps to `slow_step_s[cause]` for its duration,
 *    or until its detection (when shorter), when the job checkpoints and restarts without the
 *    slow node, as a planned interruption does.
 * Wall time is split exactly into productive step time (steps in the final model at full
 * speed), checkpoint blocking, lost work, down time and fail-slow time, by cause
 * (campaign_rep_is_sane checks the sum).
 *
 * Every replication has its own GSL MT19937 generator, seeded from the seed and its index, so a
 * replication's draws do not depend on how many ran before it.
 */
#ifndef DMLSIM_CAMPAIGN_H
#define DMLSIM_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>

#define CAMP_MAX_CAUSES 32 /* failure causes of one campaign */
#define CAMP_MAX_SHRUNK 16 /* degraded sizes (data-parallel replicas) one campaign may use */
#define CAMP_MAX_EVENTS 100000000L /* loop iterations of one replication: every run ends */

enum camp_kind {
    CAMP_CRASH,   /* the job stops; detected by an error or the watchdog */
    CAMP_HANG,    /* the job stalls: detected only by the watchdog (its detect time) */
    CAMP_SLOW,    /* fail-slow: a GPU runs slower for a while */
    CAMP_PLANNED, /* maintenance: a checkpoint, then a stop */
    CAMP_KINDS
};

enum camp_scope {
    CAMP_SCOPE_NONE, /* no hardware leaves: restart in place (software) */
    CAMP_SCOPE_GPU,  /* one GPU: its node is replaced */
    CAMP_SCOPE_NODE, /* a node */
    CAMP_SCOPE_RACK, /* a rack (its top-of-rack switch): rack_nodes nodes */
    CAMP_SCOPES
};

struct camp_cause {
    char name[32];         /* "faulty-gpu" */
    double per_gpu_hour;   /* failures per GPU-hour of the job */
    enum camp_kind kind;   /* what it does */
    enum camp_scope scope; /* what hardware it takes */
    double detect_s;       /* failure to the job noticing it; < 0: the simulated watchdog's */
    double repair_s;       /* taken nodes back in the pool after this (s) */
    double slow_factor;    /* kind slow: the GPU's compute is this many times slower */
    double slow_s;         /* kind slow: how long it lasts (s) */
    const char *source;    /* where the figures come from (static text) */
};

/* What dmlsim's simulation of the scenario measured (campaign_probe). */
struct camp_costs {
    double step_s;                         /* a fault-free step at full size */
    double ckpt_block_s;                   /* training blocked by one checkpoint */
    double ckpt_commit_s;                  /* from the block's end until it counts (async write) */
    double watchdog_s;                     /* a crash to its detection by the job's watchdog */
    double restart_s;                      /* processes and communicators started again */
    double reload_s;                       /* every rank reads its shard of the checkpoint */
    int nshrunk;                           /* degraded sizes simulated */
    int shrunk_dp[CAMP_MAX_SHRUNK];        /* their data-parallel replicas, descending */
    double shrunk_step_s[CAMP_MAX_SHRUNK]; /* their step times (the same global batch) */
    double slow_step_s[CAMP_MAX_CAUSES];   /* per cause of kind slow: the step with one slow GPU */
    double busy_power_w;                   /* a GPU's mean power over a step */
    double idle_power_w;                   /* a GPU's idle power */
};

enum camp_policy { CAMP_WAIT, CAMP_SHRINK };

struct camp_config {
    int gpus;                /* the job's GPUs at full size */
    int gpus_per_node;       /* GPUs of a node */
    int rack_nodes;          /* nodes a rack-scope failure takes */
    int dp;                  /* data-parallel replicas at full size */
    long target_steps;       /* end when this many steps are in the model (0: by duration) */
    double duration_s;       /* or end at this wall time (0: by steps) */
    int every_steps;         /* checkpoint interval (0: none) */
    int spares;              /* spare nodes in the pool at the start */
    enum camp_policy policy; /* without spares: wait for repairs or shrink */
    struct camp_cause causes[CAMP_MAX_CAUSES];
    int ncauses;
    double failure_scale;      /* every cause's rate x this (what-if) */
    int replications;          /* independent replications */
    unsigned long seed;        /* the scenario's seed */
    double tokens_per_step;    /* tokens a step trains */
    double price_per_gpu_hour; /* currency per GPU-hour (0: no cost) */
    double pue;                /* data centre power usage effectiveness (facility / IT) */
};

/* One replication's outcome: the wall time split by what it went to. */
struct camp_rep {
    double wall_s;                  /* end: target reached, or the duration */
    long steps;                     /* steps in the model at the end */
    double productive_s;            /* those steps at their full-size step time */
    double ckpt_s;                  /* checkpoint blocking of checkpoints kept */
    double shrunk_s;                /* extra step time while running shrunk */
    double lost_s[CAMP_MAX_CAUSES]; /* work rolled back (steps and blocks since the last
                                       checkpoint that counted), by cause */
    double down_s[CAMP_MAX_CAUSES]; /* detection, waiting for nodes, restart, reload */
    double slow_s[CAMP_MAX_CAUSES]; /* extra step time of fail-slow GPUs */
    long failures[CAMP_MAX_CAUSES]; /* failures met, by cause */
    long restarts;                  /* restarts (recoveries that completed) */
    long checkpoints;               /* checkpoints that counted */
    double gpu_busy_s;              /* GPU-seconds running steps */
    double gpu_reserved_s;          /* GPU-seconds reserved: the job's and the spares' */
    bool reached;                   /* the target was reached before the duration */
};

/* Runs replication `index` (0-based) of cfg over costs into *out. */
void campaign_run_one(const struct camp_config *cfg, const struct camp_costs *costs, int index,
                      struct camp_rep *out);

/* A failure that stopped the running job (crash or hang), as campaign_run_traced records it. */
struct camp_event {
    double t_s;       /* when it happened */
    int cause;        /* its cause */
    long ck_step;     /* the checkpoint the job rolled back to (steps) */
    double lost_s;    /* the work rolled back: time since that checkpoint's block ended */
    double resume_s;  /* training resumed (INFINITY: never, within the run) */
    bool interrupted; /* another failure came before it resumed */
    bool plain;       /* full size, no fail-slow GPU, between checkpoints (none blocking or in
                         flight): a plain rollback. Inside a checkpoint's block the campaign
                         loses that checkpoint (Daly's model); the detailed simulation keeps it
                         when the failed node's shards were already written */
};

/* campaign_run_one, also recording the first `max` failures that stopped the running job into
 * ev[0..*nev). */
void campaign_run_traced(const struct camp_config *cfg, const struct camp_costs *costs, int index,
                         struct camp_rep *out, struct camp_event *ev, int max, int *nev);

/* Whether rep's parts add up to its wall time (to 1e-9 relative) and none is negative. */
bool campaign_rep_is_sane(const struct camp_config *cfg, const struct camp_rep *rep);

/* The job's mean time between failures that roll it back (s): 1 / (sum of the unplanned,
 * non-slow causes' rates x GPUs). */
double campaign_mtbf_s(const struct camp_config *cfg);

/* The effective training time ratio of a replication: productive / wall. */
double campaign_ettr(const struct camp_rep *rep);

/* A GPU's energy over a replication (J, IT power): busy GPU-seconds at busy power, the rest of
 * the reserved GPU-seconds at idle power. */
double campaign_energy_j(const struct camp_rep *rep, const struct camp_costs *costs);

#endif
