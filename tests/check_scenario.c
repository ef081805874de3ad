/* check_scenario.c - what a good scenario loads into, and the error code of bad ones. The full
 * list of bad scenarios with their FILE:LINE messages runs through the CLI (tests/cli.sh). */
#include "testlib.h"

START_TEST(test_p2p_scenario)
{
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load("scenarios/p2p.xml", &sc, &err) == DMLSIM_OK, "%s", err.msg);
    ck_assert_str_eq(sc.name, "p2p");
    ck_assert_uint_eq(sc.seed, 42);
    ck_assert_int_eq(sc.net_model, NET_CM02);
    ck_assert(sc.has_cluster);
    ck_assert_int_eq(sc.cluster.nodes, 2);
    ck_assert_int_eq(sc.cluster.gpus_per_node, 8);
    ck_assert_ptr_eq(sc.cluster.gpu, catalog_gpu("h100"));
    ck_assert_ptr_eq(sc.cluster.intra, catalog_link("nvlink4"));
    ck_assert_ptr_eq(sc.cluster.pcie, catalog_link("pcie-gen5")); /* the H100's own */
    ck_assert_ptr_eq(sc.cluster.nic, catalog_link("ib-ndr"));
    ck_assert_int_eq(sc.cluster.nics_per_node, 8);
    ck_assert_int_eq(sc.bench.kind, BENCH_P2P);
    ck_assert_double_eq(sc.bench.begin_B, 8);
    ck_assert_double_eq(sc.bench.end_B, 1073741824.0); /* 1 GiB = 2^30 B */
    ck_assert_uint_eq(sc.bench.npairs, 3);
    ck_assert_str_eq(sc.bench.pairs[2].src, "node0.cpu");
    scenario_release(&sc);
}
END_TEST

/* The DOCTYPE's DTD is never read (the scenario DTD is compiled in, and libxml2 runs with
 * XML_PARSE_NONET and without DTD loading): tests/data/evil.dtd's default of steps="1000000" must
 * not reach the run, which keeps the built-in default of 10 steps (README, "Scenarios"). */
START_TEST(test_external_dtd_ignored)
{
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load("tests/data/external-dtd.xml", &sc, &err) == DMLSIM_OK, "%s",
                  err.msg);
    ck_assert_int_eq(sc.train.steps, 10);
    scenario_release(&sc);
}
END_TEST

struct bad_code {
    const char *file;
    enum dmlsim_err code;
};

static const struct bad_code bad_codes[] = {
        {"tests/bad/malformed.xml", DMLSIM_EXML},
        {"tests/bad/unknown-element.xml", DMLSIM_ESCHEMA},
        {"tests/bad/bad-enum.xml", DMLSIM_ESCHEMA},
        {"tests/bad/bad-unit.xml", DMLSIM_EVALUE},
        {"tests/bad/does-not-exist.xml", DMLSIM_EIO},
        {"tests/bad/doctype-internal-subset.xml", DMLSIM_ESCHEMA},
};

START_TEST(test_bad_codes)
{
    struct scenario sc;
    struct dmlsim_error err = {0};
    const struct bad_code *b = &bad_codes[_i];
    ck_assert_int_eq(scenario_load(b->file, &sc, &err), b->code);
    ck_assert_int_eq(err.code, b->code);
    ck_assert_msg(strncmp(err.msg, b->file, strlen(b->file)) == 0, "message \"%s\"", err.msg);
    ck_assert_ptr_null(sc.path); /* nothing left to release */
}
END_TEST

static Suite *scenario_suite(void)
{
    Suite *s = suite_create("scenario");
    TCase *tc = tcase_create("load");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_p2p_scenario);
    tcase_add_test(tc, test_external_dtd_ignored);
    tcase_add_loop_test(tc, test_bad_codes, 0, sizeof bad_codes / sizeof bad_codes[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(scenario_suite());
}
