/* coll_nccl.c - the nccl family's call: NCCL's plan for it, run by the channels' actors at
 * message level or as flows at flow level (see coll_nccl.h). */
#include "coll_nccl.h"

#include "coll_replay.h"
#include "nccl_chan.h"
#include "nccl_topo.h"
#include "netcal.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the call ----------------------------------------------------------------------------- */

/* The calibration's dilation for this call (1 without one). */
static double dilation(const struct coll_world *w, const struct nccl_topo *t, enum coll_op op,
                       double size_B)
{
    return w->netcal ? netcal_factor(w->netcal, (int)op, t->nnodes, size_B) : 1.0;
}

/* Channels whose edges join the same two ranks are one flow carrying their sum: peer[0..n) (a
 * channel's neighbour) becomes the distinct neighbours in order of first appearance, tag[i] the
 * first channel on that edge (both ends compute the same, as they see the same channels on it)
 * and mult[i] (if not NULL) how many channels it carries. Returns the distinct count. Exact when
 * the edge's links carry nothing else: k flows of B on one route, started together, share it
 * equally and end together, as one flow of k B does; against other traffic the merged flow gets
 * one max-min share where k flows got k (README, Collectives). */
static int merge_edges(int *peer, int *tag, int *mult, int n)
{
    int m = 0;
    for (int c = 0; c < n; c++) {
        int i = 0;
        while (i < m && peer[i] != peer[c])
            i++;
        if (i == m) {
            peer[m] = peer[c], tag[m] = tag[c];
            if (mult) mult[m] = 0;
            m++;
        }
        if (mult) mult[i]++;
    }
    return m;
}

/* Flow level: each ring phase is one flow per edge of the channels' rings (channels sharing an
 * edge merged, merge_edges), all posted at once by the rank's own actor, then the step
 * latencies they stand for. */
static enum net_status ring_flow(const struct coll_world *w, const struct nccl_plan *p,
                                 enum coll_op op, int rank, double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int P = w->nranks, N = t->nnodes, nc = p->nchannels, right[NCCL_TOPO_MAX_CH],
        left[NCCL_TOPO_MAX_CH], tag[NCCL_TOPO_MAX_CH];
    int pos;
    double chain = 0; /* P - 1 mean hops (route and protocol latency, a step's bytes on idle
                         routes): the dependency chain of a phase's steps */
    double step_B = size_B / ((double)nc * P) * p->wire_factor * dil;
    for (int c = 0; c < nc; c++) {
        nccl_topo_ring_of(t, rank, c, &right[c], &left[c], &pos);
        tag[c] = c;
        chain = fmax(chain, (P - 1) * (nccl_topo_ring_mean(w, t, p, c, true) +
                                       nccl_topo_ring_extra(w, t, p, c) * dil));
    }
    double bi, bx;
    nccl_topo_route_bws(t, &bi, &bx);
    chain += (P - 1) * ((P - N) * step_B / bi + N * step_B / bx) / P;
    double phase_B = (P - 1) * step_B, to_B[NCCL_TOPO_MAX_CH];
    int from_tag[NCCL_TOPO_MAX_CH], mult[NCCL_TOPO_MAX_CH];
    memcpy(from_tag, tag, sizeof from_tag);
    int nto = merge_edges(right, tag, mult, nc), nfrom = merge_edges(left, from_tag, NULL, nc);
    double rate[NCCL_TOPO_MAX_CH]; /* over sockets: the merged connections' bound */
    for (int i = 0; i < nto; i++) {
        to_B[i] = mult[i] * phase_B;
        rate[i] = mult[i] * nccl_topo_conn_Bps(t, rank, right[i], step_B);
    }
    int phases = op == COLL_ALLREDUCE ? 2 : 1;
    enum net_status st = NET_OK;
    for (int ph = 0; ph < phases && st == NET_OK; ph++) {
        double t0 = simgrid_get_clock();
        st = coll_exchange_bounded(w, rank, right, tag, to_B, rate, nto, left, from_tag, nfrom);
        double wait = chain - (simgrid_get_clock() - t0);
        if (st == NET_OK && wait > 0) sg_actor_sleep_for(wait);
    }
    return st;
}

