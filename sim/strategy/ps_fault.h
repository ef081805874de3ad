/* ps_fault.h - the parameter server's actors under faults: each incarnation of a shard's and a
 * worker's actors, and the injector's hooks (inject.h) that stop and restart them (internal to
 * ps*.c).
 *
 * Faults come from the shared injector: a crash of a shard's host loses its versions since its
 * checkpoint (the slices applied into them are lost, the pushes in its queue too), a crash of a
 * GPU host stops its worker; a restart starts the host's shards, ports and workers again (and the
 * coordinator, with an empty memory), unless the job is already over. Each incarnation gets fresh
 * semaphores: the old ones may have died with their holders (semset.h).
 */
#ifndef DMLSIM_PS_FAULT_H
#define DMLSIM_PS_FAULT_H

#include "ps_state.h"

#include <simgrid/forward.h>

#include <stdbool.h>

/* Starts shard s's actor and its P ports on its host (incarnation s->incarnation). */
void ps_fault_start_shard(struct ps_ctx *c, struct shard *s);

/* A worker's actors on its GPU host: the worker, and with push during the backward its pusher
 * (fresh semaphores: the old ones may have died with their holders). */
void ps_fault_start_worker(struct ps_ctx *c, struct ps_worker *w, int incarnation);

/* inject.h's crashed hook (ctx: the run): host h crashed; its shards lose what their
 * checkpoints do not hold, its workers stop. */
void ps_fault_crashed(void *ctx, sg_host_t h);

/* inject.h's restarted hook: host h is back; its coordinator, shards, loader and unfinished
 * workers start again (nothing, once the job is over). */
void ps_fault_restarted(void *ctx, sg_host_t h);

/* inject.h's members hook: the worker actors alive now. */
int ps_fault_members(void *ctx);

/* A crash hurts the job if a worker or a shard runs there. */
bool ps_fault_relevant(void *ctx, sg_host_t h);

#endif
