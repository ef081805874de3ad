/* ps.h - parameter-server training: sharded, sync (with backup workers) or async (bounded
 * staleness), simulated with SimGrid actors exchanging real messages.
 *
 * Actors:
 *   worker r (on GPU r):  each iteration, pull: a small request to every shard, then the shard's
 *                         parameters back (all shards at once); forward + backward; push: the
 *                         gradient slice of every shard at once, stamped with the version it was
 *                         computed from; in async mode, wait for every shard's verdict.
 *   port (k, r) (on shard k's host): serves worker r: answers pulls (in sync mode a pull for
 *                         the version after the one the shard collects is held until it
 *                         advances) and receives pushes. One port per worker lets all transfers
 *                         into and out of a shard proceed at once and share its link, as a real
 *                         server's connections do.
 *   shard k (on its host): sync: collects pushes for version v until its quorum (P - b, or
 *                         every pusher it still expects if fewer) has arrived, drops pushes for
 *                         older versions (late), applies the update on its CPU (time = bytes
 *                         moved / CPU memory bandwidth), advances to v + 1. The deadline starts
 *                         with v's first push; a pusher that misses it is suspected and not
 *                         waited for again until it pushes (a dead worker is simply absent).
 *                         A worker with nothing to push (corrupt batches) pushes an empty
 *                         message, so every version has a push and the shard never runs ahead;
 *                         async: takes pushes as they come, applies one if its version lag is at
 *                         most tau (recording the lag), else drops it (stale).
 *   coordinator (optional): every shard reports each version it reaches; the coordinator tracks
 *                         the global version (the minimum) and costs one message per advance.
 * Accounting: every computed gradient slice (worker iteration x shard) is applied, dropped stale,
 * dropped late or lost to a crash; the counts add up (run.h). Faults come from the shared
 * injector (inject.h): a crash of a shard's host loses its versions since its checkpoint, a
 * restart starts its shard and workers again, and step-triggered crashes fire when the worker on
 * the host reaches the step. A worker notices a failure (and reports it: failures_detected) when
 * a shard does not answer, does not take its push, or answers with an older version than before
 * (it restarted from an older state); a leader when a follower is gone, a follower when its
 * leader sends nothing; a sync shard when a pusher misses its quorum's deadline. A sync worker
 * computes the version the shards are at when they are behind its count (after a rollback), so
 * they reach every version; the job failed unless every shard reached every version with a
 * gradient applied (the reason on stderr).
 */
#ifndef DMLSIM_PS_H
#define DMLSIM_PS_H

#include "job.h"
#include "runkit.h"

#include <stdio.h>

/* The job's checks (job_check), hosts for the placement and backup workers below the worker
 * count; errors name the <ps> or <training> line. */
enum dmlsim_err ps_check(const struct job *j, struct dmlsim_error *err);

/* The "# training" and "# workers" configuration lines. */
void ps_describe(const struct job *j, FILE *out);

/* The head of the run record: run_init and the strategy's configuration lines. */
void ps_begin(const struct job *j, struct run_record *rec);

/* Runs the training (calls simgrid_run, through runkit_simulate) with the services of kit
 * (runkit_open'ed for the strategy's row) into kit->rec (run_release), begun by ps_begin;
 * the job passed the check. */
void ps_run(struct runkit *kit);

/* Parameters owned by each of K shards: whole layers round-robin (split by layer) or an even
 * split of the total (by bytes). Fills out[0..K). */
void ps_split(const struct model *m, int K, bool by_bytes, double *out);

#endif
