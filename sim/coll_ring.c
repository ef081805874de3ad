/* coll_ring.c - ring all-reduce: a reduce-scatter then an all-gather around the ring of all
 * ranks, each P - 1 steps of S / P. Every rank sends 2(P - 1) messages; on a uniform platform
 * (route latency a, bandwidth B, no shared link) it takes 2(P - 1)(a + S / (P B)). */
#include "collective.h"

enum net_status coll_ring_allreduce(const struct coll_world *w, int rank, double size_B)
{
    /* members NULL: the ring of all ranks in rank order */
    enum net_status st = coll_ring_reduce_scatter(w, NULL, w->nranks, rank, size_B);
    if (st == NET_OK) st = coll_ring_allgather(w, NULL, w->nranks, rank, size_B);
    return st;
}
