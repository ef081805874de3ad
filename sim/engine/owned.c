/* owned.c - allocations a run owns until it ends (see owned.h). */
#include "owned.h"

#include <xbt/sysdep.h>

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

struct owned_block {
    struct owned_block *prev, *next;
    alignas(max_align_t) unsigned char data[]; /* the caller's bytes */
};

void *owned_alloc(struct owned *o, size_t size)
{
    struct owned_block *b = xbt_malloc0(sizeof *b + size);
    b->next = o->head;
    if (o->head) o->head->prev = b;
    o->head = b;
    return b->data;
}

void owned_free(struct owned *o, void *p)
{
    if (p == NULL) return;
    struct owned_block *b =
            (struct owned_block *)((unsigned char *)p - offsetof(struct owned_block, data));
    if (b->prev)
        b->prev->next = b->next;
    else
        o->head = b->next;
    if (b->next) b->next->prev = b->prev;
    free(b);
}

void owned_release(struct owned *o)
{
    while (o->head)
        owned_free(o, o->head->data);
}
