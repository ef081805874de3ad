/* emb_ids.c - embedding-table IDs: samplers, row shards, distinct-row counts, their closed form.
 *
 * Zipf by rejection-inversion (W. Hoermann and G. Derflinger, "Rejection-inversion to generate
 * variates from monotone discrete distributions", ACM TOMACS 6(3), 1996, algorithm ZRI), in
 * the form that holds for every exponent s > 0 (the one Apache Commons RNG's
 * RejectionInversionZipfSampler documents): the hat h(x) = x^-s over [k - 1/2, k + 1/2] for
 * rank k >= 2 and a box of height h(1) = 1 for rank 1, with the hat's integral taken as
 * H(x) = (x^(1-s) - 1) / (1 - s), whose limit at s = 1 is log x. A uniform u over the hat's
 * area is inverted to x = H^-1(u), rounded to the rank k, and accepted where u falls in the
 * part of k's strip of width exactly h(k): every rank then has probability h(k) / area, exactly
 * the Zipf law. The squeeze k - x <= sdiv accepts most draws without evaluating H again.
 *
 * Distinct rows: an open-addressing hash set (linear probing, Fibonacci hashing, load <= 1/2)
 * keyed by id + 1 so that 0 is the empty slot; each slot also keeps the row's shard in its low
 * SHARD_BITS bits, so a repeated ID costs one probe and no shard computation. Draws are made in
 * batches of 64 whose slots are prefetched before any is probed: a set of a million rows is
 * larger than the caches, and the batch's misses overlap. A plain draw-and-probe loop was 3 to
 * 4 times slower (uniform, N = 4e7, n = 1e6, on the 2-core EPYC VM: 70 ns a draw, against 20
 * to 25 in batches of 32 or 64 and 50 in batches of 4, measured side by side). */
#include "emb_ids.h"

#include "mem.h"
#include "order.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN      0x9E3779B97F4A7C15ull /* 2^64 / golden ratio: splitmix64's increment */
#define SHARD_BITS  23                    /* a slot: (id + 1) << 23 | shard */
#define BATCH       64                    /* draws whose slots are prefetched together */
#define TAYLOR      1e-8                  /* below it, log1p(t)/t and expm1(t)/t by their series */
#define EXACT_TERMS (1ull << 22) /* emb_expect_distinct: sums this long are summed exactly */
#define HEAD_TERMS  (1ull << 20) /* ... longer ones exactly up to this rank, then by E-M */

/* ---- random numbers ------------------------------------------------------------------------ */

