/* ps_dense.h - Persia's hybrid on the parameter server: the tables on the shards, the dense part
 * all-reduced among the workers (internal to ps*.c).
 *
 * Persia (Lian et al., KDD'22, "Persia: An Open, Hybrid System Scaling Deep Learning-based
 * Recommenders up to 100 Trillion Parameters", section 3) keeps the embedding layer, over 99.99%
 * of the parameters, on embedding parameter servers updated through the sparse path, and trains
 * the dense network synchronously with all-reduce on the GPU workers; HET (Miao et al., VLDB'22)
 * does the same. With <ps dense="allreduce"> the shards hold only the tables' rows; after its
 * backward each worker all-reduces its dense gradient with every other worker (the scenario's
 * collective algorithm, NCCL's by default, through the engine's collectives), applies it on its
 * GPU (the optimizer's share of the dense parameters), and pushes its rows as
 * <ps sparse="yes"> does. The all-reduce has no membership: a run with faults is refused.
 */
#ifndef DMLSIM_PS_DENSE_H
#define DMLSIM_PS_DENSE_H

#include "ps_state.h"

#include <stdio.h>

/* Why the job cannot run its dense part on all-reduce (NULL: it can, or it does not ask). */
const char *ps_dense_refuse(const struct job *j, char *buf, size_t len);

/* The workers' collective world, when <ps dense="allreduce"> (else nothing). */
void ps_dense_setup(struct ps_ctx *c);
void ps_dense_release(struct ps_ctx *c);

/* Worker w's dense gradient all-reduced with the others', then applied on its GPU. */
void ps_dense_step(struct ps_worker *w, int it);

#endif
