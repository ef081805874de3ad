/* check_horovod.c - Horovod's coordinator and tensor fusion (sim/strategy/ar_horovod.h): one
 * step against its closed form on the uniform star of check_collective.c over TCP (P nodes x 1
 * H100, a = PCIe hop + TCP hop + switch latency, B = min bandwidth), where the negotiation's
 * latencies are large enough to see.
 *
 * Two layers: L1 (backward first: tensor 0) of 8e6 parameters = 32 MB of gradients, L0 of 2e6 =
 * 8 MB; FP32 SGD, batch 16; a 50 ms cycle, far longer than the step's compute, so at the first
 * cycle (t = c, the grid starting at time 0) both tensors are ready on every rank and every rank
 * begins the cycle at once. The cycle, in messages (Open MPI's linear gather, binomial bcast):
 *   gather of 4 B lengths      every rank to rank 0 at once, sharing rank 0's links: a + (P-1) 4/B
 *   gather of the lists (L B)  a + (P-1) L / B, L = LIST + 2 REQUEST (each rank asks for both)
 *   P = 2: bcast of 4 B        a + 4/B, then the response (R B): a + R/B
 *   P = 4: bcast of 4 B        rank 0 to ranks 2 and 1 at once (a + 8/B), then 2 to 3 (a + 4/B);
 *          the response        rank 0 to 2 when 2 has forwarded the length, then 2 to 3: 2 (a +
 * R/B) so N(2) = 4a + (8 + L + R)/B and N(4) = 6a + (24 + 3L + 2R)/B (log2 P rounds of broadcast).
 * The last rank to hear the response starts the fused all-reduce's copy in, and the ring waits
 * for it: step 1 = c + N + copy in + AR(S) + copy out + U, a copy moving S bytes read and written
 * at M = memory bandwidth x 0.92 (2 S / M), AR(S) = 2 (P - 1)(a + S / (P B)), U = 12 B x params
 * / M. A group of one tensor is all-reduced in place: no copies. */
#include "allreduce_metrics.h"
#include "ar_horovod.h"
#include "calib.h"
#include "strategy.h"
#include "testlib.h"

#include <math.h>

struct env {
    double a, B, M;
};

static struct env env_of(void)
{
    const struct link_class *pcie = catalog_link("pcie-gen5"), *tcp = catalog_link("tcp-25g");
    const struct gpu_model *g = catalog_gpu("h100");
    return (struct env){pcie->hop_lat_s + tcp->hop_lat_s + CATALOG_SWITCH_LAT_S,
                        fmin(fmin(pcie->bw_Bps, tcp->bw_Bps), tcp->line_bw_Bps),
                        g->mem_bw_Bps * 0.92};
}

static double ring_ar(const struct env *e, int P, double S)
{
    return 2 * (P - 1) * (e->a + S / (P * e->B));
}

/* N(P) above, for P = 2 or 4, with response bytes R. */
static double negotiation(const struct env *e, int P, double R)
{
    double L = HOROVOD_LIST_B + 2 * HOROVOD_REQUEST_B;
    if (P == 2) return 4 * e->a + (8 + L + R) / e->B;
    return 6 * e->a + (24 + 3 * L + 2 * R) / e->B;
}

/* A response's bytes: its list, per group a response with one device per rank, per tensor a name.
 */
static double response_B(int P, int groups, int tensors)
{
    return HOROVOD_LIST_B + groups * (HOROVOD_RESPONSE_B + P * HOROVOD_DEVICE_B) +
           tensors * HOROVOD_NAME_B;
}

/* Step 1 of P workers with a fusion threshold of fusion_B; *failures: failed collectives. */
static double step1(int P, double fusion_B, double *failures)
{
    const double layers[][2] = {{2e6, 2e9}, {8e6, 1e9}}; /* L0, L1 (params, fwd FLOPs) */
    struct scenario sc = test_cluster(P, 1, "h100", "nvlink4", "tcp-25g", 1);
    sc.model.present = true;
    model_init(&sc.model.explicit_, "toy");
    for (int i = 0; i < 2; i++)
        model_add(&sc.model.explicit_, "l", layers[i][0], layers[i][1], -1, 0);
    sc.train = (struct train_spec){.strategy = STRAT_ALLREDUCE,
                                   .algo = COLL_ALGO_RING,
                                   .level = COLL_MESSAGE,
                                   .batch = 16,
                                   .steps = 2,
                                   .dtype = DTYPE_FP32,
                                   .opt = OPT_SGD,
                                   .overlap = true,
                                   .timeout_s = 3600,
                                   .chunks = 1,
                                   .horovod = true,
                                   .cycle_s = 50e-3,
                                   .fusion_B = fusion_B,
                                   .line = 1};
    struct platform *pf = test_load(&sc);
    struct model m;
    struct calib cal = calib_default();
    struct run_record res;
    scenario_build_model(&sc, &m);
    test_train(&sc, pf, &m, &cal, &res);
    double t = test_step(&res, 0)->time_s;
    ck_assert_double_eq(res.steps_completed, 2);
    *failures = res.failures;
    run_release(&res);
    model_release(&m);
    platform_free(pf);
    scenario_release(&sc);
    return t;
}

/* The update of both layers: 12 B per parameter at M. */
static double update(const struct env *e)
{
    return 12 * (2e6 + 8e6) / e->M;
}

/* Both tensors in one fused all-reduce of 40 MB: c + N + 2 x 2 S / M + AR(S) + U. */
static void check_fused(int P)
{
    struct env e = env_of();
    double S = 40e6, failures;
    double want = 50e-3 + negotiation(&e, P, response_B(P, 1, 2)) + 2 * (2 * S / e.M) +
                  ring_ar(&e, P, S) + update(&e);
    test_assert_rel(step1(P, 128 * 1048576.0, &failures), want, 1e-7, "step 1, one fused group");
    ck_assert_double_eq(failures, 0);
}

START_TEST(test_fused_two_ranks)
{
    check_fused(2);
}
END_TEST

START_TEST(test_fused_four_ranks)
{
    check_fused(4);
}
END_TEST

/* A 20 MB threshold: L1's 32 MB alone (a tensor above the threshold still goes), then L0's 8 MB,
 * two groups of one response in the same cycle, each all-reduced in place, one after the other
 * on the stream: c + N + AR(32 MB) + AR(8 MB) + U. */
START_TEST(test_threshold)
{
    struct env e = env_of();
    double failures;
    double want = 50e-3 + negotiation(&e, 4, response_B(4, 2, 2)) + ring_ar(&e, 4, 32e6) +
                  ring_ar(&e, 4, 8e6) + update(&e);
    test_assert_rel(step1(4, 20e6, &failures), want, 1e-7, "step 1, two groups of one tensor");
    ck_assert_double_eq(failures, 0);
}
END_TEST

static Suite *horovod_suite(void)
{
    Suite *s = suite_create("horovod");
    TCase *tc = tcase_create("closed-form");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fused_two_ranks);
    tcase_add_test(tc, test_fused_four_ranks);
    tcase_add_test(tc, test_threshold);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(horovod_suite());
}
