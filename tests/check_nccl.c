/* check_nccl.c - the nccl family: NCCL's tuning model computed by hand, and simulated calls
 * against closed forms on platforms where every hop's latency and bandwidth are known.
 *
 * Constants from NCCL 2.28.3 src/graph/tuning.cc (written here again by hand, not read from
 * sim/): base latencies ring LL/LL128/Simple 6.6/14.0/8.4 us, tree 6.8/14.0/8.4; per-hop
 * NVLink ring 0.6/1.9/3.4, tree Simple 4.0; NET ring 2.7/4.0/14.0, tree Simple 14.0; NVLS
 * NVLink Simple 25; llMaxBw Hopper one node 141 GB/s; NVLS efficiency Hopper 0.85 over 16
 * channels; net overhead 1 us (x3 Simple); the ring plateau factor 1.4 (sm >= 80); tree Simple
 * correction at log2(S / 64) = 10: 0.6; perChMaxTreeBw Hopper, more than 2 nodes: 36.0 GB/s.
 * Platform values from the catalog: NVLink4 370 GB/s and 0.6 us per GPU-to-GPU hop (two links
 * of 0.3 us), NDR 47 GB/s, PCIe Gen5 52.8 GB/s, a cross-node route pcie + ndr hops + switch =
 * 1.0 + 2.7 + 0.15 us with bandwidth min(52.8, 47, 50 line) = 47 GB/s. */
#include "bench.h"
#include "coll_replay.h"
#include "nccl_tune.h"
#include "testlib.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define US   1e-6
#define GBPS 1e9

/* ---- the tuning model, by hand ------------------------------------------------------------ */

static struct nccl_system h100_node(void)
{
    struct nccl_system s = {.nranks = 8,
                            .nnodes = 1,
                            .sm = 90,
                            .nvlink = true,
                            .nvls = true,
                            .intra_Bps = 370e9,
                            .inter_Bps = 370e9,
                            .rails = 1};
    nccl_system_init(&s);
    return s;
}

START_TEST(test_model_one_node)
{
    struct nccl_system s = h100_node();
    ck_assert_int_eq(s.nchannels, 32); /* 2 x 18 NVLinks, at most MAXCHANNELS 32 */
    /* ring LL, 1 KiB: lat 6.6 + 14 x 0.6; bus bw min(141, 370 x 0.5); algbw x 8 / 14 */
    double want = (6.6 + 14 * 0.6 + 1024 / (1000 * 141.0 * 8 / 14)) * US;
    test_assert_rel(nccl_model_time(&s, NCCL_FUNC_ALLREDUCE, NCCL_ALGO_RING, NCCL_PROTO_LL, 1024),
                    want, 1e-6, "ring LL 1 KiB");
    /* ring Simple, 1 GiB: lat 8.4 + 14 x 3.4; bus bw 370 */
    double S = 1073741824;
    want = (8.4 + 14 * 3.4 + S / (1000 * 370.0 * 8 / 14)) * US;
    test_assert_rel(nccl_model_time(&s, NCCL_FUNC_ALLREDUCE, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, S),
                    want, 1e-6, "ring Simple 1 GiB");
    /* NVLS, 1 GiB: lat 25; bus bw 370 x 0.85 x 15/16 x 2 */
    want = (25 + S / (1000 * 370.0 * 0.85 * 15 / 16 * 2 * 8 / 14)) * US;
    test_assert_rel(nccl_model_time(&s, NCCL_FUNC_ALLREDUCE, NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE, S),
                    want, 1e-6, "NVLS 1 GiB");
    ck_assert(nccl_model_time(&s, NCCL_FUNC_ALLGATHER, NCCL_ALGO_TREE, NCCL_PROTO_LL, S) < 0);
    ck_assert(nccl_model_time(&s, NCCL_FUNC_ALLREDUCE, NCCL_ALGO_NVLS, NCCL_PROTO_LL, S) < 0);
}
END_TEST

