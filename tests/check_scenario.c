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

/* Loads a one-GPU scenario whose <training> holds the <data> element `data`. */
static struct scenario load_data(const char *data)
{
    char path[] = "/tmp/dmlsim-data-XXXXXX.xml";
    int fd = mkstemps(path, 4);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "<scenario><cluster nodes=\"1\" gpus-per-node=\"1\" gpu=\"h100\"/>"
               "<model preset=\"resnet50\"/><training strategy=\"allreduce\" batch-per-gpu=\"8\">%s"
               "</training>"
               "</scenario>\n", data);
    fclose(f);
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load(path, &sc, &err) == DMLSIM_OK, "%s", err.msg);
    unlink(path);
    return sc;
}

/* Shards by bytes: a writer's limit of 10,500 B over samples of 1,000 B. WebDataset's
 * ShardWriter opens a new shard once the size reached maxsize, so the sample that crosses it
 * stays: 11 samples (ceil); MosaicML's MDSWriter (size_limit) and parquet-mr (parquet.block.size)
 * close it before a sample would pass: 10 (floor). MDS's default limit, 1 << 26 B, holds 67
 * samples of 1 MB. */
START_TEST(test_shard_bytes)
{
    static const struct {
        const char *data;
        double want;
    } cases[] = {
            {"<data samples=\"1000\" sample-size=\"1000B\" format=\"webdataset\" "
             "shard-bytes=\"10500B\"/>", 11},
            {"<data samples=\"1000\" sample-size=\"1000B\" format=\"mds\" shard-bytes=\"10500B\"/>",
             10},
            {"<data samples=\"1000\" sample-size=\"1000B\" format=\"parquet\" "
             "shard-bytes=\"10500B\"/>", 10},
            {"<data samples=\"1000\" sample-size=\"1MB\" format=\"mds\"/>", 67},
            {"<data samples=\"1000\" sample-size=\"1MB\" format=\"mds\" shard-samples=\"9\"/>", 9},
    };
    struct scenario sc = load_data(cases[_i].data);
    ck_assert_double_eq(sc.train.data.shard_samples, cases[_i].want);
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
    tcase_add_loop_test(tc, test_shard_bytes, 0, 5);
    tcase_add_loop_test(tc, test_bad_codes, 0, sizeof bad_codes / sizeof bad_codes[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(scenario_suite());
}
