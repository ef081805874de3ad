/* check_calib.c - calibration profiles: the nccl-tests log parser on a public log, the fit
 * against a closed form, the file format written and read back, GEMM efficiency interpolation,
 * and a measured profile changing the simulated compute exactly as its numbers say. */
#include "calib.h"
#include "testlib.h"
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

START_TEST(test_nccl_tests_log)
{
    /* tests/data/nccl-tests-4gpu-pcie.log: rows from NVIDIA/nccl issue #445 (4 GPUs, PCIe) */
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load("tests/data/nccl-tests-4gpu-pcie.log", &c, &err) == DMLSIM_OK, "%s",
                  err.msg);
    ck_assert_uint_eq(c.ncoll, 12);
    ck_assert_int_eq(c.coll[0].op, COLL_ALLREDUCE);
    ck_assert_int_eq(c.coll[0].nranks, 4);
    ck_assert_double_eq(c.coll[0].bytes, 262144);
    ck_assert(fabs(c.coll[0].time_s - 122.3e-6) < 1e-12);
    ck_assert(fabs(c.coll[11].time_s - 164854e-6) < 1e-12);
    /* the printed busbw / algbw is nccl-tests' all-reduce factor 2(n - 1)/n = 1.5 for 4 GPUs,
     * an independent check of the GPU count (within the rounding of two printed decimals) */
    for (size_t i = 0; i < c.ncoll; i++)
        ck_assert_msg(fabs(c.coll[i].busbw / c.coll[i].algbw - 1.5) < 0.01, "row %zu", i);
    calib_release(&c);
}
END_TEST

/* Writes a profile whose all-reduce sweep follows t = 2(n-1)(alpha + S/(n B)) exactly. */
static void write_synthetic(const char *path, int n, double alpha, double B)
{
    struct calib c = calib_default();
    snprintf(c.gpu_name, sizeof c.gpu_name, "NVIDIA H100 80GB HBM3");
    c.gpu_count = n;
    for (double s = 1024; s <= 1 << 30; s *= 4) {
        struct calib_coll r = {COLL_ALLREDUCE, n, s, 2 * (n - 1) * (alpha + s / (n * B)), 0, 0, 1, 0};
        c.coll = realloc(c.coll, (c.ncoll + 1) * sizeof *c.coll);
        c.coll[c.ncoll++] = r;
    }
    FILE *f = fopen(path, "w");
    calib_write(&c, f);
    fclose(f);
    calib_release(&c);
}

START_TEST(test_fit_recovers_alpha_beta)
{
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    close(mkstemp(path));
    write_synthetic(path, 8, 3.4e-6, 123e9);
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, &c, &err) == DMLSIM_OK, "%s", err.msg);
    struct calib_fit fit;
    ck_assert_int_eq(calib_fit(&c, COLL_ALLREDUCE, 8, &fit), 0);
    /* the file keeps 6 significant digits of each time: the fit is exact to about 1e-5 */
    ck_assert_msg(fabs(fit.alpha_s / 3.4e-6 - 1) < 1e-4, "alpha %g", fit.alpha_s);
    ck_assert_msg(fabs(fit.bw_Bps / 123e9 - 1) < 1e-4, "bandwidth %g", fit.bw_Bps);
    ck_assert_int_eq(fit.points, 11);
    ck_assert_int_eq(calib_fit(&c, COLL_ALLGATHER, 8, &fit), -1); /* nothing measured */
    ck_assert_ptr_eq(calib_gpu(&c), catalog_gpu("h100"));
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_spec_roundtrip_and_interpolation)
{
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    calib_write_spec(catalog_gpu("a100"), f);
    fclose(f);
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, &c, &err) == DMLSIM_OK, "%s", err.msg);
    const struct gpu_model *g = catalog_gpu("a100");
    ck_assert_ptr_eq(calib_gpu(&c), g);
    for (double fl = 1e6; fl < 1e15; fl *= 10) /* the spec profile is flat at 0.78 */
        ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_BF16, fl) - 0.78) < 1e-6);
    ck_assert(fabs(calib_memory_rate(&c, g) - g->mem_bw_Bps * 0.92) < 1e-3 * g->mem_bw_Bps);
    calib_release(&c);
    /* two measured FP32 GEMMs: 2 x 256^3 FLOPs at 30% of peak, 2 x 4096^3 at 90%; halfway in
     * log(FLOPs) the efficiency is halfway: 60% (linear interpolation in log FLOPs) */
    f = fopen(path, "w");
    fprintf(f,
            "dmlsim-calibration 1\ngpu NVIDIA A100-SXM4-80GB\ngemm fp32 256 256 256 %g\n"
            "gemm fp32 4096 4096 4096 %g\n",
            0.3 * 19.5, 0.9 * 19.5);
    fclose(f);
    ck_assert_msg(calib_load(path, &c, &err) == DMLSIM_OK, "%s", err.msg);
    double lo = 2 * pow(256, 3), hi = 2 * pow(4096, 3), mid = sqrt(lo * hi);
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_FP32, mid) - 0.6) < 1e-9);
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_FP32, lo / 100) - 0.3) < 1e-9); /* clamped */
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_FP32, hi * 100) - 0.9) < 1e-9);
    ck_assert(fabs(calib_gemm_eff(&c, g, DTYPE_TF32, mid) - 0.78) < 1e-9); /* not measured */
    calib_release(&c);
    unlink(path);
}
END_TEST

