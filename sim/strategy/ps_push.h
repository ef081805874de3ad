/* ps_push.h - a worker's push: the gradient slice of every shard at once, stamped with the
 * version it was computed from; in async mode, then every shard's verdict (internal to ps*.c).
 *
 * After the backward every slice is posted at once; with push during the backward a pusher actor
 * posts each slice as soon as the layers it holds are done. The ports count what arrives
 * (w->delivered); what did not arrive by the deadline is lost (ps_account.h).
 */
#ifndef DMLSIM_PS_PUSH_H
#define DMLSIM_PS_PUSH_H

#include "ps_state.h"

/* After the backward: every slice exists; they are posted at once. */
void ps_push_all(struct ps_worker *w, int it, const int *version, sg_comm_t *comms,
                 struct ps_msg **in);

/* Sync: a pusher with nothing to push (its batch, and its followers', corrupt) tells its shards
 * so (a control message each), so no version waits a deadline for a gradient that cannot come. */
void ps_push_empty(struct ps_worker *w, int it, const int *version, sg_comm_t *comms);

/* The pusher (push during the backward): posts each slice as the backward hands it over, so its
 * serialisation and transfer overlap the rest of the backward (as ps-lite and BytePS push). */
void ps_push_actor(int argc, char **argv);

/* The backward layer by layer; a shard's slice is handed to the pusher once the layers it holds
 * are done (split by bytes: every shard holds part of every layer, so at the end). */
void ps_push_backward(struct ps_worker *w, int it, const int *version, double scale,
                      sg_comm_t *comms, struct ps_msg **in);

#endif
