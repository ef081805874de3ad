/* check_emb_ids.c - embedding-table IDs (sim/core/emb_ids.h): the Zipf sampler's frequencies
 * against the law p_i = (i+1)^-s / H(N, s); distinct-row counts over many seeds against the
 * occupancy closed form E[D] = sum_i (1 - (1 - p_i)^n), computed here for uniform (N (1 - (1 -
 * 1/N)^n)), small Zipf tables and files by direct loops; emb_expect_distinct's Euler-Maclaurin
 * tail against direct sums and harmonic-number asymptotics; range and hash shards, cached rows
 * and deduplication against a recount by a bitmap; ID files and their errors; determinism. */
#include "emb_ids.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EULER_GAMMA 0.57721566490153286
#define PI          3.14159265358979324

/* sum_{k=1..N} k^-s by a direct loop, the smallest terms first. */
static double harmonic(double N, double s)
{
    double h = 0;
    for (double k = N; k >= 1; k--)
        h += pow(k, -s);
    return h;
}

/* The occupancy closed form for Zipf(N, s) over all N IDs, by a direct loop:
 * E[D] = sum_{k=1..N} 1 - (1 - k^-s / H(N, s))^n. */
static double zipf_expect_direct(double N, double s, double n)
{
    double H = harmonic(N, s), e = 0;
    for (double k = N; k >= 1; k--)
        e += -expm1(n * log1p(-pow(k, -s) / H));
    return e;
}

/* The mean and its standard error of the distinct rows of n draws over `seeds` seeds. */
static double mean_distinct(const struct emb_sampler *s, long n, int seeds, double *se)
{
    struct emb_scratch sc = {0};
    double sum = 0, sum2 = 0;
    for (int i = 0; i < seeds; i++) {
        double rows = 0, draws = 0;
        emb_count(s, emb_stream(42, i, 0, 0), n, 1, EMB_SHARD_HASH, 0, &rows, &draws, NULL, &sc);
        ck_assert_double_eq(draws, (double)n);
        sum += rows;
        sum2 += rows * rows;
    }
    emb_scratch_release(&sc);
    double mean = sum / seeds, var = (sum2 - seeds * mean * mean) / (seeds - 1);
    *se = sqrt(var > 0 ? var / seeds : 0);
    return mean;
}

/* The mean distinct count within 5 standard errors of e (6 under 30 seeds: Student's t; and
 * 1e-9 relative, for rounding). */
static void check_mean(const struct emb_sampler *s, long n, int seeds, double e)
{
    double se, m = mean_distinct(s, n, seeds, &se);
    ck_assert_msg(fabs(m - e) <= (seeds < 30 ? 6 : 5) * se + 1e-9 * e,
                  "N %llu s %g n %ld: mean distinct %.3f, expected %.3f (se %.3f)",
                  (unsigned long long)s->rows, s->s, n, m, e, se);
}

START_TEST(test_uniform_counts)
{
    static const struct {
        double N;
        long n;
        int seeds;
    } c[] = {{1e3, 1000, 200}, {1e6, 100000, 100}, {4e7, 1000000, 8}};
    for (int i = 0; i < 3; i++) {
        struct emb_sampler s;
        emb_sampler_init(&s, EMB_UNIFORM, (uint64_t)c[i].N, 0, NULL, 0);
        double e = c[i].N * (1 - pow(1 - 1 / c[i].N, (double)c[i].n)); /* N (1 - (1 - 1/N)^n) */
        /* pow(1 - 1/N, n) loses ~n eps relative of q = (1 - 1/N)^n: e to ~1e-9 */
        ck_assert_double_eq_tol(emb_expect_distinct(&s, (double)c[i].n, 0, s.rows), e, 1e-7 * e);
        check_mean(&s, c[i].n, c[i].seeds, e);
    }
}
END_TEST

