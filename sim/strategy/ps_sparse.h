/* ps_sparse.h - the parameter server's sparse path for embedding tables (internal to ps*.c).
 *
 * A recommendation model's tables are sharded by row over the K shards (emb_ids.h: by hash or by
 * range); the dense layers are split as without tables. Each iteration a worker draws its batch's
 * IDs (batch x pooling lookups a table, emb_ids.h's streams: the same worker and iteration draw
 * the same IDs, in every run), deduplicates them, and:
 *   - pulls from shard k its dense slice and the distinct rows of its batch that shard k holds:
 *     the request carries their indices (8 B each), the answer their values (dim elements each);
 *   - pushes to shard k its dense gradient and the gradients of those rows with their indices:
 *     as TensorFlow's IndexedSlices (values, int64 indices) and PyTorch's sparse COO gradients
 *     of nn.EmbeddingBag(sparse=True) travel;
 *   - with a cache of the hottest `cache-rows` rows of each table (Zipf IDs are ranked: the
 *     first ones are the hottest), does not pull the cached rows, except every cache-staleness
 *     iterations when it refreshes the cached rows it touches (a bounded staleness, as
 *     HugeCTR's and Persia's embedding caches bound it); their gradients are still pushed.
 * A shard applies the rows it accepted at its next update: a row-wise sparse update reads and
 * writes each row's weights, gradient and optimizer state once (model_update_bytes_per_param a
 * element) at the host's memory rate, as the dense slice's update.
 * sparse="no" keeps the tables in the dense slices: pulled and pushed whole.
 */
#ifndef DMLSIM_PS_SPARSE_H
#define DMLSIM_PS_SPARSE_H

#include "ps_state.h"

#define SPARSE_INDEX_B 8.0 /* an int64 index a row (IndexedSlices, torch sparse COO) */

/* The sparse path of c, when its model has tables and <ps sparse> is not "no" (else c->sparse
 * stays NULL and the functions below give the dense messages). Needs c->shards' bytes set. */
void ps_sparse_setup(struct ps_ctx *c);
void ps_sparse_release(struct ps_ctx *c);

/* A shard's share of the tables' parameters when c's model has tables and <ps sparse> is not
 * "no" (the rows the sparse path moves and updates on its own), else 0: the one rule of whether
 * the sparse path runs, valid before ps_sparse_setup. */
double ps_sparse_rowwise(const struct ps_ctx *c);

/* The model's dense parameters (all but the tables') when c has a sparse path, else all. */
double ps_sparse_dense_params(const struct ps_ctx *c);

/* Worker w's pull request to shard k for batch `key` of `samples` samples: sets req->rows (the
 * rows asked for), req->row_elems (here: the rows its cache serves instead) and req->reply_B
 * (the answer's bytes); returns the request's bytes. */
double ps_sparse_pull(struct ps_ctx *c, struct ps_worker *w, int key, double samples, int k,
                      struct ps_msg *req);

/* Shard k's answer to a pull came (the port copied the request's rows and cached rows into it):
 * counts the rows pulled and cached and their bytes (a retried request counts once). */
void ps_sparse_pulled(struct ps_ctx *c, int k, const struct ps_msg *answer);

/* Worker w's push g to shard k of batch `key`'s gradient over `samples` samples: sets g->rows
 * and g->row_elems, counts them; returns the push's bytes. */
double ps_sparse_push(struct ps_ctx *c, struct ps_worker *w, int key, double samples, int k,
                      struct ps_msg *g);

/* The gradient bytes of one worker's push to every shard: the dense gradient, and (sparse) the
 * mean rows' bytes with their indices. */
double ps_sparse_grad_B(const struct ps_ctx *c);

/* Bytes an element of a row (the training dtype's); 0 without a sparse path. */
double ps_sparse_elem_B(const struct ps_ctx *c);

/* The exec amount of shard s's next update: its dense slice's, and the rows accepted since the
 * last (s->pend_elems, which it clears). */
double ps_sparse_update_amt(struct shard *s);

#endif
