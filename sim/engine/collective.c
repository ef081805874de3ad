/* collective.c - the algorithm table, the world's lifecycle and all-to-all (see collective.h). */
#include "collective.h"
#include "coll_replay.h"
#include "coll_nccl.h"
#include "nccl_topo.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)COLL_ALLREDUCE == NCCL_FUNC_ALLREDUCE &&
                       (int)COLL_BROADCAST == NCCL_FUNC_BROADCAST,
               "enum coll_op and enum nccl_func share their order");

static const struct coll_algo algos[] = {
#define COLL_X_ROW(id, name, ops, flow, data, check, run, describe) \
    {COLL_ALGO_##id, name, ops, flow, data, check, run, describe},
        COLL_ALGO_TABLE(COLL_X_ROW)
#undef COLL_X_ROW
};

const struct coll_algo *collective_get(enum coll_algo_id id)
{
    assert(id >= 0 && id < COLL_NALGOS);
    return &algos[id];
}

const struct coll_algo *collective_find(const char *name)
{
    enum coll_algo_id id;
    return coll_algo_find(name, &id) ? &algos[id] : NULL;
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
    w->data_scale = 1;
    w->level = COLL_MESSAGE;
    w->nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
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
    nccl_topo_free(w->topo);
    coll_replay_free(w->rp);
    free(w->hosts);
    free(w->node_of);
    memset(w, 0, sizeof *w);
}

const char *collective_check(const struct coll_world *w, const struct coll_algo *algo,
                             enum coll_op op, bool data)
{
    static char why[320];
    if (!(algo->ops & COLL_OP_BIT(op))) {
        snprintf(why, sizeof why, "%s does not implement %s; expected one of: %s", algo->name,
                 collective_op_name(op), coll_algo_names_for(op, false));
        return why;
    }
    if (w->level == COLL_FLOW && !algo->flow) {
        snprintf(why, sizeof why, "%s has no flow level; expected one of: %s", algo->name,
                 coll_algo_names_for(op, true));
        return why;
    }
    if (data && (!algo->data || op == COLL_BROADCAST)) {
        snprintf(why, sizeof why, "%s cannot carry data buffers for %s", algo->name,
                 collective_op_name(op));
        return why;
    }
    return algo->check ? algo->check(w) : NULL;
}

/* All-to-all: every rank posts its S / P for each other rank and a receive from each, all at
 * once, then waits for them: NCCL's all-to-all is these pairwise ncclSend / ncclRecv in one group
 * (nccl-tests src/alltoall.cu), so the same for every algorithm and level; P (P - 1) messages in
 * all (the seed notes' "O(N*N) fan out": 9,900 for 100 workers). */
static enum net_status alltoall(const struct coll_world *w, int rank, double size_B)
{
    int P = w->nranks, n = 0;
    if (P < 2) return NET_OK;
    sg_comm_t *c = xbt_new(sg_comm_t, 2 * (P - 1));
    void **in = xbt_new(void *, P);
    for (int k = 1; k < P; k++) { /* posted in the order rank + 1, rank + 2, ... */
        int to = (rank + k) % P, from = (rank - k + P) % P;
        c[n++] = coll_post_send(w, rank, w->hosts[rank], w->hosts[to],
                                coll_mailbox(w, rank, to, -1), NULL, size_B / P);
        c[n++] = net_irecv(coll_mailbox(w, from, rank, -1), &in[from]);
    }
    enum net_status st = NET_OK, s;
    double end = coll_deadline(w);
    for (int i = 0; i < n; i++)
        if ((s = net_wait(c[i], end)) != NET_OK && st == NET_OK) st = s;
    free(c);
    free(in);
    return st;
}

enum net_status collective_run(const struct coll_world *w, const struct coll_algo *algo,
                               enum coll_op op, int rank, double size_B, float *data)
{
    assert(rank >= 0 && rank < w->nranks && w->chunks >= 1);
    if (op == COLL_ALLTOALL) return alltoall(w, rank, size_B); /* whatever the algorithm */
    assert(algo->ops & COLL_OP_BIT(op));
    return algo->run(w, op, rank, size_B, data);
}

const char *collective_describe(const struct coll_world *w, const struct coll_algo *algo,
                                enum coll_op op, double size_B, char *buf, size_t len)
{
    buf[0] = '\0';
    if (op == COLL_ALLTOALL)
        snprintf(buf, len, "p2p/%d peers", w->nranks - 1);
    else if (algo->describe)
        algo->describe(w, op, size_B, buf, len);
    return buf;
}
