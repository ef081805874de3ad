/* scenario_types.h - a scenario as plain data: struct scenario and its parts, shared by the
 * scenario reader's modules (scenario.c, scen_*.c) and everything that runs a loaded scenario.
 *
 * How a scenario file becomes this data, and who releases it, is told in scenario.h, the API that
 * callers include (it includes this); the readers of the elements, which fill it, include only this
 * header, so that scenario.c can include them without an include cycle.
 */
#ifndef DMLSIM_SCENARIO_TYPES_H
#define DMLSIM_SCENARIO_TYPES_H

#include "campaign.h"
#include "catalog.h"
#include "coll_op.h"
#include "error.h"
#include "faultkind.h"
#include "kcost.h"
#include "model.h"
#include "nccl_tune.h"
#include "storage.h"
#include "strategies.h"

#include <stdbool.h>
#include <stddef.h>

enum net_model {
    NET_CM02, /* exact alpha-beta with max-min sharing; the default */
    NET_LV08, /* SimGrid's TCP-realism model: latency x13.01, bandwidth x0.97, crosstraffic */
};

enum topology {
    TOPO_STAR,    /* every node on one non-blocking switch */
    TOPO_FATTREE, /* two levels: leaves of nodes, every leaf linked to every spine */
    TOPO_FLAT,    /* one GPU per node on one switch, as a SimGrid <cluster> (very large P) */
};

struct cluster_spec {
    int nodes;                      /* number of nodes, >= 1 */
    int gpus_per_node;              /* GPUs in each node, >= 1 */
    const struct gpu_model *gpu;    /* the GPU model of every GPU */
    const struct link_class *intra; /* GPU-to-GPU class inside a node (nvlink or pcie kind) */
    const struct link_class *pcie;  /* host interface of GPUs, CPU and NICs (pcie kind) */
    const struct link_class *nic;   /* network class; NULL only when nodes == 1 */
    int nics_per_node;              /* NICs per node, >= 1: a divisor of gpus_per_node (GPU j on
                                       NIC j % nics_per_node) or a multiple (k per GPU: platform.h) */
    enum topology topology;         /* inter-node topology */
    int nodes_per_leaf;             /* fat-tree: nodes under one leaf switch */
    int spines;                     /* fat-tree: spine switches, each linked to every leaf */
    double oversubscription;        /* fat-tree: leaf down capacity / up capacity, >= 1 */
    int ps_nodes;                   /* dedicated parameter-server machines, >= 0 */
    bool sharp;                     /* the InfiniBand switches reduce (SHARP): NCCL's CollNet */
    bool fatpipe_switch;            /* switch="fatpipe": the switch as one FATPIPE link on every
                                       inter-node route and every zone pair routed explicitly
                                       (the generator before issue 16; for comparison only) */
    double store_bw_Bps;            /* store-bw: the checkpoint store's aggregate sustained rate,
                                       B/s, carried by the storage host's disk (read and write),
                                       PCIe, NIC and switch port; 0 when absent (the disk at
                                       CATALOG_STORE_BPS, the cluster's PCIe and NIC classes) */
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
    enum coll_algo_id algo;   /* collective: algorithm (default nccl) */
    struct nccl_opts nccl;    /* collective: nccl-algo, proto, channels (nccl family) */
    enum coll_level level;    /* collective: message or flow level */
    int gpus;                 /* collective: ranks (first GPUs); 0 = all */
    int chunks;               /* collective: pipeline chunks (tree, broadcast) */
    double *sizes;            /* explicit sizes instead of begin/factor/end (dmlsim validate),
                                 not owned by the scenario; NULL normally */
    size_t nsizes;            /* number of explicit sizes */
    int line;                 /* line of the <benchmark> element */
};

struct model_spec {
    bool present;           /* a <model> element was given */
    char *preset;           /* preset name, or NULL for explicit layers */
    struct gpt_config gpt;  /* gpt / bert-large shape (defaults filled in), attention resolved
                               against the GPU and dtype (FlashAttention where it runs) */
    bool attn_set;          /* <model attention> was given */
    struct model explicit_; /* explicit layers (activations as given, in bytes) */
    uint64_t **idfiles;     /* the ID files of explicit tables, read (owned) */
    size_t nidfiles;        /* number of them */
    int line;               /* line of <model> */
};

