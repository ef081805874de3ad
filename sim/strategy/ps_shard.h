/* ps_shard.h - a parameter-server shard: it collects the pushes its ports queue, applies them,
 * advances its version, checkpoints, and tells the coordinator (internal to ps*.c).
 *
 * Sync: shard k collects pushes for version v until its quorum (P - b, or every pusher it still
 * expects if fewer) has arrived, drops pushes for older versions (late), applies the update on
 * its CPU (time = bytes moved / CPU memory bandwidth) and advances to v + 1. The deadline starts
 * with v's first push, as a collective's with its first member; a pusher that misses it is
 * suspected and not waited for again until it pushes. A worker with nothing to push pushes an
 * empty message, so every version has a push and the shard never runs ahead of the workers.
 * Async: it takes pushes as they come, applies one if its version lag is at most tau, else drops
 * it (stale; with bounded delay the workers wait instead, and every push is applied); its port
 * waits for the verdict. The queue is the shard's (head, tail, arrived); the ports fill it
 * (ps_port.c).
 */
#ifndef DMLSIM_PS_SHARD_H
#define DMLSIM_PS_SHARD_H

#include "ps_state.h"

#include <stdbool.h>

/* Sync: the pushers changed (one died, left or finished): every shard counts its quorum again.
 * A release with no push queued is a wake (take returns NULL). */
void ps_shard_wake_all(struct ps_ctx *c);

/* Sync: has every shard stopped collecting (the job is over for the followers)? */
bool ps_shard_all_stopped(const struct ps_ctx *c);

/* Numerics: the test accuracy of the shards' parameters once every shard has reached a version
 * that is a multiple of eval-every (last: whatever version they all reached, if not done). */
void ps_shard_evaluate(struct ps_ctx *c, bool last, double now);

/* Shard s's actor (its data: s) on its host; after a restart (incarnation > 0) it reloads its
 * checkpoint and reports its version to the coordinator first. Sync: it ends when every version
 * is reached or nobody is left to push; async: a daemon. */
void ps_shard_actor(int argc, char **argv);

/* Numerics: is the real parameter vector split by bytes? As the model is, except under a
 * cost-model proxy, whose layers are not the MLP's (each shard then holds N / K of them). */
bool ps_shard_real_by_bytes(const struct ps_ctx *c);

#endif
