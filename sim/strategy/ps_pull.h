/* ps_pull.h - a worker's pull: a small request to every shard, then every shard's parameters
 * back, all shards at once (internal to ps*.c).
 *
 * A shard that does not answer is asked again, backing off, until the replacement timeout; one
 * that answers only after a retry, or with an older version than before (it restarted from an
 * older state), is a failure noticed. With coordinator="enforce" the worker first asks the
 * coordinator for the global version and every shard answers with exactly that one. With
 * prefetch a puller actor fetches the next iteration's parameters during this one.
 */
#ifndef DMLSIM_PS_PULL_H
#define DMLSIM_PS_PULL_H

#include "ps_state.h"

#include <stdbool.h>

/* The puller (prefetch): fetches the parameters of the next iteration while this one computes;
 * one version behind, since this iteration's update is not applied yet. */
void ps_pull_actor(int argc, char **argv);

/* The parameters of the next iteration: pulled now (waiting for version `need`), or (prefetch)
 * the ones fetched during the previous iteration. */
bool ps_pull_get_params(struct ps_worker *w, int need, int *version);

/* Prefetch: iteration it + 1's fetch starts now (version it is enough for it: one behind). */
void ps_pull_prefetch_next(struct ps_worker *w, int it);

/* Sync: the iteration a worker computes with the versions it pulled. Its own count, unless the
 * shards are not where that count expects them: behind it (a shard restarted from an older
 * checkpoint, or a pull answered at its deadline before the shard advanced), it computes the
 * version they are at, so its push is fresh and the shards reach every version; with prefetch
 * (pushes are fresh by iteration, one version behind by design) also ahead of it (a restarted
 * or late worker), else every push of it would come too late. Without prefetch a push is fresh
 * by the version it was computed from, and the worker keeps its count. */
int ps_pull_sync_iteration(const struct ps_worker *w, const int *version);

#endif
