/* ps_agg.h - local aggregation: a node's GPUs talk to the shards through one of them (internal
 * to ps*.c).
 *
 * MXNet's device kvstore (kvstore="dist_device_sync"; src/kvstore/comm.h, CommDevice): the GPUs
 * of a machine reduce their gradients on one GPU, which alone pushes to the servers and pulls,
 * and the pulled weights are copied to the other GPUs. Here the node's first GPU leads; its
 * followers run ps_worker_follower_actor (ps_worker.h).
 */
#ifndef DMLSIM_PS_AGG_H
#define DMLSIM_PS_AGG_H

#include "ps_state.h"

#include <stdbool.h>

/* The leader copies the parameters of iteration `it` to every live follower (GPU to GPU in the
 * node: NVLink, or PCIe); w->sent says which got them. */
void ps_agg_bcast_params(struct ps_worker *w, int it);

/* The leader receives the gradients of the followers it sent parameters to (into its memory, as
 * CommDevice copies them to the merge buffer's GPU) and sums them with its own in one kernel
 * (ElementwiseSum: reads the n inputs, writes one buffer, at the memory rate). Each follower
 * adds its samples to w->carry as its gradient arrives (ps_agg_hand_to_leader). */
void ps_agg_gather_grads(struct ps_worker *w);

/* A follower hands its gradient (corrupt batch: an empty message) to its leader; once it is in
 * the leader's sum its samples are the leader's to account, else they will be read again. */
void ps_agg_hand_to_leader(struct ps_worker *w, bool corrupt);

#endif