START_TEST(test_model_choice)
{
    struct nccl_system s = h100_node();
    struct nccl_opts o = {-1, -1, 0, 0, 0};
    struct nccl_plan p;
    nccl_plan_call(&s, NCCL_FUNC_ALLREDUCE, 1024, &o, NCCL_ALGOS_ALL, &p);
    /* tree LL 1 KiB costs 6.8 + 2 x 7 x 0.6 = 15.2 us of latency alone: ring LL wins */
    ck_assert_int_eq(p.algo, NCCL_ALGO_RING);
    ck_assert_int_eq(p.proto, NCCL_PROTO_LL);
    ck_assert_int_eq(p.nchannels, 1); /* 1024 < 1 x 512 threads x 8 B x 8 ranks */
    ck_assert_double_eq_tol(p.wire_factor, 2.0, 1e-12);
    nccl_plan_call(&s, NCCL_FUNC_ALLREDUCE, 1073741824, &o, NCCL_ALGOS_ALL, &p);
    ck_assert_int_eq(p.algo, NCCL_ALGO_NVLS);
    ck_assert_int_eq(p.nchannels, 16);
    nccl_plan_call(&s, NCCL_FUNC_ALLREDUCE, 1048576, &o, NCCL_ALGO_BIT(NCCL_ALGO_RING), &p);
    ck_assert_int_eq(p.algo, NCCL_ALGO_RING);
    ck_assert_int_eq(p.nchannels, 32); /* 1 MiB = 32 x 512 threads x 64 B: no channel dropped */
    o.proto = NCCL_PROTO_SIMPLE;       /* at 1 KiB NVLS (25 us) would beat ring Simple (56 us) */
    o.algo = NCCL_ALGO_RING;
    o.max_channels = 4;
    nccl_plan_call(&s, NCCL_FUNC_ALLREDUCE, 1024, &o, NCCL_ALGOS_ALL, &p);
    ck_assert_int_eq(p.proto, NCCL_PROTO_SIMPLE);
    ck_assert_int_eq(p.nchannels, 1);
    nccl_plan_call(&s, NCCL_FUNC_ALLREDUCE, 1073741824, &o, NCCL_ALGOS_ALL, &p);
    ck_assert_int_eq(p.nchannels, 4);
}
END_TEST

START_TEST(test_model_two_nodes)
{
    struct nccl_system s = {.nranks = 16,
                            .nnodes = 2,
                            .sm = 90,
                            .nvlink = true,
                            .nvls = false,
                            .intra_Bps = 370e9,
                            .inter_Bps = 8 * 47e9,
                            .rails = 8};
    nccl_system_init(&s);
    ck_assert_int_eq(s.nchannels, 16); /* two per rail */
    /* ring Simple, 1 GiB: 30 steps, 2 across nodes at 14 us, 28 inside at max(3.4, 3 x 1); base
     * 8.4; x 1.4 (plateau); bus bw min(370, 376) */
    double S = 1073741824;
    double want = ((8.4 + 28 * 3.4 + 2 * 14.0) * 1.4 + S / (1000 * 370.0 * 16 / 30)) * US;
    test_assert_rel(nccl_model_time(&s, NCCL_FUNC_ALLREDUCE, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, S),
                    want, 1e-6, "two-node ring Simple 1 GiB");
}
END_TEST

/* ---- simulated calls ---------------------------------------------------------------------- */

/* The level run_nccl simulates at: the closed-form tests hold at both (loop index 1: flow). */
static enum coll_level test_level = COLL_MESSAGE;

static double run_nccl(struct scenario *sc, double size_B, int algo, int proto, int channels,
                       double *messages)
{
    sc->bench.op = COLL_ALLREDUCE;
    sc->bench.algo = COLL_ALGO_NCCL;
    sc->bench.nccl = (struct nccl_opts){algo, proto, channels, 0, 0};
    sc->bench.level = test_level;
    sc->bench.chunks = 1;
    return test_coll_time(sc, size_B, messages);
}

/* Two nodes x 2 GPUs, one NDR NIC per GPU, ring Simple on 2 channels, S = 1 GiB. Channel 0
 * runs g0.0 g0.1 | g1.0 g1.1, channel 1 g0.1 g0.0 | g1.1 g1.0: each channel leaves a node from a
 * different GPU, so through a different NIC, and every link direction carries one channel. Each
 * of the 2(P - 1) = 6 steps moves b = S / (2 channels x 4 ranks) over every hop of a channel,
 * so the NIC links, the slowest (47 GB/s), carry 6 b each: T >= 8.4 us + 6 b / 47 GB/s; at most
 * every hop's latency is added, 6 x (3.4 + 14.0) us, and the NVLink transfers, 6 b / 370 GB/s.
 * Had both channels left through one NIC, that NIC would carry 12 b. */
START_TEST(test_rail_ring)
{
    struct scenario sc = test_cluster(2, 2, "h100", "nvlink4", "ib-ndr", 2);
    double S = 1073741824, b = S / 8, msgs;
    double t = run_nccl(&sc, S, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 2, &msgs);
    double lo = 8.4 * US + 6 * b / (47 * GBPS);
    double hi = lo + 6 * (3.4 + 14.0) * US + 6 * b / (370 * GBPS);
    ck_assert_msg(t >= lo * (1 - 1e-6) && t <= hi, "rail ring: %.9g not in [%.9g, %.9g]", t, lo,
                  hi);
    ck_assert_double_eq(msgs, 2.0 * 6 * 4); /* channels x steps x ranks */
    scenario_release(&sc);
}
END_TEST