enum ps_mode {
    PS_SYNC,  /* a shard advances when its quorum of pushes has arrived */
    PS_ASYNC, /* pushes applied as they come, within the staleness bound */
};

struct ps_spec {
    int shards;        /* K >= 1 */
    bool dedicated;    /* shards on ps-nodes machines (else on the worker nodes' CPU hosts) */
    bool split_bytes;  /* even split by bytes (else whole layers round-robin) */
    enum ps_mode mode; /* sync or async */
    int staleness;     /* async: largest accepted version lag tau */
    bool bounded;      /* async: bounded delay (a worker waits so that its lag stays within tau;
                          Li et al. OSDI'14), else drop-and-refetch */
    int backup;        /* sync: backup workers b (quorum P - b) */
    bool coordinator;  /* a global version coordinator actor */
    bool enforce;      /* coordinator="enforce": every pull takes the one global version it
                          names (else a worker accepts each shard's latest, mixed, as staleness) */
    const struct transport *transport; /* the software path of its messages (catalog.h) */
    bool push_during;  /* a shard's slice is pushed as soon as the backward has produced it */
    bool per_tensor_rpc; /* one message per tensor of a slice (else one per shard) */
    bool prefetch;     /* sync: the next iteration's parameters are fetched during this one */
    bool local_agg;    /* sync: a node's GPUs reduce to its first GPU, which alone pulls and
                          pushes (and broadcasts the parameters to the others) */
    bool dense_tables; /* sparse="no": embedding tables pulled and pushed whole, as dense
                          tensors (else only the rows a batch looks up, with their indices) */
    enum emb_shard shard_by; /* how a table's rows are placed on the shards */
    double cache_rows; /* a worker's cache of the hottest rows of each table (0: none) */
    int cache_staleness; /* ... refreshed from the shards every this many iterations */
    bool dense_allreduce; /* dense="allreduce": the dense part all-reduced among the workers,
                             only the tables on the shards (Persia's hybrid) */
    bool sparse_given;    /* any of sparse, shard-by, cache-rows, dense was written */
    int line;          /* line of <ps>, or of <training> when absent */
};

enum pp_schedule {
    PP_1F1B,  /* PipeDream-Flush: p - 1 - stage forwards, then one forward one backward */
    PP_GPIPE, /* every forward, then every backward */
    PP_INTERLEAVED, /* 1F1B over v model chunks a rank (Narayanan et al., SC'21, section 2.2.2) */
};

enum recompute {
    RECOMPUTE_NONE,      /* every activation kept */
    RECOMPUTE_SELECTIVE, /* the attention's s x s tensors recomputed (Korthikanti et al. 2022) */
    RECOMPUTE_FULL,      /* a block's input kept, the block recomputed in its backward */
};

/* The collectives' watchdog when <training timeout> (or <benchmark timeout>) is absent: PyTorch's
 * NCCL process group default, 10 minutes (torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp
 * kProcessGroupNCCLDefaultTimeout = 10 * 60 * 1000 ms, surfaced as
 * torch/distributed/constants.py default_pg_nccl_timeout and the timeout= default of
 * init_process_group: "10 minutes for NCCL"). The campaign's "watchdog" detection is measured
 * from a run of the scenario (campaign_probe.h), so it follows this default: one constant. */
#define DEFAULT_TIMEOUT_S 600.0

#define PAR_STAGES_MAX 128 /* stage-layers: the most stages a list names */

