/* level.h - level="auto" (the default): which level a training's collectives run at, and why.
 *
 * At message level every step of every collective is a SimGrid message (32 channels of NCCL's
 * plan each a ring of 2 (n - 1) steps per call and rank); at flow level each phase is one flow
 * per ring edge. Both give the same simulated times where check_nccl and check_collective test
 * them, but the message level costs CPU in proportion to its messages: a Llama 3 70B step on 64
 * H100 (tp 8) is about 55 million of them. So auto bounds the messages of one step from the
 * scenario alone, before anything is built: every collective call of n ranks as NCCL's largest
 * plan (MAXCHANNELS 32 rings of 2 (n - 1) steps a rank; 1 channel for the other algorithms), and
 * picks message level when that bound is at most LEVEL_AUTO_MESSAGES, flow level above it.
 * The calls a step makes: data parallelism, ceil(gradient bytes / bucket) all-reduces of every
 * worker; the hybrid strategy, 4 tensor-parallel all-reduces per transformer block and
 * microbatch (Megatron-LM's f and g in the forward and backward: Shoeybi et al. 2019, fig. 3)
 * over every rank, and its data-parallel buckets. The parameter server has no collectives.
 */
#ifndef DMLSIM_LEVEL_H
#define DMLSIM_LEVEL_H

#include "model.h"
#include "scenario.h"

/* A step's message bound above which auto picks flow level: 2^22, about 4 CPU s at message
 * level (README, Performance). */
#define LEVEL_AUTO_MESSAGES 4194304.0

/* The bound on one step's messages at message level of sc's training of model `m` on P
 * workers (0 for the parameter server). */
double level_step_messages(const struct scenario *sc, const struct model *m, int P);

/* Resolves sc->train.level when it is COLL_AUTO: message or flow by the bound; *why gets a short
 * reason for the header ("auto: ~5.5e+07 messages a step > 4194304"), or "" when the level was
 * set. */
void level_resolve(struct scenario *sc, const struct model *m, int P, char *why, size_t len);

/* "flow level" or "message level", with the reason when auto chose it; returns buf. */
const char *level_describe(const struct train_spec *ts, char *buf, size_t len);

#endif