/* The same ring with 64 B (one channel: 64 < 2 x 512 threads x 64 B), latency-bound: a step
 * from rank r waits for its left neighbour, so the last of the 6 steps ends after 6 consecutive
 * hops of the ring, 3 inside nodes and 3 across, each costing NCCL's latency for the protocol
 * where it exceeds the route's (0.6 us inside, 3.85 across). Every rank sleeps the mean excess
 * of the ring before a send, and 6 such means are 3 of each:
 *   Simple: 8.4 + 3 x 3.4 (max(3.4, net overhead 3 x 1)) + 3 x 14.0
 *   LL:     6.6 + 3 x 1.0 (max(0.6, net overhead 1))      + 3 x 3.85 (the route: NET LL is 2.7)
 * plus bytes: 16 B per hop (x2 for LL) and LL's SM limit, below 0.01 us. */
START_TEST(test_ring_latency)
{
    struct scenario sc = test_cluster(2, 2, "h100", "nvlink4", "ib-ndr", 2);
    bool ll = _i == 1;
    double t = run_nccl(&sc, 64, NCCL_ALGO_RING, ll ? NCCL_PROTO_LL : NCCL_PROTO_SIMPLE, 2, NULL);
    double want = ll ? (6.6 + 3 * 1.0 + 3 * 3.85) * US : (8.4 + 3 * 3.4 + 3 * 14.0) * US;
    ck_assert_msg(fabs(t - want) < 0.01 * US, "ring latency %s: simulated %.9g, closed form %.9g",
                  ll ? "LL" : "Simple", t, want);
    scenario_release(&sc);
}
END_TEST

/* NCCL's socket transport (NCCL 2.4 src/transport/net_socket.cc), two nodes of one V100 on
 * 25 GbE TCP, ring Simple on one channel, message level. Constants written here by hand:
 *   - a socket moves one TCP stream: 13.2 Gb/s (iperf3 -P 1 on 25 GbE, esnet/iperf #1088);
 *     threads x sockets per thread sockets a connection, default 1 x 1 (auto-detect, non-AWS);
 *     a message of m bytes in tasks of max(64 KiB, m / nSocks): min(nSocks, ceil(m / 64 KiB))
 *     sockets busy; the connection moves at most min(route bandwidth, busy x 13.2 Gb/s);
 *   - host staging (sockets take host memory only): one 512 KiB FIFO slot (or the message)
 *     written over PCIe Gen3 (12.2 GB/s) before the wire and one read after;
 *   - the route: PCIe half hops 0.5 us at each end, TCP 40 us (two NIC halves of 20, netperf
 *     TCP_RR), the switch port 0.15 us: 41.15 us, NCCL's NET Simple hop (14 us) below it, so the
 *     protocol adds nothing; its bandwidth min(12.2, 25 x 0.964 / 8, 25 / 8) = 3.0125 GB/s.
 * All-reduce over P = 2 ranks, one channel: 2 (P - 1) = 2 steps of m = S / 2, each a send both
 * ways at once, the second after the first has arrived:
 *   T = 8.4 us + 2 x (stage(m) + 41.15 us + m / min(3.0125 GB/s, busy(m) x 13.2 Gb/s)).
 * Case 0: 1 x 1 socket, S = 8 MiB (the stream limits); case 1: 2 x 2 sockets, S = 8 MiB (the
 * link limits: 4 x 1.65 > 3.0125 GB/s); case 2: 2 x 2 sockets, S = 128 KiB (m = 64 KiB is one
 * task: one socket busy). */
static double socket_time(int threads, int per_thread, double S)
{
    struct scenario sc = test_cluster(2, 1, "v100", "pcie-gen3", "tcp-25g", 1);
    sc.bench.op = COLL_ALLREDUCE;
    sc.bench.algo = COLL_ALGO_NCCL;
    sc.bench.nccl = (struct nccl_opts){NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1, threads, per_thread};
    sc.bench.level = COLL_MESSAGE;
    sc.bench.chunks = 1;
    double t = test_coll_time(&sc, S, NULL);
    scenario_release(&sc);
    return t;
}

