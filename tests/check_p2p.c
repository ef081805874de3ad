/* check_p2p.c - the p2p benchmark's simulated times against the alpha-beta closed form.
 *
 * Under CM02 without crosstraffic and TCP-gamma off, an uncontended message of S bytes takes
 *     T(S) = sum of the route's link latencies + S / (smallest link bandwidth on the route)
 * (reference/simgrid-notes.md). The expected latency and bandwidth are computed here from the
 * catalog and the node anatomy (platform.h), not read back from SimGrid, for every link class:
 *   intra classes (pcie, nvlink): GPU to GPU in one node = one hop of the class;
 *   network classes: GPU to GPU across a star = PCIe hop + network hop + switch latency, at the
 *   smallest of the PCIe rate, the NIC's effective rate and the switch port's line rate. */
#include "bench.h"
#include "testlib.h"

#include <math.h>

#define REL 1e-9

static void check_rows(const struct p2p_result *res, size_t pair, double lat_s, double bw_Bps)
{
    size_t checked = 0;
    for (size_t i = 0; i < res->nrows; i++) {
        const struct p2p_row *r = &res->rows[i];
        if (r->pair != pair) continue;
        double want = lat_s + r->size_B / bw_Bps;
        ck_assert_int_eq(r->status, NET_OK);
        ck_assert_msg(fabs(r->time_s - want) <= REL * want,
                      "pair %zu, %.0f B: simulated %.17g s, closed form %.17g s", pair, r->size_B,
                      r->time_s, want);
        checked++;
    }
    ck_assert_uint_gt(checked, 0);
}

static void set_bench(struct scenario *sc, const char *src, const char *dst)
{
    sc->bench.kind = BENCH_P2P;
    sc->bench.begin_B = 8;
    sc->bench.end_B = 1073741824; /* 1 GiB */
    sc->bench.factor = 4;
    sc->bench.timeout_s = 3600;
    sc->bench.npairs = 1;
    sc->bench.pairs = calloc(1, sizeof *sc->bench.pairs);
    sc->bench.pairs[0].src = strdup(src);
    sc->bench.pairs[0].dst = strdup(dst);
}

