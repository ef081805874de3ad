/* ps_worker.h - a parameter-server worker's actor: its iterations, from pull to push
 * (internal to ps*.c).
 *
 * Worker r (on GPU r), each iteration: pull (ps_pull.h); forward + backward; push (ps_push.h).
 * Sync: a worker computes the version the shards are at when they are behind its count (after a
 * rollback), so they reach every version; async: workers take iterations from a shared budget of
 * P x steps, and with bounded delay (Li et al., OSDI'14) wait for the slowest within tau. With
 * local aggregation (ps_agg.h) a node's leader runs the worker actor and the node's other GPUs
 * the follower actor. A worker leaves the job when a shard stays unreachable past the
 * replacement timeout, a follower when its leader is gone for good.
 */
#ifndef DMLSIM_PS_WORKER_H
#define DMLSIM_PS_WORKER_H

/* A follower: its parameters come from its leader, its gradient goes back to it; it never talks
 * to a shard. It takes the iteration the leader is at (after a restart of either), and skips
 * one (its batch read again) when the leader sends nothing within the deadline: the leader's
 * step, whose pull may wait one deadline for the shards' quorum and one for the answer, so two.
 * It stops when the shards have stopped, and leaves when its leader is gone for good. */
void ps_worker_follower_actor(int argc, char **argv);

/* Worker w's actor (its data: w) on its GPU host: a worker that talks to the shards (every
 * one, or a node's leader); through its iterations, or until it leaves. */
void ps_worker_actor(int argc, char **argv);

#endif