/* <parallel> (strategy="hybrid"): tensor x pipeline x data parallelism on a transformer. */
struct parallel_spec {
    int tp, pp, dp;       /* ranks of each dimension; tp x pp x dp GPUs */
    int ep;               /* expert parallelism: the experts split over ep of the dp replicas */
    int cp;               /* context parallelism: each sample's sequence split over cp ranks
                             (0 or 1: none); tp x cp x pp x dp GPUs */
    bool cp_allgather;    /* cp-comm="all-gather": K and V all-gathered (Llama 3's); else
                             "p2p", a ring passing K and V chunks (Megatron-Core's default) */
    int microbatches;     /* m per pipeline per step (batch-per-gpu: a microbatch's samples) */
    int vstages;          /* model chunks a rank holds (interleaved: virtual-stages; else 1) */
    enum pp_schedule schedule;
    int zero;             /* ZeRO stage over the data-parallel ranks: 0 (none) to 3 */
    bool no_prefetch;     /* ZeRO-3: gather each layer when it runs (else one layer ahead) */
    bool overlap_grad;    /* overlap-grad-reduce: gradients reduced in buckets during the
                             backward (Megatron's --overlap-grad-reduce; hy_dpov.h) */
    bool overlap_params;  /* overlap-param-gather: ZeRO-1's gathers in the next forward */
    long bucket_params;   /* bucket-size: parameters a bucket (0: Megatron's default) */
    bool sp;              /* sequence parallelism inside the tensor-parallel group */
    bool tp_overlap;      /* tp-comm-overlap="yes": each block's tensor-parallel collectives
                             pipelined with its GEMMs (Transformer Engine's userbuffers, Megatron's
                             --tp-comm-overlap; hy_tpov.h); needs sp */
    bool no_scatter_gather; /* scatter-gather="no": each tensor rank sends the whole activations
                               to the next stage (Megatron's --no-scatter-gather-tensors-in-
                               pipeline); else 1/tp each, all-gathered after (without sp only) */
    enum recompute recompute;
    bool dp_outer;        /* order="tp-pp-dp": data-parallel replicas outermost (else
                             "tp-dp-pp", Megatron's: pipeline stages outermost) */
    int first_blocks;     /* first-stage-layers: blocks of stage 0 (0: as the others) */
    int last_blocks;      /* last-stage-layers: blocks of the last stage (0: as the others) */
    bool embed_split;     /* account-for-embedding: the embedding counts as a block of the even
                             split (Megatron's --account-for-embedding-in-pipeline-split) */
    bool loss_split;      /* account-for-loss: the output layer and loss count as one */
    int nstage_blocks;    /* stage-layers: its entries (0: none; else pp) */
    int stage_blocks[PAR_STAGES_MAX]; /* stage-layers: blocks of each stage */
    int line;             /* line of <parallel> */
};

#define NUMERICS_MAX_HIDDEN 7 /* hidden layers of the numerics MLP (nn.h: NN_MAX_LAYERS - 1) */

/* <numerics>: the workers really train (core/numerics.h). */
struct numerics_spec {
    bool present;
    char *dir;                        /* folder of the four IDX files (resolved) */
    int hidden[NUMERICS_MAX_HIDDEN];  /* units of each hidden layer */
    int nhidden;                      /* 0: softmax regression */
    double lr;                        /* learning rate for one worker's batch */
    bool lr_linear;                   /* lr x workers (Goyal et al. 2017's linear scaling rule) */
    int warmup;                       /* updates over which lr ramps from lr to the scaled lr
                                         (Goyal et al. 2017, section 2.2: gradual warm-up); 0 */
    double target;                    /* target test accuracy (0: none) */
    int eval_every;                   /* steps between evaluations on the test set */
    int train_n, test_n;              /* examples used (0: all the files hold) */
    char *cost_model;                 /* a model preset whose cost each step takes (a proxy:
                                         the MLP learns, the preset's timing is simulated), or
                                         NULL: the MLP's own cost */
    int line;                         /* line of <numerics> */
};

/* The input pipeline (<data>, sim/engine/loader.h): how each worker's batches get from storage
 * to its GPU. */
enum data_format {
    DATA_IDX,        /* one sequential file: a read request per batch */
    DATA_WEBDATASET, /* tar shards read sequentially, whole shards per loader worker */
    DATA_MDS,        /* MosaicML MDS: random access through the shard index, a request a sample */
    DATA_PARQUET,    /* row groups, only the selected columns' bytes read */
};
enum data_source {
    DATA_LOCAL_NVME, /* each node's NVMe drive */
    DATA_REMOTE,     /* an object store on the storage host, over the network */
    DATA_MEMORY,     /* already in host memory (page cache): no read */
};
enum data_cache {
    CACHE_NONE,
    CACHE_MEMORY, /* a node's memory (lost when the node crashes) */
    CACHE_NVME,   /* a node's NVMe (kept across a crash) */
};

