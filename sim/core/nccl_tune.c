/* nccl_tune.c - NCCL 2.28.3's tuning model (see nccl_tune.h). Latencies in us and bandwidths
 * in GB/s inside, as in tuning.cc; seconds and bytes/s at the interface. */
#include "nccl_tune.h"

#include <math.h>
#include <stdio.h>
#include <strings.h>

/* tuning.cc ncclTunerConstantsDefaults.baseLatencies [algo][proto], us (Tree, Ring; NVLS 0). */
static const double base_lat[NCCL_NALGOS][NCCL_NPROTOS] = {
        {6.6, 14.0, 8.4}, /* ring */
        {6.8, 14.0, 8.4}, /* tree */
        {0, 0, 0},        /* nvls */
        {0, 0, 0},        /* nvls tree */
        {0, 0, 0},        /* collnet chain */
};

/* tuning.cc hwLatencies [hw][algo][proto], us: per hop over NVLink, PCI, NET. */
static const double hw_lat[NCCL_NHW][NCCL_NALGOS][NCCL_NPROTOS] = {
        /* ring, tree, nvls, nvls tree, collnet chain */
        {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}, {0, 0, 25}, {0, 0, 25}, {0, 0, 2.8}}, /* NVLink */
        {{1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 2.8}},    /* PCI */
        {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}, {0, 0, 18}, {0, 0, 14}, {0, 0, 30}}, /* NET */
};

/* tuning.cc llMaxBws [compcap row][nodes 1 / 2 / more]: LL's bus-bandwidth ceiling, GB/s. On one
 * node the row is the GPU generation; on several the CPU vendor (Intel row 0 taken: NCCL's x86
 * default). */
