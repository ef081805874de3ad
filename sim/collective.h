/* collective.h - collectives as real message protocols between rank actors.
 *
 * Every rank runs the same algorithm function in its own actor; the ranks talk only through
 * coll_send / coll_recv (one mailbox per ordered pair of ranks, so messages between two ranks are
 * matched in order), which go through net.h with the world's deadline. Nothing here computes a
 * time: the times are what SimGrid gives the messages. Reductions are taken as free (on a GPU
 * they run at memory bandwidth inside the communication kernel, a small fraction of the transfer).
 *
 * Algorithms are a table of function pointers, as nccl-tests' struct testColl: adding one is one
 * file (sim/coll_<name>.c) and one row in collective.c. Levels:
 *   COLL_MESSAGE: every step of every algorithm is a message (chunk level);
 *   COLL_FLOW:    for the ring, one flow per rank per phase carrying the whole phase's bytes, plus
 *                 the latencies of the steps it stands for (P - 2 route latencies per phase), which
 *                 serves very large P. Other algorithms run at message level.
 * Sizes follow nccl-tests: all-reduce and broadcast of S bytes leave S bytes on every rank;
 * all-gather and reduce-scatter of S bytes move S / P from or to each rank.
 */
#ifndef DMLSIM_COLLECTIVE_H
#define DMLSIM_COLLECTIVE_H

#include "net.h"
#include "traffic.h"

#include <simgrid/forward.h>

#include <stddef.h>

enum coll_level {
    COLL_MESSAGE, /* one message per algorithm step and chunk */
    COLL_FLOW,    /* one flow per rank per phase (ring) */
};

struct coll_world {
    int nranks;              /* P */
    sg_host_t *hosts;        /* rank -> host */
    int *node_of;            /* rank -> node index */
    int per_node;            /* G when every node holds G consecutive ranks, else 0 */
    double timeout_s;        /* deadline of every wait, from its start */
    int chunks;              /* pipeline chunks for tree and broadcast, >= 1 */
    enum coll_level level;   /* message or flow level */
    struct traffic *traffic; /* where sends are recorded; may be NULL */
    double *sent_msgs;       /* per rank: messages sent; may be NULL */
    int epoch;               /* membership epoch: mailboxes are per epoch, so a message of a
                                failed collective can never be taken by the next one */
};

enum coll_op {
    COLL_ALLREDUCE,
    COLL_ALLGATHER,
    COLL_REDUCESCATTER,
    COLL_BROADCAST,
};

struct coll_algo {
    const char *name; /* as written in scenarios: "ring", "naive", ... */
    /* All-reduce of size_B bytes, called by every rank of the world. */
    enum net_status (*allreduce)(const struct coll_world *w, int rank, double size_B);
};

/* Fills a world of `nranks` ranks on hosts[0..nranks) (copied), nodes from each host's "node"
 * property (a host without one is a node of its own), with deadline timeout_s, message level and
 * one chunk; release with collective_world_release. */
void collective_world_init(struct coll_world *w, int nranks, const sg_host_t *hosts,
                           double timeout_s);
void collective_world_release(struct coll_world *w);

/* NULL if `algo` can run on `w`, else why not (hierarchical needs equal, consecutive nodes). */
const char *collective_check(const struct coll_world *w, const struct coll_algo *algo);

/* The algorithm called `name`, or NULL. */
const struct coll_algo *collective_find(const char *name);

/* "naive, ring, halving-doubling, tree, hierarchical" */
const char *collective_names(void);

/* Runs `op` on this rank: all-reduce with `algo`; the others with the ring (broadcast: a
 * pipelined chain from rank 0 in w->chunks chunks). */
enum net_status collective_run(const struct coll_world *w, const struct coll_algo *algo,
                               enum coll_op op, int rank, double size_B);

const char *collective_op_name(enum coll_op op);

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): all-reduce 2(n-1)/n; all-gather and
 * reduce-scatter (n-1)/n; broadcast 1. */
double collective_busbw_factor(enum coll_op op, int nranks);

/* ---- building blocks for the algorithm files ---- */

/* Sends size_B bytes from rank `me` to rank `to` / receives the next message from `from`. */
enum net_status coll_send(const struct coll_world *w, int me, int to, double size_B);
enum net_status coll_recv(const struct coll_world *w, int me, int from);

/* Posts sends of size_B to each of to[0..nto) and receives from each of from[0..nfrom) at once,
 * then waits for all of them (one step of a schedule); the worst status wins. */
enum net_status coll_exchange(const struct coll_world *w, int me, const int *to, int nto,
                              double size_B, const int *from, int nfrom);

/* Sends to `to` and receives from `from` at once (a ring or butterfly step); either may be < 0
 * for none. */
enum net_status coll_sendrecv(const struct coll_world *w, int me, int to, double size_B, int from);

/* Receives one message from each of from[0..n) at once / sends size_B to each of to[0..n). */
enum net_status coll_recv_all(const struct coll_world *w, int me, const int *from, int n);
enum net_status coll_send_all(const struct coll_world *w, int me, const int *to, int n,
                              double size_B);

/* Ring phases over a group of world ranks members[0..n) (NULL: every rank, in rank order), `idx`
 * being this rank's position:
 * reduce-scatter and all-gather of size_B bytes in n - 1 steps of size_B / n. */
enum net_status coll_ring_reduce_scatter(const struct coll_world *w, const int *members, int n,
                                         int idx, double size_B);
enum net_status coll_ring_allgather(const struct coll_world *w, const int *members, int n, int idx,
                                    double size_B);

/* The algorithms (one file each). */
enum net_status coll_naive_allreduce(const struct coll_world *w, int rank, double size_B);
enum net_status coll_ring_allreduce(const struct coll_world *w, int rank, double size_B);
enum net_status coll_hd_allreduce(const struct coll_world *w, int rank, double size_B);
enum net_status coll_tree_allreduce(const struct coll_world *w, int rank, double size_B);
enum net_status coll_hier_allreduce(const struct coll_world *w, int rank, double size_B);

#endif