START_TEST(test_socket_closed_form)
{
    static const struct {
        int threads, per_thread;
        double S;
    } k[] = {{0, 0, 8388608}, {2, 2, 8388608}, {2, 2, 131072}};
    double stream = 13.2e9 / 8, route_bw = 25e9 * 0.964 / 8, pcie = 12.2 * GBPS;
    double m = k[_i].S / 2, nsocks = k[_i].threads ? k[_i].threads * k[_i].per_thread : 1;
    double busy = fmin(nsocks, ceil(m / 65536));
    double stage = 2 * fmin(m, 524288) / pcie;
    double want = 8.4 * US + 2 * (stage + 41.15 * US + m / fmin(route_bw, busy * stream));
    double t = socket_time(k[_i].threads, k[_i].per_thread, k[_i].S);
    test_assert_rel(t, want, 1e-6, "socket transport");
}
END_TEST

/* Small messages: NCCL's own choice (no algorithm or protocol forced) of an 8-byte all-reduce,
 * simulated. NCCL 2.28.3 tuning.cc: on one node of 8 H100 (NVLink), ring LL: base 6.6 + 2(P - 1)
 * = 14 NVLink hops of 0.6 us = 15.0 us; on 4 nodes of 8 A100 (the 32 ranks), tree LL:
 * base 6.8 + 2 x ((8 - 1) x 0.6 + log2(4) x 5.0) = 35.2 us (LL's NVLink and NET tree hops),
 * plus LL's SM-side limit on the one channel of 16 (2 per rail) that 8 B use: 8 B over llMaxBw
 * (x86 Intel, more than 2 nodes: 20.4 GB/s) x 1/2 (tree) x 1/16 = 0.0125 us. The wires add under
 * 0.01 us. */
START_TEST(test_small_message_closed_form)
{
    bool multi = _i == 1;
    struct scenario sc = multi ? test_cluster(4, 8, "a100", "nvlink3", "ib-hdr", 8)
                               : test_cluster(1, 8, "h100", "nvlink4", NULL, 1);
    double t = run_nccl(&sc, 8, -1, -1, 0, NULL);
    double want = multi ? (6.8 + 2 * (7 * 0.6 + 2 * 5.0)) * US + 8 / (20.4 * GBPS / 2 / 16)
                        : (6.6 + 14 * 0.6) * US;
    ck_assert_msg(fabs(t - want) < 0.01 * US,
                  "8 B all-reduce, %s: simulated %.9g, closed form %.9g",
                  multi ? "4 x 8 A100" : "8 H100", t, want);
    scenario_release(&sc);
}
END_TEST

/* The host's launches: 4.90 us per cudaLaunchKernel (JuliaGPU/CUDAdrv.jl PR #15), one per GPU a
 * thread drives; one GPU per thread hides its launch behind the kernel before it. */
START_TEST(test_launch_floor)
{
    ck_assert_double_eq(nccl_launch_floor_s(0), 0);
    ck_assert_double_eq(nccl_launch_floor_s(1), 0);
    test_assert_rel(nccl_launch_floor_s(8), 8 * 4.90 * US, 1e-12, "8 GPUs on one thread");
    test_assert_rel(nccl_launch_floor_s(2), 2 * 4.90 * US, 1e-12, "2 GPUs on one thread");
}
END_TEST

/* Tree, four nodes of one GPU (PCIe node, one NIC), Simple, one channel, S = 64 KiB in one
 * chunk. Tree 0: node 0 the root, children 1 and 2, node 3 under node 1. The longest chain:
 * 3 -> 1 -> 0 up, then 0 -> 1 -> 3 down, four hops of 14 us (NET tree Simple); the root sends
 * down to 1 and 2 at once through its one NIC, so that hop moves 2 b at 47 GB/s:
 *   T = 8.4 + 4 x 14 + 5 b / 47 GB/s + SM extra,
 * SM extra = S / (36.0 x 2 channels x 0.6 x 1/2 x 1/2) - S / (47 x 1/2 x 1/2): the tree's
 * per-channel limit (perChMaxTreeBw, > 2 nodes) with its correction 0.6 at this size, as
 * algorithm bandwidth (1/2) for 1 of the 2 channels, beyond the link's 47 GB/s. */
START_TEST(test_tree_closed_form)
{
    test_level = _i ? COLL_FLOW : COLL_MESSAGE; /* flow: each edge a flow each way, then the
                                                   pipeline's path latencies and fill */
    struct scenario sc = test_cluster(4, 1, "h100", "pcie-gen5", "ib-ndr", 1);
    double S = 65536, msgs;
    double t = run_nccl(&sc, S, NCCL_ALGO_TREE, NCCL_PROTO_SIMPLE, 1, &msgs);
    double want = 8.4 * US + 4 * 14 * US + 5 * S / (47 * GBPS) + S / (36.0 * GBPS * 2 * 0.6 / 4) -
                  S / (47 * GBPS / 4);
    test_assert_rel(t, want, 1e-4, "tree");
    ck_assert_double_eq(msgs, 2.0 * 3); /* every tree edge once up, once down */
    scenario_release(&sc);
}
END_TEST

