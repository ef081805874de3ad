/* collective.c - the algorithm table and the send/receive building blocks (see collective.h). */
#include "collective.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct coll_algo algos[] = {
        {"naive", coll_naive_allreduce},         {"ring", coll_ring_allreduce},
        {"halving-doubling", coll_hd_allreduce}, {"tree", coll_tree_allreduce},
        {"hierarchical", coll_hier_allreduce},
};

const struct coll_algo *collective_find(const char *name)
{
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++)
        if (strcmp(algos[i].name, name) == 0) return &algos[i];
    return NULL;
}

const char *collective_names(void)
{
    return "naive, ring, halving-doubling, tree, hierarchical";
}

void collective_world_init(struct coll_world *w, int nranks, const sg_host_t *hosts,
                           double timeout_s)
{
    memset(w, 0, sizeof *w);
    w->nranks = nranks;
    w->hosts = xbt_new(sg_host_t, nranks);
    w->node_of = xbt_new(int, nranks);
    w->timeout_s = timeout_s;
    w->chunks = 1;
    w->level = COLL_MESSAGE;
    for (int r = 0; r < nranks; r++) {
        w->hosts[r] = hosts[r];
        const char *node = sg_host_get_property_value(hosts[r], "node");
        w->node_of[r] = node ? atoi(node) : -1 - r;
    }
    /* Equal, consecutive groups: blocks of G ranks, one node per block, no node twice. */
    int G = 1;
    while (G < nranks && w->node_of[G] == w->node_of[0])
        G++;
    bool uniform = nranks % G == 0;
    for (int r = 1; r < nranks && uniform; r++) {
        bool block_start = r % G == 0;
        uniform = block_start ? w->node_of[r] != w->node_of[r - 1]
                              : w->node_of[r] == w->node_of[r - 1];
    }
    w->per_node = uniform ? G : 0;
}

void collective_world_release(struct coll_world *w)
{
    free(w->hosts);
    free(w->node_of);
    memset(w, 0, sizeof *w);
}

const char *collective_check(const struct coll_world *w, const struct coll_algo *algo)
{
    if (algo->allreduce == coll_hier_allreduce && w->per_node == 0)
        return "hierarchical needs every node to hold the same number of consecutive ranks";
    return NULL;
}

/* Payloads carry no data (the bytes are simulated); every message points at this token. */
static int token;

static sg_mailbox_t pair_mailbox(const struct coll_world *w, int from, int to)
{
    char name[48];
    snprintf(name, sizeof name, "c%d:%d>%d", w->epoch, from, to);
    return sg_mailbox_by_name(name);
}

static double deadline(const struct coll_world *w)
{
    return simgrid_get_clock() + w->timeout_s;
}

static void account(const struct coll_world *w, int me, int to, double size_B)
{
    if (w->traffic) traffic_add(w->traffic, w->hosts[me], w->hosts[to], size_B);
    if (w->sent_msgs) w->sent_msgs[me] += 1;
}

static enum net_status worst(enum net_status a, enum net_status b)
{
    return a > b ? a : b;
}

enum net_status coll_send(const struct coll_world *w, int me, int to, double size_B)
{
    account(w, me, to, size_B);
    return net_send(pair_mailbox(w, me, to), &token, size_B, w->timeout_s);
}

enum net_status coll_recv(const struct coll_world *w, int me, int from)
{
    void *p;
    return net_recv(pair_mailbox(w, from, me), &p, w->timeout_s);
}

enum net_status coll_exchange(const struct coll_world *w, int me, const int *to, int nto,
                              double size_B, const int *from, int nfrom)
{
    double end = deadline(w);
    sg_comm_t local[8], *c = nto + nfrom <= 8 ? local : xbt_new(sg_comm_t, nto + nfrom);
    void *p;
    for (int i = 0; i < nfrom; i++)
        c[i] = net_irecv(pair_mailbox(w, from[i], me), &p);
    for (int i = 0; i < nto; i++) {
        account(w, me, to[i], size_B);
        c[nfrom + i] = net_isend(pair_mailbox(w, me, to[i]), &token, size_B);
    }
    enum net_status st = NET_OK;
    for (int i = 0; i < nto + nfrom; i++) /* every handle is waited on, so every one is freed */
        st = worst(st, net_wait(c[i], end));
    if (c != local) free(c);
    return st;
}

