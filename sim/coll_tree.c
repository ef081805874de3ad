/* coll_tree.c - binary-tree all-reduce, pipelined: the buffer is cut into w->chunks chunks; for
 * each chunk a rank receives from its children (2r+1, 2r+2), then sends to its parent ((r-1)/2),
 * so chunk c+1 climbs while chunk c is higher up; rank 0 then broadcasts each chunk back down the
 * same tree. Every rank but the root sends `chunks` messages up, and every rank sends `chunks`
 * to each child: 2 (P - 1) x chunks messages in all. */
#include "collective.h"

static int children(int rank, int P, int kids[2])
{
    int n = 0;
    for (int c = 2 * rank + 1; c <= 2 * rank + 2; c++)
        if (c < P) kids[n++] = c;
    return n;
}

enum net_status coll_tree_allreduce(const struct coll_world *w, int rank, double size_B)
{
    int P = w->nranks, kids[2], nk = children(rank, P, kids), parent = (rank - 1) / 2;
    double chunk = size_B / w->chunks;
    enum net_status st = NET_OK;
    if (P < 2) return NET_OK;
    for (int c = 0; c < w->chunks && st == NET_OK; c++) { /* reduce towards rank 0 */
        st = coll_recv_all(w, rank, kids, nk);
        if (st == NET_OK && rank != 0) st = coll_send(w, rank, parent, chunk);
    }
    for (int c = 0; c < w->chunks && st == NET_OK; c++) { /* broadcast from rank 0 */
        if (rank != 0) st = coll_recv(w, rank, parent);
        if (st == NET_OK) st = coll_send_all(w, rank, kids, nk, chunk);
    }
    return st;
}
