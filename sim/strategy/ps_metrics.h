/* ps_metrics.h - the parameter server's own metric rows: shards, versions, the coordinator, lost
 * updates.
 *
 * Its rows join the common ones (metric.h) through the strategy's row of the strategy table
 * (strategy.h); metrics.h merges them by order. A metric of this strategy alone is one row here
 * (and its field of struct ps_record).
 */
#ifndef DMLSIM_PS_METRICS_H
#define DMLSIM_PS_METRICS_H

#include "metric.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct metric_table ps_metrics; /* rows and families, in order */

struct shard_report {
    char host[64];    /* where the shard runs */
    double params;    /* parameters it owns */
    double bytes_in;  /* gradient bytes received */
    double bytes_out; /* parameter bytes sent */
    double link_Bps;  /* bottleneck bandwidth between it and worker 0 */
    double update_s;  /* time spent applying updates */
    double versions;  /* versions it advanced */
    double queue_s;   /* pushes' time queued before the shard took them (summed) */
    double pushes;    /* pushes it took */
    double rows_in;   /* sparse: embedding rows pushed to it */
    double rows_out;  /* sparse: embedding rows pulled from it */
};

/* The parameter server's part of the run record (run.h's own). */
struct ps_record {
    int nshards;                 /* K */
    struct shard_report *shards; /* K shards */
    double imbalance;            /* largest shard's parameters / mean */
    double stale_hist[RUN_HIST]; /* applied slices by version lag */
    double spread_max;           /* largest difference between shard versions at one time */
    double spread_frac;          /* fraction of the run during which shards disagreed */
    bool coordinator;            /* a version coordinator ran */
    double coordinator_msgs;     /* messages the coordinator received */
    double coordinator_global;   /* the global version (minimum over shards) it last saw */
    double coordinator_spread;   /* the largest version disagreement it saw */
    double mixed_pulls;          /* pulls whose shards answered with different versions */
    double lost_updates;         /* shard versions lost to a shard crash */
    double *first_push_s;        /* per worker: duration of its first push (all shards) */
    bool sparse;                 /* embedding tables moved by rows (the sparse path) */
    double rows_computed;        /* sparse: embedding-row gradients pushed (posted) ... */
    double rows_applied;         /* ... applied by their shards ... */
    double rows_dropped;         /* ... dropped (stale or late) ... */
    double rows_lost;            /* ... lost to failures (never arrived, or rolled back) */
    double rows_pulled;          /* sparse: rows pulled from the shards */
    double rows_cached;          /* sparse: rows a worker's cache served instead */
    double sparse_B;             /* sparse: bytes of rows and their indices, pulled and pushed */
    double dense_equiv_B;        /* sparse: what the same pulls and pushes would move with
                                    sparse="no" (the tables' slices whole) */
};

/* Gives rec (a parameter-server record, after run_init) its part, zeroed; run_release frees it
 * with its arrays (shards, first_push_s: allocate them with malloc or xbt_new0). Returns it. */
struct ps_record *ps_metrics_attach(struct run_record *rec);

/* rec's parameter-server part, or NULL (another strategy's record, or none attached). */
struct ps_record *ps_metrics_of(const struct run_record *rec);

#endif
