/* semset.c - the semaphores of one run (see semset.h). */
#include "semset.h"

#include <simgrid/semaphore.h>
#include <xbt/sysdep.h>

#include <stdlib.h>

void sem_set_adopt(struct sem_set *s, sg_sem_t sem)
{
    if (sem == NULL) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->sems = xbt_realloc(s->sems, s->cap * sizeof *s->sems);
    }
    s->sems[s->n++] = sem;
}

sg_sem_t sem_set_new(struct sem_set *s, int initial)
{
    sg_sem_t sem = sg_sem_init(initial);
    sem_set_adopt(s, sem);
    return sem;
}

void sem_set_release(struct sem_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        sg_sem_destroy(s->sems[i]);
    free(s->sems);
    s->sems = NULL;
    s->n = s->cap = 0;
}
