/* catalog.h - the link classes and GPU models that scenarios name, with the source of every number.
 *
 * A link class is one kind of wire (PCIe Gen5 x16, NVLink4, NDR InfiniBand, 25 GbE TCP ...). Its
 * bandwidth is the *effective* per-direction rate an application achieves (bandwidthTest,
 * ib_write_bw, iperf, nccl-tests busbw), not the line rate, because that is what a simulated
 * transfer should take; both are kept so the output can show the ratio. Its latency is one hop:
 * GPU to GPU across the switch of that class (or NIC to NIC for a network class). A generated
 * platform routes every hop through two links of the class (into the switch and out of it), so
 * each link carries half the hop latency and a route's latency sums back to whole hops.
 *
 * NVLink classes differ in how GPUs meet. NVLink1/2 (P100, V100) wire GPUs to each other directly,
 * in a DGX-1 hybrid cube mesh: a pair has 0, 1 or 2 NVLinks, so such a class gives the rate of ONE
 * NVLink and the generator multiplies it by the pair's link count, and a direct link is a whole
 * hop. NVLink3 and later go through NVSwitches: the class gives a GPU's whole NVLink rate, as in a
 * nccl-tests busbw, and a route is two links (into the switch and out). From NVLink4 on the
 * switches also reduce (NVLink SHARP, NCCL's NVLS algorithm), marked by the class's fabric.
 *
 * Kept in C rather than in an XML file so that the binary needs no data file at run time; `dmlsim
 * catalog` prints both tables with their sources.
 */
#ifndef DMLSIM_CATALOG_H
#define DMLSIM_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

enum link_kind {
    LINK_PCIE,   /* host bus inside a node */
    LINK_NVLINK, /* GPU-to-GPU fabric inside a node (via NVSwitch) */
    LINK_IB,     /* InfiniBand NIC, RDMA */
    LINK_ROCE,   /* RDMA over Converged Ethernet NIC */
    LINK_TCP,    /* Ethernet NIC through the kernel TCP stack */
};

/* How the GPUs of a node meet over an NVLink class. */
enum link_fabric {
    FABRIC_NONE,   /* not a GPU-to-GPU fabric: PCIe and network classes */
    FABRIC_MESH,   /* direct GPU-to-GPU NVLinks, no switch (DGX-1 hybrid cube mesh) */
    FABRIC_SWITCH, /* every GPU's NVLinks go to NVSwitches, which forward only */
    FABRIC_SHARP,  /* NVSwitches that also reduce and multicast (NVLink SHARP, NCCL's NVLS) */
};

/* GPUs a hybrid cube mesh joins: the eight corners of the DGX-1 cube (NVIDIA DGX-1 System
 * Architecture white paper, WP-08437-001 §3.1). */
#define CATALOG_MESH_MAX_GPUS 8

struct link_class {
    const char *name;        /* catalog name used in scenarios, e.g. "nvlink4" */
    enum link_kind kind;     /* what sort of wire */
    enum link_fabric fabric; /* how GPUs meet over it (FABRIC_NONE unless an NVLink class) */
    int links;               /* NVLinks per GPU of an NVLink class; 0 otherwise */
    double line_bw_Bps;      /* theoretical per-direction rate (FABRIC_MESH: of one NVLink) */
    double bw_Bps;           /* effective per-direction rate used by the simulation (FABRIC_MESH:
                                of one NVLink; a pair of GPUs with k links gets k times it) */
    double hop_lat_s;        /* latency of one hop of this class (two links in a generated route
                                through a switch, one direct FABRIC_MESH link) */
    const char *source;      /* where the numbers come from */
    double stream_Bps;       /* LINK_TCP: one TCP stream's throughput (a socket of NCCL's socket
                                transport, nccl_socket.h); 0 for the other kinds */
};

enum gpu_dtype { DTYPE_FP32, DTYPE_TF32, DTYPE_FP16, DTYPE_BF16, DTYPE_FP8, DTYPE_COUNT };

struct gpu_model {
    const char *name;               /* catalog name, e.g. "h100" */
    const char *long_name;          /* e.g. "NVIDIA H100 SXM5 80GB" */
    double peak_flops[DTYPE_COUNT]; /* dense peak FLOP/s per dtype; 0 = unsupported */
    double mem_B;                   /* device memory, bytes (datasheet GB = 1e9 B) */
    double mem_bw_Bps;              /* device memory bandwidth */
    const char *pcie;               /* link class of its host interface */
    const char *intra;              /* its usual GPU-to-GPU class in a node (nvlink4, pcie-gen4) */
    int sm;                         /* CUDA compute capability x 10 (70 Volta, 90 Hopper) */
    const char *device[4];          /* device names CUDA and nvidia-smi print for it (unused
                                       slots NULL), read by catalog_gpu_match */
    const char *source;             /* where the numbers come from */
    int sms;                        /* streaming multiprocessors: a GEMM's tiles run in waves of
                                       one tile per SM (gemm.h) */
    double gemm_ceiling[DTYPE_COUNT]; /* large-GEMM efficiency per dtype (fraction of the dense
                                         peak): the best a cuBLAS GEMM reaches on this GPU */
    const char *gemm_source;          /* where the SM count and the ceilings come from */
    double tdp_w;                     /* board power limit (TDP), W: the most it draws (power.h) */
    double idle_w;                    /* measured draw at P0 with no kernel running, W */
    const char *power_source;         /* where tdp_w and idle_w come from */
};

/* The CPU host of a node. One number: its FP32 peak, used for CPU-side work (optimizer updates on
 * a parameter server, data decoding). */