/* ---- flow level: trees, NVLS and CollNet without helper actors ---------------------------- */

/* Every rank of the world has come to this call: flow-level NVLS and CollNet, whose switch
 * reduces only what every rank sent, start their flows then (at message level the switch's
 * actor waits for every rank's chunk). NET_TIMEOUT if one does not come by the deadline. */
static enum net_status world_gate(const struct coll_world *w, struct nccl_topo *t)
{
    return coll_gate_pass(&t->gate, w->nranks, w->timeout_s) ? NET_OK : NET_TIMEOUT;
}

/* What a pipelined tree's message-level schedule costs beyond its flows (tree_flow): K chunks
 * through the deepest path of `in` hops inside nodes and `ac` across (each way) take K - 1
 * steps of the slowest hop plus the path up and down, every hop at its protocol's latency
 * (hi, hx: the larger of NCCL's hop latency and the route's); their bytes cross the path's hops
 * (at bi inside nodes, bx across) one chunk at a time, of which the flows already carried the
 * slowest hop's; the flows paid the route latency lat_f once. */
static double tree_tail(int K, int in, int ac, double hi, double hx, double bi, double bx,
                        double chunk_B, double lat_f)
{
    double hop = fmax(in > 0 ? hi : 0, ac > 0 ? hx : 0), path = in * hi + ac * hx;
    double fill = 2 * (in * chunk_B / bi + ac * chunk_B / bx) -
                  chunk_B / fmin(in > 0 ? bi : INFINITY, ac > 0 ? bx : INFINITY);
    return fmax(0, (K - 1) * hop + 2 * path + fill - lat_f);
}

/* The protocol's cost of one hop inside a node and one across (route latency included). */
static void hop_costs(const struct coll_world *w, struct nccl_topo *t, const struct nccl_plan *p,
                      double dil, double *hi, double *hx)
{
    nccl_topo_ring_mean(w, t, p, 0, true); /* the representative routes' latencies, once */
    double li = t->ring_lat[0][0], lx = t->ring_lat[0][1];
    *hi = li + fmax(0, p->intra_hop_s - li) * dil;
    *hx = lx + fmax(0, p->inter_hop_s - lx) * dil + p->net_stage_s;
}

/* Flow level, NCCL's double binary tree: every edge of every channel's tree is a flow each way
 * carrying the channel's whole share (channels on the same edge merged, merge_edges), posted at
 * once through the mailboxes, so a flow starts when both ends are there; then tree_tail. Exact
 * against the message level's closed form on idle links (check_nccl). */
static enum net_status tree_flow(const struct coll_world *w, const struct nccl_plan *p, int rank,
                                 double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int nc = p->nchannels, n = 0, D = 0, peer[4 * NCCL_TOPO_MAX_CH], tag[4 * NCCL_TOPO_MAX_CH],
        mult[4 * NCCL_TOPO_MAX_CH];
    for (int c = 0; c < nc; c++) {
        int par, kids[3], nk, d;
        nccl_topo_tree_of(t, rank, c, &par, kids, &nk, &d);
        if (t->depth_max[c % 2] > D) D = t->depth_max[c % 2];
        if (par >= 0) peer[n] = par, tag[n++] = c;
        for (int i = 0; i < nk; i++)
            peer[n] = kids[i], tag[n++] = c;
    }
    n = merge_edges(peer, tag, mult, n);
    double edge_B = size_B / nc * p->wire_factor * dil, to_B[4 * NCCL_TOPO_MAX_CH], hi, hx;
    double rate[4 * NCCL_TOPO_MAX_CH]; /* over sockets: the merged connections' bound */
    int K = nccl_topo_chunks_for(size_B / nc), in = t->gmax - 1;
    for (int i = 0; i < n; i++) {
        to_B[i] = mult[i] * edge_B;
        rate[i] = mult[i] * nccl_topo_conn_Bps(t, rank, peer[i], edge_B / K);
    }
    enum net_status st = coll_exchange_bounded(w, rank, peer, tag, to_B, rate, n, peer, tag, n);
    if (st != NET_OK) return st;
    hop_costs(w, t, p, dil, &hi, &hx);
    double lat_f = t->nnodes > 1 ? t->ring_lat[0][1] : t->ring_lat[0][0], bi, bx;
    nccl_topo_route_bws(t, &bi, &bx);
    double tail = tree_tail(K, in, D - in, hi, hx, bi, bx, edge_B / K, lat_f);
    if (tail > 0) sg_actor_sleep_for(tail);
    return NET_OK;
}

