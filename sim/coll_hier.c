/* coll_hier.c - hierarchical all-reduce: a ring reduce-scatter among the G GPUs of each node
 * (NVLink or PCIe), then G concurrent ring all-reduces of S / G across the N nodes, one per local
 * GPU index (each over that GPU's NIC), then a ring all-gather inside each node. On a uniform
 * platform it takes the sum of its phases:
 *   2 (G - 1)(a_in + S / (G B_in)) + 2 (N - 1)(a_out + S / (G N B_out)).
 * Needs w->per_node = G > 0: every node holds G consecutive ranks (collective_world_init). */
#include "collective.h"

#include <xbt/sysdep.h>

#include <assert.h>
#include <stdlib.h>

enum net_status coll_hier_allreduce(const struct coll_world *w, int rank, double size_B)
{
    int G = w->per_node, N = w->nranks / G;
    assert(G > 0 && N * G == w->nranks);
    int node = rank / G, idx = rank % G;
    int *local = xbt_new(int, G), *across = xbt_new(int, N);
    for (int j = 0; j < G; j++)
        local[j] = node * G + j;
    for (int k = 0; k < N; k++)
        across[k] = k * G + idx;
    enum net_status st = coll_ring_reduce_scatter(w, local, G, idx, size_B);
    if (st == NET_OK) st = coll_ring_reduce_scatter(w, across, N, node, size_B / G);
    if (st == NET_OK) st = coll_ring_allgather(w, across, N, node, size_B / G);
    if (st == NET_OK) st = coll_ring_allgather(w, local, G, idx, size_B);
    free(local);
    free(across);
    return st;
}
