/* ps.h - parameter-server training: sharded, sync (with backup workers) or async (bounded
 * staleness), simulated with SimGrid actors exchanging real messages.
 *
 * Actors:
 *   worker r (on GPU r):  each iteration, pull: a small request to every shard, then the shard's
 *                         parameters back (all shards at once); forward + backward; push: the
 *                         gradient slice of every shard at once, stamped with the version it was
 *                         computed from; in async mode, wait for every shard's verdict.
 *   port (k, r) (on shard k's host): serves worker r: answers pulls (in sync mode only once the
 *                         shard has reached the version the worker needs) and receives pushes.
 *                         One port per worker lets all transfers into and out of a shard proceed
 *                         at once and share its link, as a real server's connections do.
 *   shard k (on its host): sync: collects pushes for version v until its quorum (P - b) has
 *                         arrived, drops pushes for older versions (late), applies the update on
 *                         its CPU (time = bytes moved / CPU memory bandwidth), advances to v + 1;
 *                         async: takes pushes as they come, applies one if its version lag is at
 *                         most tau (recording the lag), else drops it (stale).
 *   coordinator (optional): every shard reports each version it reaches; the coordinator tracks
 *                         the global version (the minimum) and costs one message per advance.
 * Accounting: every computed gradient slice (worker iteration x shard) is applied, dropped stale
 * or dropped late; the counts add up.
 */
#ifndef DMLSIM_PS_H
#define DMLSIM_PS_H

#include "calib.h"
#include "error.h"
#include "model.h"
#include "platform.h"
#include "scenario.h"
#include "train.h"

/* Checks the PS setup against the loaded platform (hosts for the placement, backup workers
 * below the worker count, memory per GPU); errors name the <ps> or <training> line. */
enum dmlsim_err ps_check(const struct scenario *sc, const struct platform *pf,
                         const struct model *m, struct dmlsim_error *err);

/* Runs the training (calls simgrid_run) and fills `res` (train_result_release). */
enum dmlsim_err ps_run(const struct scenario *sc, const struct platform *pf, const struct model *m,
                       const struct calib *cal, struct train_result *res, struct dmlsim_error *err);

/* Parameters owned by each of K shards: whole layers round-robin (split by layer) or an even
 * split of the total (by bytes). Fills out[0..K). */
void ps_split(const struct model *m, int K, bool by_bytes, double *out);

#endif