/* The splitmix64 output function (Steele, Lea and Flood 2014) of z: a stateless 64-bit mix. */
static uint64_t mix64(uint64_t z)
{
    z += GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A uniform integer in [0, n), n >= 1, unbiased: Lemire's multiply-shift with its rejection of
 * the 2^64 mod n low products that would favour some values ("Fast random integer generation in
 * an interval", ACM TOMACS 29(1), 2019). A rejection has probability < n / 2^64. */
static uint64_t below(uint64_t *x, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)order_splitmix(x) * n;
    if ((uint64_t)m < n) {
        uint64_t t = (0 - n) % n;
        for (int i = 0; i < 64 && (uint64_t)m < t; i++)
            m = (unsigned __int128)order_splitmix(x) * n;
    }
    return (uint64_t)(m >> 64);
}

/* A uniform double in [0, 1): the top 53 bits. */
static double unit(uint64_t *x)
{
    return (double)(order_splitmix(x) >> 11) * 0x1.0p-53;
}

/* ---- Zipf ---------------------------------------------------------------------------------- */

/* log1p(t) / t, 1 at t = 0. */
static double log1p_over(double t)
{
    if (fabs(t) > TAYLOR) return log1p(t) / t;
    return 1 - t * (0.5 - t * (1.0 / 3 - t * 0.25));
}

/* expm1(t) / t, 1 at t = 0. */
static double expm1_over(double t)
{
    if (fabs(t) > TAYLOR) return expm1(t) / t;
    return 1 + t * 0.5 * (1 + t / 3 * (1 + t * 0.25));
}

/* The hat h(x) = x^-s. */
static double zipf_h(double s, double x)
{
    return exp(-s * log(x));
}

/* H(x) = (x^(1-s) - 1) / (1 - s), log x at s = 1: the hat's integral from 1 to x. */
static double zipf_H(double s, double x)
{
    double lx = log(x);
    return expm1_over((1 - s) * lx) * lx;
}

/* H's inverse: (1 + (1 - s) u)^(1 / (1 - s)), exp(u) at s = 1. */
static double zipf_Hinv(double s, double u)
{
    double t = u * (1 - s);
    if (t < -1) t = -1; /* rounding below H's bound -1/(1-s) (x = 0) */
    return exp(log1p_over(t) * u);
}

/* One Zipf rank in [1, rows], as a double (exact up to 2^53). */
static double zipf_rank(const struct emb_sampler *z, uint64_t *x)
{
    double k = 1, n = (double)z->rows;
    /* Each try is accepted with probability 1 / (the hat's area), over 1/2 for every s: 64
     * rejections in a row never happen (< 2^-64). */
    for (int i = 0; i < 64; i++) {
        double u = z->hn + unit(x) * (z->hx0 - z->hn); /* (hx0, hn] */
        double xx = zipf_Hinv(z->s, u);
        k = floor(xx + 0.5);
        k = k < 1 ? 1 : k > n ? n : k;
        if (k - xx <= z->sdiv || u >= zipf_H(z->s, k + 0.5) - zipf_h(z->s, k)) break;
    }
    return k;
}

/* ---- samplers ------------------------------------------------------------------------------ */

void emb_sampler_init(struct emb_sampler *s, enum emb_dist dist, uint64_t rows, double zipf_s,
                      const uint64_t *file, size_t nfile)
{
    assert(rows >= 1 && rows < (1ull << (64 - SHARD_BITS)));
    *s = (struct emb_sampler){
            .dist = dist, .rows = rows, .s = zipf_s, .file = file, .nfile = nfile};
    if (dist == EMB_ZIPF) {
        assert(zipf_s > 0 && zipf_s <= 64);
        s->hx0 = zipf_H(zipf_s, 1.5) - 1;           /* rank 1's box: [hx0, H(3/2)], area 1 */
        s->hn = zipf_H(zipf_s, (double)rows + 0.5); /* the hat's end */
        s->sdiv = 2 - zipf_Hinv(zipf_s, zipf_H(zipf_s, 2.5) - zipf_h(zipf_s, 2));
    }
    assert(dist != EMB_FILE || (file != NULL && nfile > 0));
}

uint64_t emb_sample(const struct emb_sampler *s, uint64_t *x)
{
    switch (s->dist) {
    case EMB_ZIPF:
        return (uint64_t)zipf_rank(s, x) - 1;
    case EMB_FILE:
        return s->file[below(x, s->nfile)];
    case EMB_UNIFORM:
    default:
        return below(x, s->rows);
    }
}

int emb_shard_of(uint64_t id, uint64_t rows, int K, enum emb_shard how)
{
    assert(K >= 1 && id < rows);
    if (K == 1) return 0;
    if (how == EMB_SHARD_RANGE) return (int)(id / ((rows + (uint64_t)K - 1) / (uint64_t)K));
    return (int)(mix64(id) % (uint64_t)K);
}

uint64_t emb_stream(uint64_t seed, int worker, int iteration, int table)
{
    uint64_t h = mix64(seed);
    h = mix64(h ^ (uint32_t)worker);
    h = mix64(h ^ (uint32_t)iteration);
    return mix64(h ^ (uint32_t)table);
}

/* ---- distinct rows ------------------------------------------------------------------------- */

void emb_scratch_release(struct emb_scratch *sc)
{
    free(sc->slot);
    *sc = (struct emb_scratch){0};
}

/* What one count adds to: the per-shard sums and the set's geometry. */
struct tally {
    const struct emb_sampler *s;
    int K;
    enum emb_shard how;
    uint64_t cached_ids;
    double *rows, *draws, *cached;
    uint64_t *slot;
    uint64_t mask; /* used slots - 1 */
    int shift;     /* 64 - log2(used slots): Fibonacci hashing's shift */
};

/* Adds the draw of `id`, whose home slot is h, to t: its shard's draw, and its row if new. */
static void tally_add(struct tally *t, uint64_t id, uint64_t h)
{
    uint64_t key = id + 1;
    for (uint64_t probe = 0; probe <= t->mask; probe++, h = (h + 1) & t->mask) {
        uint64_t v = t->slot[h];
        if (v == 0) {
            int k = emb_shard_of(id, t->s->rows, t->K, t->how);
            t->slot[h] = key << SHARD_BITS | (uint64_t)k;
            if (id < t->cached_ids)
                t->cached[k] += 1;
            else
                t->rows[k] += 1;
            t->draws[k] += 1;
            return;
        }
        if (v >> SHARD_BITS == key) {
            t->draws[v & ((1u << SHARD_BITS) - 1)] += 1;
            return;
        }
    }
    assert(!"emb_count: the hash set is full");
}

/* The scratch with at least `used` slots, all 0 (they are 0 between counts). */
static void scratch_reserve(struct emb_scratch *sc, size_t used)
{
    if (sc->cap >= used) return;
    free(sc->slot);
    sc->slot = mem_calloc(used, sizeof *sc->slot);
    sc->cap = used;
}

void emb_count(const struct emb_sampler *s, uint64_t seed, long n, int K, enum emb_shard how,
               uint64_t cached_ids, double *rows, double *draws, double *cached,
               struct emb_scratch *sc)
{
    assert(K >= 1 && K <= (1 << SHARD_BITS) && (cached_ids == 0 || cached != NULL));
    if (n <= 0) return;
    /* At most min(n, rows) distinct IDs: twice as many slots keeps the load <= 1/2. */
    uint64_t most = (uint64_t)n < s->rows ? (uint64_t)n : s->rows;
    int bits = 6;
    while ((1ull << bits) < 2 * most)
        bits++;
    scratch_reserve(sc, (size_t)1 << bits);
    struct tally t = {.s = s,
                      .K = K,
                      .how = how,
                      .cached_ids = cached_ids,
                      .rows = rows,
                      .draws = draws,
                      .cached = cached,
                      .slot = sc->slot,
                      .mask = (1ull << bits) - 1,
                      .shift = 64 - bits};
    uint64_t x = seed, id[BATCH], h[BATCH];
    for (long done = 0; done < n; done += BATCH) {
        int m = n - done < BATCH ? (int)(n - done) : BATCH;
        for (int j = 0; j < m; j++) {
            id[j] = emb_sample(s, &x);
            h[j] = ((id[j] + 1) * GOLDEN) >> t.shift;
            __builtin_prefetch(&t.slot[h[j]], 1);
        }
        for (int j = 0; j < m; j++)
            tally_add(&t, id[j], h[j]);
    }
    memset(sc->slot, 0, sizeof *sc->slot << bits);
}

/* ---- the closed form ----------------------------------------------------------------------- */

/* 1 - (1 - p)^n: the probability that n draws touch a row of probability p. */
static double touched(double p, double n)
{
    return p >= 1 ? 1 : -expm1(n * log1p(-p));
}

/* A Zipf term f(k) of rank k: with n = 0, k^-s (H(N, s)'s terms); else the probability that n
 * draws touch rank k, of probability c k^-s (c = 1 / H(N, s)). */
struct zterm {
    double s, c, n;
};

static double zterm_f(const struct zterm *z, double k)
{
    double h = zipf_h(z->s, k);
    return z->n == 0 ? h : touched(z->c * h, z->n);
}

/* df/dk: -s k^-s / k; with draws, n (1 - p)^(n-1) dp/dk. */
static double zterm_df(const struct zterm *z, double k)
{
    double h = zipf_h(z->s, k), dh = -z->s * h / k;
    if (z->n == 0) return dh;
    double p = z->c * h;
    return p >= 1 ? 0 : z->n * exp((z->n - 1) * log1p(-p)) * z->c * dh;
}

/* The integral of f over [a, b], a >= 1: x = e^t, composite 5-point Gauss-Legendre over panels
 * of 0.05 in t (f varies on a scale of 1/s >= 0.1 in t; the rule's error is ~ (0.05 s)^10 / 10!
 * of a panel's integral). */
static double zterm_integral(const struct zterm *z, double a, double b)
{
    static const double node[5] = {0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640,
                                   0.9061798459386640};
    static const double weight[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                     0.2369268850561891, 0.2369268850561891};
    double ta = log(a), tb = log(b), sum = 0;
    long panels = (long)ceil((tb - ta) / 0.05);
    double w = (tb - ta) / (double)panels;
    for (long i = 0; i < panels; i++) {
        double mid = ta + (i + 0.5) * w;
        for (int j = 0; j < 5; j++) {
            double x = exp(mid + 0.5 * w * node[j]);
            sum += weight[j] * zterm_f(z, x) * x;
        }
    }
    return 0.5 * w * sum;
}

/* sum_{k=a..b} f(k), a <= b: exactly below HEAD_TERMS (or for short ranges), the rest by the
 * Euler-Maclaurin formula: the integral + (f(a) + f(b))/2 + (f'(b) - f'(a))/12; the next term,
 * (f'''(b) - f'''(a))/720, is of relative size ~ s^3 / a^3 < 1e-15 at a >= 2^20. */
static double zterm_sum(const struct zterm *z, uint64_t a, uint64_t b)
{
    double sum = 0;
    uint64_t head_end = b - a < EXACT_TERMS ? b : a > HEAD_TERMS ? a - 1 : HEAD_TERMS;
    for (uint64_t k = head_end; k >= a && k > 0; k--) /* the smallest first */
        sum += zterm_f(z, (double)k);
    if (head_end < b) {
        double lo = (double)(head_end + 1), hi = (double)b;
        sum += zterm_integral(z, lo, hi) + 0.5 * (zterm_f(z, lo) + zterm_f(z, hi)) +
               (zterm_df(z, hi) - zterm_df(z, lo)) / 12;
    }
    return sum;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The file's empirical law: each distinct ID in [lo, hi), of frequency c / nfile. */
static double file_expect(const struct emb_sampler *s, double n, uint64_t lo, uint64_t hi)
{
    uint64_t *v = mem_new(uint64_t, s->nfile);
    memcpy(v, s->file, s->nfile * sizeof *v);
    qsort(v, s->nfile, sizeof *v, cmp_u64);
    double sum = 0;
    for (size_t i = 0, j; i < s->nfile; i = j) {
        for (j = i + 1; j < s->nfile && v[j] == v[i]; j++)
            ;
        if (v[i] >= lo && v[i] < hi) sum += touched((double)(j - i) / (double)s->nfile, n);
    }
    free(v);
    return sum;
}

double emb_expect_distinct(const struct emb_sampler *s, double n, uint64_t lo, uint64_t hi)
{
    if (hi > s->rows) hi = s->rows;
    if (lo >= hi || n <= 0) return 0;
    switch (s->dist) {
    case EMB_ZIPF: {
        struct zterm norm = {.s = s->s};
        struct zterm z = {.s = s->s, .c = 1 / zterm_sum(&norm, 1, s->rows), .n = n};
        return zterm_sum(&z, lo + 1, hi); /* ID i is rank i + 1 */
    }
    case EMB_FILE:
        return file_expect(s, n, lo, hi);
    case EMB_UNIFORM:
    default:
        return (double)(hi - lo) * touched(1 / (double)s->rows, n);
    }
}

/* ---- ID files ------------------------------------------------------------------------------ */

/* One line of an ID file: 1 and *id for an ID, 0 for a blank or comment line, -1 and a reason
 * in why for anything else. */
static int parse_line(char *line, uint64_t rows, uint64_t *id, char *why, size_t len)
{
    char *p = line, *end;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0' || *p == '#') return 0;
    for (end = p + strlen(p); end > p && isspace((unsigned char)end[-1]); end--)
        ;
    *end = '\0';
    errno = 0;
    unsigned long long v = isdigit((unsigned char)*p) ? strtoull(p, &end, 10) : 0;
    if (!isdigit((unsigned char)*p) || *end != '\0' || errno == ERANGE) {
        snprintf(why, len, "'%.40s' is not an ID; expected a decimal integer in [0, %llu)", p,
                 (unsigned long long)rows);
        return -1;
    }
    if (v >= rows) {
        snprintf(why, len, "ID %llu is not below the table's %llu rows", v,
                 (unsigned long long)rows);
        return -1;
    }
    *id = v;
    return 1;
}

/* Reads f's IDs into *ids, *n (grown as needed); 0, or -1 and "line L: why". */
static int read_ids(FILE *f, uint64_t rows, size_t max_ids, uint64_t **ids, size_t *n, char *why,
                    size_t len)
{
    char line[256], reason[200];
    size_t cap = 0;
    for (long ln = 1; fgets(line, sizeof line, f) != NULL; ln++) {
        uint64_t id;
        int r = -1;
        if (strchr(line, '\n') == NULL && !feof(f))
            snprintf(reason, sizeof reason, "longer than %zu characters", sizeof line - 2);
        else
            r = parse_line(line, rows, &id, reason, sizeof reason);
        if (r == 1 && *n >= max_ids) {
            snprintf(reason, sizeof reason, "more than %zu IDs, the most a file may hold", max_ids);
            r = -1;
        }
        if (r < 0) {
            snprintf(why, len, "line %ld: %s", ln, reason);
            return -1;
        }
        if (r == 1) {
            if (*n == cap) *ids = mem_realloc(*ids, (cap = cap ? 2 * cap : 1024) * sizeof **ids);
            (*ids)[(*n)++] = id;
        }
    }
    return 0;
}

int emb_ids_load(const char *path, uint64_t rows, size_t max_ids, uint64_t **ids, size_t *n,
                 char *why, size_t len)
{
    *ids = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, len, "cannot open: %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = read_ids(f, rows, max_ids, ids, n, why, len);
    if (rc == 0 && ferror(f)) {
        snprintf(why, len, "cannot read: %s: %s", path, strerror(errno));
        rc = -1;
    } else if (rc == 0 && *n == 0) {
        snprintf(why, len, "no IDs");
        rc = -1;
    }
    fclose(f);
    if (rc != 0) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}
