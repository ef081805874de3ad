/* coll_naive.c - naive all-reduce: every rank sends its whole buffer to rank 0, which reduces and
 * sends the result back to everyone. Rank 0's links carry (P - 1) S each way, so on a uniform
 * platform it takes 2(a + (P - 1) S / B); P - 1 messages go in, P - 1 come out. */
#include "collective.h"

#include <xbt/sysdep.h>

#include <stdlib.h>

enum net_status coll_naive_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                               float *data)
{
    (void)op; /* all-reduce only (its table row) */
    (void)data;
    int P = w->nranks;
    if (P < 2) return NET_OK;
    if (rank != 0) {
        enum net_status st = coll_send(w, rank, 0, size_B);
        return st == NET_OK ? coll_recv(w, rank, 0) : st;
    }
    int *others = xbt_new(int, P - 1);
    for (int i = 1; i < P; i++)
        others[i - 1] = i;
    enum net_status st = coll_recv_all(w, 0, others, P - 1);
    if (st == NET_OK) st = coll_send_all(w, 0, others, P - 1, size_B);
    free(others);
    return st;
}