/* NVLS on one node of 8 H100: K = 8 chunks of S / 16 ... (S = 64 MiB: S / 16 channels = 4 MiB
 * = 8 FIFO slots of 512 KiB). Step s of the 4-stage pipeline moves, on each GPU's NVLink link,
 *   up:   [s < K] u + [2 <= s < K + 2] v      down: [1 <= s < K + 1] v + [3 <= s < K + 3] u
 * with u = S / K / 0.85 and v = u / 8 (the NVLS efficiency as wire bytes), both directions at
 * once, after the link's 0.3 us; the switch waits for all GPUs each step. Then
 *   T = 25 us + sum over s = 0 .. K + 2 of (0.3 us + max(up_s, down_s) / 370 GB/s). */
START_TEST(test_nvls_closed_form)
{
    test_level = _i ? COLL_FLOW : COLL_MESSAGE; /* flow: a flow each way to the switch per GPU,
                                                   then the schedule's steps at its rate */
    struct scenario sc = test_cluster(1, 8, "h100", "nvlink4", NULL, 1);
    double S = 67108864, msgs;
    int K = 8;
    double t = run_nccl(&sc, S, NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE, 0, &msgs);
    double u = S / K / 0.85, v = u / 8, want = 25 * US;
    for (int s = 0; s <= K + 2; s++) {
        double up = (s < K ? u : 0) + (s >= 2 && s < K + 2 ? v : 0);
        double down = (s >= 1 && s < K + 1 ? v : 0) + (s >= 3 && s < K + 3 ? u : 0);
        want += 0.3 * US + fmax(up, down) / (370 * GBPS);
    }
    test_assert_rel(t, want, 1e-4, "NVLS");
    ck_assert_double_eq(msgs, _i ? 8.0 : 8.0 * 2 * K); /* each GPU: K up and K stores, or a flow */
    scenario_release(&sc);
}
END_TEST

/* CollNet chain (SHARP) on two nodes of one GPU, Simple, one channel, S = 64 KiB in one chunk:
 * each GPU sends its data up to the switch host (route: PCIe and NDR half hops, the switch's
 * port-to-port latency and the aggregation link's, 0.5 + 1.35 + 0.15 + 0.15 us, at 47 GB/s)
 * after sleeping what NCCL's network latency adds to that route (paid once; with one GPU per
 * node NCCL takes the tree's NET latency, 14 us, instead of CollNet chain's 30: "with ppn=1
 * latencies are fully exposed"); the switch, having both, sends the result back down (route
 * again, no protocol latency):
 *   T = 14 + S / 47 GB/s + 2.15 us + S / 47 GB/s  (base latency 0, no SM limit). */
START_TEST(test_collnet_closed_form)
{
    test_level = _i ? COLL_FLOW : COLL_MESSAGE;
    struct scenario sc = test_cluster(2, 1, "h100", "pcie-gen5", "ib-ndr", 1);
    sc.cluster.sharp = true;
    double S = 65536, msgs;
    double t = run_nccl(&sc, S, NCCL_ALGO_COLLNET_CHAIN, NCCL_PROTO_SIMPLE, 1, &msgs);
    double want = 14 * US + 2 * S / (47 * GBPS) + 2.15 * US;
    test_assert_rel(t, want, 1e-4, "CollNet chain");
    ck_assert_double_eq(msgs, 2.0); /* the switch's sends are not a rank's */
    scenario_release(&sc);
}
END_TEST

/* ---- flow level against message level ------------------------------------------------------ */

/* The flow level (one flow per ring, tree or switch edge and call, channels on an edge merged)
 * against the message level (every step of every channel a message) on the platforms above,
 * where the flow level's mechanism is exact or close: NVLS and NVLS tree (the message schedule's
 * steps at the flows' rate: exact), the ring where bandwidth or latency bounds it (within 2%), the
 * tree in LL (within 2%). The README's table gives the rest (mid-size rings and trees, CollNet:
 * up to 34%). */
struct level_case {
    int nodes, gpus, nics;
    const char *intra;
    int algo, proto;
    double size_B, tol;
};

