/* coll_nccl.h - the nccl family: collectives as NCCL runs them, simulated with messages.
 *
 * For every call the ranks make NCCL's plan (nccl_tune.h: algorithm x protocol x channels from
 * NCCL 2.28.3's own tuning model) and then run it as messages:
 *   - channels: nc rings (or trees) at once, each carrying S / nc, on their own mailboxes. A
 *     channel's ring visits the nodes in order and, inside each node, the GPUs in the node's ring
 *     order rotated by the channel: channel c enters a node at its GPU c (mod G) and leaves it
 *     from GPU c - 1, so with G channels every GPU, and therefore every NIC of a rail-aligned
 *     node (GPU j on NIC j), sends one channel's traffic across and receives another's: all NICs
 *     carry traffic, as NCCL's topology search arranges it. The node's ring order is rank order
 *     behind an NVSwitch, and a Hamiltonian cycle over direct NVLink pairs otherwise (DGX-1).
 *   - ring: all-reduce in 2(P - 1) steps of S / (nc P) per channel, reduce-scatter and all-gather
 *     in P - 1, broadcast as a pipelined chain from rank 0 along each channel's ring.
 *   - tree (all-reduce): NCCL's double binary tree: even channels use a binary tree over the
 *     nodes, odd channels the same tree over the nodes in reverse order (so a node interior in
 *     one is a leaf in the other); inside each node a chain from the channel's head GPU. Chunks
 *     climb and descend at once (the schedule of coll_tree.c), 512 KiB each (a Simple FIFO
 *     slot: 4 MiB buffer / NCCL_STEPS 8), at most 64 per channel.
 *   - protocols: LL sends 2 bytes per byte of data (8-byte flag per 8 bytes), LL128 128 per 120
 *     (NCCL's 0.92), Simple 1; every hop costs NCCL's per-hop latency of that protocol
 *     (hwLatencies), of which the link's own latency is part: a rank sleeps what the protocol
 *     adds beyond the route's latency after each step; each call first pays NCCL's base latency
 *     (the per-call floor that makes many small collectives cost what they cost); and a channel
 *     cannot move data faster than the SM-side limit of NCCL's model (LL's llMaxBw, LL128's and
 *     the tree's per-channel maxima): a call ends no earlier than S over that limit, scaled to
 *     the channels it uses.
 * Timing comes from SimGrid's transfers plus these sleeps. At flow level each ring phase is one
 * flow per channel with the step latencies slept. A calibration (netcal.h) dilates a call of its
 * scope: bytes on the wire and the protocol's latencies scale by the fitted factor of that size.
 * Data: the ring carries it (each channel a slice of the buffer); a call with data uses the ring.
 * Files: nccl_topo.h (nodes, rings, trees, route costs), nccl_chan.h (the channels' programs
 * and the switches' actors at message level), coll_nccl.c (the call: plan, flow level, entry).
 */
#ifndef DMLSIM_COLL_NCCL_H
#define DMLSIM_COLL_NCCL_H

#include "coll.h"

#include <stddef.h>

/* NULL if the family can run on `w`, else why not: at message level (an actor per rank and
 * channel) at most 2048 ranks. */
const char *coll_nccl_check(const struct coll_world *w);

/* Runs `op` of size_B on this rank as NCCL would (its plan for the size, at w's level); data:
 * this rank's buffer (the rings carry it), or NULL. */
enum net_status coll_nccl_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data);

/* NCCL's choice for `op` of size_B on `w` ("ring/Simple/16ch"), into buf. */
void coll_nccl_describe(const struct coll_world *w, enum coll_op op, double size_B, char *buf,
                        size_t len);

#endif
