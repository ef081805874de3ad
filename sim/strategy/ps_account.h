/* ps_account.h - the parameter server's accounting: where gradient slices and samples go, and
 * the failures the survivors notice (internal to ps*.c).
 *
 * Every computed gradient slice (worker iteration x shard) ends applied, dropped stale, dropped
 * late or lost to a crash, and every sample read is consumed, dropped or read again (run.h);
 * the actors call these at the moment a slice's fate is known, so the counts add up whatever
 * instant a crash or the run's end comes. Applied slices are recorded by their shard
 * (ps_shard.c), which keeps them per version: a crash takes back the versions it loses.
 */
#ifndef DMLSIM_PS_ACCOUNT_H
#define DMLSIM_PS_ACCOUNT_H

#include "ps_state.h"

/* n slices lost, covering `samples` samples (read again) and `rows` embedding rows. */
void ps_account_lose_slices(struct ps_ctx *c, double n, double samples, double rows);

/* A slice the shard's policy discarded (too stale, or too late for its version's quorum),
 * with its `rows` embedding rows. */
void ps_account_drop_slice(struct ps_ctx *c, double *counter, double samples, double rows);

/* A survivor noticed a failure: the injector times its detection, the run counts the report. */
void ps_account_noticed(struct ps_ctx *c);

/* A worker stopped inside an iteration (a crash, or the run's end): the slices it computed and
 * its shards did not receive are lost, the rest of its batch will be read again. */
void ps_account_unfinished(struct ps_worker *w);

#endif
