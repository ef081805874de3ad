/* emb_ids.h - the IDs a batch looks up in an embedding table, and how many distinct rows they are.
 *
 * A recommendation model's sparse features are IDs (a user, an item, a category): each sample
 * looks up `pooling` rows of each table. A worker that pulls rows from a parameter server asks
 * only for the distinct rows of its batch (deduplicated), and pushes one gradient row for each;
 * how many that is decides the bytes of a sparse step. Three ID distributions:
 *   - uniform over the table's N rows;
 *   - Zipf with exponent s: ID i (0-based, 0 the hottest) has probability (i+1)^-s / H(N, s),
 *     H(N, s) = sum_{k=1..N} k^-s, drawn by rejection-inversion (Hoermann and Derflinger 1996,
 *     "Rejection-inversion to generate variates from monotone discrete distributions", ACM
 *     TOMACS 6(3)): O(1) per draw for any N, exact;
 *   - a file of IDs: each draw takes one of the file's IDs uniformly (the empirical distribution
 *     of a real trace).
 * The distinct rows are counted, never estimated: the draws of one (seed, worker, iteration,
 * table) are made and deduplicated in a hash set. Rows are placed on K shards by hash
 * (splitmix64 of the ID, mod K: hot rows spread) or by range (contiguous blocks of ceil(N / K)
 * IDs: the hottest Zipf IDs all on shard 0).
 *
 * The closed form that tests check the counts against (the birthday problem's occupancy): n
 * independent draws touch E[D] = sum_i (1 - (1 - p_i)^n) distinct rows; uniform: N (1 - (1 -
 * 1/N)^n).
 */
#ifndef DMLSIM_EMB_IDS_H
#define DMLSIM_EMB_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum emb_dist { EMB_UNIFORM, EMB_ZIPF, EMB_FILE };

enum emb_shard { EMB_SHARD_HASH, EMB_SHARD_RANGE };

/* How one table's IDs are drawn (plain data; emb_sampler_init fills the constants). */
struct emb_sampler {
    enum emb_dist dist;
    uint64_t rows;        /* N, 1 <= N < 2^41 (emb_count packs ID + 1 in 41 bits of a slot) */
    double s;             /* Zipf exponent, > 0 (1 included; tested over (0, 10]) */
    const uint64_t *file; /* EMB_FILE: the IDs (each < rows), not owned */
    size_t nfile;         /* ... and how many */
    double hx0, hn, sdiv; /* Zipf: rejection-inversion's constants */
};

/* Fills s for a table of `rows` rows. zipf_s is used by EMB_ZIPF, (file, nfile) by EMB_FILE. */
void emb_sampler_init(struct emb_sampler *s, enum emb_dist dist, uint64_t rows, double zipf_s,
                      const uint64_t *file, size_t nfile);

/* One ID in [0, rows), advancing the splitmix64 state *x. Uniform: Lemire's multiply-shift
 * with its rejection step, unbiased; Zipf: exact up to double rounding, about 2 splitmix64
 * outputs, 2 logarithms and 2 exponentials a draw (13 ns on the 2-core EPYC VM). */
uint64_t emb_sample(const struct emb_sampler *s, uint64_t *x);

/* The shard of `id` (< rows) among K >= 1: hash, the splitmix64 output function of the ID mod K
 * (stateless); range, id / ceil(rows / K). */
int emb_shard_of(uint64_t id, uint64_t rows, int K, enum emb_shard how);

/* A hash set of IDs reused across counts: start it zeroed ({0}); it grows to the smallest power
 * of two >= 2 min(n, rows) slots of 8 bytes (32 MiB at n = 2^21) and is all zero again after
 * each count; emb_scratch_release frees it. One per thread. */
struct emb_scratch {
    uint64_t *slot;
    size_t cap;
};

void emb_scratch_release(struct emb_scratch *sc);

/* Draws n IDs of one table from the stream `seed` (the first n emb_sample draws from the state
 * seed) and adds, for each shard k of K (1 <= K <= 2^23), the distinct rows among them to
 * rows[k] and the draws to draws[k] (adds: the arrays are not reset). Rows whose ID is below
 * `cached_ids` (a worker's cache of the hottest rows: Zipf IDs are ranked by popularity) are
 * added to cached[k] instead of rows[k] (cached may be NULL when cached_ids is 0). */
void emb_count(const struct emb_sampler *s, uint64_t seed, long n, int K, enum emb_shard how,
               uint64_t cached_ids, double *rows, double *draws, double *cached,
               struct emb_scratch *sc);

/* The expected distinct rows among n draws (the closed form above), over the IDs [lo, hi) (hi
 * is clipped to rows). Uniform: O(1). Zipf: ranges of up to 2^22 IDs summed exactly, longer ones
 * exactly up to rank 2^20 and beyond by the Euler-Maclaurin formula (a Gauss-Legendre integral
 * and the end corrections), within 1e-10 relative of the exact sum at N = 4e7; ~40 ms for any
 * N. File: from the file's sorted frequencies, O(nfile log nfile). */
double emb_expect_distinct(const struct emb_sampler *s, double n, uint64_t lo, uint64_t hi);

/* The stream of (seed, worker, iteration, table): the splitmix64 state emb_count starts from. */
uint64_t emb_stream(uint64_t seed, int worker, int iteration, int table);

/* Reads a file of IDs, one decimal integer per line ('#' starts a comment line). Returns 0 and
 * a new array (free with free) in *ids, *n; or -1 with a one-line reason in why ("line L: ...",
 * "cannot open: ...", "no IDs"). At most max_ids IDs; every ID must be < rows; blank lines and
 * spaces around an ID are allowed, lines over 254 characters are not. */
int emb_ids_load(const char *path, uint64_t rows, size_t max_ids, uint64_t **ids, size_t *n,
                 char *why, size_t len);

#endif