static const struct level_case level_cases[] = {
        {1, 8, 1, "nvlink4", NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE, 268435456, 1e-6},
        {2, 8, 8, "nvlink4", NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE, 16777216, 1e-6},
        {2, 8, 8, "nvlink4", NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE, 65536, 1e-6},
        {2, 2, 2, "nvlink4", NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1073741824, 0.02},
        {2, 2, 2, "nvlink4", NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 64, 0.02},
        {4, 8, 8, "nvlink4", NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1048576, 0.02},
        {4, 8, 8, "nvlink4", NCCL_ALGO_TREE, NCCL_PROTO_LL, 1048576, 0.02},
};

/* Runs case k at level lv into out[0] (time) and out[1] (messages). */
static void level_run(const struct level_case *k, int lv, double *out)
{
    struct scenario sc = test_cluster(k->nodes, k->gpus, "h100", k->intra, "ib-ndr", k->nics);
    test_level = lv ? COLL_FLOW : COLL_MESSAGE;
    out[0] = run_nccl(&sc, k->size_B, k->algo, k->proto, 0, &out[1]);
    scenario_release(&sc);
}

/* Runs f(arg, out) in a child process (SimGrid runs one engine per process) and returns its
 * n doubles in out. */
static void in_child(void (*f)(const void *, double *), const void *arg, double *out, size_t n)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        f(arg, out);
        ssize_t w = write(fd[1], out, n * sizeof *out);
        _exit(w == (ssize_t)(n * sizeof *out) ? 0 : 1);
    }
    ck_assert_int_eq(read(fd[0], out, n * sizeof *out), (ssize_t)(n * sizeof *out));
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(fd[0]);
    close(fd[1]);
}

static void level_message(const void *k, double *out)
{
    level_run(k, 0, out);
}

START_TEST(test_flow_vs_message)
{
    const struct level_case *k = &level_cases[_i];
    double t[2], msgs[2], m[2], f[2];
    in_child(level_message, k, m, 2);
    level_run(k, 1, f);
    t[0] = m[0], msgs[0] = m[1], t[1] = f[0], msgs[1] = f[1];
    ck_assert_msg(fabs(t[1] - t[0]) <= k->tol * t[0],
                  "case %d (%s %.0f B): flow %.9g against message %.9g", _i,
                  nccl_algo_name(k->algo), k->size_B, t[1], t[0]);
    ck_assert_msg(msgs[1] < msgs[0], "case %d: the flow level must post fewer sends", _i);
}
END_TEST

/* Channels on the same edge are one flow: 8 GPUs behind an NVSwitch, ring Simple on 16
 * channels, 1 GiB. Every channel's ring is the node's ring in rank order, so each rank has one
 * right neighbour: 8 flows per phase, 2 phases (message level: 16 x 2 x 7 x 8). */
START_TEST(test_flow_merges_channels)
{
    struct scenario sc = test_cluster(1, 8, "h100", "nvlink4", NULL, 1);
    test_level = COLL_FLOW;
    double msgs;
    run_nccl(&sc, 1073741824, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 16, &msgs);
    ck_assert_double_eq(msgs, 8.0 * 2);
    scenario_release(&sc);
}
END_TEST

/* ---- replay ------------------------------------------------------------------------------- */

struct rp_ctx {
    struct coll_world *w;
    int calls;
    double late_s;   /* rank 1 comes this late to the last call (0: all together) */
    double end_s[8]; /* each rank's end */
};

struct rp_rank {
    struct rp_ctx *c;
    int rank;
};

static void rp_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct rp_rank *me = sg_actor_self_get_data();
    struct rp_ctx *c = me->c;
    for (int k = 0; k < c->calls; k++) {
        if (k == c->calls - 1 && me->rank == 1 && c->late_s > 0) sg_actor_sleep_for(c->late_s);
        ck_assert_int_eq(collective_run(c->w, collective_get(COLL_ALGO_NCCL), COLL_ALLREDUCE,
                                        me->rank, 16777216, NULL),
                         NET_OK);
    }
    c->end_s[me->rank] = simgrid_get_clock();
}

/* Three all-reduces of 16 MiB on 8 H100 behind an NVSwitch at flow level, with replay allowed
 * (_i 1) or not (_i 0), and with rank 1 coming 1 us late to the last call (_i 2, 3): every
 * rank's end is the same with and without replay (idle links: the recorded state is the state),
 * the second and third calls are replayed when all come together (2 calls x 8 ranks), and a
 * late rank makes the last call simulated in full (1 call x 8). */
