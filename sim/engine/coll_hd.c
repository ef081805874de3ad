/* coll_hd.c - halving-doubling all-reduce (Rabenseifner; Thakur, Rabenseifner & Gropp 2005, as
 * MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather): recursive-halving reduce-scatter, then
 * recursive-doubling all-gather, over P' = 2^floor(log2 P) ranks. For P not a power of two,
 * r = P - P' ranks first fold in: of ranks 0..2r-1, each even rank sends its whole buffer to the
 * odd rank above it and sits out; at the end the odd rank sends it the result.
 *
 * Nearest ranks first, as MPICH does: step k (k = 1..log2 P') of the halving exchanges S / 2^k
 * with the partner at distance 2^(k-1), so the largest pieces stay between neighbouring ranks
 * (inside a node when nodes hold consecutive ranks) and only the small ones cross the network;
 * the doubling mirrors it (distance P'/2 first with the smallest piece). On a uniform platform:
 * 2 log2(P') a + 2 (P' - 1) S / (P' B), plus 2 (a + S / B) when P is not a power of two. Each
 * active rank sends 2 log2 P' messages. */
#include "collective.h"

/* Rank in the power-of-two group, or -1 for a rank that folds in. */
static int active_rank(int rank, int r)
{
    if (rank < 2 * r) return rank % 2 ? rank / 2 : -1;
    return rank - r;
}

static int world_rank(int active, int r)
{
    return active < r ? 2 * active + 1 : active + r;
}

enum net_status coll_hd_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                            float *data)
{
    (void)op; /* all-reduce only (its table row) */
    (void)data;
    int P = w->nranks, Pp = 1;
    while (Pp * 2 <= P)
        Pp *= 2;
    int r = P - Pp;
    enum net_status st = NET_OK;

    if (rank < 2 * r && rank % 2 == 0) { /* fold in, then wait for the result */
        st = coll_send(w, rank, rank + 1, size_B);
        return st == NET_OK ? coll_recv(w, rank, rank + 1) : st;
    }
    if (rank < 2 * r) st = coll_recv(w, rank, rank - 1);

    int me = active_rank(rank, r);
    double part = size_B;
    for (int dist = 1; dist < Pp && st == NET_OK; dist *= 2) { /* recursive halving */
        part /= 2;
        int peer = world_rank(me ^ dist, r);
        st = coll_sendrecv(w, rank, peer, part, peer);
    }
    for (int dist = Pp / 2; dist >= 1 && st == NET_OK; dist /= 2) { /* recursive doubling */
        int peer = world_rank(me ^ dist, r);
        st = coll_sendrecv(w, rank, peer, part, peer);
        part *= 2;
    }
    if (st == NET_OK && rank < 2 * r) st = coll_send(w, rank, rank - 1, size_B);
    return st;
}