/* Zipf counts over N = 1e3, 1e6, 4e7 and s = 0.8, 1, 1.2 against the closed form: the direct
 * loop here for N <= 1e6, emb_expect_distinct for 4e7 (checked against direct loops below). */
START_TEST(test_zipf_counts)
{
    static const double S[] = {0.8, 1.0, 1.2};
    static const struct {
        double N;
        long n;
        int seeds;
    } c[] = {{1e3, 1000, 200}, {1e6, 100000, 40}, {4e7, 1000000, 10}};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            struct emb_sampler s;
            emb_sampler_init(&s, EMB_ZIPF, (uint64_t)c[i].N, S[j], NULL, 0);
            double e = emb_expect_distinct(&s, (double)c[i].n, 0, s.rows);
            if (c[i].N <= 1e6) {
                double d = zipf_expect_direct(c[i].N, S[j], (double)c[i].n);
                ck_assert_double_eq_tol(e, d, 1e-9 * d);
            }
            check_mean(&s, c[i].n, c[i].seeds, e);
        }
}
END_TEST

/* The Euler-Maclaurin tail (ranks above 2^20) against direct loops over N = 6e6: the whole
 * table and a range [lo, hi) that starts in the tail. */
START_TEST(test_expect_tail)
{
    static const double S[] = {0.6, 1.0, 1.3};
    const double N = 6e6, n = 3e7; /* where 1 - (1 - p)^n turns over: rank ~1e6 to 1e7 at s <= 1 */
    for (int j = 0; j < 3; j++) {
        struct emb_sampler s;
        emb_sampler_init(&s, EMB_ZIPF, (uint64_t)N, S[j], NULL, 0);
        double H = harmonic(N, S[j]), all = 0, part = 0;
        for (double k = N; k >= 1; k--) {
            double t = -expm1(n * log1p(-pow(k, -S[j]) / H));
            all += t;
            if (k > 1.5e6) part += t; /* IDs [1.5e6, 6e6): all by E-M */
        }
        ck_assert_double_eq_tol(emb_expect_distinct(&s, n, 0, s.rows), all, 1e-7 * all);
        ck_assert_double_eq_tol(emb_expect_distinct(&s, n, 1500000, 6000000), part, 1e-7 * part);
    }
}
END_TEST

/* One draw touches one row: E[D] at n = 1 is the law's mass, 1 over all IDs and H(m, s) / H(N,
 * s) over the m hottest; at N = 2^40 H comes from its asymptotics: H(N, 1) = ln N + gamma +
 * 1/(2N) - ..., H(N, 2) = pi^2/6 - 1/N + 1/(2N^2) - ... */
START_TEST(test_expect_mass)
{
    static const double S[] = {0.3, 0.8, 1.0, 1.2, 2.0, 5.0, 10.0};
    static const uint64_t N[] = {1, 1000, 10000000, 1ull << 40};
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 4; i++) {
            struct emb_sampler s;
            emb_sampler_init(&s, EMB_ZIPF, N[i], S[j], NULL, 0);
            ck_assert_double_eq_tol(emb_expect_distinct(&s, 1, 0, N[i]), 1, 1e-9);
        }
    double N40 = 0x1p40, h10_1 = harmonic(10, 1), h10_2 = harmonic(10, 2);
    struct emb_sampler s;
    emb_sampler_init(&s, EMB_ZIPF, 1ull << 40, 1.0, NULL, 0);
    ck_assert_double_eq_tol(emb_expect_distinct(&s, 1, 0, 10),
                            h10_1 / (log(N40) + EULER_GAMMA + 0.5 / N40), 1e-10);
    emb_sampler_init(&s, EMB_ZIPF, 1ull << 40, 2.0, NULL, 0);
    ck_assert_double_eq_tol(emb_expect_distinct(&s, 1, 0, 10), h10_2 / (PI * PI / 6 - 1 / N40),
                            1e-10);
    emb_sampler_init(&s, EMB_UNIFORM, 1ull << 40, 0, NULL, 0); /* and uniform: m / N */
    ck_assert_double_eq_tol(emb_expect_distinct(&s, 1, 5, 1005), 1000 / N40, 1e-20);
}
END_TEST

