/* ps_results.h - what a parameter-server run leaves in its record once simgrid_run returned:
 * its rows, its counts, its verdict (internal to ps*.c).
 *
 * The job failed unless every shard reached every version with a gradient applied and some
 * worker got through (the reason in the record, for stderr); run_verdict applies the same rule.
 */
#ifndef DMLSIM_PS_RESULTS_H
#define DMLSIM_PS_RESULTS_H

#include "ps_state.h"

/* Disagreement between shards: walk every advance in time order. */
void ps_results_version_spread(struct ps_ctx *c, double total_s);

/* Sync rows: step s ends when every shard has reached version s + 1. A row's samples are those
 * the workers computed gradients for in iteration s if that compute ended within the run (a
 * backup worker's iteration that ends later is not counted), and its workers those whose compute
 * that is. The run time is the last row's end. */
void ps_results_sync_rows(struct ps_ctx *c);

/* Async rows: the run's iterations in the order they finished, P at a time (workers do different
 * numbers of them: the budget goes to whoever is free), so a row is as much work as one round
 * of every worker; the last row holds what is left. A row's compute is the slowest of its
 * iterations' computes, its workers the distinct workers in it. */
void ps_results_async_rows(struct ps_ctx *c);

/* What the run leaves in the record, besides the rows. */
void ps_results_record(struct ps_ctx *c);

/* Numerics: the final model's fingerprint, every shard's parameters. */
void ps_results_fingerprint(struct ps_ctx *c);

#endif
