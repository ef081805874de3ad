/* check_train.c - training steps against closed forms on the uniform star platform of
 * check_collective.c (a = PCIe hop + NDR hop + switch latency, B = min bandwidth).
 *
 * Compute rates come from the default calibration: R = peak FP32 x 0.78 for layers,
 * M = memory bandwidth x 0.92 for the update, which moves 12 B per parameter with FP32 SGD
 * (read weight, gradient, write weight: 3 x 4 B). With batch b, a layer of f forward FLOPs per
 * sample takes f b / R forward and 2 f b / R backward. A ring all-reduce of S bytes takes
 * AR(S) = 2 (P - 1)(a + S / (P B)).
 *   overlap off:              step = sum(3 f b / R) + sum over buckets AR(S_k) + U
 *   overlap on, two buckets:  bucket A (last layer) starts after the forward and its backward,
 *                             bucket B when both the first layer's backward and bucket A are
 *                             done; the update follows bucket B. */
#include "allreduce_metrics.h"
#include "calib.h"
#include "ddp_bucket.h"
#include "kcost.h"
#include "strategy.h"
#include "testlib.h"

#include <math.h>

struct env {
    double a, B, R, M;
};

static struct env env_of(void)
{
    const struct link_class *pcie = catalog_link("pcie-gen5"), *ndr = catalog_link("ib-ndr");
    const struct gpu_model *g = catalog_gpu("h100");
    return (struct env){pcie->hop_lat_s + ndr->hop_lat_s + CATALOG_SWITCH_LAT_S,
                        fmin(fmin(pcie->bw_Bps, ndr->bw_Bps), ndr->line_bw_Bps),
                        g->peak_flops[DTYPE_FP32] * 0.78, g->mem_bw_Bps * 0.92};
}

static double ring_ar(const struct env *e, int P, double S)
{
    return P < 2 ? 0 : 2 * (P - 1) * (e->a + S / (P * e->B));
}

/* P nodes x 1 H100, explicit layers {params, fwd flops}, FP32 SGD, batch b. */
static struct scenario train_scenario(int P, const double (*layers)[2], int n, int b,
                                      double bucket_B, bool overlap)
{
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", P > 1 ? "ib-ndr" : NULL, 1);
    sc.model.present = true;
    model_init(&sc.model.explicit_, "toy");
    for (int i = 0; i < n; i++)
        model_add(&sc.model.explicit_, "l", layers[i][0], layers[i][1], -1, 0);
    sc.train = (struct train_spec){.strategy = STRAT_ALLREDUCE,
                                   .algo = COLL_ALGO_RING,
                                   .level = COLL_MESSAGE,
                                   .batch = b,
                                   .steps = 3,
                                   .dtype = DTYPE_FP32,
                                   .opt = OPT_SGD,
                                   .bucket_B = bucket_B,
                                   .overlap = overlap,
                                   .gpus = 0,
                                   .timeout_s = 3600,
                                   .chunks = 1,
                                   .line = 1};
    return sc;
}

static void run(struct scenario *sc, struct run_record *res)
{
    struct platform *pf = test_load(sc);
    struct model m;
    struct calib cal = calib_default();
    scenario_build_model(sc, &m);
    test_train(sc, pf, &m, &cal, res);
    model_release(&m);
    platform_free(pf);
}

static void assert_steps(const struct run_record *res, double want)
{
    for (int s = 0; s < (int)res->steps; s++)
        ck_assert_msg(fabs(test_step(res, s)->time_s - want) <= 1e-3 * want,
                      "step %d: simulated %.9g s, closed form %.9g s", s + 1,
                      test_step(res, s)->time_s, want);
}

