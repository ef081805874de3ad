/* nccl_tune.h - NCCL's tuning model: its constants and its choice of algorithm x protocol x
 * channels for one call. Plain data, no SimGrid.
 *
 * Source: NCCL 2.28.3 src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime, the default
 * tuner constants), src/enqueue.cc (topoGetAlgoInfo: channels shrink for small sizes) and
 * src/include/comm.h (thread thresholds). NCCL picks, for every call, the enabled
 * (algorithm, protocol) pair of least predicted time  lat + S / bw,  lat and bw from per-hop
 * latencies and per-channel bandwidths of its topology graphs; dmlsim reproduces that choice with
 * NCCL's own formulas (including its empirical corrections: the tree correction factors and the
 * ring "plateau" factor, which only steer the choice). What the call then costs is simulated by
 * coll_nccl.c with messages; from this model it takes only mechanisms: the protocols' wire
 * formats, per-hop software latencies, the per-call base latency, and the SM-side throughput
 * limits of a channel (NCCL's llMaxBws and perChMax*Bws, and for trees NCCL's measured
 * medium-size correction factors, which describe its tree kernels' throughput).
 *
 * What the model needs of a communicator (struct nccl_system) comes from the simulated platform:
 * ranks, nodes, the GPUs' compute capability, whether the node fabric is NVLink (and an NVSwitch
 * that reduces, for NVLS), the per-GPU intra-node bandwidth and the network bandwidth of a node's
 * rails. NCCL's graph search is not reproduced; its outcome is: the channel count (twice the
 * search's, as ncclTopoPostset duplicates channels) and bw = total / channels per channel.
 *
 * One version's constants (2.28.3), on purpose. NCCL's latencies are the constants of its choice,
 * retuned with each generation rather than measurements of one machine, so the constants of an
 * older log's version are not closer to what that log measured. In src/graph/tuning.cc:
 *   2.7.5 (NVIDIA/nccl commit 01afd20a): baseLat Tree {4.4, 4.4, 0}, Ring {3.6, 10.0, 8.4} us
 *     (LL, LL128, Simple); hwLat NVLink Tree {.52, 1.2, 28}, Ring {.47, 1.9, 3.4}; PCI Tree
 *     {1.0, 1.9, 28}, Ring {1.0, 2.5, 5.7}; NET Tree {5.0, 8.5, 50}, Ring {2.7, 4.0, 9.6}; and on
 *     several nodes LL's intra-node hop x1.8; LL128 only on Volta or Ampere with NVLink.
 *   2.2x (the tables quoted in NVIDIA/nccl issue #1334, July 2024): baseLat Tree {6.8, 14.0, 0},
 *     Ring {6.6, 14.0, 8.4}; hwLat NVLink Tree {.6, 1.25, 28}, Ring {.6, 1.9, 3.4}; NET Tree
 *     {5.0, 8.5, 28}; NVLS 25 us over NVLink.
 *   2.28.3 (zhanglin496/nccl-2.28.3-1, ncclTunerConstantsDefaults): as 2.2x, with Tree/Simple
 *     8.4 base and 4.0 (NVLink, PCI) / 14 (NET) per hop, Ring/Simple 14.0 per NET hop, NVLS 18
 *     and NVLS tree 14 per NET hop; no x1.8; instead a proxy overhead per ring step across nodes
 *     (getNetOverhead: 1 us Intel, 2 us AMD, x3 Simple); LL128 on Hopper and Blackwell up to PXN
 *     paths (NCCL_LL128_C2C), else up to PXB; the net plugin's latency property added per NET
 *     hop (graph latencyInter; 0 for InfiniBand: latency="0.000000" in nccl-tests #213's dump).
 * For example the 8 x A100 log of NCCL 2.8.4 (tests/data/nccl/public) measures 17.2 us at 4 B;
 * 2.7.5's ring LL gives 3.6 + 14 x 0.47 = 10.2 us, 2.28.3's 6.6 + 14 x 0.6 = 15.0 us.
 */
#ifndef DMLSIM_NCCL_TUNE_H
#define DMLSIM_NCCL_TUNE_H

#include <stdbool.h>
#include <stddef.h>

enum nccl_algo {
    NCCL_ALGO_RING,
    NCCL_ALGO_TREE,
    NCCL_ALGO_NVLS,
    NCCL_ALGO_NVLS_TREE,
    NCCL_ALGO_COLLNET_CHAIN,
    NCCL_NALGOS
};
enum nccl_proto { NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE, NCCL_NPROTOS };
#define NCCL_ALGO_BIT(a) (1u << (a))
#define NCCL_ALGOS_ALL   (NCCL_ALGO_BIT(NCCL_NALGOS) - 1)

/* Same order as enum coll_op (collective.h checks it). */
enum nccl_func {
    NCCL_FUNC_ALLREDUCE,
    NCCL_FUNC_ALLGATHER,
    NCCL_FUNC_REDUCESCATTER,
    NCCL_FUNC_BROADCAST
};
enum nccl_hw { NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET, NCCL_NHW };