/* Pearson's chi-square of `draws` Zipf draws against the law p(i) = (i+1)^-s / H: IDs 0..19
 * each, then decades [20, 100), [100, 1000), ..., the last up to N; bins expecting fewer than 20
 * draws are merged into the next. H is the caller's (a direct loop or asymptotics). */
static double zipf_chi2(uint64_t N, double s, double H, long draws, int *dof)
{
    double edge[64], count[64] = {0}, chi2 = 0;
    int nb = 0;
    for (uint64_t e = 1; e <= 20 && e < N; e++)
        edge[nb++] = (double)e;
    for (double e = 100; e < (double)N; e *= 10)
        edge[nb++] = e;
    edge[nb++] = (double)N; /* bin b: IDs [edge[b-1], edge[b]) */
    struct emb_sampler z;
    emb_sampler_init(&z, EMB_ZIPF, N, s, NULL, 0);
    uint64_t x = 12345, max_id = 0;
    for (long d = 0; d < draws; d++) { /* (no ck_assert here: each one writes to a pipe) */
        uint64_t id = emb_sample(&z, &x);
        max_id = id > max_id ? id : max_id;
        if (id >= N) break;
        int b = 0;
        while ((double)id >= edge[b])
            b++;
        count[b]++;
    }
    ck_assert_uint_lt(max_id, N);
    double obs = 0, expct = 0, lo = 0;
    *dof = -1;
    for (int b = 0; b < nb; b++) {
        /* mass of IDs [lo, edge[b]) = ranks lo+1..edge: summed directly up to 1e6 ranks, the
         * rest by the integral of x^-s over [lo + 1/2, edge + 1/2] (error ~ s / (24 lo^2)) */
        double m = 0;
        if (edge[b] <= 1e6)
            for (double k = edge[b]; k > lo; k--)
                m += pow(k, -s);
        else
            m = (s == 1 ? log((edge[b] + 0.5) / (lo + 0.5))
                        : (pow(edge[b] + 0.5, 1 - s) - pow(lo + 0.5, 1 - s)) / (1 - s));
        obs += count[b];
        expct += draws * m / H;
        lo = edge[b];
        if (expct >= 20 || b == nb - 1) {
            chi2 += (obs - expct) * (obs - expct) / expct;
            obs = expct = 0;
            ++*dof;
        }
    }
    return chi2;
}

START_TEST(test_zipf_frequencies)
{
    static const double S[] = {0.01, 0.5, 0.8, 1.0, 1.2, 2.0, 10.0};
    for (int j = 0; j < 7; j++) {
        int dof;
        double chi2 = zipf_chi2(1000000, S[j], harmonic(1e6, S[j]), 1000000, &dof);
        /* the 1e-6 quantile of chi-square(dof) < dof + 11 sqrt(dof) for dof <= 30 */
        ck_assert_msg(chi2 < dof + 11 * sqrt(dof) + 15, "s %g: chi2 %.1f on %d dof", S[j], chi2,
                      dof);
    }
    /* N = 2^40 with H from its asymptotics (test_expect_mass) */
    int dof;
    double N40 = 0x1p40;
    double c1 = zipf_chi2(1ull << 40, 1.0, log(N40) + EULER_GAMMA + 0.5 / N40, 1000000, &dof);
    ck_assert_msg(c1 < dof + 11 * sqrt(dof) + 15, "N 2^40 s 1: chi2 %.1f on %d dof", c1, dof);
    double c2 = zipf_chi2(1ull << 40, 2.0, PI * PI / 6 - 1 / N40, 1000000, &dof);
    ck_assert_msg(c2 < dof + 11 * sqrt(dof) + 15, "N 2^40 s 2: chi2 %.1f on %d dof", c2, dof);
    struct emb_sampler one; /* one row: always ID 0 */
    emb_sampler_init(&one, EMB_ZIPF, 1, 1.1, NULL, 0);
    uint64_t x = 1;
    for (int d = 0; d < 1000; d++)
        ck_assert_uint_eq(emb_sample(&one, &x), 0);
}
END_TEST