/* Flow level, CollNet chain: inside each node the channel's chain is a flow each way between
 * neighbours (through the mailboxes), and a channel's head sends its share up to the SHARP
 * switch and receives the result down (host-to-host flows: no actor at the switch), once every
 * rank is there; then tree_tail over the deepest path, G - 1 hops inside and the switch's. */
static enum net_status collnet_flow(const struct coll_world *w, const struct nccl_plan *p, int rank,
                                    double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int nc = p->nchannels, n = 0, heads = 0, peer[2 * NCCL_TOPO_MAX_CH], tag[2 * NCCL_TOPO_MAX_CH],
        mult[2 * NCCL_TOPO_MAX_CH];
    for (int c = 0; c < nc; c++) {
        int par, kids[1], nk, d;
        nccl_topo_collnet_of(w, rank, c, &par, kids, &nk, &d);
        if (par == w->nranks)
            heads++;
        else
            peer[n] = par, tag[n++] = c;
        if (nk > 0) peer[n] = kids[0], tag[n++] = c;
    }
    n = merge_edges(peer, tag, mult, n);
    double edge_B = size_B / nc * p->wire_factor * dil, to_B[2 * NCCL_TOPO_MAX_CH], hi, hx;
    for (int i = 0; i < n; i++)
        to_B[i] = mult[i] * edge_B;
    enum net_status st = world_gate(w, t);
    if (st != NET_OK) return st;
    sg_host_t me = w->hosts[rank];
    double end = simgrid_get_clock() + w->timeout_s;
    sg_comm_t up = heads ? coll_post_flow(w, rank, me, t->sharp, heads * edge_B) : NULL;
    sg_comm_t down = heads ? coll_post_flow(w, -1, t->sharp, me, heads * edge_B) : NULL;
    st = coll_exchange_sized(w, rank, peer, tag, to_B, n, peer, tag, n);
    if (up) st = net_worst(st, net_wait(up, end));
    if (down) st = net_worst(st, net_wait(down, end));
    if (st != NET_OK) return st;
    hop_costs(w, t, p, dil, &hi, &hx);
    double lsw = sg_host_get_route_latency(me, t->sharp);
    double up_s = lsw + fmax(0, p->inter_hop_s - lsw) * dil; /* the switch's sends pay none */
    int K = nccl_topo_chunks_for(size_B / nc), in = t->gmax - 1;
    double bi, bx;
    nccl_topo_route_bws(t, &bi, &bx);
    double tail = tree_tail(K, in, 1, hi, (up_s + lsw) / 2, bi,
                            sg_host_get_route_bandwidth(me, t->sharp), edge_B / K, lsw);
    if (tail > 0) sg_actor_sleep_for(tail);
    return NET_OK;
}

/* The message-level NVLS schedule's time on this GPU: its K + 3 + X steps, each one link
 * latency `lat` and the busier of the GPU's switch link (up: A [s < K] of u and C of u / G;
 * down: B of u / G and D of u, at b per u + u / G, the flows' own rate) and, with two nodes,
 * the network stage X (x: its latency and transfer beyond lat). */
static double nvls_schedule(int K, int g, int X, double lat, double b, double x)
{
    double v = 1.0 / g, sum = 0;
    for (int s = 0; s < K + 3 + X; s++) {
        double up = (s < K ? 1 : 0) + (s >= 2 + X && s < K + 2 + X ? v : 0);
        double down = (s >= 1 && s < K + 1 ? v : 0) + (s >= 3 + X && s < K + 3 + X ? 1 : 0);
        bool cross = X && s >= 2 && s < K + 2;
        sum += lat + fmax(fmax(up, down) * b / (1 + v), cross ? x : 0);
    }
    return sum;
}

