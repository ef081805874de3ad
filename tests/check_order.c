/* check_order.c - the input pipeline's sampling order (sim/core/order.h), plain data: the file's
 * order; MDS's epoch-consistent shuffle (each epoch every sample once; a run resumed mid-epoch
 * reads each remaining sample once, the same ones); WebDataset's shuffle buffer (a buffer of one
 * is the file's order; no sample comes out twice or from beyond the buffer; a rollback draws the
 * same again). */
#include "order.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define N 1000
#define P 4
#define B 10 /* an epoch: N / (P B) = 25 positions */

START_TEST(test_none_is_the_file)
{
    struct order o;
    order_init(&o, SHUFFLE_NONE, N, P, B, 7, 0);
    for (int s = 0; s < 60; s++)
        for (int r = 0; r < P; r++)
            for (int j = 0; j < B; j++)
                ck_assert_int_eq(order_sample(&o, r, s, j), ((long long)(s * P + r) * B + j) % N);
    order_release(&o);
}
END_TEST

/* Counts the samples of positions [from, to) (all workers) into seen. */
static void take(struct order *o, int from, int to, int *seen)
{
    for (int s = from; s < to; s++)
        for (int r = 0; r < P; r++)
            for (int j = 0; j < B; j++) {
                long long i = order_sample(o, r, s, j);
                ck_assert(i >= 0 && i < N);
                seen[i]++;
            }
}

START_TEST(test_epoch_is_consistent)
{
    struct order o;
    order_init(&o, SHUFFLE_EPOCH, N, P, B, 7, 0);
    int seen[N] = {0}, differ = 0;
    for (int e = 0; e < 3; e++) { /* every epoch reads every sample once */
        memset(seen, 0, sizeof seen);
        take(&o, 25 * e, 25 * e + 25, seen);
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(seen[i], 1);
    }
    for (int j = 0; j < B; j++) /* in another order each epoch */
        differ += order_sample(&o, 0, 0, j) != order_sample(&o, 0, 25, j);
    ck_assert_int_gt(differ, 0);
    ck_assert(order_sample(&o, 0, 0, 0) != 0 || order_sample(&o, 0, 0, 1) != 1); /* shuffled */
    order_release(&o);
}
END_TEST

/* Resumed at position 12 of epoch 1 (a fresh order, as after a restart from a checkpoint), the
 * run reads exactly the samples the uninterrupted one reads there, each remaining one once. */
START_TEST(test_epoch_resumes_mid_epoch)
{
    struct order a, b;
    order_init(&a, SHUFFLE_EPOCH, N, P, B, 7, 0);
    order_init(&b, SHUFFLE_EPOCH, N, P, B, 7, 0);
    int seen[N] = {0};
    take(&a, 25, 37, seen); /* before the failure */
    for (int s = 37; s < 50; s++)
        for (int r = 0; r < P; r++)
            for (int j = 0; j < B; j++)
                ck_assert_int_eq(order_sample(&b, r, s, j), order_sample(&a, r, s, j));
    take(&b, 37, 50, seen);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(seen[i], 1);
    order_release(&a);
    order_release(&b);
}
END_TEST

START_TEST(test_buffer_of_one_is_the_file)
{
    struct order o;
    order_init(&o, SHUFFLE_BUFFER, N, P, B, 7, 1);
    for (int s = 0; s < 60; s++)
        for (int r = 0; r < P; r++)
            for (int j = 0; j < B; j++)
                ck_assert_int_eq(order_sample(&o, r, s, j), ((long long)(s * P + r) * B + j) % N);
    ck_assert(o.moved == 0);
    order_release(&o);
}
END_TEST

/* A buffer of K: worker 0's outputs are its stream's slots, none twice, none from more than
 * K - 1 places ahead (the buffer holds K), every one out in time, some moved; a rollback (a fresh order asked for an
 * old place, and the same order asked beyond what it remembers) draws the same. */
START_TEST(test_buffer_bounds)
{
    enum { K = 8, T = 5000 };
    struct order o, again;
    order_init(&o, SHUFFLE_BUFFER, 1L << 40, 1, 1, 7, K); /* one worker, batch 1: slot = place */
    order_init(&again, SHUFFLE_BUFFER, 1L << 40, 1, 1, 7, K);
    char *seen = calloc(T + K, 1);
    long long *first = calloc(T, sizeof *first);
    for (long long t = 0; t < T; t++) {
        long long u = first[t] = order_sample(&o, 0, t, 0);
        ck_assert_msg(u <= t + K - 1, "output %lld took place %lld: beyond the buffer", t, u);
        ck_assert_msg(!seen[u], "place %lld came out twice", u);
        seen[u] = 1;
    }
    ck_assert(o.moved > 0);
    for (long long u = 0; u < T - 200; u++) /* each drawn out with chance 1/8 a draw: stuck
                                               200 draws with chance (7/8)^200 = 3e-12 */
        ck_assert_msg(seen[u], "place %lld never came out", u);
    for (long long t = T - 100; t < T; t++) /* recent: remembered */
        ck_assert_int_eq(order_sample(&o, 0, t, 0), first[t]);
    for (long long t = 0; t < T; t += 97) /* from the start again */
        ck_assert_int_eq(order_sample(&again, 0, t, 0), first[t]);
    ck_assert_int_eq(order_sample(&o, 0, 3, 0), first[3]); /* a rollback */
    free(seen);
    free(first);
    order_release(&o);
    order_release(&again);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("order");
    TCase *tc = tcase_create("orders");
    tcase_add_test(tc, test_none_is_the_file);
    tcase_add_test(tc, test_epoch_is_consistent);
    tcase_add_test(tc, test_epoch_resumes_mid_epoch);
    tcase_add_test(tc, test_buffer_of_one_is_the_file);
    tcase_add_test(tc, test_buffer_bounds);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
