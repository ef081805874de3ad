/* coll_tree.c - binary-tree all-reduce, pipelined in both directions at once.
 *
 * Rank r's children are 2r+1 and 2r+2, its parent (r-1)/2, its depth d = floor(log2(r+1)); D is
 * the deepest rank's depth. The buffer is cut into c = w->chunks chunks. Chunk k climbs the tree
 * (reduced on the way) and, as soon as the root holds it, descends it again (broadcast), while
 * later chunks are still climbing - as NCCL's tree does, up and down at the same time on the two
 * directions of each link. tree_pipeline runs that schedule on any rooted tree in which a
 * child is one deeper than its parent: in step s a rank posts all of
 *   receive chunk k from its children   where s = k + D - d
 *   send chunk k to its parent          where s = k + D - d + 1
 *   receive chunk k from its parent     where s = k + D + d
 *   send chunk k to its children        where s = k + D + d + 1
 * and waits for them all. Both ends of every message place it in the same step (a child at
 * depth d + 1 sends chunk k up at k + D - d, when its parent receives it), so step s of a rank
 * waits only on its neighbours' step s, and steps 0 .. c + 2D - 1 complete in order without
 * deadlock. Messages: every tree edge carries every chunk once each way, 2 (P - 1) c in all.
 * An interior rank's links carry three chunks a step each way (two up from its children and one
 * down from its parent in; one up and two down out), so for large c the time approaches 3 S / B
 * on uniform links, against 2 (P - 1) S / (P B) for the ring (NCCL's double binary tree halves
 * that imbalance by making each rank interior in one tree only: coll_nccl.c). */
#include "collective.h"

int coll_heap_depth(int rank)
{
    int d = 0;
    for (int r = rank + 1; r > 1; r >>= 1)
        d++;
    return d;
}

bool coll_in_range(int k, int c)
{
    return k >= 0 && k < c;
}

static enum net_status tree_pipeline(const struct coll_world *w, int rank, int parent,
                                     const int *kids, int nk, int d, int D, int c, double size_B)
{
    double chunk = size_B / c;
    enum net_status st = NET_OK;
    for (int s = 0; s <= c + 2 * D - 1 && st == NET_OK; s++) {
        int to[8], from[8], nto = 0, nfrom = 0;
        if (coll_in_range(s - D + d, c)) /* up: from the children */
            for (int i = 0; i < nk && nfrom < 7; i++)
                from[nfrom++] = kids[i];
        if (parent >= 0 && coll_in_range(s - D + d - 1, c))
            to[nto++] = parent; /* up: to the parent */
        if (parent >= 0 && coll_in_range(s - D - d, c)) from[nfrom++] = parent; /* down: from it */
        if (coll_in_range(s - D - d - 1, c)) /* down: to children */
            for (int i = 0; i < nk && nto < 7; i++)
                to[nto++] = kids[i];
        if (nto + nfrom > 0) st = coll_exchange(w, rank, to, nto, chunk, from, nfrom);
    }
    return st;
}

enum net_status coll_tree_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data)
{
    (void)op; /* all-reduce only (its table row) */
    (void)data;
    int P = w->nranks;
    if (P < 2) return NET_OK;
    int kids[2], nk = 0;
    for (int k = 2 * rank + 1; k <= 2 * rank + 2 && k < P; k++)
        kids[nk++] = k;
    return tree_pipeline(w, rank, rank == 0 ? -1 : (rank - 1) / 2, kids, nk, coll_heap_depth(rank),
                         coll_heap_depth(P - 1), w->chunks, size_B);
}
