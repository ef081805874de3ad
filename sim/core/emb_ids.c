/* emb_ids.c - embedding-table IDs and distinct rows (see emb_ids.h): TEMPORARY STUB. */
#include "emb_ids.h"

#include "order.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void emb_sampler_init(struct emb_sampler *s, enum emb_dist dist, uint64_t rows, double zipf_s,
                      const uint64_t *file, size_t nfile)
{
    memset(s, 0, sizeof *s);
    s->dist = dist;
    s->rows = rows;
    s->s = zipf_s;
    s->file = file;
    s->nfile = nfile;
}

uint64_t emb_sample(const struct emb_sampler *s, uint64_t *x)
{
    return (uint64_t)(((unsigned __int128)order_splitmix(x) * s->rows) >> 64);
}

int emb_shard_of(uint64_t id, uint64_t rows, int K, enum emb_shard how)
{
    if (how == EMB_SHARD_RANGE) return (int)(id / ((rows + (uint64_t)K - 1) / (uint64_t)K));
    uint64_t x = id;
    return (int)(order_splitmix(&x) % (uint64_t)K);
}

void emb_scratch_release(struct emb_scratch *sc)
{
    free(sc->slot);
    sc->slot = NULL;
    sc->cap = 0;
}

void emb_count(const struct emb_sampler *s, uint64_t seed, long n, int K, enum emb_shard how,
               uint64_t cached_ids, double *rows, double *draws, double *cached,
               struct emb_scratch *sc)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    if (sc->cap < cap) {
        free(sc->slot);
        sc->slot = calloc(cap, sizeof *sc->slot);
        sc->cap = cap;
    }
    memset(sc->slot, 0, cap * sizeof *sc->slot);
    uint64_t x = seed;
    for (long i = 0; i < n; i++) {
        uint64_t id = emb_sample(s, &x), h = id * 0x9E3779B97F4A7C15ull;
        int k = emb_shard_of(id, s->rows, K, how);
        draws[k] += 1;
        size_t j = (size_t)(h >> 20) & (cap - 1);
        while (sc->slot[j] != 0 && sc->slot[j] != id + 1)
            j = (j + 1) & (cap - 1);
        if (sc->slot[j] != 0) continue;
        sc->slot[j] = id + 1;
        if (id < cached_ids)
            cached[k] += 1;
        else
            rows[k] += 1;
    }
}

double emb_expect_distinct(const struct emb_sampler *s, double n, uint64_t lo, uint64_t hi)
{
    (void)s;
    (void)n;
    return (double)(hi - lo);
}

uint64_t emb_stream(uint64_t seed, int worker, int iteration, int table)
{
    uint64_t x = seed ^ ((uint64_t)worker << 40) ^ ((uint64_t)iteration << 16) ^ (uint64_t)table;
    return order_splitmix(&x);
}

int emb_ids_load(const char *path, uint64_t rows, size_t max_ids, uint64_t **ids, size_t *n,
                 char *why, size_t len)
{
    (void)path;
    (void)rows;
    (void)max_ids;
    *ids = NULL;
    *n = 0;
    snprintf(why, len, "not implemented");
    return -1;
}
