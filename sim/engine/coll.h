/* coll.h - the building blocks of the collective algorithms: a world of ranks, and the messages
 * between them.
 *
 * Every rank runs the same algorithm function in its own actor; the ranks talk only through
 * coll_send / coll_recv (one mailbox per ordered pair of ranks, so messages between two ranks are
 * matched in order), which go through net.h with the world's deadline. Nothing here computes a
 * time: the times are what SimGrid gives the messages (and the software latencies a protocol
 * adds, slept by the rank that pays them). Reductions are taken as free (on a GPU they run at
 * memory bandwidth inside the communication kernel, a small fraction of the transfer).
 *
 * The table of algorithms and the world's lifecycle are collective.h, above the algorithm files:
 * the nccl family (sim/engine/nccl/) includes only this, so that the table can name it without
 * an include cycle.
 */
#ifndef DMLSIM_COLL_H
#define DMLSIM_COLL_H

#include "coll_op.h"
#include "nccl_tune.h"
#include "net.h"
#include "traffic.h"

#include <simgrid/forward.h>

#include <stdbool.h>
#include <stddef.h>

struct netcal;    /* calibration of the simulated network (netcal.h) */
struct nccl_topo; /* the nccl family's view of the platform (nccl_topo.h), built on first use */

struct coll_world {
    int nranks;                  /* P */
    sg_host_t *hosts;            /* rank -> host */
    int *node_of;                /* rank -> node index (the host's "node" property) */
    int per_node;                /* G when every node holds G consecutive ranks, else 0 */
    double timeout_s;            /* deadline of every wait, from its start */
    int chunks;                  /* pipeline chunks for tree and broadcast, >= 1 */
    enum coll_level level;       /* message or flow level */
    struct traffic *traffic;     /* where sends are recorded; may be NULL */
    double *sent_msgs;           /* per rank: messages sent; may be NULL */
    int epoch;                   /* membership epoch: mailboxes are per epoch, so a message of a
                                    failed collective can never be taken by the next one */
    struct nccl_opts nccl;       /* NCCL_ALGO / NCCL_PROTO / channel limits for the nccl family */
    const struct netcal *netcal; /* network calibration applied by the nccl family; may be NULL */
    struct nccl_topo *topo;      /* owned; built by the nccl family on first use */
    double data_scale;           /* simulated bytes per byte of data carried: 1, or with a
                                    cost-model proxy the proxy's gradient bytes per real one */
    bool replay;                 /* its links carry nothing but its own collectives: flow-level
                                    calls may be replayed (coll_replay.h); set by the owner */
    struct coll_replay *rp;      /* owned; the recorded calls, built on first use */
};

/* The floats a data buffer of an operation of size_B simulated bytes holds: S / (4 data_scale),
 * rounded to the nearest (a buffer of n floats is simulated as 4 n data_scale bytes). */
size_t coll_data_count(const struct coll_world *w, double size_B);

/* The end of a wait started now: the world's deadline from the current simulated time. */
double coll_deadline(const struct coll_world *w);

/* The mailbox of messages from `from` to `to` on channel `tag` of w's epoch (tag < 0: the plain
 * pair mailbox); ids may go beyond the ranks for protocol helpers (a switch). */
sg_mailbox_t coll_mailbox(const struct coll_world *w, int from, int to, int tag);

/* Posts a send of size_B bytes on `mb` (payload NULL: timing only), recorded as traffic from
 * host `from` to host `to` (not if either is NULL) and as a message of rank `me` (not if me is
 * not a rank). */
sg_comm_t coll_post_send(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                         sg_mailbox_t mb, void *payload, double size_B);
/* The same with a rate bound of rate_Bps (<= 0: none; net_isend_bounded). */
sg_comm_t coll_post_send_bounded(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                                 sg_mailbox_t mb, void *payload, double size_B, double rate_Bps);

/* Starts a flow of size_B from host `from` to host `to` for rank `me` with no actor at either
 * end (net_sendto: a switch's side of a flow-level protocol), recorded as coll_post_send does. */
sg_comm_t coll_post_flow(const struct coll_world *w, int me, sg_host_t from, sg_host_t to,
                         double size_B);

/* Depth of rank r in the binary heap tree (children 2r+1, 2r+2): floor(log2(r + 1)). */
int coll_heap_depth(int r);