struct data_spec {
    bool present;
    double samples;          /* samples in the dataset */
    double sample_B;         /* stored bytes of a sample (mean) */
    double sample_sigma;     /* lognormal spread of a sample's size (0: all the same); its
                                decode time scales with its size */
    unsigned long seed;      /* the scenario's seed (which sample has which size) */
    double decoded_B;        /* bytes of a decoded sample, what crosses PCIe */
    double decode_s;         /* CPU time to decode and augment a sample, on one core */
    enum data_format format;
    double shard_samples;    /* webdataset: samples per tar shard; mds: per shard file; parquet:
                                rows per row group (given, or from shard_B) */
    double shard_B;          /* shard-bytes: the writer's byte limit a shard, or 0 (by samples) */
    int shuffle;             /* enum data_shuffle (order.h): none, epoch (MDS), buffer */
    bool by_class;           /* layout="by-class": the files hold the samples grouped by label
                                (<numerics> trains on its set so arranged) */
    int shuffle_buffer;      /* buffer: samples a loader worker's shuffle buffer holds */
    double columns;          /* parquet: the selected columns' share of a row's bytes */
    enum data_source source;
    double request_s;        /* latency of each read request (first byte) */
    double conn_Bps;         /* remote: throughput of one connection (a loader worker's) */
    enum data_cache cache;   /* remote: a cache tier on each node in front of the store */
    double cache_B;          /* ... and its capacity (bytes) */
    int workers;             /* loader worker processes per GPU (0: in the training loop) */
    int prefetch;            /* batches each worker loads in advance (PyTorch prefetch_factor) */
    bool pinned;             /* batches in pinned host memory (else pageable: a staging copy) */
    bool gds;                /* GPUDirect Storage: NVMe straight into GPU memory */
    int store_id;            /* <data store>: 1 + its index in scenario.stores, 0: none (the
                                source's built-in numbers, as before stores existed) */
    int line;                /* line of <data> */
};

const char *scenario_pp_schedule_name(enum pp_schedule s);
const char *scenario_recompute_name(enum recompute r);

struct train_spec {
    enum strategy_id strategy; /* STRAT_NONE when absent */
    enum coll_algo_id algo;    /* all-reduce algorithm (default nccl) */
    struct nccl_opts nccl;     /* nccl-algo, proto, channels (nccl family) */
    enum coll_level level;     /* message or flow level (auto until main resolves it) */
    char level_why[96];        /* why auto chose it ("" when the level was set, level.h) */
    bool replay;               /* flow-level collectives on otherwise idle links may be replayed
                                  from an identical earlier call (replay="yes", the default) */
    int batch;                 /* samples per GPU per step */
    int steps;                 /* steps to simulate */
    enum gpu_dtype dtype;      /* training precision */
    enum optimizer opt;        /* optimizer */
    double bucket_B;           /* gradient bucket size, bytes */
    bool overlap;              /* all-reduce buckets during the backward */
    bool grad_as_view;         /* DDP's gradient_as_bucket_view: no copies back after the
                                  all-reduces (ddp_bucket.h) */
    int gpus;                  /* workers (first GPUs); 0 = all */
    double timeout_s;          /* deadline of every wait */
    int chunks;                /* pipeline chunks (tree) */
    struct ps_spec ps;         /* parameter-server settings (strategy ps) */
    struct parallel_spec par;  /* strategy hybrid: the parallel dimensions */
    struct numerics_spec numerics; /* real training (present == false: timings only) */
    struct data_spec data;     /* the input pipeline (present == false: batches always ready) */
    double kernel_launch_s;    /* a GPU kernel lasts at least this (CPU-side launch) */
    double bucket_overhead_s;  /* per gradient bucket: the hook and the collective's launch */
    double step_overhead_s;    /* per step: host work of the framework (0 by default) */
    bool per_tensor_opt;       /* the optimizer runs one kernel per parameter tensor */
    enum host_mode host;       /* how the host issues kernels (kcost.h): eager by default */
    bool autocast;             /* amp="autocast": 16-bit as PyTorch's autocast (FP32 weights
                                  cast every forward, FP32 ops with casts); else "pure" (a
                                  16-bit model, FP32 master weights in the optimizer) */
    bool broadcast;            /* all-reduce: rank 0 broadcasts the model before the first step */
    bool horovod;              /* all-reduce: Horovod's tensor fusion instead of DDP's buckets */
    double cycle_s;            /* Horovod: the background thread's cycle time */
    double fusion_B;           /* Horovod: the fusion buffer (the largest fused all-reduce) */
    bool emb_sharded;          /* all-reduce, embeddings="sharded": the embedding tables
                                  model-parallel, exchanged by all-to-alls (emb_shard.h); else
                                  replicated on every GPU */
    bool trace;                /* record a trace of the run (set by --trace) */
    int line;                  /* line of <training> */
};

