/* owned.h - allocations a run owns until it ends. A message in flight, or in the hands of an actor
 * a crash kills, would never be freed by the protocol that made it; so each is tracked from its
 * allocation to its free, and owned_release frees whatever is left when the run is over. */
#ifndef DMLSIM_OWNED_H
#define DMLSIM_OWNED_H

#include <stddef.h>

struct owned_block;

struct owned {
    struct owned_block *head; /* the blocks not yet freed; zero-initialised: empty */
};

/* A zeroed block of `size` bytes (suitably aligned for any type), tracked by o. */
void *owned_alloc(struct owned *o, size_t size);

/* Frees a block of o (NULL: nothing). */
void owned_free(struct owned *o, void *p);

/* Frees every block o still tracks. */
void owned_release(struct owned *o);

#endif
