/* check_tpnum.c - the numerics MLP split by tensor and pipeline parallelism (sim/core/tpnum.h):
 * for several (tp, pp, microbatches), uneven splits among them, the reassembled gradient and the
 * loss against one process's (nn.c's nn_loss_grad on the whole batch, an independent
 * computation of the same function) to 1e-6 absolute; every tensor rank computing from its own
 * shards; the replicated bias's gradient the same on every rank; shapes that cannot be split
 * refused. */
#include "nn.h"
#include "tpnum.h"

#include <check.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IN      37
#define CLASSES 5
#define BATCH   23

static void random_batch(float *x, unsigned char *y, int b, int in, int classes, unsigned seed)
{
    srand(seed);
    for (int i = 0; i < b * in; i++)
        x[i] = (float)rand() / RAND_MAX;
    for (int i = 0; i < b; i++)
        y[i] = (unsigned char)(rand() % classes);
}

/* (hidden layers, tp, pp, microbatches): pairs with and without a lone layer, widths tp does not
 * divide (13, 11, 9 and 5 by 2, 3, 4), a stage per layer, one stage of all four, microbatches of
 * unequal sizes (23 examples in 2, 3 or 4). */
static const struct {
    int nh, hidden[3], tp, pp, m;
} cases[] = {
        {1, {13}, 1, 1, 1},        {1, {13}, 2, 1, 1},        {1, {13}, 3, 1, 2},
        {1, {13}, 2, 2, 3},        {2, {13, 11}, 3, 1, 1},    {2, {13, 11}, 2, 2, 4},
        {2, {13, 11}, 4, 3, 2},    {3, {13, 11, 9}, 3, 2, 3}, {3, {13, 11, 9}, 2, 4, 1},
        {3, {13, 11, 9}, 5, 1, 4}, {0, {0}, 2, 1, 1},         {3, {13, 11, 9}, 1, 3, 2},
};

START_TEST(test_split_gradient_equals_one_process)
{
    struct nn n;
    ck_assert_int_eq(nn_shape(&n, IN, cases[_i].hidden, cases[_i].nh, CLASSES), 0);
    float *p = malloc(n.nparams * sizeof *p), *g1 = malloc(n.nparams * sizeof *g1),
          *g = malloc(n.nparams * sizeof *g), x[BATCH * IN];
    unsigned char y[BATCH];
    nn_init(&n, 7 + (uint64_t)_i, p);
    random_batch(x, y, BATCH, IN, CLASSES, 3 + (unsigned)_i);
    struct nn_work w;
    nn_work_init(&w, &n, BATCH);
    double loss1 = nn_loss_grad(&n, p, x, y, BATCH, g1, &w);
    struct tpnum tn;
    char why[128];
    int m = cases[_i].m, mb = (BATCH + m - 1) / m;
    ck_assert_int_eq(tpnum_init(&tn, &n, cases[_i].tp, cases[_i].pp, mb, why, sizeof why), 0);
    tpnum_load(&tn, p);
    for (size_t i = 0; i < n.nparams; i++) /* the ranks hold their shards: the full copy is gone */
        p[i] = NAN;
    memset(g, 0xff, n.nparams * sizeof *g); /* NaN: a parameter the reassembly missed stays so */
    double loss = tpnum_loss_grad(&tn, x, y, BATCH, m, g);
    double worst = 0, largest = 0;
    for (size_t i = 0; i < n.nparams; i++) {
        ck_assert_msg(isfinite(g[i]), "case %d: gradient %zu not computed", _i, i);
        worst = fmax(worst, fabs(g[i] - g1[i]));
        largest = fmax(largest, fabs(g1[i]));
    }
    ck_assert_msg(worst <= 1e-6 && largest > 1e-3,
                  "case %d (tp %d pp %d m %d): largest gradient difference %g (largest gradient "
                  "%g)",
                  _i, cases[_i].tp, cases[_i].pp, m, worst, largest);
    ck_assert_msg(fabs(loss - loss1) <= 1e-6, "case %d: loss %.9f, one process %.9f", _i, loss,
                  loss1);
    for (int l = 0; l < n.nlayers; l++) /* a row layer's bias: one copy per rank, equal */
        for (int t = 1; tn.split[l] == TPNUM_ROW && t < tn.tp; t++)
            ck_assert(memcmp(tn.shard[l][t].gb, tn.shard[l][0].gb,
                             (size_t)n.sizes[l + 1] * sizeof(float)) == 0);
    tpnum_release(&tn);
    nn_work_release(&w);
    free(p);
    free(g1);
    free(g);
}
END_TEST

/* The splits the cases use: a stage's layers paired column then row, a lone one gathered. */
START_TEST(test_split_layout)
{
    struct nn n;
    int hidden[] = {13, 11, 9};
    ck_assert_int_eq(nn_shape(&n, IN, hidden, 3, CLASSES), 0);
    struct tpnum tn;
    char why[128];
    ck_assert_int_eq(tpnum_init(&tn, &n, 3, 2, 4, why, sizeof why), 0);
    /* stages [0, 2) and [2, 4): two pairs */
    ck_assert_int_eq(tn.first[1], 2);
    ck_assert_int_eq(tn.split[0], TPNUM_COLUMN);
    ck_assert_int_eq(tn.split[1], TPNUM_ROW);
    ck_assert_int_eq(tn.split[2], TPNUM_COLUMN);
    ck_assert_int_eq(tn.split[3], TPNUM_ROW);
    /* 13 outputs over 3 ranks: [0, 4), [4, 8), [8, 13) */
    ck_assert_int_eq(tn.shard[0][1].lo, 4);
    ck_assert_int_eq(tn.shard[0][2].hi, 13);
    ck_assert_int_eq(tn.shard[1][2].cols, 5);
    tpnum_release(&tn);
    ck_assert_int_eq(tpnum_init(&tn, &n, 2, 3, 4, why, sizeof why), 0);
    /* stages [0, 1), [1, 2), [2, 4): two lone layers, then a pair */
    ck_assert_int_eq(tn.split[0], TPNUM_COLUMN_GATHER);
    ck_assert_int_eq(tn.split[1], TPNUM_COLUMN_GATHER);
    ck_assert_int_eq(tn.split[2], TPNUM_COLUMN);
    tpnum_release(&tn);
}
END_TEST

START_TEST(test_refused_shapes)
{
    struct nn n;
    int hidden[] = {13};
    ck_assert_int_eq(nn_shape(&n, IN, hidden, 1, CLASSES), 0);
    struct tpnum tn;
    char why[128] = "";
    ck_assert_int_eq(tpnum_init(&tn, &n, 1, 3, 4, why, sizeof why), -1); /* 2 layers */
    ck_assert_ptr_nonnull(strstr(why, "3 pipeline stage(s) for a network of 2 weight layer(s)"));
    ck_assert_int_eq(tpnum_init(&tn, &n, 6, 1, 4, why, sizeof why), -1); /* 5 classes */
    ck_assert_ptr_nonnull(strstr(why, "6 tensor rank(s) for a layer of 5 unit(s)"));
}
END_TEST

static Suite *tpnum_suite(void)
{
    Suite *s = suite_create("tpnum");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_split_gradient_equals_one_process, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_split_layout);
    tcase_add_test(tc, test_refused_shapes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tpnum_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
