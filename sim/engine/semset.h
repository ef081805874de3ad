/* semset.h - the semaphores of one run, destroyed together when the simulation has ended.
 *
 * A restarted worker or shard gets fresh semaphores: the old ones may still hold the acquisition
 * of an actor that died waiting on them, and releasing them could wake it. So they cannot be
 * destroyed at the restart; they stay in the run's set, and sem_set_release destroys every one
 * after simgrid_run has returned (no actor is left to wait on any of them).
 */
#ifndef DMLSIM_SEMSET_H
#define DMLSIM_SEMSET_H

#include <simgrid/forward.h>

#include <stddef.h>

struct sem_set {
    sg_sem_t *sems; /* every semaphore created through the set (or handed to it) */
    size_t n, cap;
};

/* A new semaphore of `initial` capacity, owned by the set (zero-initialise the set first). */
sg_sem_t sem_set_new(struct sem_set *s, int initial);

/* Hands `sem` (created elsewhere) to the set, to be destroyed with it; NULL is ignored. */
void sem_set_adopt(struct sem_set *s, sg_sem_t sem);

/* Destroys every semaphore of the set (after simgrid_run) and empties it. */
void sem_set_release(struct sem_set *s);

#endif
