/* traffic.c - message and byte accounting per link class (see traffic.h). */
#include "traffic.h"

#include "route.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_CLASSES       32 /* distinct link classes in one platform */
#define MAX_ROUTE_CLASSES 8  /* distinct classes on one route */

struct route_entry {
    sg_host_t a, b;                       /* key; a == NULL for an empty slot */
    int n;                                /* classes on the route */
    unsigned char cls[MAX_ROUTE_CLASSES]; /* indices into traffic.names */
};

struct traffic {
    double messages;             /* messages recorded */
    double bytes;                /* bytes recorded */
    char names[MAX_CLASSES][32]; /* class names, in order of first use */
    double class_B[MAX_CLASSES]; /* bytes per class */
    size_t nclasses;             /* classes in use */
    struct route_entry *slots;   /* open-addressing cache of route classes */
    size_t nslots, used;         /* capacity (power of two) and entries */
};

struct traffic *traffic_new(void)
{
    struct traffic *t = xbt_new0(struct traffic, 1);
    t->nslots = 1024;
    t->slots = xbt_new0(struct route_entry, t->nslots);
    return t;
}

void traffic_free(struct traffic *t)
{
    if (t == NULL) return;
    free(t->slots);
    free(t);
}

static size_t slot_of(const struct traffic *t, sg_host_t a, sg_host_t b)
{
    uint64_t h = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uintptr_t)b;
    h ^= h >> 29;
    return (size_t)(h & (t->nslots - 1));
}

static int class_index(struct traffic *t, const char *name)
{
    for (size_t i = 0; i < t->nclasses; i++)
        if (strcmp(t->names[i], name) == 0) return (int)i;
    if (t->nclasses == MAX_CLASSES) return (int)MAX_CLASSES - 1; /* lump the rest together */
    snprintf(t->names[t->nclasses], sizeof t->names[0], "%s", name);
    return (int)t->nclasses++;
}

static void grow(struct traffic *t)
{
    struct route_entry *old = t->slots;
    size_t n = t->nslots;
    t->nslots *= 2;
    t->slots = xbt_new0(struct route_entry, t->nslots);
    for (size_t i = 0; i < n; i++) {
        if (old[i].a == NULL) continue;
        size_t s = slot_of(t, old[i].a, old[i].b);
        while (t->slots[s].a != NULL)
            s = (s + 1) & (t->nslots - 1);
        t->slots[s] = old[i];
    }
    free(old);
}

static const struct route_entry *lookup(struct traffic *t, sg_host_t a, sg_host_t b)
{
    size_t s = slot_of(t, a, b);
    while (t->slots[s].a != NULL) {
        if (t->slots[s].a == a && t->slots[s].b == b) return &t->slots[s];
        s = (s + 1) & (t->nslots - 1);
    }
    struct route_entry *e = &t->slots[s];
    e->a = a;
    e->b = b;
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(a, b, links);
    unsigned int i;
    sg_link_t link;
    char cls[64];
    xbt_dynar_foreach (links, i, link) {
        int c = class_index(t, route_link_class(sg_link_get_name(link), cls, sizeof cls));
        bool seen = false;
        for (int k = 0; k < e->n; k++)
            seen |= e->cls[k] == c;
        if (!seen && e->n < MAX_ROUTE_CLASSES) e->cls[e->n++] = (unsigned char)c;
    }
    xbt_dynar_free(&links);
    if (++t->used * 2 > t->nslots) {
        struct route_entry copy = *e;
        grow(t);
        return lookup(t, copy.a, copy.b);
    }
    return e;
}

void traffic_add(struct traffic *t, sg_host_t a, sg_host_t b, double size_B)
{
    const struct route_entry *e = lookup(t, a, b);
    t->messages += 1;
    t->bytes += size_B;
    for (int k = 0; k < e->n; k++)
        t->class_B[e->cls[k]] += size_B;
}

double traffic_messages(const struct traffic *t)
{
    return t->messages;
}

double traffic_bytes(const struct traffic *t)
{
    return t->bytes;
}

size_t traffic_nclasses(const struct traffic *t)
{
    return t->nclasses;
}

const char *traffic_class(const struct traffic *t, size_t i, double *bytes)
{
    *bytes = t->class_B[i];
    return t->names[i];
}

void traffic_merge(struct traffic *dst, const struct traffic *src)
{
    dst->messages += src->messages;
    dst->bytes += src->bytes;
    for (size_t i = 0; i < src->nclasses; i++)
        dst->class_B[class_index(dst, src->names[i])] += src->class_B[i];
}
