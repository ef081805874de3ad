/* ar_emb.h - the all-reduce strategy's sharded embeddings (embeddings="sharded"): the tables
 * model-parallel, their IDs and pooled embeddings exchanged by all-to-alls, the dense part
 * data-parallel.
 *
 * The layout of DLRM (Naumov et al. 2019, its "Parallelism" section's butterfly shuffle), of
 * Meta's Neo / ZionEX training (Mudigere et al., ISCA'22) and of TorchRec's sharded modules
 * (input_dist, lookup, output_dist); emb_shard.h places the tables and cites them. A worker's step,
 * as TorchRec's table-wise EmbeddingBagCollection runs it:
 *   1. input_dist: an all-to-all of the batch's IDs, each to its table's owner (8 B an ID);
 *   2. the owner's lookups of its tables for the global batch (memory-bound bag gathers);
 *   3. output_dist: an all-to-all of the pooled embeddings, each GPU receiving its own samples'
 *      bags from every owner;
 *   4. the dense forward and backward (the all-reduce of the dense gradients in DDP's buckets,
 *      as the replicated case: the tables' layers hold no parameters in the dense view);
 *   5. output_dist's backward: an all-to-all of the bags' gradients back to the owners, while the
 *      dense buckets reduce;
 *   6. the owners' fused backward and optimizer over the looked-up rows (FBGEMM's table-batched
 *      embedding backward: no table gradient is materialised, no table is all-reduced).
 * The all-to-alls run in a collective world of their own per membership (their mailboxes apart
 * from the buckets'), on the compute actor: they are exposed, as TorchRec's are without its
 * pipelined train loop. Each pair's bytes are the plan's (emb_plan_ids_B, emb_plan_pooled_B):
 * uneven when the owners hold uneven tables.
 */
#ifndef DMLSIM_AR_EMB_H
#define DMLSIM_AR_EMB_H

#include "emb_shard.h"
#include "error.h"
#include "job.h"
#include "rendezvous.h"
#include "runkit.h"

#include <stdbool.h>
#include <stdio.h>

struct ar_emb;       /* a run's sharded embeddings */
struct ar_emb_world; /* a membership's: its all-to-all world, its ranks' lookups */

/* The plan of job j: its workers, the least memory of their GPUs (release: emb_plan_release). */
void ar_emb_plan(const struct job *j, struct emb_plan *p);

/* Does every GPU's share fit? The out-of-memory error names the GPU and its tables. */
enum dmlsim_err ar_emb_check(const struct job *j, struct dmlsim_error *err);

/* The memory and placement lines (emb_plan_print) and the all-to-alls' bytes a step. */
void ar_emb_describe(const struct job *j, FILE *out);

/* The run's state, or NULL when j's tables are replicated. *dj becomes j with the dense view of
 * its model (dm, emb_dense_view), which the all-reduce loop then trains: buckets, the broadcast,
 * kernels and the update of the dense part only. */
struct ar_emb *ar_emb_new(struct runkit *kit, struct job *dj, struct model *dm);

/* The run's totals into rec (the metric rows of allreduce_metrics.h, and the memory of the GPU
 * that needs the most); frees e and dm (ar_emb_free(NULL, ...) is a no-op). */
void ar_emb_free(struct ar_emb *e, struct model *dm, struct run_record *rec);

/* Membership ms formed (with its members' hosts): its all-to-all world, and each position's
 * lookups and fused updates (this plan is over ms->n GPUs). */
struct ar_emb_world *ar_emb_formed(struct ar_emb *e, const struct membership *ms);
void ar_emb_world_free(struct ar_emb_world *ew);

/* Position pos (rank `rank`) of the world: steps 1-3 (before the dense forward) and 5-6 (after
 * its backward has handed its buckets), the compute scaled by `scale` (jitter, samples left);
 * false if an all-to-all failed. */
bool ar_emb_forward(struct ar_emb *e, struct ar_emb_world *ew, int pos, int rank, double scale);
bool ar_emb_backward(struct ar_emb *e, struct ar_emb_world *ew, int pos, int rank, double scale);

#endif
