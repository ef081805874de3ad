/* attr_spec.c - the scenario attributes' table: type, unit, range, default, meaning (attr_spec.h).
 *
 * The rows follow the DTD's order. A default written here is the one the loader applies (the
 * readers take it from the row); a "depends: ..." default is computed by the reader, and the words
 * say from what. Every constant cites its source beside it.
 */
#include "attr_spec.h"

#include "catalog.h"
#include "kcost.h"
#include "nccl_socket.h"
#include "scenario_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576.0

/* One row each; d: the default of a number (when dt is NULL), dt: the default in words. */
#define INT(e, a, lo, hi, d, dt, m) \
    { \
        e, a, ATTR_INT, UNIT_SIZE, UNIT_ANY, lo, hi, true, NULL, ACAT_NONE, d, dt, m \
    }
#define INT_R(e, a, lo, hi, rt, d, dt, m) \
    { \
        e, a, ATTR_INT, UNIT_SIZE, UNIT_ANY, lo, hi, true, rt, ACAT_NONE, d, dt, m \
    }
#define REAL(e, a, lo, incl, hi, d, dt, m) \
    { \
        e, a, ATTR_REAL, UNIT_SIZE, UNIT_ANY, lo, hi, incl, NULL, ACAT_NONE, d, dt, m \
    }
#define QTY(e, a, k, b, d, dt, m) \
    { \
        e, a, ATTR_QUANTITY, k, b, 0, 0, false, NULL, ACAT_NONE, d, dt, m \
    }
#define QTY_R(e, a, k, b, rt, d, dt, m) \
    { \
        e, a, ATTR_QUANTITY, k, b, 0, 0, false, rt, ACAT_NONE, d, dt, m \
    }
#define OTHER(e, a, t, dt, m) \
    { \
        e, a, t, UNIT_SIZE, UNIT_ANY, 0, 0, false, NULL, ACAT_NONE, 0, dt, m \
    }
#define CHOICE(e, a, dt, m) OTHER(e, a, ATTR_CHOICE, dt, m)
#define TEXT(e, a, dt, m)   OTHER(e, a, ATTR_TEXT, dt, m)
#define PATH(e, a, dt, m)   OTHER(e, a, ATTR_PATH, dt, m)
#define PRESET(e, a, c, dt, m) \
    { \
        e, a, ATTR_PRESET, UNIT_SIZE, UNIT_ANY, 0, 0, false, NULL, c, 0, dt, m \
    }

#define NONE "none"
#define BIG  (double)(1L << 20)

/* algo, nccl-algo, proto, channels, sockets, gpus, chunks: the collective attributes shared by
 * <benchmark> and <training> (scen_cluster_coll_attrs). */
#define COLL_ROWS(e) \
    PRESET(e, "algo", ACAT_ALGO, "nccl", "the collective algorithm"), \
            TEXT(e, "nccl-algo", "auto", \
                 "with algo nccl: auto, ring, tree, nvls, nvlstree or collnet (NCCL_ALGO)"), \
            TEXT(e, "proto", "auto", "with algo nccl: auto, LL, LL128 or Simple (NCCL_PROTO)"), \
            INT(e, "channels", 1, 32, 0, "NCCL's choice", \
                "with algo nccl: at most this many channels (NCCL_MAX_NCHANNELS)"), \
            INT(e, "nccl-socket-nthreads", 1, NCCL_SOCKET_MAX_THREADS, 0, \
                "NCCL's auto-detect (1 for a non-AWS NIC)", \
                "with algo nccl over a TCP NIC: socket threads a connection " \
                "(NCCL_SOCKET_NTHREADS)"), \
            INT(e, "nccl-nsocks-perthread", 1, NCCL_SOCKET_MAX_SOCKETS, 0, \
                "NCCL's auto-detect (1 for a non-AWS NIC)", \
                "with algo nccl over a TCP NIC: sockets a thread (NCCL_NSOCKS_PERTHREAD); " \
                "threads x " \
                "sockets at most 64"), \
            INT(e, "gpus", 1, 1L << 24, 0, "all", "the first N GPUs take part"), \
            INT(e, "chunks", 1, 4096, 8, NULL, \
                "pipeline chunks of the textbook tree and broadcast")