enum net_status coll_sendrecv(const struct coll_world *w, int me, int to, double size_B, int from)
{
    return coll_exchange(w, me, &to, to >= 0, size_B, &from, from >= 0);
}

enum net_status coll_recv_all(const struct coll_world *w, int me, const int *from, int n)
{
    return coll_exchange(w, me, NULL, 0, 0, from, n);
}

enum net_status coll_send_all(const struct coll_world *w, int me, const int *to, int n,
                              double size_B)
{
    return coll_exchange(w, me, to, n, size_B, NULL, 0);
}

/* One ring phase: n - 1 steps of size_B / n, or at flow level one flow of (n - 1) size_B / n and
 * the n - 2 step latencies it stands for. */
static enum net_status ring_phase(const struct coll_world *w, const int *members, int n, int idx,
                                  double size_B)
{
    if (n < 2) return NET_OK;
#define MEMBER(i) (members ? members[(i)] : (i)) /* NULL members: the whole world in rank order */
    int me = MEMBER(idx), right = MEMBER((idx + 1) % n), left = MEMBER((idx + n - 1) % n);
#undef MEMBER
    enum net_status st = NET_OK;
    if (w->level == COLL_FLOW) {
        st = coll_sendrecv(w, me, right, (n - 1) * size_B / n, left);
        if (st == NET_OK && n > 2)
            sg_actor_sleep_for((n - 2) * sg_host_get_route_latency(w->hosts[me], w->hosts[right]));
        return st;
    }
    for (int step = 0; step < n - 1 && st == NET_OK; step++)
        st = coll_sendrecv(w, me, right, size_B / n, left);
    return st;
}

enum net_status coll_ring_reduce_scatter(const struct coll_world *w, const int *members, int n,
                                         int idx, double size_B)
{
    return ring_phase(w, members, n, idx, size_B);
}

enum net_status coll_ring_allgather(const struct coll_world *w, const int *members, int n, int idx,
                                    double size_B)
{
    return ring_phase(w, members, n, idx, size_B);
}

/* Broadcast from rank 0 down the chain 0 -> 1 -> ... -> P-1, pipelined in w->chunks chunks: at
 * step s a rank receives chunk s from its predecessor while it forwards chunk s - 1, so every
 * link of the chain is busy at once. */
static enum net_status chain_broadcast(const struct coll_world *w, int rank, double size_B)
{
    int P = w->nranks, c = w->chunks;
    enum net_status st = NET_OK;
    double chunk = size_B / c;
    for (int s = 0; s <= c && st == NET_OK; s++) {
        int from = (rank > 0 && s < c) ? rank - 1 : -1;
        int to = rank < P - 1 && (rank == 0 ? s < c : s >= 1) ? rank + 1 : -1;
        if (from >= 0 || to >= 0) st = coll_sendrecv(w, rank, to, chunk, from);
    }
    return st;
}

static enum net_status world_ring(const struct coll_world *w, int rank, double size_B,
                                  bool reduce_scatter, bool allgather)
{
    enum net_status st = NET_OK;
    if (reduce_scatter) st = coll_ring_reduce_scatter(w, NULL, w->nranks, rank, size_B);
    if (st == NET_OK && allgather) st = coll_ring_allgather(w, NULL, w->nranks, rank, size_B);
    return st;
}

enum net_status collective_run(const struct coll_world *w, const struct coll_algo *algo,
                               enum coll_op op, int rank, double size_B)
{
    assert(rank >= 0 && rank < w->nranks && w->chunks >= 1);
    switch (op) {
    case COLL_ALLREDUCE:
        return algo->allreduce(w, rank, size_B);
    case COLL_ALLGATHER:
        return world_ring(w, rank, size_B, false, true);
    case COLL_REDUCESCATTER:
        return world_ring(w, rank, size_B, true, false);
    case COLL_BROADCAST:
        return chain_broadcast(w, rank, size_B);
    }
    return NET_FAILURE;
}

const char *collective_op_name(enum coll_op op)
{
    static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast"};
    return names[op];
}

double collective_busbw_factor(enum coll_op op, int n)
{
    switch (op) {
    case COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case COLL_ALLGATHER:
    case COLL_REDUCESCATTER:
        return (double)(n - 1) / n;
    case COLL_BROADCAST:
        return 1.0;
    }
    return 1.0;
}