/* Flow level, NVLS and NVLS tree: once every rank is there, each GPU's flows to and from its
 * node's NVSwitch carry the whole pipeline's bytes, K (u + v) each way (u = S / K on the wire,
 * v = u / G); with two nodes the reduced part (S / G) also crosses to the same GPU of the other
 * node, a flow each way. Then what the message-level schedule adds beyond them (nvls_schedule:
 * its steps' latencies, its partly loaded steps, the network stage) at the flows' own rate. */
static enum net_status nvls_flow(const struct coll_world *w, const struct nccl_plan *p, int rank,
                                 double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int n = t->node[rank], g = nccl_topo_node_size(t, n), K = nccl_topo_chunks_for(size_B / 16);
    int X = p->algo == NCCL_ALGO_NVLS_TREE;
    double u = size_B / K * p->wire_factor * dil, v = u / g;
    enum net_status st = world_gate(w, t);
    if (st != NET_OK) return st;
    sg_host_t me = w->hosts[rank], sw = t->nvs[n];
    double t0 = simgrid_get_clock(), end = t0 + w->timeout_s, cross_B = size_B / g * dil;
    double lx = 0; /* with two nodes: a network step's latency and transfer of S / (K G) */
    sg_comm_t up = coll_post_flow(w, rank, me, sw, K * (u + v));
    sg_comm_t down = coll_post_flow(w, -1, sw, me, K * (u + v));
    sg_comm_t cross[2] = {NULL, NULL};
    if (X) { /* the same GPU of the other node: one flow each way */
        int peer = nccl_topo_member(t, 1 - n, t->lpos[rank]);
        void *got;
        lx = sg_host_get_route_latency(me, w->hosts[peer]);
        cross[0] = net_irecv(coll_mailbox(w, peer, rank, NCCL_TOPO_MAX_CH), &got);
        cross[1] = coll_post_send(w, rank, me, w->hosts[peer],
                                  coll_mailbox(w, rank, peer, NCCL_TOPO_MAX_CH), NULL, cross_B);
        lx += cross_B / K / sg_host_get_route_bandwidth(me, w->hosts[peer]);
    }
    st = net_worst(st, net_wait(up, end));
    st = net_worst(st, net_wait(down, end));
    double tf = simgrid_get_clock() - t0; /* the NVLink flows' time */
    for (int i = 0; i < 2 && cross[i]; i++)
        st = net_worst(st, net_wait(cross[i], end));
    if (st != NET_OK) return st;
    double lat = sg_host_get_route_latency(me, sw);
    double b = fmax(0, tf - lat) / K, x = X ? lx - lat : 0;
    double tail = nvls_schedule(K, g, X, lat, b, x) - (simgrid_get_clock() - t0);
    if (tail > 0) sg_actor_sleep_for(tail);
    return NET_OK;
}

/* Message level runs an actor per rank and channel: bounded so SimGrid's stacks fit. */
#define MAX_MESSAGE_RANKS 2048

const char *coll_nccl_check(const struct coll_world *w)
{
    static char why[200];
    if (w->level == COLL_FLOW || w->nranks <= MAX_MESSAGE_RANKS) return NULL;
    snprintf(why, sizeof why,
             "nccl at message level runs an actor per rank and channel, at most %d ranks (%d "
             "here); expected level=\"flow\"",
             MAX_MESSAGE_RANKS, w->nranks);
    return why;
}

/* What a call can run: with data, the rings only (they carry the blocks); else everything, at
 * either level. */
static unsigned allowed_algos(const struct coll_world *w, const float *data)
{
    (void)w;
    return data != NULL ? NCCL_ALGO_BIT(NCCL_ALGO_RING) : NCCL_ALGOS_ALL;
}