static const struct attr_spec specs[] = {
        /* <scenario> */
        TEXT("scenario", "name", "depends: the file's name without .xml",
             "the scenario's name in outputs"),
        INT_R("scenario", "seed", 0, 9.2e18, ">= 0", 1, NULL, "drives every random draw"),
        CHOICE("scenario", "network-model", "CM02",
               "SimGrid's network model: CM02 (exact alpha-beta) or LV08 (TCP realism on TCP "
               "links)"),
        /* <cluster> */
        INT("cluster", "nodes", 1, BIG, 1, NULL, "machines of GPUs"),
        INT("cluster", "gpus-per-node", 1, 256, 1, NULL, "GPUs in a machine"),
        PRESET("cluster", "gpu", ACAT_GPU, NULL, "the GPU model"),
        PRESET("cluster", "intra", ACAT_LINK,
               "depends: the GPU's own class (NVLink for SXM boards, PCIe for cards)",
               "the GPU-to-GPU class inside a node: an nvlink or a pcie class"),
        PRESET("cluster", "pcie", ACAT_LINK,
               "depends: intra when it is a pcie class, else the GPU's own",
               "the host interface class: a pcie class"),
        PRESET("cluster", "nic", ACAT_LINK, "none (required when nodes + ps-nodes > 1)",
               "the network class: an ib, roce or tcp class"),
        INT("cluster", "nics-per-node", 1, 64, 1, NULL,
            "NICs a node; GPU j uses NIC j mod nics-per-node"),
        CHOICE("cluster", "topology", "star",
               "star: one non-blocking switch; fat-tree: leaves and spines; flat: a SimGrid "
               "<cluster>, one GPU a node"),
        INT_R("cluster", "nodes-per-leaf", 1, BIG, "[1, nodes + ps-nodes]", 16,
              "depends: min(nodes, 16)", "fat-tree: nodes under one leaf switch"),
        INT("cluster", "spines", 1, 1024, 2, NULL,
            "fat-tree: spine switches, each linked to every leaf"),
        REAL("cluster", "oversubscription", 1, true, UNITS_REAL_CEILING, 1, NULL,
             "fat-tree: the leaves' uplinks are this many times thinner than their nodes' links"),
        INT("cluster", "ps-nodes", 0, 4096, 0, NULL,
            "dedicated parameter-server machines (a CPU host and a NIC each)"),
        CHOICE("cluster", "sharp", "no",
               "yes: the InfiniBand switches reduce (SHARP, NCCL's CollNet)"),
        CHOICE("cluster", "switch", "port",
               "port: a port link a machine; fatpipe: one FATPIPE link, every route explicit "
               "(slower)"),
        QTY("cluster", "store-bw", UNIT_BANDWIDTH, UNIT_POSITIVE, 0,
            "none: one SSD (catalog.h) behind one NIC of the cluster's class",
            "the checkpoint store's aggregate sustained rate (a parallel file system as one "
            "machine)"),
        /* <platform> */
        PATH("platform", "file", NULL,
             "a SimGrid platform file; hosts with a gpu property are the GPUs"),
        /* <benchmark> */
        CHOICE("benchmark", "kind", NULL,
               "p2p (each <pair> in turn) or a collective on the first gpus GPUs"),
        QTY("benchmark", "begin", UNIT_SIZE, UNIT_POSITIVE, 0, NULL, "the first message size"),
        QTY("benchmark", "end", UNIT_SIZE, UNIT_POSITIVE, 0, NULL,
            "the last message size (>= begin)"),
        REAL("benchmark", "factor", 1, false, UNITS_REAL_CEILING, 2, NULL,
             "sizes grow by this factor (nccl-tests -f); at most 1000 sizes"),
        QTY("benchmark", "timeout", UNIT_TIME, UNIT_POSITIVE, DEFAULT_TIMEOUT_S, NULL,
            "the deadline of every wait"),
        COLL_ROWS("benchmark"),
        CHOICE("benchmark", "level", "message",
               "message: whole messages; flow: SimGrid flows (nccl and ring)"),
        /* <pair> */
        TEXT("pair", "src", NULL,
             "the sending host (nodeN.gpuJ or nodeN.cpu on a generated cluster)"),
        TEXT("pair", "dst", NULL, "the receiving host, another than src"),
        /* <model> */
        PRESET("model", "preset", ACAT_MODEL, "none: explicit <layer> children",
               "a model computed from its architecture"),
        TEXT("model", "name", "depends: the preset's name, else model",
             "the model's name in outputs"),
        INT("model", "layers", 1, 1L << 24, 0, "depends: the preset's (see Presets)",
            "gpt: transformer blocks"),
        INT("model", "hidden", 1, 1L << 24, 0, "depends: the preset's (see Presets)",
            "gpt: the model width, a multiple of heads"),
        INT("model", "heads", 1, 1L << 24, 0, "depends: the preset's (see Presets)",
            "gpt: attention heads"),
        INT("model", "seq", 1, 1L << 24, 0, "depends: the preset's (see Presets)",
            "a transformer preset: sequence length"),
        INT("model", "vocab", 1, 1L << 24, 0, "depends: the preset's (see Presets)",
            "gpt: vocabulary size"),
        CHOICE("model", "attention",
               "depends: flash where it runs (compute capability 8.0 and 16-bit), else "
               "materialised",
               "a transformer's attention kernels"),
        CHOICE("model", "head", "none", "bert-large: the task head"),
        CHOICE("model", "layout", "depends: nhwc in 16-bit, nchw in fp32 and tf32",
               "a CNN's tensor layout"),
        CHOICE("model", "ids", "uniform", "a recommendation preset: how its tables' IDs are drawn"),
        /* zipf: default 1, Zipf's law (frequency inversely proportional to rank); at most 64,
           emb_ids.h's sampler's bound */
        REAL("model", "zipf", 0, false, 64, 1, NULL,
             "with ids zipf: the exponent (ID i drawn with weight (i + 1)^-zipf)"),
        /* <embedding> */
        TEXT("embedding", "name", NULL, "the table's name"),
        /* 1.1e12 rows at most: beyond any published table (Persia: 100T parameters) */
        INT("embedding", "rows", 1, 1L << 40, 1, NULL, "rows (IDs) of the table"),
        INT("embedding", "dim", 1, 65536, 1, NULL, "elements a row"),
        INT("embedding", "pooling", 1, 100000, 1, NULL,
            "rows each sample looks up, summed into one vector"),
        CHOICE("embedding", "ids", "uniform", "how IDs are drawn: uniform, zipf or from file"),
        REAL("embedding", "zipf", 0, false, 64, 1, NULL, "with ids zipf: the exponent"),
        PATH("embedding", "file", NONE, "with ids file: one decimal ID a line, drawn uniformly"),
        /* <layer> */
        TEXT("layer", "name", NULL, "the layer's name"),
        REAL("layer", "params", 0, true, UNITS_REAL_CEILING, 0, NULL,
             "trainable parameters (a count, such as 2.5e9)"),
        REAL("layer", "flops", 0, true, UNITS_REAL_CEILING, 0, NULL, "forward FLOPs a sample"),
        REAL("layer", "backward-flops", 0, true, UNITS_REAL_CEILING, -1, "depends: 2 x flops",
             "backward FLOPs a sample"),
        QTY("layer", "activation", UNIT_SIZE, UNIT_NONNEG, 0, NULL,
            "activation bytes kept a sample"),
        /* <training> */
        CHOICE("training", "strategy", NULL,
               "allreduce (data parallel), ps (parameter server) or hybrid (tp x pp x dp)"),
        COLL_ROWS("training"),
        CHOICE("training", "level", "auto",
               "auto: message level when a step's messages are few, flow above; message; flow"),
        CHOICE("training", "replay", "yes",
               "no: never replay a flow-level collective from an identical earlier one"),
        INT("training", "batch-per-gpu", 1, 1L << 24, 1, NULL,
            "samples a GPU a step (a microbatch under hybrid)"),
        INT("training", "steps", 1, 1000000, 10, NULL, "training steps simulated"),
        CHOICE("training", "dtype", "fp32", "the training precision"),
        CHOICE("training", "optimizer", "momentum",
               "the optimizer whose state and update are simulated"),
        QTY("training", "bucket", UNIT_SIZE, UNIT_POSITIVE, 25 * MiB, NULL,
            "gradient bucket size (PyTorch DDP's bucket_cap_mb = 25)"),
        CHOICE("training", "overlap", "yes",
               "yes: each bucket reduced once its gradients are ready; no: after the backward"),
        CHOICE("training", "gradient-as-bucket-view", "no",
               "DDP's gradient_as_bucket_view: no copy into the buckets"),
        QTY("training", "timeout", UNIT_TIME, UNIT_POSITIVE, DEFAULT_TIMEOUT_S, NULL,
            "the watchdog: a wait longer than this fails (detects a crash)"),
        QTY("training", "kernel-launch", UNIT_TIME, UNIT_NONNEG, KCOST_LAUNCH_S, NULL,
            "CPU time to launch one kernel"),
        QTY("training", "bucket-overhead", UNIT_TIME, UNIT_NONNEG, KCOST_LAUNCH_S, NULL,
            "CPU time a bucket's collective (one more kernel launch)"),
        QTY("training", "step-overhead", UNIT_TIME, UNIT_NONNEG, 0, NULL, "framework time a step"),
        CHOICE("training", "optimizer-kernels", "fused",
               "fused: one multi-tensor kernel; per-tensor: a kernel a tensor"),
        CHOICE("training", "host", "eager",
               "how the CPU issues kernels: eager, graphs (CUDA graphs) or compiled"),
        CHOICE("training", "amp", "pure",
               "16-bit training: pure (16-bit model, FP32 master) or autocast"),
        CHOICE("training", "broadcast", "yes",
               "yes: rank 0's state broadcast at the start, as DDP"),
        CHOICE("training", "fusion", "buckets", "buckets (DDP) or horovod (a fusion cycle)"),
        QTY("training", "cycle-time", UNIT_TIME, UNIT_POSITIVE, 1e-3, NULL,
            "fusion horovod: the cycle (Horovod >= 0.21: 1 ms, horovod/common/operations.cc)"),
        /* Horovod >= 0.21 defaults: 1 ms cycle, 128 MiB fusion buffer (horovod/horovod #2468,
           horovod/common/operations.cc) */
        QTY("training", "fusion-threshold", UNIT_SIZE, UNIT_POSITIVE, 128 * MiB, NULL,
            "fusion horovod: the fusion buffer (Horovod's 128 MiB)"),
        CHOICE("training", "embeddings", "replicated",
               "a model with embedding tables: replicated on every GPU or sharded (DLRM / "
               "TorchRec)"),
        /* <parallel> */
        INT("parallel", "tp", 1, BIG, 1, NULL, "tensor-parallel ranks (Megatron)"),
        INT("parallel", "pp", 1, BIG, 1, NULL, "pipeline stages"),
        INT("parallel", "dp", 1, BIG, 1, NULL, "data-parallel replicas"),
        INT("parallel", "ep", 1, BIG, 1, NULL, "expert-parallel ranks (a mixture of experts)"),
        INT("parallel", "cp", 1, BIG, 1, NULL, "context-parallel ranks (the sequence split)"),
        CHOICE("parallel", "cp-comm", "p2p", "keys and values round a ring (p2p) or all-gathered"),
        INT("parallel", "microbatches", 1, BIG, 1, NULL, "microbatches a step"),
        CHOICE("parallel", "schedule", "1f1b", "the pipeline schedule"),
        INT("parallel", "virtual-stages", 1, 1L << 10, 1,
            "depends: 2 with schedule interleaved, else 1", "interleaved: model chunks a rank"),
        INT("parallel", "zero", 0, 3, 0, NULL,
            "ZeRO stage: 1 optimizer state, 2 + gradients, 3 + parameters sharded"),
        CHOICE("parallel", "prefetch", "yes",
               "zero 3: gather the next block's parameters ahead (FSDP)"),
        CHOICE("parallel", "overlap-grad-reduce", "no",
               "Megatron's overlap_grad_reduce (zero 0 or 1)"),
        CHOICE("parallel", "overlap-param-gather", "no",
               "Megatron's overlap_param_gather (zero 1)"),
        INT("parallel", "bucket-size", 1, 1L << 40, 0, "depends: max(40M, 1M x dp) (Megatron's)",
            "overlap-grad-reduce: parameters a bucket"),
        CHOICE("parallel", "sequence-parallel", "no",
               "reduce-scatter + all-gather instead of each all-reduce"),
        CHOICE("parallel", "tp-comm-overlap", "no",
               "tensor-parallel collectives pipelined with GEMMs (Transformer Engine)"),
        CHOICE("parallel", "scatter-gather", "yes",
               "1/tp of the activations sent to the next stage, all-gathered there"),
        CHOICE("parallel", "recompute", "none", "activation recomputation"),
        CHOICE("parallel", "order", "tp-dp-pp", "how ranks are laid out (Megatron's: tp-dp-pp)"),
        INT("parallel", "first-stage-layers", 1, BIG, 0, "none: the even split",
            "blocks of the first stage"),
        INT("parallel", "last-stage-layers", 1, BIG, 0, "none: the even split",
            "blocks of the last stage"),
        TEXT("parallel", "stage-layers", "none: the even split",
             "every stage's blocks, such as 19,20,21,20"),
        CHOICE("parallel", "account-for-embedding", "no",
               "count the embedding as a block of the even split"),
        CHOICE("parallel", "account-for-loss", "no", "count the loss as a block of the even split"),
        /* <ps> */
        INT("ps", "shards", 1, 4096, 1, NULL, "parameter-server shards"),
        CHOICE("ps", "placement", "colocated",
               "dedicated (the ps-nodes) or colocated (the workers' CPU hosts)"),
        CHOICE("ps", "split", "bytes",
               "parameters split by layer (round-robin) or by bytes (even)"),
        CHOICE("ps", "mode", "sync", "sync (a quorum of pushes) or async (bounded staleness)"),
        INT("ps", "staleness", 0, 1000000, 0, NULL, "async: the most versions a push may lag"),
        INT("ps", "backup-workers", 0, BIG, 0, NULL, "sync: pushes a shard does not wait for"),
        CHOICE("ps", "coordinator", "no",
               "yes: one actor tracks the global version; enforce: pulls get it"),
        CHOICE("ps", "consistency", "drop", "async: a stale push dropped, or bounded"),
        PRESET("ps", "transport", ACAT_TRANSPORT, "ideal", "the RPC stack's costs"),
        CHOICE("ps", "push", "after-backward", "when gradients are pushed"),
        CHOICE("ps", "rpc", "per-shard", "one RPC a shard or a tensor"),
        CHOICE("ps", "prefetch", "no", "sync: pull the next parameters during the push"),
        CHOICE("ps", "local-aggregation", "no",
               "a node reduces its GPUs' gradients before one push"),
        CHOICE("ps", "sparse", "yes",
               "embedding tables: pull and push only the rows a batch looks up"),
        CHOICE("ps", "shard-by", "hash", "a table's rows on the shards by hash or by range"),
        INT("ps", "cache-rows", 0, 1L << 40, 0, NULL,
            "a worker's cache of each table's hottest rows (0: none)"),
        INT("ps", "cache-staleness", 1, 1000000, 1, NULL,
            "with cache-rows: iterations between refreshes (then required)"),
        CHOICE("ps", "dense", "shards",
               "allreduce: only the tables on the shards (Persia's hybrid)"),
        /* <numerics> */
        CHOICE("numerics", "dataset", "fashion-mnist", "the IDX dataset the MLP learns"),
        /* Debian's dataset-fashion-mnist package */
        PATH("numerics", "dir", "/usr/share/datasets/fashion-mnist",
             "the dataset's folder (Debian's dataset-fashion-mnist)"),
        TEXT("numerics", "hidden", "none: softmax regression",
             "the MLP's hidden units, such as 256,128 (at most 7 layers)"),
        REAL("numerics", "lr", 0, false, UNITS_REAL_CEILING, 0.05, NULL,
             "the learning rate for one worker's batch"),
        CHOICE("numerics", "lr-scaling", "none", "linear: lr x the gradients an update averages"),
        INT("numerics", "warmup", 0, 100000000, 0, NULL, "updates over which lr ramps up"),
        REAL("numerics", "target-accuracy", 0, true, 1, 0, NONE,
             "the test accuracy that gives time_to_accuracy_s"),
        INT("numerics", "eval-every", 1, 1000000, 20, NULL, "steps between evaluations"),
        INT("numerics", "train-examples", 1, 10000000, 0, "all", "the first N training examples"),
        INT("numerics", "test-examples", 1, 10000000, 0, "all", "the first N test examples"),
        PRESET("numerics", "cost-model", ACAT_MODEL, "none: the MLP's own cost",
               "a model preset whose cost every step is simulated with (a proxy)"),
        /* <data> */
        TEXT("storage", "name", "required", "the store's name, which <data store> and <checkpoint store> name"),
        TEXT("storage", "preset", "server-ssd",
               "server-ssd, s3, gcs, azure-blob, fsx-lustre, tectonic, nvme-gen4 or nvme-gen5 (dmlsim catalog stores)"),
        QTY("storage", "read-bw", UNIT_BANDWIDTH, UNIT_NONNEG, 0, "depends: the preset's",
            "the store's aggregate read rate (a local drive: one node's); 0: no limit"),
        QTY("storage", "write-bw", UNIT_BANDWIDTH, UNIT_NONNEG, 0, "depends: the preset's",
            "the store's aggregate write rate; 0: no limit"),
        QTY("storage", "connection-rate", UNIT_BANDWIDTH, UNIT_NONNEG, 0, "depends: the preset's",
            "one stream's rate; 0: no limit"),
        QTY("storage", "latency", UNIT_TIME, UNIT_NONNEG, 0, "depends: the preset's", "first byte of each request"),
        QTY("storage", "request-overhead", UNIT_TIME, UNIT_NONNEG, 0, "depends: the preset's",
            "the client's cost of each request"),
        REAL("storage", "get-rate", 0, true, 1e15, 0, "depends: the preset's",
             "read requests a second the store admits, shared by its clients; 0: no limit"),
        REAL("storage", "put-rate", 0, true, 1e15, 0, "depends: the preset's",
             "write requests a second the store admits; 0: no limit"),
        INT("storage", "connections", 1, 4096, 1, "depends: the preset's",
            "requests one client keeps in flight (a loader worker, a checkpoint's writer)"),
        QTY("storage", "part-size", UNIT_SIZE, UNIT_NONNEG, 0, "depends: the preset's",
            "a checkpoint's request size; 0: one request"),
        PRESET("data", "preset", ACAT_DATASET, NONE, "a dataset's sizes and decode cost"),
        INT("data", "samples", 1, 1L << 40, 1L << 20, "depends: the preset's, else 1048576",
            "samples in the dataset"),
        QTY("data", "sample-size", UNIT_SIZE, UNIT_POSITIVE, 1, "depends: the preset's, else 1B",
            "stored bytes a sample (a mean with sample-sigma)"),
        REAL("data", "sample-sigma", 0, true, MAX_JITTER_SIGMA, 0, NULL,
             "lognormal spread of the sample sizes"),
        QTY("data", "decoded-size", UNIT_SIZE, UNIT_POSITIVE, 0,
            "depends: the preset's, else sample-size", "bytes a sample copied to the GPU"),
        QTY("data", "decode", UNIT_TIME, UNIT_NONNEG, 0, "depends: the preset's, else 0s",
            "CPU time to decode a sample on one core"),
        CHOICE("data", "format", "idx", "the access pattern: idx, webdataset, mds or parquet"),
        /* webdataset: 5,000 samples a shard (the seed notes' SHARD_SIZE); parquet: pyarrow's row
           group of 1 Mi rows (apache/arrow #34280), which the reader applies */
        INT("data", "shard-samples", 1, 1L << 40, 5000,
            "depends: 1048576 with parquet (pyarrow's row group), else 5000",
            "samples a shard (row group)"),
        QTY("data", "shard-bytes", UNIT_SIZE, UNIT_POSITIVE, 0,
            "depends: 64MiB with mds (MDSWriter's size_limit), else none",
            "a shard cut at this size instead"),
        REAL("data", "columns", 0, false, 1, 1, NULL, "parquet: the share of a row's bytes read"),
        CHOICE("data", "source", "local-nvme",
               "where the data lives: local-nvme, remote (object store) or memory"),
        QTY("data", "request-latency", UNIT_TIME, UNIT_NONNEG, 0,
            "depends: the source's: an object-store request (remote), an NVMe read (local-nvme), "
            "0s (memory); catalog.h",
            "the latency of each read request"),
        QTY("data", "connection-rate", UNIT_BANDWIDTH, UNIT_POSITIVE, CATALOG_OBJECT_CONN_BPS,
            "depends: the store's, else 87.5 MB/s (catalog.h)",
            "remote: the most one connection carries"),
        CHOICE("data", "cache", "none", "remote: a cache tier in node memory or on NVMe"),
        CHOICE("data", "shuffle", "none",
               "the sample order: none, epoch (a permutation) or buffer"),
        CHOICE("data", "layout", "given", "by-class: the files sorted by class"),
        /* WebDataset's default buffer: _shuffle(data, bufsize=1000, ...), webdataset/filters.py */
        INT("data", "shuffle-buffer", 1, 1L << 24, 1000, NULL,
            "shuffle buffer: samples held (WebDataset's 1000)"),
        QTY("data", "cache-capacity", UNIT_SIZE, UNIT_NONNEG, 0, NULL,
            "with cache: a node's cache size (then required)"),
        /* PyTorch's DataLoader defaults: num_workers 0 (in the training loop), prefetch_factor 2 */
        INT("data", "loader-workers", 0, 1024, 0, NULL,
            "loader processes a GPU (0: in the training loop, PyTorch's)"),
        INT("data", "prefetch", 1, 1024, 2, NULL,
            "batches each worker loads ahead (PyTorch's prefetch_factor)"),
        CHOICE("data", "pin-memory", "no", "yes: pinned host buffers (else a staging copy)"),
        CHOICE("data", "gds", "no", "GPUDirect Storage: NVMe into GPU memory"),
        TEXT("data", "store", "none",
             "a <storage> by name: its kind sets source, its latency and connection rate the defaults"),
        /* <checkpoint> */
        TEXT("checkpoint", "every", NULL, "\"N steps\" (N >= 1) or a time"),
        CHOICE("checkpoint", "mode", "sync",
               "sync: training waits; async: a snapshot, then a background write"),
        CHOICE("checkpoint", "target", "remote", "local-nvme, cache (flushed to remote) or remote"),
        TEXT("checkpoint", "store", "none",
             "a <storage> by name, written in parts through its streams, requests and rates"),
        /* <recovery> */
        CHOICE("recovery", "policy", "elastic",
               "elastic: go on with who reports; wait: also for the crashed"),
        /* the rendezvous wait for survivors to report, and the policy-wait for a crashed worker */
        QTY("recovery", "rendezvous-timeout", UNIT_TIME, UNIT_POSITIVE, 1, NULL,
            "how long survivors have to report"),
        QTY("recovery", "replacement-timeout", UNIT_TIME, UNIT_POSITIVE, 600, NULL,
            "policy wait: how long to wait for a crashed worker"),
        REAL("recovery", "straggler-threshold", 1, false, UNITS_REAL_CEILING, 2, NULL,
             "a worker this many times the median compute is slow"),
        INT("recovery", "straggler-steps", 0, 1000000, 0, NULL,
            "slow steps in a row before removal (0: never)"),
        INT("recovery", "max-restarts", 0, 1000000, DEFAULT_MAX_RESTARTS, NULL,
            "memberships before the job fails (torchrun's max-restarts)"),
        CHOICE("recovery", "restore-from", "checkpoint",
               "a new membership's state: checkpoint or survivor"),
        CHOICE("recovery", "lost-batches", "replay",
               "after a rollback: replay or skip the lost steps' batches"),
        CHOICE("recovery", "rendezvous", "store",
               "one store, or per-side (split brain in a partition)"),
        /* a job restart (processes, CUDA contexts, NCCL communicators): MegaScale (Jiang et al.,
           NSDI '24, "collective communication group initialization") brought a job's
           communicator set-up from 1047 s to under 5 s at 2,048 GPUs and under 30 s beyond
           10,000 GPUs */
        QTY_R("recovery", "restart-time", UNIT_TIME, UNIT_NONNEG, "[0s, 1h]", 30, NULL,
              "hybrid: a job restart (MegaScale, NSDI '24: under 30 s beyond 10,000 GPUs)"),
        /* <campaign> */
        QTY("campaign", "duration", UNIT_TIME, UNIT_POSITIVE, 0, NONE,
            "the campaign ends after this long"),
        INT("campaign", "steps", 1, 1000000000, 0, NONE, "or once this many steps are trained"),
        INT("campaign", "replications", 1, 100000, 20, NULL, "independent replications"),
        INT("campaign", "spares", 0, 1000000, 0, NULL, "spare nodes"),
        CHOICE("campaign", "on-shortage", "wait",
               "without a spare: wait for a repair, or shrink dp"),
        /* Llama 3 §3.3.1: "Each rack hosts 16 GPUs split between two servers and connected by a
           single Minipack2 top-of-the-rack (ToR) switch" */
        INT("campaign", "rack-nodes", 1, 1024, 2, NULL,
            "nodes a rack-scope failure takes (Llama 3's racks: 2)"),
        CHOICE("campaign", "failures", "none", "a published failure mix to start from"),
        REAL("campaign", "failure-scale", 0, true, UNITS_REAL_CEILING, 1, NULL,
             "multiplies every failure rate"),
        /* <failure> */
        TEXT("failure", "cause", NULL,
             "a name of a-z, 0-9 and - (replaces the mix's row of that name)"),
        REAL("failure", "per-gpu-hour", 0, true, UNITS_REAL_CEILING, 0, NULL, "the cause's rate"),
        CHOICE("failure", "kind", "crash",
               "crash, hang (the watchdog detects it), slow or planned"),
        CHOICE("failure", "scope", "gpu", "what is replaced: none, gpu (its node), node or rack"),
        TEXT("failure", "detect", "watchdog", "watchdog (the job's, simulated) or a time"),
        QTY("failure", "repair", UNIT_TIME, UNIT_NONNEG, 0, NULL,
            "the taken nodes back in the pool after this"),
        REAL("failure", "slow-factor", 1, false, UNITS_REAL_CEILING, 0, NONE,
             "kind slow: times slower (then required)"),
        QTY("failure", "slow-for", UNIT_TIME, UNIT_POSITIVE, 0, NONE,
            "kind slow: for how long (then required)"),
        /* <crash> */
        TEXT("crash", "host", NULL, "a host, or a node name for all its hosts"),
        QTY("crash", "at", UNIT_TIME, UNIT_NONNEG, -1, NONE, "when (exactly one of at and step)"),
        INT("crash", "step", 0, 100000000, -1, NONE, "at the start of this step"),
        QTY("crash", "restart-after", UNIT_TIME, UNIT_NONNEG, -1, "none: never",
            "the host restarts after this"),
        /* <straggler> */
        TEXT("straggler", "host", NONE, "the slow host (required without jitter)"),
        REAL("straggler", "factor", 1, false, UNITS_REAL_CEILING, 0, NONE,
             "slowdown (required without jitter)"),
        QTY("straggler", "from", UNIT_TIME, UNIT_NONNEG, -1, "0s", "when the slowdown starts"),
        QTY("straggler", "until", UNIT_TIME, UNIT_NONNEG, -1, "none: to the end", "when it ends"),
        CHOICE("straggler", "jitter", NONE,
               "lognormal: every compute x max(1, lognormal(0, sigma))"),
        REAL("straggler", "sigma", 0, false, MAX_JITTER_SIGMA, 0, NONE,
             "jitter: the spread (then required)"),
        /* <link-down> */
        TEXT("link-down", "link", NONE, "a link name (exactly one of link and node)"),
        TEXT("link-down", "node", NONE, "a node: all its NIC links"),
        QTY("link-down", "at", UNIT_TIME, UNIT_NONNEG, -1, NULL, "when"),
        QTY("link-down", "for", UNIT_TIME, UNIT_POSITIVE, -1, "none: to the end", "how long"),
        /* <degrade> */
        TEXT("degrade", "link", NONE, "a link name (exactly one of link and node)"),
        TEXT("degrade", "node", NONE, "a node: all its NIC links"),
        REAL("degrade", "factor", 0, false, 1, 1, NULL, "the bandwidth kept"),
        QTY("degrade", "at", UNIT_TIME, UNIT_NONNEG, -1, NULL, "when"),
        QTY("degrade", "for", UNIT_TIME, UNIT_POSITIVE, -1, "none: to the end", "how long"),
        /* <partition> */
        TEXT("partition", "groups", NULL,
             "node names, comma-separated in a group, groups separated by |"),
        QTY("partition", "at", UNIT_TIME, UNIT_NONNEG, -1, NULL, "when"),
        QTY("partition", "heal-after", UNIT_TIME, UNIT_POSITIVE, -1, "none: never heals",
            "how long"),
        /* <corrupt-shard> */
        INT_R("corrupt-shard", "shard", 0, BIG, "[0, shards - 1]", 0, NULL, "the corrupt shard"),
        /* <cache-crash> */
        TEXT("cache-crash", "node", NULL, "the node whose cache tier fails"),
        QTY("cache-crash", "at", UNIT_TIME, UNIT_NONNEG, -1, NULL, "when"),
        QTY("cache-crash", "restart-after", UNIT_TIME, UNIT_NONNEG, -1,
            "none: caches again at once", "the cache is back after this"),
        /* <corrupt-batch> */
        TEXT("corrupt-batch", "host", NONE, "the worker whose batch is corrupt (with step)"),
        INT("corrupt-batch", "step", 0, 100000000, -1, NONE, "the step"),
        REAL("corrupt-batch", "probability", 0, true, 1, 0, NONE,
             "or: each batch corrupt with this probability"),
        /* <mtbf> */
        CHOICE("mtbf", "distribution", "exponential",
               "times between failures: exponential or weibull"),
        QTY("mtbf", "mtbf", UNIT_TIME, UNIT_POSITIVE, 0, NULL,
            "mean time between failures of a GPU"),
        REAL("mtbf", "shape", 0, false, UNITS_REAL_CEILING, 1, NULL, "weibull: the shape"),
        QTY("mtbf", "repair", UNIT_TIME, UNIT_NONNEG, 0, NULL, "a failed GPU restarts after this"),
        QTY("mtbf", "until", UNIT_TIME, UNIT_POSITIVE, 0, NULL, "the horizon"),
        /* <expect> */
        TEXT("expect", "metric", NULL, "a run metric (dmlsim metrics lists them)"),
        TEXT("expect", "min", "none: -inf", "a plain number: the least the metric may be"),
        TEXT("expect", "max", "none: +inf", "a plain number: the most the metric may be"),
        /* <calib> */
        PATH("calib", "file", NULL, "a calibration profile or an nccl-tests log"),
};