START_TEST(test_one_bucket_overlap_off)
{
    const double layers[][2] = {{1e6, 1e9}};
    int P = 4, b = 8;
    struct env e = env_of();
    struct scenario sc = train_scenario(P, layers, 1, b, 25 * 1048576.0, false);
    struct run_record res;
    run(&sc, &res);
    double compute = 3 * 1e9 * b / e.R + 12 * 1e6 / e.M;
    assert_steps(&res, compute + ring_ar(&e, P, 4e6));
    ck_assert_double_eq(res.global_batch, P * b);
    ck_assert_double_eq(allreduce_metrics_of(&res)->nbuckets, 1);
    /* messages: steps x 2 (P - 1) per rank x P ranks */
    ck_assert_double_eq(res.messages, 3.0 * 2 * (P - 1) * P);
    ck_assert(fabs(res.compute1_s - compute) <= 1e-9 * compute);
    double eff = compute / (compute + ring_ar(&e, P, 4e6));
    ck_assert(fabs(res.efficiency - eff) <= 1e-3 * eff);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_two_buckets_overlap_on)
{
    const double layers[][2] = {{2e6, 2e9}, {8e6, 1e9}}; /* L0, L1 (params, fwd FLOPs) */
    int P = 4, b = 16;
    struct env e = env_of();
    double F = (2e9 + 1e9) * b / e.R, t1 = 2 * 1e9 * b / e.R, t0 = 2 * 2e9 * b / e.R;
    double U = 12 * (2e6 + 8e6) / e.M;
    /* bucket 16 MB: L1's 32 MB of gradients close bucket A alone; L0's 8 MB make bucket B */
    double a_end = F + t1 + ring_ar(&e, P, 32e6);
    double b_end = fmax(F + t1 + t0, a_end) + ring_ar(&e, P, 8e6);
    double overlap_on = b_end + U;
    double overlap_off = F + t1 + t0 + ring_ar(&e, P, 32e6) + ring_ar(&e, P, 8e6) + U;

    struct scenario sc = train_scenario(P, layers, 2, b, 16e6, true);
    struct run_record res;
    run(&sc, &res);
    ck_assert_double_eq(allreduce_metrics_of(&res)->nbuckets, 2);
    assert_steps(&res, overlap_on);
    ck_assert(overlap_on <= overlap_off);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_two_buckets_overlap_off)
{
    const double layers[][2] = {{2e6, 2e9}, {8e6, 1e9}};
    int P = 4, b = 16;
    struct env e = env_of();
    double want = 3 * 3e9 * b / e.R + ring_ar(&e, P, 32e6) + ring_ar(&e, P, 8e6) + 12 * 10e6 / e.M;
    struct scenario sc = train_scenario(P, layers, 2, b, 16e6, false);
    struct run_record res;
    run(&sc, &res);
    assert_steps(&res, want);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_single_gpu_is_compute)
{
    const double layers[][2] = {{5e6, 3e9}};
    struct env e = env_of();
    struct scenario sc = train_scenario(1, layers, 1, 32, 25e6, true);
    struct run_record res;
    run(&sc, &res);
    assert_steps(&res, 3 * 3e9 * 32 / e.R + 12 * 5e6 / e.M);
    ck_assert_double_eq(res.messages, 0);
    ck_assert(fabs(res.efficiency - 1) < 1e-9);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_memory_boundary)
{
    /* FP32 Adam: 16 B per parameter. 4.9e9 parameters = 78.4 GB; activations 1e8 B per sample:
     * batch 16 needs exactly 80.0 GB = an H100's 80 GB (fits), batch 17 needs 78.4 + 1.7 =
     * 80.1 GB (does not). */
    const double layers[][2] = {{4.9e9, 1e9}};
    struct scenario sc = train_scenario(1, layers, 1, 16, 25e6, true);
    sc.model.explicit_.layers[0].act_B = 1e8;
    sc.train.opt = OPT_ADAM;
    struct platform *pf = test_load(&sc);
    struct model m;
    struct dmlsim_error err = {0};
    scenario_build_model(&sc, &m);
    ck_assert_msg(test_check(&sc, pf, &m, &err) == DMLSIM_OK, "%s", err.msg);
    sc.train.batch = 17;
    ck_assert_int_eq(test_check(&sc, pf, &m, &err), DMLSIM_EVALUE);
    ck_assert_msg(strstr(err.msg, "needs 80.10 GB") && strstr(err.msg, "has 80.00 GB"), "%s",
                  err.msg);
    ck_assert_msg(strncmp(err.msg, "test.xml:1: ", 12) == 0, "%s", err.msg);
    model_release(&m);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_slower_host_slows_compute)
{
    /* tests/data/straggler.xml: the host's speed profile halves it from time 0, so the step
     * (compute only, one GPU) takes twice the closed form of test_single_gpu_is_compute. */
    struct env e = env_of();
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load("tests/data/straggler.xml", &sc, &err) == DMLSIM_OK, "%s", err.msg);
    struct run_record res;
    run(&sc, &res);
    double nominal = 3 * 3e9 * 32 / e.R + 12 * 5e6 / e.M;
    assert_steps(&res, 2 * nominal);
    /* the scaling baseline is the nominal GPU, not the slowed one (issue 31): one GPU at half
     * speed runs at half the nominal GPU's throughput, efficiency nominal / (2 nominal) = 0.5 */
    ck_assert(fabs(res.one_gpu_s - nominal) <= 1e-9 * nominal);
    ck_assert_msg(fabs(res.efficiency - 0.5) <= 1e-3, "efficiency %g, want 0.5", res.efficiency);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_bucket_overhead)
{
    /* overlap off: the buckets go one after another after the backward, so a per-bucket cost
     * h adds exactly buckets x h to the step (two buckets here: 2 h) */
    const double layers[][2] = {{2e6, 2e9}, {8e6, 1e9}};
    int P = 4, b = 16;
    struct env e = env_of();
    double h = 1e-3;
    double want = 3 * 3e9 * b / e.R + ring_ar(&e, P, 32e6) + ring_ar(&e, P, 8e6) + 12 * 10e6 / e.M;
    struct scenario sc = train_scenario(P, layers, 2, b, 16e6, false);
    sc.train.bucket_overhead_s = h;
    struct run_record res;
    run(&sc, &res);
    assert_steps(&res, want + 2 * h);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* 25 layers of 1 MiB of FP32 gradients, overlap off, the default 5 us hook per bucket. DDP's
 * first bucket (the last layer's gradient, the first ready) closes at kDefaultFirstBucketBytes =
 * 1 MiB (ddp_bucket.h), the others at the bucket size, the last holds what is left:
 *   1 MiB buckets:  25 buckets of 1 MiB:           step = C + 25 (h + AR(1 MiB)) + U
 *   25 MiB buckets: 1 MiB, then the 24 MiB left:   step = C + 2 h + AR(1 MiB) + AR(24 MiB) + U
 * The bytes on the wire are the same; the small buckets pay 23 more hooks and 23 more rings of
 * latency, 23 (h + 2 (P - 1) a): on this latency-bound network they cost more. */
static void buckets_case(double bucket_B, int nbuckets)
{
    double layers[25][2];
    for (int i = 0; i < 25; i++)
        layers[i][0] = 262144, layers[i][1] = 1e8;
    int P = 4, b = 8;
    double h = 5e-6, MiB = 1048576.0;
    struct env e = env_of();
    struct scenario sc = train_scenario(P, (const double(*)[2])layers, 25, b, bucket_B, false);
    sc.train.bucket_overhead_s = h;
    struct run_record res;
    run(&sc, &res);
    ck_assert_double_eq(allreduce_metrics_of(&res)->nbuckets, nbuckets);
    double C = 25 * 3 * 1e8 * b / e.R, U = 12 * 25 * 262144.0 / e.M;
    double small = 25 * (h + ring_ar(&e, P, MiB)),
           large = 2 * h + ring_ar(&e, P, MiB) + ring_ar(&e, P, 24 * MiB);
    assert_steps(&res, C + (nbuckets == 25 ? small : large) + U);
    ck_assert(small - large >= 23 * (h + 2 * (P - 1) * e.a) * (1 - 1e-9));
    run_release(&res);
    scenario_release(&sc);
}

START_TEST(test_small_buckets)
{
    buckets_case(1048576.0, 25);
}
END_TEST

START_TEST(test_large_bucket)
{
    buckets_case(25 * 1048576.0, 2);
}
END_TEST

/* DDP's broadcast of the model from rank 0 before the first step, a ring broadcast in one chunk:
 * (P - 1)(a + S / B) (check_collective's chain broadcast with c = 1), in step 1 only. */
START_TEST(test_broadcast_at_start)
{
    const double layers[][2] = {{1e6, 1e9}};
    int P = 4, b = 8;
    struct env e = env_of();
    struct scenario sc = train_scenario(P, layers, 1, b, 25 * 1048576.0, false);
    sc.train.broadcast = true;
    struct run_record res;
    run(&sc, &res);
    double step = 3 * 1e9 * b / e.R + 12 * 1e6 / e.M + ring_ar(&e, P, 4e6);
    double bcast = (P - 1) * (e.a + 4e6 / e.B);
    test_assert_rel(test_step(&res, 0)->time_s, step + bcast, 1e-3, "step 1 with the broadcast");
    test_assert_rel(test_step(&res, 1)->time_s, step, 1e-3, "step 2");
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_step_overhead)
{
    /* one GPU: the step is the host's overhead, then the compute */
    const double layers[][2] = {{1e6, 1e9}};
    struct env e = env_of();
    struct scenario sc = train_scenario(1, layers, 1, 32, 25e6, true);
    sc.train.step_overhead_s = 2e-3;
    struct run_record res;
    run(&sc, &res);
    assert_steps(&res, 2e-3 + 3 * 1e9 * 32 / e.R + 12 * 1e6 / e.M);
    run_release(&res);
    scenario_release(&sc);
}
END_TEST

/* A layer with kernels (as presets have), its GEMM rates measured by a profile for exactly its
 * shapes (calibration overrides the shape model): the forward GEMM (M x K by K x (n x batch)) and
 * the input gradient (K x M by M x N: the same shape) at 40 TFLOP/s, the weight gradient (M x N
 * by N x K: M x K over N) at 30 TFLOP/s, each max(FLOPs / rate, its three matrices / M_bw); a
 * memory-bound kernel bytes x batch / M_bw. The host issues them eagerly, each after a launch h;
 * every kernel here outlasts h, so the GPU waits for the host only before the first one: step =
 * h + the kernels + the update. */
START_TEST(test_kernel_roofline)
{
    struct env e = env_of(); /* M = bandwidth x 0.92: the default */
    struct scenario sc = train_scenario(1, NULL, 0, 64, 25e6, true);
    struct model *m = &sc.model.explicit_;
    double gm = 4096, gn = 1, gk = 4096, elems = 1 << 20, launch = 5e-6, b = 64;
    model_add(m, "dense+act", gm * gk, 2 * gm * gn * gk, -1, 0);
    model_add_gemm(m, gm, gn, gk, false);
    model_add_memk(m, KC_ACT, elems, 4, 2, 3);
    sc.train.kernel_launch_s = launch;
    double N = gn * b, flops = 2 * gm * N * gk, bytes = (gm * gk + gk * N + gm * N) * 4;
    struct calib_gemm meas[2] = {{DTYPE_FP32, gm, N, gk, 40e12, 1},
                                 {DTYPE_FP32, gm, gk, N, 30e12, 2}};
    struct calib cal = calib_default();
    cal.gemm = meas;
    cal.ngemm = 2;
    struct platform *pf = test_load(&sc);
    struct model mm;
    struct run_record res;
    scenario_build_model(&sc, &mm);
    test_train(&sc, pf, &mm, &cal, &res);
    double gemm = fmax(flops / 40e12, bytes / e.M), dgrad = gemm;
    double wgrad = fmax(flops / 30e12, bytes / e.M);
    double act_f = elems * 4 * 2 * b / e.M, act_b = elems * 4 * 3 * b / e.M;
    double update = 12 * gm * gk / e.M;
    ck_assert(fmin(fmin(gemm, wgrad), act_f) > launch);
    assert_steps(&res, launch + gemm + act_f + dgrad + wgrad + act_b + update);
    /* the breakdown: the GEMMs' rate is their FLOPs over their time; the host's one wait */
    ck_assert_double_eq_tol(res.kclass_flops[KC_GEMM], 3 * flops, 1e-3 * flops);
    ck_assert_double_eq_tol(res.kclass_s[KC_GEMM], gemm + dgrad + wgrad, 1e-12);
    ck_assert_double_eq_tol(res.host_wait_s, launch, 1e-15);
    run_release(&res);
    model_release(&mm);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

/* DDP's bucket assignment (reducer.cpp's compute_bucket_assignment_by_size over the gradients in
 * the order they are ready, limits [1 MiB, cap]): FP32 layers of 100000, 300000, 262144 and
 * 50000 parameters, cap 2e6 B, walked from the last layer:
 *   bucket 0: 0.2e6 B, then + 1048576 B = 1248576 B >= 1 MiB: closes at layer 2, its first
 *             parameter 100000 + 300000 = 400000;
 *   bucket 1: 1.2e6 B < 2e6, then + 0.4e6: what is left, at layer 0, first parameter 0.
 * (With the cap as the first limit, bucket 0 would take layer 1 too: 2448576 B.) */
START_TEST(test_ddp_assignment)
{
    struct model m;
    model_init(&m, "toy");
    const double params[] = {100000, 300000, 262144, 50000};
    for (int i = 0; i < 4; i++)
        model_add(&m, "l", params[i], 1e6, -1, 0);
    double size[5];
    int close[5];
    size_t off[5];
    ck_assert_uint_eq(ddp_buckets_assign(&m, 4, DDP_FIRST_BUCKET_B, 2e6, size, close, off), 2);
    ck_assert_double_eq(size[0], 4 * (50000 + 262144.0));
    ck_assert_double_eq(size[1], 4 * (300000 + 100000.0));
    ck_assert_int_eq(close[0], 2);
    ck_assert_int_eq(close[1], 0);
    ck_assert_uint_eq(off[0], 400000);
    ck_assert_uint_eq(off[1], 0);
    model_release(&m);
}
END_TEST

/* One layer of p FP32 parameters with one memory-bound kernel forward and backward (e elements
 * a sample, one pass, batch b: k = max(4 e b / M, k_min) each), on P = 4 nodes, overlap on, one
 * bucket. Its DDP hook is one kernel g = max(2 x 4 p / M, k_min) after the backward; after the
 * all-reduce the copy back is another g; the update u = max(12 p / M, k_min). The host issues
 * every kernel after a launch L and launches the bucket's collective h after the hook's kernel
 * (kcost.h's stream):
 *   host ahead (L << kernels): the GPU never waits after the first launch and the collective
 *     starts when the backward ends:  step = L + 2 k + g + AR(4 p) + g + u
 *   host behind (L >> kernels): each kernel starts at its launch, the hook's at 3 L; the
 *     collective starts at its launch 3 L + h; the update's amount (worker.h: the GPU time its
 *     kernel adds on the stream, waiting for the host included) is its launch 4 L + h after
 *     the hook's kernel ended at 3 L + g, then u, run after the copy back:
 *     step = 3 L + h + AR(4 p) + g + (L + h - g + u) = 4 L + 2 h + AR(4 p) + u */
static void ddp_hooks_case(double L, double h, double e, double *want)
{
    int P = 4, b = 8;
    double p = 1e7;
    struct env E = env_of();
    struct scenario sc = train_scenario(P, NULL, 0, b, 25 * 1048576.0, true);
    model_add(&sc.model.explicit_, "l", p, 0, 0, 0);
    model_add_memk(&sc.model.explicit_, KC_ACT, e, 4, 1, 1);
    sc.train.kernel_launch_s = L;
    sc.train.bucket_overhead_s = h;
    struct run_record res;
    run(&sc, &res);
    double k = fmax(4 * e * b / E.M, GPU_KERNEL_MIN_S), g = fmax(8 * p / E.M, GPU_KERNEL_MIN_S);
    double u = fmax(12 * p / E.M, GPU_KERNEL_MIN_S), ar = ring_ar(&E, P, 4 * p);
    *want = L > k ? 4 * L + 2 * h + ar + u : L + 2 * k + g + ar + g + u;
    assert_steps(&res, *want);
    run_release(&res);
    scenario_release(&sc);
}

START_TEST(test_ddp_hooks_host_ahead)
{
    double want;
    ddp_hooks_case(5e-6, 5e-6, 1 << 22, &want); /* k = 44 us */
}
END_TEST

START_TEST(test_ddp_hooks_host_behind)
{
    double want;
    ddp_hooks_case(1e-3, 50e-6, 1024, &want); /* k = k_min */
}
END_TEST

static Suite *train_suite(void)
{
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("closed-form");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_one_bucket_overlap_off);
    tcase_add_test(tc, test_two_buckets_overlap_on);
    tcase_add_test(tc, test_two_buckets_overlap_off);
    tcase_add_test(tc, test_single_gpu_is_compute);
    tcase_add_test(tc, test_memory_boundary);
    tcase_add_test(tc, test_slower_host_slows_compute);
    tcase_add_test(tc, test_bucket_overhead);
    tcase_add_test(tc, test_small_buckets);
    tcase_add_test(tc, test_large_bucket);
    tcase_add_test(tc, test_step_overhead);
    tcase_add_test(tc, test_broadcast_at_start);
    tcase_add_test(tc, test_kernel_roofline);
    tcase_add_test(tc, test_ddp_assignment);
    tcase_add_test(tc, test_ddp_hooks_host_ahead);
    tcase_add_test(tc, test_ddp_hooks_host_behind);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(train_suite());
}