/* emb_count against a recount: the same draws (the first n of emb_sample from the state seed),
 * deduplicated by a bitmap; shards by range computed here (ID / ceil(N / K)) or by emb_shard_of;
 * IDs below `cached_ids` to cached[]. */
static void check_recount(const struct emb_sampler *s, long n, int K, enum emb_shard how,
                          uint64_t cached_ids, struct emb_scratch *sc)
{
    double rows[16] = {0}, draws[16] = {0}, cached[16] = {0};
    double erows[16] = {0}, edraws[16] = {0}, ecached[16] = {0};
    uint64_t seed = emb_stream(7, 1, 2, 3), x = seed, block = (s->rows + K - 1) / K;
    unsigned char *seen = calloc(s->rows, 1);
    for (long d = 0; d < n; d++) {
        uint64_t id = emb_sample(s, &x);
        int k = how == EMB_SHARD_RANGE ? (int)(id / block) : emb_shard_of(id, s->rows, K, how);
        edraws[k]++;
        if (!seen[id]) (id < cached_ids ? ecached : erows)[k]++;
        seen[id] = 1;
    }
    free(seen);
    emb_count(s, seed, n, K, how, cached_ids, rows, draws, cached, sc);
    for (int k = 0; k < K; k++) {
        ck_assert_double_eq(rows[k], erows[k]);
        ck_assert_double_eq(draws[k], edraws[k]);
        ck_assert_double_eq(cached[k], ecached[k]);
    }
}

START_TEST(test_shards_and_cache)
{
    ck_assert_int_eq(emb_shard_of(250, 1001, 4, EMB_SHARD_RANGE), 0); /* ceil(1001/4) = 251 */
    ck_assert_int_eq(emb_shard_of(251, 1001, 4, EMB_SHARD_RANGE), 1);
    ck_assert_int_eq(emb_shard_of(1000, 1001, 4, EMB_SHARD_RANGE), 3);
    ck_assert_int_eq(emb_shard_of(2, 3, 8, EMB_SHARD_RANGE), 2); /* fewer rows than shards */
    struct emb_scratch sc = {0};
    struct emb_sampler z, u;
    emb_sampler_init(&z, EMB_ZIPF, 100000, 1.1, NULL, 0);
    emb_sampler_init(&u, EMB_UNIFORM, 100000, 0, NULL, 0);
    for (int how = EMB_SHARD_HASH; how <= EMB_SHARD_RANGE; how++)
        for (uint64_t cache = 0; cache <= 100000; cache += 50000) {
            check_recount(&z, 200000, 4, how, cache + 50 * (cache == 0), &sc);
            check_recount(&u, 30000, 7, how, cache, &sc);
        }
    /* range: every draw of the hottest ceil(N/K) IDs is on shard 0 (a Zipf table's hot shard) */
    double rows[4] = {0}, draws[4] = {0};
    emb_count(&z, 99, 100000, 4, EMB_SHARD_RANGE, 0, rows, draws, NULL, &sc);
    uint64_t x = 99;
    long hot = 0;
    for (long d = 0; d < 100000; d++)
        hot += emb_sample(&z, &x) < 25000;
    ck_assert_double_eq(draws[0], (double)hot);
    ck_assert_double_gt(draws[0], 0.8 * 100000);
    emb_scratch_release(&sc);
}
END_TEST