static double rp_run(bool replay, double late_s, long *hits, double *ends)
{
    struct scenario sc = test_cluster(1, 8, "h100", "nvlink4", NULL, 1);
    struct platform *pf = test_load(&sc);
    struct coll_world w;
    collective_world_init(&w, 8, pf->gpus, 3600);
    w.level = COLL_FLOW;
    w.replay = replay;
    struct rp_ctx c = {.w = &w, .calls = 3, .late_s = late_s};
    struct rp_rank ranks[8];
    for (int r = 0; r < 8; r++) {
        ranks[r] = (struct rp_rank){&c, r};
        sg_actor_t a = sg_actor_init("rp", pf->gpus[r]);
        sg_actor_set_data(a, &ranks[r]);
        sg_actor_start(a, rp_actor, 0, NULL);
    }
    simgrid_run();
    *hits = coll_replay_hits(w.rp);
    memcpy(ends, c.end_s, sizeof c.end_s);
    collective_world_release(&w);
    platform_free(pf);
    scenario_release(&sc);
    return c.end_s[0];
}

static void rp_reference(const void *late, double *ends)
{
    long hits;
    rp_run(false, *(const double *)late, &hits, ends);
}

START_TEST(test_replay)
{
    double late = _i >= 2 ? 1e-6 : 0, ends[8], ref[8];
    long hits;
    in_child(rp_reference, &late, ref, 8); /* without replay */
    rp_run(_i % 2 == 1, late, &hits, ends);
    for (int r = 0; r < 8; r++) /* the same but for the rounding of a sum of times */
        ck_assert_msg(fabs(ends[r] - ref[r]) <= 1e-12 * ref[r],
                      "rank %d ends at %.15g, %.15g without replay", r, ends[r], ref[r]);
    long want = _i == 1 ? 2 * 8 : _i == 3 ? 1 * 8 : 0;
    ck_assert_int_eq(hits, want);
}
END_TEST

/* ---- data --------------------------------------------------------------------------------- */

struct data_ctx {
    struct coll_world *w;
    const struct coll_algo *algo;
    float **buf;
    enum net_status *st;
};

struct data_rank {
    struct data_ctx *c;
    int rank;
};

static void data_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct data_rank *me = sg_actor_self_get_data();
    me->c->st[me->rank] = collective_run(me->c->w, me->c->algo, COLL_ALLREDUCE, me->rank,
                                         4.0 * 1001, me->c->buf[me->rank]);
}

static const char *data_algos[] = {"nccl", "ring", "hierarchical"};

/* All-reduce with data on 2 nodes x 3 GPUs: rank r holds x_i = r + i / 1000 (1001 floats, so
 * blocks are uneven); afterwards every rank holds sum_r x_i = 15 + 6 i / 1000. */
START_TEST(test_data_allreduce)
{
    struct scenario sc = test_cluster(2, 3, "h100", "nvlink4", "ib-ndr", 3);
    struct platform *pf = test_load(&sc);
    int P = 6, n = 1001;
    struct coll_world w;
    collective_world_init(&w, P, pf->gpus, 3600);
    w.nccl.max_channels = 3;
    const struct coll_algo *algo = collective_find(data_algos[_i]);
    ck_assert_ptr_null(collective_check(&w, algo, COLL_ALLREDUCE, true));
    float *bufs[6];
    enum net_status st[6];
    struct data_ctx c = {&w, algo, bufs, st};
    struct data_rank ranks[6];
    for (int r = 0; r < P; r++) {
        bufs[r] = malloc(n * sizeof(float));
        for (int i = 0; i < n; i++)
            bufs[r][i] = (float)r + (float)i / 1000;
        ranks[r] = (struct data_rank){&c, r};
        sg_actor_t a = sg_actor_init("data", pf->gpus[r]);
        sg_actor_set_data(a, &ranks[r]);
        sg_actor_start(a, data_actor, 0, NULL);
    }
    simgrid_run();
    for (int r = 0; r < P; r++) {
        ck_assert_int_eq(st[r], NET_OK);
        for (int i = 0; i < n; i++)
            ck_assert_msg(fabsf(bufs[r][i] - (15.0f + 6.0f * i / 1000)) < 1e-3,
                          "%s: rank %d element %d = %g", data_algos[_i], r, i, bufs[r][i]);
        free(bufs[r]);
    }
    collective_world_release(&w);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_contract)
{
    const struct coll_algo *naive = collective_find("naive"),
                           *nccl = collective_get(COLL_ALGO_DEFAULT);
    ck_assert_str_eq(nccl->name, "nccl");
    ck_assert(!(naive->ops & COLL_OP_BIT(COLL_ALLGATHER)));
    ck_assert_str_eq(coll_algo_names_for(COLL_ALLGATHER, false), "nccl, ring");
    ck_assert_str_eq(coll_algo_names_for(COLL_ALLREDUCE, true), "nccl, ring");
    int v;
    ck_assert(nccl_proto_parse("ll128", &v) && v == NCCL_PROTO_LL128);
    ck_assert(nccl_algo_parse("auto", &v) && v == -1);
    ck_assert(nccl_algo_parse("collnet", &v) && v == NCCL_ALGO_COLLNET_CHAIN);
    ck_assert(!nccl_algo_parse("pat", &v));
}
END_TEST