START_TEST(test_bad_file)
{
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "dmlsim-calibration 1\ngemm fp32 256 256 256 10\ngemm fp64 1 1 1 1\n");
    fclose(f);
    struct calib c;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(calib_load(path, &c, &err), DMLSIM_EVALUE);
    char want[64];
    snprintf(want, sizeof want, "%s:3: bad calibration record \"gemm\"", path);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    unlink(path);
}
END_TEST

START_TEST(test_profile_changes_compute)
{
    /* One H100, one dense layer 4096 -> 4096 (2 x 4096^2 FLOPs per sample), batch 256, FP32 SGD.
     * A profile measuring FP32 GEMMs at 50% of peak at every size and the optimizer kernels at
     * 1000 GB/s: step = 3 x 2 x 4096^2 x 256 / (67e12 x 0.5) + 12 B x (4096^2 + 4096) / 1e12. */
    char path[] = "/tmp/dmlsim-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "dmlsim-calibration 1\ngpu NVIDIA H100\ngemm fp32 1024 1024 1024 33.5\n"
               "kernel sgd-momentum 1000000 1000\n");
    fclose(f);
    struct calib cal;
    struct dmlsim_error err = {0};
    ck_assert_msg(calib_load(path, &cal, &err) == DMLSIM_OK, "%s", err.msg);
    struct scenario sc = test_cluster(1, 1, "h100", "nvlink4", NULL, 1);
    double h = 4096;
    sc.model.present = true;
    model_init(&sc.model.explicit_, "dense");
    model_add(&sc.model.explicit_, "fc", h * h + h, 2 * h * h, -1, 0);
    model_set_gemm(&sc.model.explicit_, h, 1, h);
    sc.train = (struct train_spec){.strategy = STRAT_ALLREDUCE,
                                   .algo = collective_find("ring"),
                                   .batch = 256,
                                   .steps = 2,
                                   .dtype = DTYPE_FP32,
                                   .opt = OPT_SGD,
                                   .bucket_B = 25e6,
                                   .overlap = true,
                                   .timeout_s = 3600,
                                   .chunks = 1,
                                   .line = 1};
    struct platform *pf = test_load(&sc);
    struct model m;
    struct train_result res;
    scenario_build_model(&sc, &m);
    ck_assert_msg(train_run(&sc, pf, &m, &cal, &res, &err) == DMLSIM_OK, "%s", err.msg);
    double want = 3 * 2 * h * h * 256 / (67e12 * 0.5) + 12 * (h * h + h) / 1e12;
    ck_assert_msg(fabs(res.step_s[1] - want) < 1e-9 * want, "step %.12g, closed form %.12g",
                  res.step_s[1], want);
    train_result_release(&res);
    model_release(&m);
    platform_free(pf);
    scenario_release(&sc);
    calib_release(&cal);
    unlink(path);
}
END_TEST

static Suite *calib_suite(void)
{
    Suite *s = suite_create("calib");
    TCase *tc = tcase_create("profiles");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_nccl_tests_log);
    tcase_add_test(tc, test_fit_recovers_alpha_beta);
    tcase_add_test(tc, test_spec_roundtrip_and_interpolation);
    tcase_add_test(tc, test_bad_file);
    tcase_add_test(tc, test_profile_changes_compute);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(calib_suite());
}
