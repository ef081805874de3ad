/* check_hynum.c - one step of real training under the hybrid strategy (sim/strategy/hybrid_num.h)
 * against its closed form: with plain SGD, the parameters after the step are
 * p - lr / dp x sum over the replicas d whose batch was good of g_d, g_d the one-process gradient
 * (nn.c's nn_loss_grad) of replica d's examples at data position s, which are
 * (s dp + d) B .. (s dp + d) B + B - 1 of the training set in file order (numerics.h, B =
 * microbatches x batch); a replica marked skipped (good 0) adds nothing. The split is tp 2 x pp 2
 * of an MLP 16-8-6-4 in 2 microbatches, dp 3. The dataset is a small IDX pair the test writes. */
#include "hybrid_num.h"
#include "idxfile.h"
#include "testlib.h"

#include <stdint.h>

#define IN      16
#define CLASSES 4
#define NTRAIN  256
#define DP      3
#define MICRO   2
#define BATCH   4

static void write_set(const char *dir, const char *img, const char *lab, int n, unsigned seed)
{
    unsigned char px[NTRAIN * IN], y[NTRAIN];
    srand(seed);
    for (int i = 0; i < n * IN; i++)
        px[i] = (unsigned char)(rand() % 256);
    for (int i = 0; i < n; i++)
        y[i] = (unsigned char)(rand() % CLASSES);
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, img);
    write_idx(path, 2051, (unsigned[]){(unsigned)n, 4, 4}, 3, px, (size_t)n * IN, 0);
    snprintf(path, sizeof path, "%s/%s", dir, lab);
    write_idx(path, 2049, (unsigned[]){(unsigned)n}, 1, y, (size_t)n, 0);
}

/* _i: 0, every replica good; 1, replica 1's batch skipped. */
START_TEST(test_step_closed_form)
{
    char dir[] = "/tmp/check_hynum-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_set(dir, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", NTRAIN, 3);
    write_set(dir, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", 64, 4);
    struct scenario sc = test_cluster(1, 12, "h100", "nvlink4", NULL, 1);
    sc.train = (struct train_spec){.strategy = STRAT_HYBRID,
                                   .batch = BATCH,
                                   .steps = 1,
                                   .dtype = DTYPE_FP32,
                                   .opt = OPT_SGD,
                                   .line = 1};
    sc.train.par = (struct parallel_spec){
            .tp = 2, .pp = 2, .dp = DP, .microbatches = MICRO, .ep = 1, .vstages = 1, .line = 1};
    sc.train.numerics = (struct numerics_spec){.present = true,
                                               .dir = dir,
                                               .hidden = {8, 6},
                                               .nhidden = 2,
                                               .lr = 0.1,
                                               .eval_every = 1,
                                               .line = 1};
    struct numerics nm;
    struct dmlsim_error err = {0};
    ck_assert_msg(numerics_open(&sc, 12, &nm, &err) == DMLSIM_OK, "%s", err.msg);
    struct job j = {.sc = &sc, .nm = &nm};
    ck_assert_int_eq(hynum_check(&j, &err), DMLSIM_OK);
    struct hynum *h = hynum_new(&j);
    size_t N = nm.net.nparams;
    float *p = malloc(N * sizeof *p), *g = malloc(N * sizeof *g), *want = malloc(N * sizeof *g);
    memcpy(p, hynum_params(h), N * sizeof *p);
    memcpy(want, p, N * sizeof *p);
    int good[DP] = {BATCH * MICRO, _i == 1 ? 0 : BATCH * MICRO, BATCH * MICRO};
    long long pos = 1; /* the second position: (3 + d) x 8 onwards */
    int B = MICRO * BATCH;
    struct nn_work w;
    nn_work_init(&w, &nm.net, B);
    for (int d = 0; d < DP; d++) {
        if (good[d] == 0) continue;
        long long first = (pos * DP + d) * B;
        nn_loss_grad(&nm.net, p, nm.train.x + first * IN, nm.train.y + first, B, g, &w);
        for (size_t i = 0; i < N; i++)
            want[i] -= (float)(0.1 / DP) * g[i];
    }
    struct run_record rec;
    run_init(&rec, STRAT_HYBRID, 12, BATCH * MICRO, 1);
    hynum_step(h, &rec, 0, pos, _i == 0 ? NULL : good, 2.5);
    double worst = 0, moved = 0;
    for (size_t i = 0; i < N; i++) {
        worst = fmax(worst, fabs(hynum_params(h)[i] - want[i]));
        moved = fmax(moved, fabs(want[i] - p[i]));
    }
    ck_assert_msg(worst <= 1e-6 && moved > 1e-3, "case %d: parameters off by %g (step %g)", _i,
                  worst, moved);
    ck_assert_int_eq((int)rec.nevals, 1); /* the last step is evaluated */
    ck_assert_int_eq(rec.evals[0].step, 1);
    ck_assert(rec.evals[0].t_s == 2.5);
    hynum_finish(h, &rec);
    ck_assert(rec.params_fnv == numerics_fingerprint(hynum_params(h), N));
    run_release(&rec);
    nn_work_release(&w);
    hynum_free(h);
    numerics_close(&nm);
    free(p);
    free(g);
    free(want);
    sc.train.numerics.dir = NULL; /* the test's own buffer, not the reader's copy */
    scenario_release(&sc);
    char path[256];
    const char *names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

static Suite *hynum_suite(void)
{
    Suite *s = suite_create("hynum");
    TCase *tc = tcase_create("step");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_step_closed_form, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(hynum_suite());
}
