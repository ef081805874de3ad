/* order.c - the sampling order of the input pipeline (see order.h). */
#include "order.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

struct order_stream {
    long long *buf;   /* the buffered inputs (their places in the stream) */
    long long *out;   /* the last outputs: place t's input at out[t % ring] */
    int n;            /* inputs buffered */
    long long next_in;  /* place of the stream's next input */
    long long next_out; /* place of the next output */
    uint64_t rng;     /* SplitMix64 state */
};

uint64_t order_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A uniform integer in [0, n) (Lemire's multiply-shift: negligible bias for n << 2^64). */
static long long below(uint64_t *x, long long n)
{
    return (long long)(((unsigned __int128)order_splitmix(x) * (uint64_t)n) >> 64);
}

/* Worker r's shuffle buffer empty at the stream's start, its draws from the beginning. */
static void stream_restart(struct order *o, int r)
{
    struct order_stream *st = &o->streams[r];
    st->n = 0;
    st->next_in = st->next_out = 0;
    st->rng = o->seed * 0x9E3779B97F4A7C15ull + (uint64_t)r;
}

void order_init(struct order *o, enum data_shuffle kind, long long N, int P, int b,
                unsigned long seed, int K)
{
    *o = (struct order){.kind = kind, .N = N, .P = P, .b = b, .seed = seed, .K = K,
                        .epoch = {-1, -1}};
    if (kind != SHUFFLE_BUFFER) return;
    o->streams = mem_new0(struct order_stream, P);
    o->ring = 4 * b > 4096 ? 4 * b : 4096;
    for (int r = 0; r < P; r++) {
        o->streams[r].buf = mem_new(long long, K);
        o->streams[r].out = mem_new(long long, o->ring);
        stream_restart(o, r);
    }
}

void order_release(struct order *o)
{
    free(o->perm[0]);
    free(o->perm[1]);
    for (int r = 0; o->streams && r < o->P; r++) {
        free(o->streams[r].buf);
        free(o->streams[r].out);
    }
    free(o->streams);
    memset(o, 0, sizeof *o);
}

/* Epoch e's permutation (Fisher-Yates), kept with the previous one used (a batch may straddle
 * two epochs). */
static const long long *permutation(struct order *o, long long e)
{
    for (int i = 0; i < 2; i++)
        if (o->epoch[i] == e) return o->perm[i];
    int i = o->epoch[0] < o->epoch[1] ? 0 : 1; /* replace the older */
    if (o->perm[i] == NULL) o->perm[i] = mem_new(long long, o->N);
    long long *p = o->perm[i];
    for (long long k = 0; k < o->N; k++)
        p[k] = k;
    uint64_t x = o->seed * 0xD1B54A32D192ED03ull + (uint64_t)e;
    for (long long k = o->N - 1; k > 0; k--) {
        long long m = below(&x, k + 1), t = p[k];
        p[k] = p[m];
        p[m] = t;
    }
    o->epoch[i] = e;
    return p;
}

/* The slot of worker r's stream place u (its b-slot batches, position after position). */
static long long slot_of(const struct order *o, int r, long long u)
{
    return ((u / o->b) * o->P + r) * o->b + u % o->b;
}

/* Worker r's shuffle buffer at output place t: remembered if recent, else produced (from the
 * start again if t is older: a rollback); returns the stream place of output t. */
static long long buffered(struct order *o, int r, long long t)
{
    struct order_stream *st = &o->streams[r];
    if (t < st->next_out && t >= st->next_out - o->ring) return st->out[t % o->ring];
    if (t < st->next_out) stream_restart(o, r); /* the same draws again */
    long long u = 0;
    while (st->next_out <= t) {
        while (st->n < o->K) /* fill up from the stream */
            st->buf[st->n++] = st->next_in++;
        long long k = below(&st->rng, st->n);
        u = st->buf[k];
        st->buf[k] = st->next_in++;
        o->moved += (double)llabs(u - st->next_out);
        o->outputs += 1;
        st->out[st->next_out++ % o->ring] = u;
    }
    return u;
}

long long order_sample(struct order *o, int r, long long s, int j)
{
    switch (o->kind) {
    case SHUFFLE_EPOCH: {
        long long g = (s * o->P + r) * o->b + j;
        return permutation(o, g / o->N)[g % o->N];
    }
    case SHUFFLE_BUFFER:
        return slot_of(o, r, buffered(o, r, s * o->b + j)) % o->N;
    default:
        return ((s * o->P + r) * o->b + j) % o->N;
    }
}