static const double ll_max_bw[4][3] = {
        {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
/* perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws [compcap][nodes], GB/s. */
static const double ring_ll128_ch[4][3] = {
        {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {73.4, 73.4, 73.4}};
static const double tree_ll128_ch[4][3] = {
        {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double tree_ch[4][3] = {
        {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
/* perChMaxNVLSTreeBws [compcap][nodes], GB/s. */
static const double nvlstree_ch[4][3] = {
        {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.1}};
/* nvlsEfficiency [compcap]: Volta, Ampere 0 (no NVLS), Hopper 0.85, Blackwell 0.74. */
static const double nvls_eff[4] = {0, 0, 0.85, 0.74};

/* treeCorrectionFactor [proto][log2(S / 64)], powers of two 64 B .. 256 MB. */
static const double tree_corr[NCCL_NPROTOS][23] = {
        {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
         .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
        {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
         .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
        {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
         .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

/* getNetOverhead: the proxy's post cost per network step on x86 Intel, us (x3 for Simple). */
#define NET_OVERHEAD_US 1.0
/* NVLS channels (src/include/nvls.h): NVLS_NCHANNELS_SM90 16; Blackwell NVLS_NCHANNELS_SM100_NVL
 * 24 on one node, NVLS_NCHANNELS_SM100 32 across nodes. */
static int nvls_channels(const struct nccl_system *s)
{
    return s->sm >= 100 ? (s->nnodes == 1 ? 24 : 32) : 16;
}
/* NCCL_MAX_NCHANNELS in src/include/device.h (MAXCHANNELS). */
#define MAX_CHANNELS 32
/* Max threads per channel (src/include/device.h): LL 512, LL128 640, Simple 512; and the
 * per-thread byte thresholds of src/include/comm.h (LL 8, LL128 8, Simple 64; ring LL x nRanks)
 * below which topoGetAlgoInfo drops a channel. */
static const int max_threads[NCCL_NPROTOS] = {512, 640, 512};
static const int thread_threshold[NCCL_NPROTOS] = {8, 8, 64};
/* NVLinks per GPU by generation (NVIDIA datasheets): P100 4, V100 6, A100 12, H100 and B200 18. */
static int nvlinks_of(int sm)
{
    return sm >= 90 ? 18 : sm >= 80 ? 12 : sm >= 70 ? 6 : sm >= 60 ? 4 : 0;
}

static int cc_index(int sm)
{
    return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0;
}

static int node_index(int nnodes)
{
    return nnodes <= 2 ? nnodes - 1 : 2;
}

static int log2i(double x)
{
    int l = 0;
    for (double v = x; v >= 2; v /= 2)
        l++;
    return l;
}

void nccl_system_init(struct nccl_system *s)
{
    s->nvlinks = s->nvlink ? nvlinks_of(s->sm) : 0;
    int ch = s->nvlink ? 2 * s->nvlinks : 2;
    if (s->nnodes > 1 && ch > 2 * s->rails) ch = 2 * s->rails;
    s->nchannels = ch < 1 ? 1 : ch > MAX_CHANNELS ? MAX_CHANNELS : ch;
}

static int func_steps(enum nccl_func f, int n)
{
    return f == NCCL_FUNC_ALLREDUCE ? 2 * (n - 1) : f == NCCL_FUNC_BROADCAST ? n : n - 1;
}

static bool enabled(const struct nccl_system *s, enum nccl_func f, enum nccl_algo a,
                    enum nccl_proto p)
{
    if (a != NCCL_ALGO_RING && f != NCCL_FUNC_ALLREDUCE) return false; /* tree/NVLS: all-reduce */
    /* NVLS: a reducing NVSwitch and more than 2 GPUs a node (src/transport/nvls.cc); on one node,
     * or as NVLS tree across nodes (dmlsim: 2 nodes; NVLS itself across nodes needs CollNet) */
    bool nvls = p == NCCL_PROTO_SIMPLE && s->nvls && s->sm >= 90 && s->nranks > 2 * s->nnodes;
    if (a == NCCL_ALGO_NVLS) return nvls && s->nnodes == 1;
    if (a == NCCL_ALGO_COLLNET_CHAIN) /* CollNet: SHARP switches, Simple, across nodes */
        return p == NCCL_PROTO_SIMPLE && s->collnet && s->nnodes > 1;
    if (a == NCCL_ALGO_NVLS_TREE) return nvls && s->nnodes == 2;
    /* LL128: Volta or later, GPUs of one generation, NVLink inside nodes (tuning.cc) */
    if (p == NCCL_PROTO_LL128) /* one GPU a node: NCCL's typeIntra is PATH_LOC, LL128 stays */
        return s->sm >= 70 && (s->nvlink || s->nranks == s->nnodes);
    return true;
}

/* The links' bus bandwidth (GB/s): a GPU's intra-node links, or a node's rails if smaller. */
static double link_busbw(const struct nccl_system *s)
{
    double total = s->intra_Bps / 1e9;
    if (s->nnodes > 1 && s->inter_Bps / 1e9 < total) total = s->inter_Bps / 1e9;
    return total;
}

/* LL's bus-bandwidth ceiling (GB/s): llMaxBws by GPU generation on one node, the x86 Intel row
 * on several. */
static double ll_max(const struct nccl_system *s)
{
    return ll_max_bw[s->nnodes == 1 ? cc_index(s->sm) : 0][node_index(s->nnodes)];
}

/* NCCL's bus bandwidth (GB/s) of (a, p), before conversion to algorithm bandwidth. */
static double bus_bw(const struct nccl_system *s, enum nccl_func f, enum nccl_algo a,
                     enum nccl_proto p)
{
    int ci = cc_index(s->sm), ni = node_index(s->nnodes), nch = s->nchannels;
    double llmax = ll_max(s);
    /* CollNet uses its graph's bwIntra; the others the links' bottleneck */
    double bw = a == NCCL_ALGO_COLLNET_CHAIN ? s->intra_Bps / 1e9 : link_busbw(s);
    if (a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) {
        double ppn = (double)s->nranks / s->nnodes;
        double intra =
                s->intra_Bps / 1e9 * nvls_eff[ci] * (nvls_channels(s) - 1) / nvls_channels(s);
        intra *= f == NCCL_FUNC_ALLREDUCE ? 2.0 : (ppn - 1) / ppn;
        double inter = s->inter_Bps / 1e9 * (s->nnodes <= 2 && a == NCCL_ALGO_NVLS_TREE ? 2 : 1);
        bw = a == NCCL_ALGO_NVLS ? intra : fmin(intra, inter);
        if (a == NCCL_ALGO_NVLS_TREE) bw = fmin(bw, nvls_channels(s) * nvlstree_ch[ci][ni]);
    }
    if (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL) bw = fmin(llmax, bw * 0.5);
    if (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL128)
        bw = fmin(bw * 0.92, nch * ring_ll128_ch[ci][ni]);
    if (a == NCCL_ALGO_TREE) bw = fmin(bw * 0.92, nch * tree_ch[ci][ni]);
    if (a == NCCL_ALGO_TREE && p == NCCL_PROTO_LL) bw = fmin(bw / 3.8, llmax);
    if (a == NCCL_ALGO_TREE && p == NCCL_PROTO_LL128)
        bw = fmin(bw * (s->nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), nch * tree_ll128_ch[ci][ni]);
    return bw;
}

/* The SM-side limit of (a, p): the part of bus_bw that is not the links (GB/s, 0 = none). */
static double sm_limit(const struct nccl_system *s, enum nccl_algo a, enum nccl_proto p)
{
    int ci = cc_index(s->sm), ni = node_index(s->nnodes), nch = s->nchannels;
    if (p == NCCL_PROTO_LL) return ll_max(s);
    if (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL128) return nch * ring_ll128_ch[ci][ni];
    if (a == NCCL_ALGO_TREE && p == NCCL_PROTO_LL128) return nch * tree_ll128_ch[ci][ni];
    if (a == NCCL_ALGO_TREE) return nch * tree_ch[ci][ni];
    return 0;
}

/* Per-hop latencies (us) of (a, p): intra-node and network, as ncclTopoTuneModel sets them. */
static void hop_lats(const struct nccl_system *s, enum nccl_algo a, enum nccl_proto p,
                     double *intra, double *inter)
{
    int hw = s->nvlink ? NCCL_HW_NVLINK : NCCL_HW_PCI;
    bool ppn1 = s->nranks == s->nnodes;
    *intra = hw_lat[hw][a][p];
    *inter = hw_lat[NCCL_HW_NET][ppn1 ? NCCL_ALGO_TREE : a][p];
    if (a == NCCL_ALGO_RING && s->nnodes > 1) {
        double ovh = NET_OVERHEAD_US * (p == NCCL_PROTO_SIMPLE ? 3 : 1);
        if (*intra < ovh) *intra = ovh;
    }
}

/* NCCL's latency (us) of one call of (a, p). */
static double model_lat(const struct nccl_system *s, enum nccl_func f, enum nccl_algo a,
                        enum nccl_proto p)
{
    double intra, inter;
    hop_lats(s, a, p, &intra, &inter);
    int n = s->nranks, N = s->nnodes, steps = func_steps(f, n);
    if (a == NCCL_ALGO_NVLS) return intra + (N > 1 ? inter : 0);
    if (a == NCCL_ALGO_NVLS_TREE) return intra + 2 * log2i(N) * inter;
    if (a == NCCL_ALGO_COLLNET_CHAIN) return base_lat[a][p] + 2 * (n / N - 1) * intra + inter;
    if (a == NCCL_ALGO_TREE) return base_lat[a][p] + 2 * ((n / N - 1) * intra + log2i(N) * inter);
    if (f == NCCL_FUNC_BROADCAST) { /* rings of different channels: nsteps hops, tree's Simple */
        int hw = N == 1 ? (s->nvlink ? NCCL_HW_NVLINK : NCCL_HW_PCI) : NCCL_HW_NET;
        double lat = hw_lat[hw][p == NCCL_PROTO_SIMPLE ? NCCL_ALGO_TREE : a][p];
        return base_lat[a][p] + steps * lat;
    }
    int inter_steps = N == 1 ? 0 : f == NCCL_FUNC_ALLREDUCE ? 2 * (N - 1) : N - 1;
    return base_lat[a][p] + (steps - inter_steps) * intra + inter_steps * inter;
}

double nccl_model_time(const struct nccl_system *s, enum nccl_func f, enum nccl_algo a,
                       enum nccl_proto p, double size_B)
{
    if (s->nranks < 2 || !enabled(s, f, a, p)) return -1;
    double bw = bus_bw(s, f, a, p);
    /* bus bandwidth to algorithm bandwidth: rings and NVLS n / nsteps, trees and CollNet 1/2 */
    bool half = a == NCCL_ALGO_TREE || a == NCCL_ALGO_COLLNET_CHAIN;
    bw *= half ? 0.5 : (double)s->nranks / func_steps(f, s->nranks);
    double lat = model_lat(s, f, a, p);
    int lg = size_B >= 64 ? log2i(size_B / 64) : 0; /* log2i(0) is 0 in NCCL too */
    if (a == NCCL_ALGO_TREE && lg < 23) bw *= tree_corr[p][lg];
    if (a == NCCL_ALGO_RING && p == NCCL_PROTO_SIMPLE && s->nnodes > 1 &&
        f == NCCL_FUNC_ALLREDUCE && size_B / ((double)s->nchannels * s->nranks) >= 64)
        lat *= s->sm < 80 ? 1.9 : 1.4; /* "plateau effect of ring" */
    if (bw <= 0) return -1;
    return (lat + size_B / (1000 * bw)) * 1e-6;
}

/* topoGetAlgoInfo's channel count for size_B: drop channels while each thread would get less
 * than its threshold of bytes. */
static int call_channels(const struct nccl_system *s, enum nccl_algo a, enum nccl_proto p,
                         double size_B, int cap)
{
    if (a == NCCL_ALGO_NVLS || a == NCCL_ALGO_NVLS_TREE) return nvls_channels(s);
    int nc = s->nchannels < cap || cap <= 0 ? s->nchannels : cap;
    double thr = thread_threshold[p] * (a == NCCL_ALGO_RING && p == NCCL_PROTO_LL ? s->nranks : 1);
    while (nc >= 2 && size_B < nc * max_threads[p] * thr)
        nc--;
    return nc;
}

void nccl_plan_call(const struct nccl_system *s, enum nccl_func func, double size_B,
                    const struct nccl_opts *o, unsigned allowed, struct nccl_plan *out)
{
    double best = -1;
    int ba = NCCL_ALGO_RING, bp = NCCL_PROTO_SIMPLE;
    for (int pass = 0; pass < 2 && best < 0; pass++) /* pass 1 drops the user's choice */
        for (int a = 0; a < NCCL_NALGOS; a++)
            for (int p = 0; p < NCCL_NPROTOS; p++) {
                if (pass == 0 &&
                    ((o->algo >= 0 && a != o->algo) || (o->proto >= 0 && p != o->proto)))
                    continue;
                if (!(allowed & NCCL_ALGO_BIT(a))) continue;
                double t = nccl_model_time(s, func, (enum nccl_algo)a, (enum nccl_proto)p, size_B);
                if (t >= 0 && (best < 0 || t < best)) best = t, ba = a, bp = p;
            }
    out->algo = (enum nccl_algo)ba;
    out->proto = (enum nccl_proto)bp;
    out->model_s = best;
    out->nchannels = call_channels(s, out->algo, out->proto, size_B, o->max_channels);
    double intra, inter;
    hop_lats(s, out->algo, out->proto, &intra, &inter);
    out->base_s = base_lat[ba][bp] * 1e-6;
    out->intra_hop_s = intra * 1e-6;
    out->inter_hop_s = inter * 1e-6;
    bool nvls = ba == NCCL_ALGO_NVLS || ba == NCCL_ALGO_NVLS_TREE;
    out->nvls_hop_s = nvls ? model_lat(s, func, out->algo, out->proto) * 1e-6 : 0;
    out->wire_factor = bp == NCCL_PROTO_LL ? 2.0 : bp == NCCL_PROTO_LL128 ? 1 / 0.92 : 1.0;
    if (nvls) out->wire_factor = 1 / nvls_eff[cc_index(s->sm)];
    /* the tree's medium-size shortfall is NCCL's measured correction: part of its throughput */
    int lg = size_B >= 64 ? log2i(size_B / 64) : 0;
    double corr = ba == NCCL_ALGO_TREE && lg < 23 ? tree_corr[bp][lg] : 1;
    out->net_stage_s = 0;
    out->sm_busbw_Bps = sm_limit(s, out->algo, out->proto) * corr * 1e9;
    out->sm_extra_s = 0;
    if (out->sm_busbw_Bps > 0) { /* the SM's copy time beyond the links' own transfer time */
        double ratio = ba == NCCL_ALGO_TREE || ba == NCCL_ALGO_COLLNET_CHAIN
                               ? 0.5
                               : (double)s->nranks / func_steps(func, s->nranks);
        double share = (double)out->nchannels / s->nchannels;
        double sm = out->sm_busbw_Bps * ratio * share;
        double links = link_busbw(s) * 1e9 / out->wire_factor * ratio * share; /* data rate */
        out->sm_extra_s = fmax(0, size_B / sm - size_B / links);
    }
}

double nccl_launch_floor_s(int gpus_per_thread)
{
    return gpus_per_thread >= 2 ? gpus_per_thread * NCCL_LAUNCH_S : 0;
}

static const char *algo_names[NCCL_NALGOS] = {"ring", "tree", "nvls", "nvlstree", "collnet"};
static const char *proto_names[NCCL_NPROTOS] = {"LL", "LL128", "Simple"};

const char *nccl_algo_name(enum nccl_algo a)
{
    return a >= 0 && a < NCCL_NALGOS ? algo_names[a] : "?";
}

const char *nccl_proto_name(enum nccl_proto p)
{
    return p >= 0 && p < NCCL_NPROTOS ? proto_names[p] : "?";
}

static bool parse_name(const char *s, const char **names, int n, int *out)
{
    if (strcasecmp(s, "auto") == 0) {
        *out = -1;
        return true;
    }
    for (int i = 0; i < n; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

bool nccl_algo_parse(const char *s, int *out)
{
    return parse_name(s, algo_names, NCCL_NALGOS, out);
}

bool nccl_proto_parse(const char *s, int *out)
{
    return parse_name(s, proto_names, NCCL_NPROTOS, out);
}