START_TEST(test_every_link_class)
{
    size_t n;
    const struct link_class *lc = &catalog_links(&n)[_i];
    struct scenario sc;
    double lat_s, bw_Bps;
    if (catalog_link_is_network(lc)) {
        sc = test_cluster(2, 1, "h100", "nvlink4", lc->name, 1);
        set_bench(&sc, "node0.gpu0", "node1.gpu0");
        const struct link_class *pcie = catalog_link("pcie-gen5");
        lat_s = pcie->hop_lat_s + lc->hop_lat_s + CATALOG_SWITCH_LAT_S;
        bw_Bps = fmin(fmin(pcie->bw_Bps, lc->bw_Bps), lc->line_bw_Bps);
    } else {
        sc = test_cluster(1, 2, "h100", lc->name, NULL, 1);
        set_bench(&sc, "node0.gpu0", "node0.gpu1");
        lat_s = lc->hop_lat_s;
        bw_Bps = lc->bw_Bps;
    }
    struct platform *pf = test_load(&sc);
    struct p2p_result res;
    struct dmlsim_error err = {0};
    ck_assert_msg(bench_check_hosts(&sc, &err) == DMLSIM_OK, "%s", err.msg);
    bench_p2p_run(&sc, &res);
    ck_assert_uint_eq(res.nrows, 14); /* 8 B * 4^k <= 2^30 B: 3 + 2k <= 30, k = 0..13 */
    check_rows(&res, 0, lat_s, bw_Bps);
    bench_p2p_release(&res);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_host_to_gpu_and_pairs_in_turn)
{
    /* Two pairs that share node0.gpu0's PCIe link: run one after the other, each gets the whole
     * link, so both match the uncontended closed form. */
    struct scenario sc = test_cluster(1, 4, "a100", "pcie-gen4", NULL, 1);
    set_bench(&sc, "node0.cpu", "node0.gpu0");
    sc.bench.npairs = 2;
    sc.bench.pairs = realloc(sc.bench.pairs, 2 * sizeof *sc.bench.pairs);
    sc.bench.pairs[1].src = strdup("node0.gpu0");
    sc.bench.pairs[1].dst = strdup("node0.gpu3");
    struct platform *pf = test_load(&sc);
    struct p2p_result res;
    struct dmlsim_error err = {0};
    ck_assert_msg(bench_check_hosts(&sc, &err) == DMLSIM_OK, "%s", err.msg);
    bench_p2p_run(&sc, &res);
    const struct link_class *pcie = catalog_link("pcie-gen4");
    check_rows(&res, 0, pcie->hop_lat_s, pcie->bw_Bps);
    check_rows(&res, 1, pcie->hop_lat_s, pcie->bw_Bps);
    ck_assert_str_eq(res.routes[0], "pcie-gen4");
    bench_p2p_release(&res);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_user_platform_p2p)
{
    /* tests/data/user-platform.xml: one 12.2 GBps, 1 us link between cpu and gpu2. */
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load("tests/data/user.xml", &sc, &err) == DMLSIM_OK, "%s", err.msg);
    struct platform *pf = test_load(&sc);
    struct p2p_result res;
    ck_assert_msg(bench_check_hosts(&sc, &err) == DMLSIM_OK, "%s", err.msg);
    bench_p2p_run(&sc, &res);
    ck_assert_uint_eq(res.nrows, 1);
    check_rows(&res, 0, 1e-6, 12.2e9);
    ck_assert_str_eq(res.routes[0], "pcie-gen3");
    bench_p2p_release(&res);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_lv08_on_request)
{
    /* network-model="LV08" on a generated cluster: LV08's factors (latency x13.01, bandwidth
     * x0.97, SimGrid 3.32 "Configuring SimGrid") go to TCP-class links only and the model stays
     * CM02 (platform.h), so one PCIe Gen3 hop keeps the exact alpha-beta time. */
    struct scenario sc = test_cluster(1, 2, "p100", "pcie-gen3", NULL, 1);
    sc.net_model = NET_LV08;
    set_bench(&sc, "node0.gpu0", "node0.gpu1");
    struct platform *pf = test_load(&sc);
    struct p2p_result res;
    struct dmlsim_error err = {0};
    ck_assert_msg(bench_check_hosts(&sc, &err) == DMLSIM_OK, "%s", err.msg);
    bench_p2p_run(&sc, &res);
    const struct link_class *pcie = catalog_link("pcie-gen3");
    check_rows(&res, 0, pcie->hop_lat_s, pcie->bw_Bps);
    bench_p2p_release(&res);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_sizes)
{
    struct benchmark b = {.begin_B = 8, .end_B = 1024, .factor = 2};
    size_t n;
    double *s = bench_sizes(&b, &n);
    ck_assert_uint_eq(n, 8); /* 8,16,...,1024: log2(1024/8) + 1 */
    ck_assert_double_eq(s[0], 8);
    ck_assert_double_eq(s[7], 1024);
    free(s);
    b = (struct benchmark){.begin_B = 1e6, .end_B = 1e6, .factor = 2};
    s = bench_sizes(&b, &n);
    ck_assert_uint_eq(n, 1);
    free(s);
    b = (struct benchmark){.begin_B = 10, .end_B = 100, .factor = 3}; /* 10, 30, 90 */
    s = bench_sizes(&b, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_double_eq(s[2], 90);
    free(s);
}
END_TEST

static Suite *p2p_suite(void)
{
    size_t nlinks;
    catalog_links(&nlinks);
    Suite *s = suite_create("p2p");
    TCase *tc = tcase_create("closed-form");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_every_link_class, 0, (int)nlinks);
    tcase_add_test(tc, test_host_to_gpu_and_pairs_in_turn);
    tcase_add_test(tc, test_user_platform_p2p);
    tcase_add_test(tc, test_lv08_on_request);
    tcase_add_test(tc, test_sizes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(p2p_suite());
}
