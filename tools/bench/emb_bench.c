/* emb_bench.c - CPU time per draw of sim/core/emb_ids's samplers and distinct-row counts.
 * For uniform and Zipf IDs over N rows, times `reps` counts of n draws each (emb_count: draw,
 * deduplicate, add per shard) and the same draws alone (emb_sample), and prints ns per draw,
 * the mean distinct rows and the closed form E[D] = sum_i 1 - (1 - p_i)^n beside it.
 *   emb_bench [N [n [s [reps [K]]]]]   (defaults: 4e7 1e6 1.0 10 8) */
#include "emb_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One table row of figures for sampler s. */
static void bench(const char *name, const struct emb_sampler *s, long n, int reps, int K)
{
    double *rows = calloc((size_t)K, sizeof *rows), *draws = calloc((size_t)K, sizeof *draws);
    struct emb_scratch sc = {0};
    emb_count(s, emb_stream(1, 0, -1, 0), n, K, EMB_SHARD_HASH, 0, rows, draws, NULL, &sc);
    for (int k = 0; k < K; k++) /* the warm-up's sums do not count */
        rows[k] = draws[k] = 0;
    double t0 = now_s();
    for (int r = 0; r < reps; r++)
        emb_count(s, emb_stream(1, 0, r, 0), n, K, EMB_SHARD_HASH, 0, rows, draws, NULL, &sc);
    double t1 = now_s();
    uint64_t sink = 0;
    for (int r = 0; r < reps; r++) {
        uint64_t x = emb_stream(1, 0, r, 0);
        for (long d = 0; d < n; d++)
            sink += emb_sample(s, &x);
    }
    double t2 = now_s(), distinct = 0;
    for (int k = 0; k < K; k++)
        distinct += rows[k];
    double per = (double)n * reps;
    printf("%8s %6.2f %12llu %9ld %10.1f %10.1f %12.1f %12.1f%s\n", name, s->s,
           (unsigned long long)s->rows, n, 1e9 * (t2 - t1) / per, 1e9 * (t1 - t0) / per,
           distinct / reps, emb_expect_distinct(s, (double)n, 0, s->rows), sink == 1 ? " " : "");
    emb_scratch_release(&sc);
    free(rows);
    free(draws);
}

int main(int argc, char **argv)
{
    uint64_t N = argc > 1 ? (uint64_t)strtod(argv[1], NULL) : 40000000;
    long n = argc > 2 ? (long)strtod(argv[2], NULL) : 1000000;
    double s = argc > 3 ? strtod(argv[3], NULL) : 1.0;
    int reps = argc > 4 ? atoi(argv[4]) : 10, K = argc > 5 ? atoi(argv[5]) : 8;
    if (N < 1 || n < 1 || !(s > 0) || reps < 1 || K < 1) {
        fprintf(stderr, "usage: emb_bench [N [n [s [reps [K]]]]]\n");
        return 1;
    }
    printf("# emb_bench: %d counts of n draws each, %d hash shards\n", reps, K);
    printf("#   dist      s         rows     draws     sample      count     distinct"
           "     expected\n");
    printf("#                                       (ns/draw)  (ns/draw)     (mean)"
           "       (E[D])\n");
    struct emb_sampler u, z;
    emb_sampler_init(&u, EMB_UNIFORM, N, 0, NULL, 0);
    emb_sampler_init(&z, EMB_ZIPF, N, s, NULL, 0);
    bench("uniform", &u, n, reps, K);
    bench("zipf", &z, n, reps, K);
    return 0;
}