/* Hash shards spread a uniform table's draws as a multinomial (n, 1/K): each within 5 sigma. */
START_TEST(test_hash_spreads)
{
    enum { K = 8 };
    struct emb_sampler u;
    emb_sampler_init(&u, EMB_UNIFORM, 1000000, 0, NULL, 0);
    double rows[K] = {0}, draws[K] = {0}, n = 1e6, sigma = sqrt(n / K * (1 - 1.0 / K));
    struct emb_scratch sc = {0};
    emb_count(&u, 5, (long)n, K, EMB_SHARD_HASH, 0, rows, draws, NULL, &sc);
    for (int k = 0; k < K; k++)
        ck_assert_double_eq_tol(draws[k], n / K, 5 * sigma);
    /* and the hottest Zipf rows land on several shards, not one */
    int on[K] = {0}, shards = 0;
    for (uint64_t id = 0; id < 16; id++)
        on[emb_shard_of(id, 1000000, K, EMB_SHARD_HASH)] = 1;
    for (int k = 0; k < K; k++)
        shards += on[k];
    ck_assert_int_ge(shards, 4);
    emb_scratch_release(&sc);
}
END_TEST

/* Same stream, same counts; another stream, other counts; a reused scratch (after a larger
 * count) counts as a fresh one. */
START_TEST(test_determinism)
{
    struct emb_sampler z;
    emb_sampler_init(&z, EMB_ZIPF, 1000000, 0.9, NULL, 0);
    struct emb_scratch big = {0}, fresh = {0};
    double r1[3] = {0}, d1[3] = {0}, r2[3] = {0}, d2[3] = {0}, r3[3] = {0}, d3[3] = {0};
    emb_count(&z, emb_stream(1, 2, 3, 4), 500000, 3, EMB_SHARD_HASH, 0, r1, d1, NULL, &big);
    memset(r1, 0, sizeof r1);
    memset(d1, 0, sizeof d1);
    emb_count(&z, emb_stream(1, 2, 3, 5), 1000, 3, EMB_SHARD_HASH, 0, r1, d1, NULL, &big);
    emb_count(&z, emb_stream(1, 2, 3, 5), 1000, 3, EMB_SHARD_HASH, 0, r2, d2, NULL, &fresh);
    emb_count(&z, emb_stream(1, 2, 4, 5), 1000, 3, EMB_SHARD_HASH, 0, r3, d3, NULL, &fresh);
    ck_assert_mem_eq(r1, r2, sizeof r1);
    ck_assert_mem_eq(d1, d2, sizeof d1);
    ck_assert(memcmp(r1, r3, sizeof r1) != 0 || memcmp(d1, d3, sizeof d1) != 0);
    uint64_t base = emb_stream(1, 2, 3, 4); /* each argument changes the stream */
    ck_assert_uint_ne(base, emb_stream(0, 2, 3, 4));
    ck_assert_uint_ne(base, emb_stream(1, 3, 3, 4));
    ck_assert_uint_ne(base, emb_stream(1, 2, 4, 4));
    ck_assert_uint_ne(base, emb_stream(1, 2, 3, 5));
    ck_assert_uint_ne(base, emb_stream(1, 2, 4, 3));
    ck_assert_uint_eq(emb_stream(9, 8, 7, 6), emb_stream(9, 8, 7, 6));
    double r0 = 0, d0 = 0; /* no draws: nothing added */
    emb_count(&z, 1, 0, 1, EMB_SHARD_HASH, 0, &r0, &d0, NULL, &fresh);
    ck_assert_double_eq(r0 + d0, 0);
    emb_scratch_release(&big);
    emb_scratch_release(&fresh);
}
END_TEST