/* Whether chunk k is one of the c chunks of a pipelined schedule. */
bool coll_in_range(int k, int c);

/* Sends size_B bytes from rank `me` to rank `to` / receives the next message from `from`. */
enum net_status coll_send(const struct coll_world *w, int me, int to, double size_B);
enum net_status coll_recv(const struct coll_world *w, int me, int from);

/* One step of a schedule: posts sends of size_B to each of to[0..nto) and receives from each of
 * from[0..nfrom) at once, then waits for all of them; the worst status wins. With `tag` >= 0 the
 * mailboxes are those of that channel (several concurrent protocols between the same pair). */
enum net_status coll_exchange(const struct coll_world *w, int me, const int *to, int nto,
                              double size_B, const int *from, int nfrom);
/* The same with a size per destination: to_B[i] bytes to to[i]. */
enum net_status coll_exchange_sized(const struct coll_world *w, int me, const int *to,
                                    const int *to_tag, const double *to_B, int nto, const int *from,
                                    const int *from_tag, int nfrom);
/* The same with a rate bound per destination: to_rate[i] for the send to to[i] (NULL, or <= 0:
 * none). */
enum net_status coll_exchange_bounded(const struct coll_world *w, int me, const int *to,
                                      const int *to_tag, const double *to_B, const double *to_rate,
                                      int nto, const int *from, const int *from_tag, int nfrom);
enum net_status coll_exchange_tagged(const struct coll_world *w, int me, const int *to,
                                     const int *to_tag, int nto, double size_B, const int *from,
                                     const int *from_tag, int nfrom);

/* Sends to `to` and receives from `from` at once (a ring or butterfly step); either may be < 0
 * for none. */
enum net_status coll_sendrecv(const struct coll_world *w, int me, int to, double size_B, int from);

/* A ring step that carries data: sends a copy of src[0..nsrc) to `to` as size_B simulated bytes
 * and receives `from`'s block (ndst floats, as that rank sends it) into dst, added when
 * `reduce`, else copied. */
enum net_status coll_sendrecv_data(const struct coll_world *w, int me, int to, double size_B,
                                   const float *src, size_t nsrc, int from, float *dst, size_t ndst,
                                   bool reduce);

/* Data messages. A payload that carries data is a block: a copy of n floats and their count. It
 * is the sender's until a receive of it completes (free it with free() when its send failed),
 * then the receiver's, which reads and frees it with coll_block_take. Timing-only messages all
 * point at one token that nobody frees. A receive that completed may still hand over a message
 * of another kind, or a block of another size: a message of a protocol that failed earlier in the
 * same membership (a broadcast cut mid-way), taken in order from the same pair's mailbox; it is
 * not data for this step. */
void *coll_block_new(const float *src, size_t n);
/* Adds (reduce) or copies block `payload` into dst[0..n) and frees it. false, with dst untouched:
 * the payload is not a block of n floats (freed if it is a block; the token or NULL is left). */
bool coll_block_take(void *payload, float *dst, size_t n, bool reduce);
/* Frees a payload received but not read (a block; the token or NULL: nothing). */
void coll_payload_free(void *payload);

/* Receives one message from each of from[0..n) at once / sends size_B to each of to[0..n). */
enum net_status coll_recv_all(const struct coll_world *w, int me, const int *from, int n);
enum net_status coll_send_all(const struct coll_world *w, int me, const int *to, int n,
                              double size_B);

/* Block b of n of a buffer of `count` floats: [*first, *first + *len). */
void coll_ring_block(size_t count, int n, int b, size_t *first, size_t *len);

/* Ring phases over a group of world ranks members[0..n) (NULL: every rank, in rank order), `idx`
 * being this rank's position: reduce-scatter and all-gather of size_B bytes in n - 1 steps of
 * size_B / n; data (or NULL) is this rank's buffer of size_B / 4 floats. After the
 * reduce-scatter, position idx holds block (idx + 1) mod n reduced. */
enum net_status coll_ring_reduce_scatter(const struct coll_world *w, const int *members, int n,
                                         int idx, double size_B, float *data);
enum net_status coll_ring_allgather(const struct coll_world *w, const int *members, int n, int idx,
                                    double size_B, float *data);

#endif
