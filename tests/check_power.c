/* check_power.c - the power model (power.h) and a run's GPU activity (run_power.h), against
 * closed forms written here: a GPU busy at its peak draws TDP, an idle one its idle power, a
 * launch-bound step is busy with little power, NCCL's kernels count for GPU-Util. */
#include "catalog.h"
#include "power.h"
#include "run.h"
#include "run_power.h"

#include <check.h>

#include <math.h>
#include <stdlib.h>

#define EPS 1e-9

/* A record of P GPUs of `gpu` with one kernel class of kern_s seconds doing `flops` and `bytes`,
 * host_s of host wait, and `steps` step rows of time_s each with compute_s and nccl_s. */
static void make_run(struct run_record *r, const char *gpu, int P, double kern_s, double flops,
                     double bytes, double host_s, int steps, double time_s, double compute_s,
                     double nccl_s)
{
    const struct gpu_model *g = catalog_gpu(gpu);
    ck_assert_ptr_nonnull(g);
    run_init(r, STRAT_ALLREDUCE, P, 1, steps);
    r->gpu = g;
    r->peak_flops = g->peak_flops[DTYPE_BF16];
    r->peak_mem_Bps = g->mem_bw_Bps;
    r->nkclasses = 2;
    r->kclass_s[0] = kern_s;
    r->kclass_s[1] = host_s;
    r->host_wait_s = host_s;
    r->kern_sm_s = kern_s; /* one kernel on every SM */
    r->kern_act_s = kern_s * power_activity(kern_s, flops, bytes, r->peak_flops, r->peak_mem_Bps);
    for (int s = 0; s < steps; s++)
        run_step_add(r, (s + 1) * time_s, s + 1, time_s, compute_s, 1, P, 0)->nccl_s = nccl_s;
    r->total_s = steps * time_s;
    run_finish(r);
    run_power_finish(r);
}

START_TEST(test_catalog_power)
{
    /* datasheets: H100 SXM 700 W, A100 SXM 400 W, H200 700 W, V100 300 W; idle measured */
    ck_assert_double_eq(power_tdp_w(catalog_gpu("h100")), 700);
    ck_assert_double_eq(power_tdp_w(catalog_gpu("a100")), 400);
    ck_assert_double_eq(power_tdp_w(catalog_gpu("h200")), 700);
    ck_assert_double_eq(power_tdp_w(catalog_gpu("v100")), 300);
    ck_assert_double_eq(power_idle_w(catalog_gpu("h100")), 70);
    ck_assert_double_eq(power_idle_w(catalog_gpu("a100")), 61);
    size_t n;
    const struct gpu_model *all = catalog_gpus(&n);
    for (size_t i = 0; i < n; i++) { /* every GPU has both, idle below TDP, and a source */
        ck_assert_msg(all[i].tdp_w > 0 && all[i].idle_w > 0 && all[i].idle_w < all[i].tdp_w,
                      "%s: tdp %g idle %g", all[i].name, all[i].tdp_w, all[i].idle_w);
        ck_assert_ptr_nonnull(all[i].power_source);
    }
}
END_TEST

START_TEST(test_activity)
{
    double R = 989e12, W = 3.35e12, s = 0.5;
    ck_assert_double_eq_tol(power_activity(s, R * s, 0, R, W), 1, EPS); /* at peak: 1 */
    ck_assert_double_eq_tol(power_activity(s, 0, 0, R, W), 0, EPS);
    ck_assert_double_eq_tol(power_activity(s, 0.5 * R * s, 0, R, W), 0.5, EPS);
    ck_assert_double_eq_tol(power_activity(s, R * s, W * s, R, W), 1, EPS); /* capped */
    /* HBM saturated: (300 - 70) / (700 - 70) of the dynamic range: an H200 draws 300 W */
    const struct gpu_model *h200 = catalog_gpu("h200");
    double a = power_activity(s, 0, h200->mem_bw_Bps * s, R, h200->mem_bw_Bps);
    ck_assert_double_eq_tol(a, 230.0 / 630, EPS);
    ck_assert_double_eq_tol(power_mean_w(h200, a * s, s), 300, 1e-6);
}
END_TEST