#define CATALOG_CPU_FLOPS \
    4.6e12 /* AMD EPYC 7742 (DGX A100's CPU): 64 cores x 2.25 GHz x 32 FP32 \
              FLOP/cycle (2 x 256-bit FMA, Zen 2) = 4.6 TFLOPS; AMD spec */

#define CATALOG_CPU_CORES \
    64 /* the same EPYC 7742: 64 cores; a loader worker process runs on one, at \
          CATALOG_CPU_FLOPS / CATALOG_CPU_CORES */

/* The input pipeline (<data>, sim/engine/loader.h). */
#define CATALOG_NVME_REQUEST_S \
    88e-6 /* a datacenter NVMe's 4 KiB random read at queue depth 1: 88.15 us measured \
             (Samsung PM963, CrystalDiskMark RND4K Q1T1, gist tana3n/73ea2b7d) */
#define CATALOG_OBJECT_REQUEST_S \
    10e-3 /* an object store's request latency: "median latencies are often in the tens of \
             milliseconds range" for requests under 512 KB (AWS, Amazon S3 performance \
             design patterns); the low end */
#define CATALOG_OBJECT_CONN_BPS \
    87.5e6 /* one object-store connection: "one concurrent request for each 85-90 MB/s of \
              desired network throughput" (AWS, Amazon S3 performance design patterns) */
#define CATALOG_STAGING_COPY_BPS \
    40.6e9 /* a pageable host-to-device copy first copies into a pinned staging buffer \
              (Harris, "How to Optimize Data Transfers in CUDA C/C++", NVIDIA blog 2012); \
              his GTX 680 desktop measured 5.368503 GB/s pageable vs 6.186581 GB/s pinned, \
              so the staging copy runs at 1 / (1/5.3685 - 1/6.1866) = 40.6 GB/s */

/* A dataset preset for <data preset>: what a sample costs on the input path. */
struct dataset {
    const char *name;
    double samples;   /* training samples */
    double sample_B;  /* stored bytes of a sample (mean) */
    double decoded_B; /* bytes of the decoded sample handed to the GPU */
    double decode_s;  /* CPU time to decode and augment a sample, one core */
    const char *source;
};

/* The preset `name`, or NULL; catalog_dataset_names lists them ("imagenet"). */
const struct dataset *catalog_dataset(const char *name);
const char *catalog_dataset_names(void);

/* Storage for checkpoints. */
#define CATALOG_NVME_BPS \
    7e9 /* a node's NVMe Gen4 drive: about 7 GB/s sequential (vendor specs, \
           reference/hardware.md); writes taken as fast as reads */
#define CATALOG_STORE_BPS \
    3e9 /* the remote store's disk: 3 GB/s SSD, the seed notes' figure \
           (reference/hardware.md) */

/* Port-to-port latency of a network switch, added by each spine traversal in a fat-tree. */
#define CATALOG_SWITCH_LAT_S \
    150e-9 /* NVIDIA Quantum-2 QM9700: "under 150 ns port-to-port", \
              router-switch.com QM9700 vs SN5400 review */

/* The software path of a parameter server's messages: CPU time on each end of every message
 * (serialisation, RPC), per message and per byte, the copy between GPU and host memory a
 * GPU-side tensor needs (0: none, the NIC reads GPU memory), and the threads that do it. */
struct transport {
    const char *name; /* "grpc-tcp", "rdma", "ideal" */
    double msg_s;     /* CPU time per message, on each end */
    double byte_s;    /* CPU time per byte, on each end (threads > 0: the receiving end only) */
    double copy_Bps;  /* GPU <-> host copy rate for a GPU-side tensor; 0: no copy */
    int threads;      /* threads per side of a process that do that CPU work (ps_rpc.h); 0: each
                         message's end pays it on its own, no queue */
    const char *source;
};

/* The transport called `name`, or NULL; all of them (n of them); "a, b, c": every name. */
const struct transport *catalog_transport(const char *name);
const struct transport *catalog_transports(size_t *n);
const char *catalog_transport_names(void);

/* Looks a class or GPU up by catalog name; NULL if unknown. */
const struct link_class *catalog_link(const char *name);
const struct gpu_model *catalog_gpu(const char *name);

/* The catalog GPU a device name as CUDA, nvidia-smi or an nccl-tests "# Rank" line prints it
 * stands for ("NVIDIA H100 80GB HBM3" -> h100, "Tesla V100-SXM2-32GB" -> v100), or NULL. The
 * name must equal one of an entry's `device` names or its long_name, ignoring case, surrounding
 * and repeated blanks, and a leading "NVIDIA " or "Tesla " (drivers print "A100-SXM4-40GB" and
 * "NVIDIA A100-SXM4-40GB" for one board). Whole names, not substrings: "NVIDIA H100 PCIe" cannot
 * be taken for an H100 SXM, and a board the table does not list (H100 NVL, a MIG slice) gives
 * NULL, so the caller asks for --gpu instead of simulating the wrong chip. */
const struct gpu_model *catalog_gpu_match(const char *device_name);

/* The whole tables, for listing and for "expected one of" messages. */
const struct link_class *catalog_links(size_t *count);
const struct gpu_model *catalog_gpus(size_t *count);

/* Writes "a, b, c" (the catalog names) into buf; returns buf. */
char *catalog_link_names(char *buf, size_t len);
char *catalog_gpu_names(char *buf, size_t len);

const char *catalog_dtype_name(enum gpu_dtype d);
bool catalog_link_is_network(const struct link_class *lc);

#endif
