/* scenario.h - a scenario file read into plain data, checked once, up front.
 *
 * scenario_load() parses the XML with libxml2, validates it against scenarios/scenario.dtd (built
 * into the binary, so a scenario's own DOCTYPE is never fetched), then checks every value: units,
 * ranges, catalog names, cross-field rules. The first problem found stops the load with one
 * message "FILE:LINE: ..." naming what was wrong and what was expected. Unknown elements and
 * attributes are errors, reported before the DTD's own messages so they can list what is allowed.
 *
 * After a successful load the XML tree is gone: every string is copied into `struct scenario`,
 * which the caller releases with scenario_release().
 */
#ifndef DMLSIM_SCENARIO_H
#define DMLSIM_SCENARIO_H

#include "catalog.h"
#include "collective.h"
#include "error.h"
#include "model.h"

#include <stdbool.h>
#include <stddef.h>

enum net_model {
    NET_CM02, /* exact alpha-beta with max-min sharing; the default */
    NET_LV08, /* SimGrid's TCP-realism model: latency x13.01, bandwidth x0.97, crosstraffic */
};

enum topology {
    TOPO_STAR,    /* every node on one non-blocking switch */
    TOPO_FATTREE, /* two levels: leaves of nodes, every leaf linked to every spine */
};

struct cluster_spec {
    int nodes;                      /* number of nodes, >= 1 */
    int gpus_per_node;              /* GPUs in each node, >= 1 */
    const struct gpu_model *gpu;    /* the GPU model of every GPU */
    const struct link_class *intra; /* GPU-to-GPU class inside a node (nvlink or pcie kind) */
    const struct link_class *pcie;  /* host interface of GPUs, CPU and NICs (pcie kind) */
    const struct link_class *nic;   /* network class; NULL only when nodes == 1 */
    int nics_per_node;              /* NICs per node, >= 1; GPU j uses NIC j % nics_per_node */
    enum topology topology;         /* inter-node topology */
    int nodes_per_leaf;             /* fat-tree: nodes under one leaf switch */
    int spines;                     /* fat-tree: spine switches, each linked to every leaf */
    double oversubscription;        /* fat-tree: leaf down capacity / up capacity, >= 1 */
    int ps_nodes;                   /* dedicated parameter-server machines, >= 0 */
};

enum bench_kind {
    BENCH_NONE,       /* no <benchmark> element */
    BENCH_P2P,        /* point-to-point messages between pairs of hosts */
    BENCH_COLLECTIVE, /* a collective over the GPUs */
};

struct bench_pair {
    char *src; /* host name */
    char *dst; /* host name */
    int line;  /* line of the <pair> element, for messages */
};

struct benchmark {
    enum bench_kind kind;     /* which benchmark */
    double begin_B;           /* first message size, bytes, > 0 */
    double end_B;             /* last message size (inclusive bound), bytes, >= begin_B */
    double factor;            /* size multiplier between rows, > 1 (or 1 when begin == end) */
    double timeout_s;         /* deadline of each transfer, simulated seconds */
    struct bench_pair *pairs; /* p2p: endpoints, run one pair after another */
    size_t npairs;            /* p2p: number of pairs, >= 1 */
    enum coll_op op;          /* collective: which one */
    const struct coll_algo *algo; /* collective: all-reduce algorithm */
    enum coll_level level;    /* collective: message or flow level */
    int gpus;                 /* collective: ranks (first GPUs); 0 = all */
    int chunks;               /* collective: pipeline chunks (tree, broadcast) */
    int line;                 /* line of the <benchmark> element */
};

struct model_spec {
    bool present;             /* a <model> element was given */
    char *preset;             /* preset name, or NULL for explicit layers */
    struct gpt_config gpt;    /* gpt / bert-large shape (defaults filled in) */
    struct model explicit_;   /* explicit layers (activations as given, in bytes) */
    int line;                 /* line of <model> */
};

enum strategy {
    STRAT_NONE,      /* no <training> */
    STRAT_ALLREDUCE, /* synchronous data parallelism with all-reduce */
    STRAT_PS,        /* parameter server */
};

enum ps_mode {
    PS_SYNC,  /* a shard advances when its quorum of pushes has arrived */
    PS_ASYNC, /* pushes applied as they come, within the staleness bound */
};

struct ps_spec {
    int shards;       /* K >= 1 */
    bool dedicated;   /* shards on ps-nodes machines (else on the worker nodes' CPU hosts) */
    bool split_bytes; /* even split by bytes (else whole layers round-robin) */
    enum ps_mode mode; /* sync or async */
    int staleness;    /* async: largest accepted version lag tau */
    int backup;       /* sync: backup workers b (quorum P - b) */
    bool coordinator; /* a global version coordinator actor */
    int line;         /* line of <ps>, or of <training> when absent */
};

struct train_spec {
    enum strategy strategy;       /* STRAT_NONE when absent */
    const struct coll_algo *algo; /* all-reduce algorithm */
    enum coll_level level;        /* message or flow level */
    int batch;                    /* samples per GPU per step */
    int steps;                    /* steps to simulate */
    enum gpu_dtype dtype;         /* training precision */
    enum optimizer opt;           /* optimizer */
    double bucket_B;              /* gradient bucket size, bytes */
    bool overlap;                 /* all-reduce buckets during the backward */
    int gpus;                     /* workers (first GPUs); 0 = all */
    double timeout_s;             /* deadline of every wait */
    int chunks;                   /* pipeline chunks (tree) */
    struct ps_spec ps;            /* parameter-server settings (strategy ps) */
    int line;                     /* line of <training> */
};

struct scenario {
    char *path;                  /* the scenario file as given */
    char *name;                  /* name attribute, or the file's base name without .xml */
    unsigned long seed;          /* seed of every random draw (default 1) */
    enum net_model net_model;    /* SimGrid network model */
    bool has_cluster;            /* true: generated cluster; false: platform_file */
    struct cluster_spec cluster; /* when has_cluster */
    int cluster_line;            /* line of <cluster> or <platform> */
    char *platform_file;         /* when !has_cluster: path resolved against the scenario's dir */
    struct benchmark bench;      /* kind BENCH_NONE when absent */
    struct model_spec model;     /* present == false when absent */
    struct train_spec train;     /* strategy STRAT_NONE when absent */
};

/* A command-line override "element.attribute=value", applied to the first such element before
 * validation (command line > scenario XML > defaults). */
struct scenario_override {
    const char *path;  /* "element.attribute" */
    const char *value; /* new value */
};

/* Loads and checks `path` into `sc` (zeroed first). On failure returns the code, fills `err`, and
 * leaves `sc` empty (nothing to release). */
enum dmlsim_err scenario_load(const char *path, struct scenario *sc, struct dmlsim_error *err);

/* scenario_load with overrides; an override naming an element the scenario lacks is an error. */
enum dmlsim_err scenario_load_with(const char *path, const struct scenario_override *ov, size_t nov,
                                   struct scenario *sc, struct dmlsim_error *err);

/* Builds the scenario's model (preset or explicit) for its training dtype into `m`. */
void scenario_build_model(const struct scenario *sc, struct model *m);

/* Frees what scenario_load allocated; `sc` may be zeroed or already released. */
void scenario_release(struct scenario *sc);

/* Invariants of a loaded scenario, for asserts. */
bool scenario_is_sane(const struct scenario *sc);

/* Total GPUs of a generated cluster. */
int cluster_gpu_count(const struct cluster_spec *c);

#endif
