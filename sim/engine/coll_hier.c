/* coll_hier.c - hierarchical all-reduce: a ring reduce-scatter among the G GPUs of each node
 * (NVLink or PCIe), then G concurrent ring all-reduces of S / G across the N nodes, one per local
 * GPU index (each over that GPU's NIC), then a ring all-gather inside each node. On a uniform
 * platform it takes the sum of its phases:
 *   2 (G - 1)(a_in + S / (G B_in)) + 2 (N - 1)(a_out + S / (G N B_out)).
 * Needs w->per_node = G > 0: every node holds G consecutive ranks (coll_hier_check). With data,
 * the across-node rings reduce the block each GPU owns after the node's reduce-scatter. */
#include "collective.h"

#include <xbt/sysdep.h>

#include <assert.h>
#include <stdlib.h>

const char *coll_hier_check(const struct coll_world *w)
{
    return w->per_node > 0 ? NULL
                           : "hierarchical needs every node to hold the same number of "
                             "consecutive ranks";
}

enum net_status coll_hier_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data)
{
    (void)op; /* all-reduce only (its table row) */
    int G = w->per_node, N = G > 0 ? w->nranks / G : 0;
    assert(G > 0 && N * G == w->nranks);
    int node = rank / G, idx = rank % G;
    int *local = xbt_new(int, G), *across = xbt_new(int, N);
    for (int j = 0; j < G; j++)
        local[j] = node * G + j;
    for (int k = 0; k < N; k++)
        across[k] = k * G + idx;
    size_t first = 0, len = 0; /* the block this GPU owns after the node's reduce-scatter */
    coll_ring_block(coll_data_count(w, size_B), G, (idx + 1) % G, &first, &len);
    float *mine = data ? data + first : NULL;
    double part_B = data ? 4.0 * w->data_scale * (double)len : size_B / G; /* timing: S / G */
    enum net_status st = coll_ring_reduce_scatter(w, local, G, idx, size_B, data);
    if (st == NET_OK) st = coll_ring_reduce_scatter(w, across, N, node, part_B, mine);
    if (st == NET_OK) st = coll_ring_allgather(w, across, N, node, part_B, mine);
    if (st == NET_OK) st = coll_ring_allgather(w, local, G, idx, size_B, data);
    free(local);
    free(across);
    return st;
}
