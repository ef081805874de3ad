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
#include "error.h"

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
};

enum bench_kind {
    BENCH_NONE, /* no <benchmark> element */
    BENCH_P2P,  /* point-to-point messages between pairs of hosts */
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
    struct bench_pair *pairs; /* endpoints, run one pair after another */
    size_t npairs;            /* number of pairs, >= 1 */
    int line;                 /* line of the <benchmark> element */
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
};

/* Loads and checks `path` into `sc` (zeroed first). On failure returns the code, fills `err`, and
 * leaves `sc` empty (nothing to release). */
enum dmlsim_err scenario_load(const char *path, struct scenario *sc, struct dmlsim_error *err);

/* Frees what scenario_load allocated; `sc` may be zeroed or already released. */
void scenario_release(struct scenario *sc);

/* Invariants of a loaded scenario, for asserts. */
bool scenario_is_sane(const struct scenario *sc);

/* Total GPUs of a generated cluster. */
int cluster_gpu_count(const struct cluster_spec *c);

#endif