/* A file of IDs written to a temporary path; returns the path (static). */
static const char *write_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/check_emb_ids.%d", (int)getpid());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loading `text` with 10 rows and at most 6 IDs fails with a reason starting with `why`. */
static void check_load_error(const char *text, const char *why)
{
    uint64_t *ids = (uint64_t *)1;
    size_t n = 99;
    char reason[200];
    ck_assert_int_eq(emb_ids_load(write_file(text), 10, 6, &ids, &n, reason, sizeof reason), -1);
    ck_assert_msg(strncmp(reason, why, strlen(why)) == 0, "'%s' is not '%s...'", reason, why);
    ck_assert_ptr_null(ids);
    ck_assert_uint_eq(n, 0);
}

START_TEST(test_file_load)
{
    uint64_t *ids;
    size_t n;
    char why[200];
    const char *p = write_file("# trace\n5\n  5 \n\n5\r\n7\n# more\n9\n");
    ck_assert_int_eq(emb_ids_load(p, 10, 6, &ids, &n, why, sizeof why), 0);
    ck_assert_uint_eq(n, 5);
    ck_assert(ids[0] == 5 && ids[1] == 5 && ids[2] == 5 && ids[3] == 7 && ids[4] == 9);
    free(ids);
    check_load_error("1\nabc\n", "line 2: 'abc' is not an ID");
    check_load_error("1\n2\n\n-3\n", "line 4: '-3' is not an ID");
    check_load_error("+3\n", "line 1: '+3' is not an ID");
    check_load_error("3 4\n", "line 1: '3 4' is not an ID");
    check_load_error("99999999999999999999999\n", "line 1: '99999999999999999999999' is not");
    check_load_error("# c\n10\n", "line 2: ID 10 is not below the table's 10 rows");
    check_load_error("1\n2\n3\n4\n5\n6\n7\n", "line 7: more than 6 IDs");
    check_load_error("# only comments\n\n", "no IDs");
    char longline[400];
    memset(longline, '1', sizeof longline - 2);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    check_load_error(longline, "line 1: longer than");
    unlink(write_file(""));
    ck_assert_int_eq(emb_ids_load("/nonexistent/ids", 10, 6, &ids, &n, why, sizeof why), -1);
    ck_assert_str_eq(why, "cannot open: /nonexistent/ids: No such file or directory");
}
END_TEST

/* A file's empirical law: IDs {5, 5, 5, 7, 9} drawn with frequencies 3/5, 1/5, 1/5; E[D] = (1 -
 * (2/5)^n) + 2 (1 - (4/5)^n). */
START_TEST(test_file_sampler)
{
    static const uint64_t file[] = {5, 5, 5, 7, 9};
    struct emb_sampler f;
    emb_sampler_init(&f, EMB_FILE, 10, 0, file, 5);
    long c[10] = {0}, draws = 100000;
    uint64_t x = 3;
    for (long d = 0; d < draws; d++)
        c[emb_sample(&f, &x)]++;
    ck_assert_int_eq(c[5] + c[7] + c[9], draws);
    double sigma = sqrt(draws * 0.6 * 0.4);
    ck_assert_double_eq_tol((double)c[5], 0.6 * draws, 5 * sigma);
    for (int n = 1; n <= 8; n++) {
        double e = (1 - pow(0.4, n)) + 2 * (1 - pow(0.8, n));
        ck_assert_double_eq_tol(emb_expect_distinct(&f, n, 0, 10), e, 1e-12);
        ck_assert_double_eq_tol(emb_expect_distinct(&f, n, 6, 10), 2 * (1 - pow(0.8, n)), 1e-12);
        check_mean(&f, n, 2000, e);
    }
}
END_TEST

static Suite *emb_ids_suite(void)
{
    Suite *s = suite_create("emb_ids");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_uniform_counts);
    tcase_add_test(tc, test_zipf_counts);
    tcase_add_test(tc, test_expect_tail);
    tcase_add_test(tc, test_expect_mass);
    tcase_add_test(tc, test_zipf_frequencies);
    tcase_add_test(tc, test_shards_and_cache);
    tcase_add_test(tc, test_hash_spreads);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_file_load);
    tcase_add_test(tc, test_file_sampler);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(emb_ids_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
