/* coll_ring.c - the ring: all-reduce as a reduce-scatter then an all-gather around the ring of
 * all ranks, each P - 1 steps of S / P; reduce-scatter and all-gather alone; broadcast as a
 * pipelined chain 0 -> 1 -> ... -> P-1. All-reduce: every rank sends 2(P - 1) messages; on a
 * uniform platform (route latency a, bandwidth B, no shared link) it takes 2(P - 1)(a + S / (P B)).
 * Broadcast in c = w->chunks chunks: (P - 1 + c - 1)(a + S / (c B)). */
#include "collective.h"

/* At step s a rank receives chunk s from its predecessor while it forwards chunk s - 1, so every
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

enum net_status coll_ring_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data)
{
    int P = w->nranks; /* members NULL: the ring of all ranks in rank order */
    enum net_status st = NET_OK;
    switch (op) {
    case COLL_ALLREDUCE:
        st = coll_ring_reduce_scatter(w, NULL, P, rank, size_B, data);
        return st == NET_OK ? coll_ring_allgather(w, NULL, P, rank, size_B, data) : st;
    case COLL_REDUCESCATTER:
        return coll_ring_reduce_scatter(w, NULL, P, rank, size_B, data);
    case COLL_ALLGATHER:
        return coll_ring_allgather(w, NULL, P, rank, size_B, data);
    case COLL_BROADCAST:
        return chain_broadcast(w, rank, size_B);
    case COLL_ALLTOALL: /* collective_run's own */
    case COLL_NOPS:
        break;
    }
    return NET_FAILURE;
}