static enum net_status nccl_call(const struct coll_world *w, enum coll_op op, int rank,
                                 double size_B, float *data);

enum net_status coll_nccl_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data)
{
    if (w->nranks < 2) return NET_OK;
    if (!w->replay || w->level != COLL_FLOW || data != NULL)
        return nccl_call(w, op, rank, size_B, data);
    struct replay_world rw = {&((struct coll_world *)w)->rp, w->nranks, w->timeout_s, w->traffic,
                              w->sent_msgs}; /* the world's records: its cache */
    switch (coll_replay_enter(&rw, op, rank, size_B)) {
    case REPLAY_DONE:
        return NET_OK;
    case REPLAY_FAILED:
        return NET_TIMEOUT;
    default:
        break;
    }
    enum net_status st = nccl_call(w, op, rank, size_B, data);
    coll_replay_leave(w->rp, rank, st);
    return st;
}

/* Over sockets, what host staging adds to a network hop of plan p (nccl_socket.h): its message
 * is a ring step (S / (channels x P)) or a pipeline chunk (trees, broadcast); NVLS and CollNet
 * do not run over sockets. */
static double stage_s(const struct coll_world *w, const struct nccl_topo *t,
                      const struct nccl_plan *p, enum coll_op op, double size_B)
{
    double per_ch = size_B / p->nchannels * p->wire_factor;
    if (p->algo == NCCL_ALGO_RING && op != COLL_BROADCAST)
        return nccl_topo_stage_s(t, per_ch / w->nranks);
    if (p->algo == NCCL_ALGO_RING || p->algo == NCCL_ALGO_TREE)
        return nccl_topo_stage_s(t, per_ch / nccl_topo_chunks_for(size_B / p->nchannels));
    return 0;
}

/* One call of NCCL's plan, simulated. */
static enum net_status nccl_call(const struct coll_world *w, enum coll_op op, int rank,
                                 double size_B, float *data)
{
    const struct nccl_topo *t = nccl_topo_of(w);
    struct nccl_plan p;
    nccl_plan_call(&t->sys, (enum nccl_func)op, size_B, &w->nccl, allowed_algos(w, data), &p);
    double dil = dilation(w, t, op, size_B);
    p.net_stage_s = stage_s(w, t, &p, op, size_B);
    if (p.base_s > 0) sg_actor_sleep_for(p.base_s * dil);
    if (p.nvls_hop_s > 0) sg_actor_sleep_for(p.nvls_hop_s * dil);
    bool nvls = p.algo == NCCL_ALGO_NVLS || p.algo == NCCL_ALGO_NVLS_TREE;
    bool flow = w->level == COLL_FLOW && data == NULL && op != COLL_BROADCAST;
    enum net_status st;
    if (flow)
        st = nvls                                ? nvls_flow(w, &p, rank, size_B, dil)
             : p.algo == NCCL_ALGO_TREE          ? tree_flow(w, &p, rank, size_B, dil)
             : p.algo == NCCL_ALGO_COLLNET_CHAIN ? collnet_flow(w, &p, rank, size_B, dil)
                                                 : ring_flow(w, &p, op, rank, size_B, dil);
    else
        st = nvls ? nccl_chan_nvls(w, &p, rank, size_B, dil)
                  : nccl_chan_run(w, &p, op, rank, size_B, data, dil);
    if (st == NET_OK && p.sm_extra_s > 0) sg_actor_sleep_for(p.sm_extra_s * dil);
    return st;
}

void coll_nccl_describe(const struct coll_world *w, enum coll_op op, double size_B, char *buf,
                        size_t len)
{
    if (w->nranks < 2) {
        snprintf(buf, len, "-");
        return;
    }
    const struct nccl_topo *t = nccl_topo_of(w);
    struct nccl_plan p;
    nccl_plan_call(&t->sys, (enum nccl_func)op, size_B, &w->nccl, allowed_algos(w, NULL), &p);
    snprintf(buf, len, "%s/%s/%d", nccl_algo_name(p.algo), nccl_proto_name(p.proto), p.nchannels);
}