/* A GPU running a kernel at its peak FLOP rate all the time: energy = TDP x time. */
START_TEST(test_busy_is_tdp)
{
    struct run_record r;
    double R = catalog_gpu("h100")->peak_flops[DTYPE_BF16], t = 0.1;
    make_run(&r, "h100", 8, t, R * t, 0, 0, 2, t, t, 0);
    ck_assert_double_eq_tol(r.gpu_util, 1, EPS);
    ck_assert_double_eq_tol(r.sm_activity, 1, EPS);
    ck_assert_double_eq_tol(r.gpu_power_w, 700, 1e-9);
    ck_assert_double_eq_tol(r.gpu_energy_j, 700.0 * 8 * 2 * t, 1e-9); /* TDP x GPUs x time */
    run_release(&r);
}
END_TEST

/* No kernel at all: idle power x time. */
START_TEST(test_idle_is_idle_power)
{
    struct run_record r;
    make_run(&r, "a100", 4, 0.05, 0, 0, 0, 3, 0.2, 0, 0);
    ck_assert_double_eq_tol(r.gpu_util, 0, EPS);
    ck_assert_double_eq_tol(r.gpu_power_w, 61, 1e-9);
    ck_assert_double_eq_tol(r.gpu_energy_j, 61.0 * 4 * 3 * 0.2, 1e-9);
    run_release(&r);
}
END_TEST

/* The seed notes' GPU: small kernels issued eagerly, the GPU waiting for the CPU 30% of its
 * step, its kernels at 10% of the FLOP peak: GPU-Util 70%, power 61 + 339 x 0.7 x 0.1 W. */
START_TEST(test_launch_bound)
{
    struct run_record r;
    double R = catalog_gpu("a100")->peak_flops[DTYPE_BF16], k = 0.7e-3, h = 0.3e-3;
    make_run(&r, "a100", 1, k, 0.1 * R * k, 0, h, 2, k + h, k + h, 0);
    ck_assert_double_eq_tol(r.gpu_util, 0.7, 1e-9);
    ck_assert_double_eq_tol(r.gpu_power_w, 61 + 339 * 0.7 * 0.1, 1e-9);
    ck_assert(r.gpu_util > 0.5 && r.gpu_power_w < 0.4 * r.gpu_tdp_w); /* busy, and low power */
    run_release(&r);
}
END_TEST

/* A data-parallel step: compute 40% of it, a collective in flight the other 60%: NCCL's kernels
 * occupy the GPU, so GPU-Util is 100%; SM activity 0.4 + 0.6 x 32 channels / 132 SMs (H100). */
START_TEST(test_nccl_counts)
{
    struct run_record r;
    make_run(&r, "h100", 16, 0.4, 0, 0, 0, 1, 1.0, 0.4, -1); /* nccl_s: time - compute */
    ck_assert_double_eq_tol(r.gpu_util, 1, EPS);
    ck_assert_double_eq_tol(r.sm_activity, 0.4 + 0.6 * 32 / 132, 1e-9);
    ck_assert_double_eq_tol(r.gpu_power_w, 70, 1e-9); /* no bytes sent, no FLOPs: idle power */
    run_release(&r);
    make_run(&r, "h100", 16, 0.4, 0, 0, 0, 1, 1.0, 0.4, 0); /* no collective: 40% */
    ck_assert_double_eq_tol(r.gpu_util, 0.4, EPS);
    run_release(&r);
}
END_TEST

START_TEST(test_nccl_sm_frac)
{
    /* min(32, 2 x NVLinks) channels over the SMs; 2 over PCIe */
    ck_assert_double_eq_tol(power_nccl_sm_frac(catalog_gpu("h100")), 32.0 / 132, EPS);
    ck_assert_double_eq_tol(power_nccl_sm_frac(catalog_gpu("a100")), 24.0 / 108, EPS);
    ck_assert_double_eq_tol(power_nccl_sm_frac(catalog_gpu("v100")), 12.0 / 80, EPS);
    ck_assert_double_eq_tol(power_nccl_sm_frac(catalog_gpu("l4")), 2.0 / 60, EPS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("power");
    TCase *tc = tcase_create("power");
    tcase_add_test(tc, test_catalog_power);
    tcase_add_test(tc, test_activity);
    tcase_add_test(tc, test_busy_is_tdp);
    tcase_add_test(tc, test_idle_is_idle_power);
    tcase_add_test(tc, test_launch_bound);
    tcase_add_test(tc, test_nccl_counts);
    tcase_add_test(tc, test_nccl_sm_frac);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