/* The same ring over RoCE at the same line rate (roce-25g: RDMA, GPUDirect, no socket limit, no
 * staging, 2.7 us hops) is faster than over TCP sockets: 64 KiB and 8 MiB, each simulation in a
 * child of its own (one SimGrid engine a process). */
static void socket_run(const void *arg, double *out)
{
    const double *S = arg;
    out[0] = socket_time(0, 0, *S);
}

static void rdma_run(const void *arg, double *out)
{
    const double *S = arg;
    struct scenario sc = test_cluster(2, 1, "v100", "pcie-gen3", "roce-25g", 1);
    sc.bench.op = COLL_ALLREDUCE;
    sc.bench.algo = COLL_ALGO_NCCL;
    sc.bench.nccl = (struct nccl_opts){NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1, 0, 0};
    sc.bench.level = COLL_MESSAGE;
    sc.bench.chunks = 1;
    out[0] = test_coll_time(&sc, *S, NULL);
    scenario_release(&sc);
}

START_TEST(test_socket_slower_than_rdma)
{
    double S = _i ? 8388608 : 65536, rdma, tcp;
    in_child(rdma_run, &S, &rdma, 1);
    in_child(socket_run, &S, &tcp, 1);
    ck_assert_msg(rdma < tcp, "%.0f B: roce-25g %.9g s, tcp-25g %.9g s", S, rdma, tcp);
}
END_TEST

/* A connection over sockets is one FIFO byte stream: its messages share its bound, however many
 * ring steps a rank has queued on it. Two nodes of 8 V100 on 100 GbE TCP, 1 x 1 socket, ring
 * Simple on its 2 channels: every byte of the all-reduce's 2 (P - 1) / P x S per rank crosses
 * the nodes on one of the 2 connections leaving a node, each at most one stream (36 Gb/s,
 * iperf issue #55), so T >= 2 (P - 1) / P x S / (2 x 4.5 GB/s), P = 16, S = 256 MiB. */
START_TEST(test_socket_connection_bound)
{
    struct scenario sc = test_cluster(2, 8, "v100", "nvlink2", "tcp-100g", 1);
    double S = 268435456, P = 16;
    sc.bench.op = COLL_ALLREDUCE;
    sc.bench.algo = COLL_ALGO_NCCL;
    sc.bench.nccl = (struct nccl_opts){NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 2, 0, 0};
    sc.bench.level = COLL_MESSAGE;
    sc.bench.chunks = 1;
    double t = test_coll_time(&sc, S, NULL), lo = 2 * (P - 1) / P * S / (2 * 36e9 / 8);
    ck_assert_msg(t >= lo, "16 ranks over 2 socket connections: %.9g s, at least %.9g s", t, lo);
    scenario_release(&sc);
}
END_TEST

static Suite *nccl_suite(void)
{
    Suite *s = suite_create("nccl");
    TCase *tc = tcase_create("nccl");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_model_one_node);
    tcase_add_test(tc, test_model_choice);
    tcase_add_test(tc, test_model_two_nodes);
    tcase_add_test(tc, test_rail_ring);
    tcase_add_loop_test(tc, test_ring_latency, 0, 2);
    tcase_add_loop_test(tc, test_small_message_closed_form, 0, 2);
    tcase_add_test(tc, test_launch_floor);
    tcase_add_loop_test(tc, test_socket_closed_form, 0, 3);
    tcase_add_loop_test(tc, test_socket_slower_than_rdma, 0, 2);
    tcase_add_test(tc, test_socket_connection_bound);
    tcase_add_loop_test(tc, test_tree_closed_form, 0, 2);
    tcase_add_loop_test(tc, test_nvls_closed_form, 0, 2);
    tcase_add_loop_test(tc, test_collnet_closed_form, 0, 2);
    tcase_add_loop_test(tc, test_flow_vs_message, 0,
                        (int)(sizeof level_cases / sizeof level_cases[0]));
    tcase_add_test(tc, test_flow_merges_channels);
    tcase_add_loop_test(tc, test_replay, 0, 4);
    tcase_add_loop_test(tc, test_data_allreduce, 0, 3);
    tcase_add_test(tc, test_contract);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(nccl_suite());
}