/* User overrides, as NCCL_ALGO, NCCL_PROTO and NCCL_MAX_NCHANNELS. */
struct nccl_opts {
    int algo;             /* enum nccl_algo, or -1: NCCL's choice */
    int proto;            /* enum nccl_proto, or -1: NCCL's choice */
    int max_channels;     /* at most this many channels; 0: NCCL's count */
    int socket_nthreads;  /* NCCL_SOCKET_NTHREADS, helper threads per socket connection (1..16);
                             0: NCCL's auto-detect (nccl_socket.h) */
    int nsocks_perthread; /* NCCL_NSOCKS_PERTHREAD, sockets per helper thread; 0: auto-detect */
};

struct nccl_system {
    int nranks;       /* GPUs in the communicator */
    int nnodes;       /* nodes they span */
    int sm;           /* smallest compute capability x 10 among them */
    bool nvlink;      /* GPUs of a node talk over NVLink (else PCIe) */
    bool nvls;        /* every node has an NVSwitch that reduces (NVLink SHARP) */
    bool collnet;     /* the network switches reduce (InfiniBand SHARP): CollNet */
    double intra_Bps; /* one GPU's intra-node bandwidth, per direction */
    double inter_Bps; /* a node's network bandwidth over its rails, per direction */
    int rails;        /* NICs a node's GPUs use (1 when single node) */
    int nvlinks;      /* NVLinks per GPU (0 without NVLink) */
    int nchannels;    /* NCCL's channel count for rings and trees (nccl_system_init) */
};

/* What NCCL does for one call. */
struct nccl_plan {
    enum nccl_algo algo;   /* algorithm */
    enum nccl_proto proto; /* protocol */
    int nchannels;         /* channels this call uses (fewer for small sizes) */
    double model_s;        /* NCCL's predicted time, its selection criterion */
    double base_s;         /* base latency of the call (paid once) */
    double intra_hop_s;    /* latency of one intra-node hop for this algorithm and protocol */
    double inter_hop_s;    /* latency of one network hop */
    double nvls_hop_s;     /* NVLS, NVLS tree: NCCL's latency of the call (paid once) */
    double wire_factor;    /* bytes on the wire per byte of data (LL 2, LL128 128/120 as 1/0.92) */
    double sm_busbw_Bps;   /* SM-side bus-bandwidth limit of the comm's channels; 0: none */
    double sm_extra_s;     /* what that limit adds to the call beyond the links' transfer time
                              (S over the limit minus S over the links, for the channels used) */
    double net_stage_s;    /* socket transport: what staging through host memory adds to a
                              network hop (nccl_socket.h); 0 over RDMA (set by the caller) */
};

/* Fills the channel count and NVLink count from the other fields (set those first):
 * channels = min(32, 2 x NVLinks per GPU) on one node (NCCL's search finds one channel per
 * NVLink at best, ncclTopoPostset doubles them; 2 over PCIe), and at most 2 per rail on several
 * nodes. */
void nccl_system_init(struct nccl_system *s);

/* NCCL's predicted time of (algo, proto) for `func` of size_B bytes, or -1 when NCCL would not
 * use it on this system (disabled, or not implemented for func). */
double nccl_model_time(const struct nccl_system *s, enum nccl_func func, enum nccl_algo a,
                       enum nccl_proto p, double size_B);

/* The plan NCCL makes for one call, honouring `o` (an algorithm or protocol that cannot run falls
 * back to NCCL's choice among the rest) among the algorithms of `allowed` (NCCL_ALGO_BIT of each;
 * NCCL_ALGOS_ALL: every one): a caller with data, or at flow level, can run fewer. */
void nccl_plan_call(const struct nccl_system *s, enum nccl_func func, double size_B,
                    const struct nccl_opts *o, unsigned allowed, struct nccl_plan *out);

/* The host's share of a collective: launching it costs the calling thread CPU time per GPU it
 * drives (cudaLaunchKernel in libcuda: 4.90 us per launch from compiled C, measured in
 * JuliaGPU/CUDAdrv.jl PR #15). Launches are asynchronous, so a GPU's kernels run back to back
 * while the host stays ahead; a thread that drives G GPUs (nccl-tests -g G, "nGpus G": one
 * ncclGroupStart/End launching G kernels one after the other) needs G launches per call, and
 * when those take longer than the kernel itself the loop runs at the host's pace. The floor of a
 * call's time for a thread driving `gpus_per_thread` GPUs (0 for fewer than 2: one launch per
 * kernel hides behind the kernel before it). A measured call takes max(simulated, floor). */
#define NCCL_LAUNCH_S 4.90e-6
double nccl_launch_floor_s(int gpus_per_thread);

const char *nccl_algo_name(enum nccl_algo a);   /* "ring", "tree", "nvls", "nvlstree", "collnet" */
const char *nccl_proto_name(enum nccl_proto p); /* "LL", "LL128", "Simple" */

/* Parses names (case-insensitive, "auto" = -1); returns false if unknown. */
bool nccl_algo_parse(const char *s, int *out);
bool nccl_proto_parse(const char *s, int *out);

#endif
