/* nccl_chan.h - an nccl plan run as messages: each channel's ring or tree program in an actor of
 * its own, and the actors of the switches that reduce (SHARP for CollNet, NVSwitch for NVLS).
 *
 * A channel waits only on its own neighbours, as NCCL's channels (one CUDA block each) do; sends
 * are buffered as NCCL's FIFO slots are, and waited for at the end of a channel's program. Each
 * hop sleeps what the protocol adds beyond its route's latency (nccl_topo.h). The flow level and
 * the choice of plan are coll_nccl.c's.
 */
#ifndef DMLSIM_NCCL_CHAN_H
#define DMLSIM_NCCL_CHAN_H

#include "coll.h"
#include "nccl_tune.h"

/* Runs plan p's channels for `op` of size_B on this rank (data: its buffer, or NULL), every size
 * and latency dilated by dil: helper actors for channels 1.., this actor for channel 0. Returns
 * the worst status of the channels. */
enum net_status nccl_chan_run(const struct coll_world *w, const struct nccl_plan *p,
                              enum coll_op op, int rank, double size_B, float *data, double dil);

/* NVLS all-reduce of size_B at message level on this rank, dilated by dil: the node's switch
 * reduces in an actor on its switch host, started by the node's first GPU. */
enum net_status nccl_chan_nvls(const struct coll_world *w, const struct nccl_plan *p, int rank,
                               double size_B, double dil);

#endif