const struct attr_spec *attr_specs(size_t *n)
{
    *n = sizeof specs / sizeof specs[0];
    return specs;
}

const struct attr_spec *attr_spec_find(const char *elem, const char *name)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (strcmp(specs[i].elem, elem) == 0 && strcmp(specs[i].name, name) == 0) return &specs[i];
    return NULL;
}

const struct attr_spec *attr_spec_get(const char *elem, const char *name)
{
    const struct attr_spec *s = attr_spec_find(elem, name);
    if (s == NULL) { /* a bug, whatever NDEBUG says: a reader parses an attribute without a row */
        fprintf(stderr, "internal error: <%s %s> has no row in sim/core/attr_spec.c\n", elem, name);
        abort();
    }
    return s;
}

bool attr_spec_depends(const struct attr_spec *s)
{
    return s->def_text != NULL && strncmp(s->def_text, "depends", 7) == 0;
}

const char *attr_type_name(enum attr_type t)
{
    static const char *const names[] = {
            [ATTR_TEXT] = "text",         [ATTR_INT] = "integer",   [ATTR_REAL] = "number",
            [ATTR_QUANTITY] = "quantity", [ATTR_CHOICE] = "one of", [ATTR_PATH] = "path",
            [ATTR_PRESET] = "name"};
    return names[t];
}

const char *attr_catalog_name(enum attr_catalog c)
{
    static const char *const names[] = {[ACAT_NONE] = "",
                                        [ACAT_MODEL] = "model presets",
                                        [ACAT_GPU] = "GPU models",
                                        [ACAT_LINK] = "link classes",
                                        [ACAT_TRANSPORT] = "parameter-server transports",
                                        [ACAT_DATASET] = "datasets",
                                        [ACAT_ALGO] = "collective algorithms"};
    return names[c];
}