/* The children of <faults>, one per row of the table in faultkind.h. */
#define FAULT_SPEC_ENUM_ROW(kind, element, targets, read, plan, start, end) kind,
enum fault_spec_kind { FAULT_SPEC_KINDS(FAULT_SPEC_ENUM_ROW) FS_KIND_COUNT };
#undef FAULT_SPEC_ENUM_ROW

/* One child of <faults>, as written (fault.h materialises the plan). */
struct fault_spec {
    enum fault_spec_kind kind;
    char *host;         /* crash, straggler, corrupt-batch: a host or node name; NULL = all */
    char *link;         /* link-down, degrade: a link name */
    char *node;         /* link-down, degrade: a node whose NIC links are meant */
    char *groups;       /* partition: "node0,node1|node2" */
    double at_s;        /* when (crash, link faults, partition), or -1 */
    int step;           /* crash or corrupt batch at this step, or -1 */
    double for_s;       /* duration (straggler, link faults, partition heal-after), -1 = forever */
    double restart_s;   /* crash, cache-crash: restart delay, -1 = none; mtbf: repair time */
    double factor;      /* straggler slowdown (> 1) / degrade bandwidth factor (0 < f <= 1) */
    double sigma;       /* straggler jitter: lognormal sigma, 0 = none */
    double probability; /* corrupt-batch: per (worker, step) probability, 0 = none */
    bool weibull;       /* mtbf: Weibull (else exponential) */
    double mtbf_s;      /* mtbf: mean time between failures per GPU */
    double shape;       /* mtbf: Weibull shape k */
    double until_s;     /* mtbf: horizon of the process */
    long long shard;    /* corrupt-shard: the shard (of <data>'s files) whose samples fail */
    int line;           /* line of the element */
};

enum ckpt_target {
    CKPT_LOCAL_NVME, /* each node's NVMe */
    CKPT_CACHE,      /* a node-memory cache in front of the remote store (fast write, flush) */
    CKPT_REMOTE,     /* the remote store host */
};

struct checkpoint_spec {
    bool present;    /* a <checkpoint> element was given */
    int every_steps; /* every N steps, or 0 */
    double every_s;  /* every T simulated seconds (first step boundary after), or 0 */
    bool async;      /* snapshot, then write in the background */
    enum ckpt_target target;
    int store_id; /* <checkpoint store>: 1 + its index in scenario.stores, 0: none */
    int line;
};

/* A <storage> element: a named store, a preset's numbers with the attributes given over them
 * (storage.h). <data store> and <checkpoint store> name it. */
#define SCEN_MAX_STORES 8
struct store_spec {
    char name[32];          /* its name attribute */
    const char *preset;     /* the preset it starts from (static storage) */
    enum store_kind kind;   /* the preset's */
    struct store_params p;  /* the preset's numbers, the attributes given over them */
    int line;               /* line of <storage> */
};

struct recovery_spec {
    bool elastic;               /* continue with the survivors (else wait for replacements) */
    double rendezvous_s;        /* how long the rendezvous waits for survivors to report */
    double replacement_s;       /* policy wait: how long it waits for crashed workers */
    double straggler_threshold; /* remove a worker slower than this x the median ... */
    int straggler_steps;        /* ... for this many consecutive steps (0 = never) */
    int max_restarts;           /* memberships after the first before the job fails (torchrun's
                                   --max-restarts) */
    bool from_survivor;         /* restore-from="survivor": a new membership takes the state of
                                   the survivor furthest on, sent to those who need it (else the
                                   last checkpoint, or the initial state) */
    bool skip_lost;             /* lost-batches="skip": the batches of rolled-back steps are not
                                   read again (else replayed, the same data order) */
    bool per_side;              /* rendezvous="per-side": the store has a replica on every node
                                   and no quorum, so each side of a partition forms its own
                                   membership (split brain); else one store, and a side cut
                                   off from it waits for the heal */
    double restart_s;           /* hybrid: a restart's cost (s): processes started again and
                                   their communicators formed again (hybrid_recover.h) */
    bool present;               /* a <recovery> element was given (hybrid: restart, else fail) */
    int line;
};

struct expect_spec {
    char *metric; /* a metric name (expect.h) */
    double min;   /* lower bound, -inf if absent */
    double max;   /* upper bound, +inf if absent */
    int line;
};

/* <campaign>: weeks of the job under failures (campaign.h), played by `dmlsim campaign`. */
struct campaign_spec {
    bool present;           /* a <campaign> element was given */
    int line;               /* its line */
    double duration_s;      /* end at this wall time (0: by steps) */
    long steps;             /* or when this many steps are trained (0: by duration) */
    int replications;       /* independent replications (default 20) */
    int spares;             /* spare nodes in the pool */
    enum camp_policy policy; /* on-shortage: wait for repairs or shrink */
    int rack_nodes;         /* nodes a rack-scope failure takes */
    double failure_scale;   /* every cause's rate x this */
    char mix[32];           /* failures="...": the preset mix the causes started from */
    struct camp_cause causes[CAMP_MAX_CAUSES]; /* the mix's rows, then the <failure>s (one of
                                                  the same name replaces the mix's row) */
    int ncauses;
    int nfailures;          /* <failure> children given */
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
    char *calib_file;            /* <calib file>, resolved against the scenario's dir, or NULL */
    struct benchmark bench;      /* kind BENCH_NONE when absent */
    struct model_spec model;     /* present == false when absent */
    struct train_spec train;     /* strategy STRAT_NONE when absent */
    struct fault_spec *faults;   /* <faults> children */
    size_t nfaults;              /* number of them */
    struct checkpoint_spec ckpt; /* <checkpoint> */
    struct store_spec stores[SCEN_MAX_STORES]; /* <storage> elements */
    int nstores;                 /* number of them */
    struct recovery_spec rec;    /* <recovery> (defaults when absent) */
    struct campaign_spec camp;   /* <campaign> */
    struct expect_spec *expects; /* <expect> elements */
    size_t nexpects;             /* number of them */
};

/* The <data> attribute values of a format ("idx", ...), a source ("local-nvme", ...) and a cache
 * tier ("none", "memory", "nvme"). */
const char *scenario_data_format_name(enum data_format f);
const char *scenario_data_source_name(enum data_source s);
const char *scenario_data_cache_name(enum data_cache c);

/* The store of a store_id (<data>'s or <checkpoint>'s), or NULL for 0 (scen_store.c). */
const struct store_spec *scenario_store(const struct scenario *sc, int id);

/* A cache tier keeps a bit per sample and node: at most this many samples (16 MiB a node). */
#define DATA_CACHE_MAX_SAMPLES (1L << 27)

/* The element name of a fault kind ("crash", "mtbf", ...). */
const char *scenario_fault_element(enum fault_spec_kind k);

/* A <partition>'s groups: how many, and which one `name` (a node, or a zone such as ps0) is in;
 * a name in no group is in the first (the one that keeps the store). */
int scenario_partition_groups(const struct fault_spec *f);
int scenario_partition_group(const struct fault_spec *f, const char *name);

/* The name of the link a generated platform puts into every route that leaves group g of the
 * partition element f, up to its class: "partition.line12.g1" (by the element's line), and the
 * platform adds ".CLASS" (the NIC's: its bytes are that class's); taking it down cuts exactly the
 * routes between groups. */
void scenario_partition_link(const struct fault_spec *f, int g, char *buf, size_t len);

/* The topology as written in scenarios: "star", "fat-tree", "flat". */
const char *topology_name(enum topology t);

/* Total GPUs of a generated cluster. */
int cluster_gpu_count(const struct cluster_spec *c);

#endif
