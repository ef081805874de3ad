/* check_platform.c - generated platforms: routes cross the expected links in the expected
 * directions, and SimGrid's route latency and bandwidth equal the catalog's values.
 *
 * Expected routes follow the node anatomy in platform.h: GPU-GPU in a node = the source GPU's
 * intra link up + the destination's down; across nodes = GPU PCIe up, NIC up, switch, NIC down,
 * GPU PCIe down; host-GPU = CPU PCIe up, GPU PCIe down. Expected latency = sum of the links'
 * latencies (each link = half its class's hop latency, a switch = its port-to-port latency);
 * expected bandwidth = the smallest on the route. */
#include "testlib.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include <math.h>
#include <stdio.h>

#define REL 1e-12

static void assert_route(const char *src, const char *dst, const char *const *expect, int n)
{
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_t a = sg_host_by_name(src), b = sg_host_by_name(dst);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    sg_host_get_route(a, b, links);
    ck_assert_msg((int)xbt_dynar_length(links) == n, "%s->%s: %lu links, expected %d", src, dst,
                  xbt_dynar_length(links), n);
    for (int i = 0; i < n; i++) {
        sg_link_t l = xbt_dynar_get_as(links, i, sg_link_t);
        ck_assert_str_eq(sg_link_get_name(l), expect[i]);
    }
    xbt_dynar_free(&links);
}

static void assert_close(double got, double want, const char *what)
{
    ck_assert_msg(fabs(got - want) <= REL * fabs(want), "%s: got %.17g, expected %.17g", what, got,
                  want);
}

START_TEST(test_nvlink_node_routes)
{
    struct scenario sc = test_cluster(2, 8, "h100", "nvlink4", "ib-ndr", 4);
    struct platform *pf = test_load(&sc);
    const struct link_class *nv = catalog_link("nvlink4"), *pcie = catalog_link("pcie-gen5"),
                            *ndr = catalog_link("ib-ndr");

    const char *intra[] = {"node0.gpu0.nvlink4_UP", "node0.gpu5.nvlink4_DOWN"};
    assert_route("node0.gpu0", "node0.gpu5", intra, 2);
    const char *intra_back[] = {"node0.gpu5.nvlink4_UP", "node0.gpu0.nvlink4_DOWN"};
    assert_route("node0.gpu5", "node0.gpu0", intra_back, 2);
    sg_host_t g0 = sg_host_by_name("node0.gpu0"), g5 = sg_host_by_name("node0.gpu5");
    assert_close(sg_host_get_route_latency(g0, g5), nv->hop_lat_s, "nvlink route latency");
    assert_close(sg_host_get_route_bandwidth(g0, g5), nv->bw_Bps, "nvlink route bandwidth");

    /* GPU 6 uses NIC 6 mod 4 = 2; GPU 1 of node 1 uses NIC 1. */
    const char *across[] = {"node0.gpu6.pcie-gen5_UP", "node0.nic2.ib-ndr_UP", "switch.ib-ndr",
                            "node1.nic1.ib-ndr_DOWN", "node1.gpu1.pcie-gen5_DOWN"};
    assert_route("node0.gpu6", "node1.gpu1", across, 5);
    const char *across_back[] = {"node1.gpu1.pcie-gen5_UP", "node1.nic1.ib-ndr_UP", "switch.ib-ndr",
                                 "node0.nic2.ib-ndr_DOWN", "node0.gpu6.pcie-gen5_DOWN"};
    assert_route("node1.gpu1", "node0.gpu6", across_back, 5);
    sg_host_t x = sg_host_by_name("node0.gpu6"), y = sg_host_by_name("node1.gpu1");
    assert_close(sg_host_get_route_latency(x, y),
                 pcie->hop_lat_s + ndr->hop_lat_s + CATALOG_SWITCH_LAT_S, "cross-node latency");
    assert_close(sg_host_get_route_bandwidth(x, y), fmin(pcie->bw_Bps, ndr->bw_Bps),
                 "cross-node bandwidth");

    const char *h2d[] = {"node1.cpu.pcie-gen5_UP", "node1.gpu3.pcie-gen5_DOWN"};
    assert_route("node1.cpu", "node1.gpu3", h2d, 2);
    const char *d2h[] = {"node1.gpu3.pcie-gen5_UP", "node1.cpu.pcie-gen5_DOWN"};
    assert_route("node1.gpu3", "node1.cpu", d2h, 2);
    sg_host_t c = sg_host_by_name("node1.cpu"), g = sg_host_by_name("node1.gpu3");
    assert_close(sg_host_get_route_latency(c, g), pcie->hop_lat_s, "host-gpu latency");
    assert_close(sg_host_get_route_bandwidth(c, g), pcie->bw_Bps, "host-gpu bandwidth");

    /* CPU to a remote GPU goes out through NIC 0. */
    const char *cpu_remote[] = {"node0.cpu.pcie-gen5_UP", "node0.nic0.ib-ndr_UP", "switch.ib-ndr",
                                "node1.nic3.ib-ndr_DOWN", "node1.gpu7.pcie-gen5_DOWN"};
    assert_route("node0.cpu", "node1.gpu7", cpu_remote, 5);

    /* GPU ranks follow natural name order; speed is the FP32 peak. */
    ck_assert_uint_eq(pf->ngpus, 16);
    ck_assert_str_eq(sg_host_get_name(pf->gpus[9]), "node1.gpu1");
    ck_assert_ptr_eq(pf->models[9], catalog_gpu("h100"));
    ck_assert_double_eq(sg_host_get_speed(pf->gpus[0]),
                        catalog_gpu("h100")->peak_flops[DTYPE_FP32]);
    platform_free(pf);
}
END_TEST

START_TEST(test_pcie_only_server)
{
    struct scenario sc = test_cluster(1, 8, "a100", "pcie-gen4", NULL, 1);
    struct platform *pf = test_load(&sc);
    const char *p2p[] = {"node0.gpu2.pcie-gen4_UP", "node0.gpu7.pcie-gen4_DOWN"};
    assert_route("node0.gpu2", "node0.gpu7", p2p, 2);
    sg_host_t a = sg_host_by_name("node0.gpu2"), b = sg_host_by_name("node0.gpu7");
    assert_close(sg_host_get_route_latency(a, b), catalog_link("pcie-gen4")->hop_lat_s, "latency");
    assert_close(sg_host_get_route_bandwidth(a, b), catalog_link("pcie-gen4")->bw_Bps, "bandwidth");
    ck_assert_uint_eq(pf->ngpus, 8);
    platform_free(pf);
}
END_TEST

START_TEST(test_fat_tree)
{
    /* 8 nodes, 2 per leaf -> 4 leaves, 2 spines, oversubscription 2, 1 tcp-100g NIC per node:
     * each leaf-spine link = (2 nodes x 1 NIC x bw) / (2 x 2 spines) = bw / 2. */
    struct scenario sc = test_cluster(8, 2, "p100", "pcie-gen3", "tcp-100g", 1);
    sc.cluster.topology = TOPO_FATTREE;
    sc.cluster.nodes_per_leaf = 2;
    sc.cluster.spines = 2;
    sc.cluster.oversubscription = 2;
    struct platform *pf = test_load(&sc);
    const struct link_class *tcp = catalog_link("tcp-100g"), *pcie = catalog_link("pcie-gen3");

    /* Same leaf (nodes 0 and 1): one leaf switch. */
    const char *same[] = {"node0.gpu0.pcie-gen3_UP", "node0.nic0.tcp-100g_UP", "leaf0.tcp-100g",
                          "node1.nic0.tcp-100g_DOWN", "node1.gpu1.pcie-gen3_DOWN"};
    assert_route("node0.gpu0", "node1.gpu1", same, 5);
    /* Nodes 1 (leaf 0) and 6 (leaf 3): spine (1 + 6) mod 2 = 1. */
    const char *cross[] = {
            "node1.gpu0.pcie-gen3_UP",  "node1.nic0.tcp-100g_UP",     "leaf0.tcp-100g",
            "leaf0-spine1.tcp-100g_UP", "leaf3-spine1.tcp-100g_DOWN", "leaf3.tcp-100g",
            "node6.nic0.tcp-100g_DOWN", "node6.gpu0.pcie-gen3_DOWN"};
    assert_route("node1.gpu0", "node6.gpu0", cross, 8);
    sg_host_t a = sg_host_by_name("node1.gpu0"), b = sg_host_by_name("node6.gpu0");
    double uplink = 2 * 1 * tcp->bw_Bps / (2.0 * 2);
    assert_close(sg_host_get_route_bandwidth(a, b), fmin(fmin(pcie->bw_Bps, tcp->bw_Bps), uplink),
                 "fat-tree bandwidth");
    assert_close(sg_host_get_route_latency(a, b),
                 pcie->hop_lat_s + tcp->hop_lat_s + 3 * CATALOG_SWITCH_LAT_S, "fat-tree latency");
    platform_free(pf);
}
END_TEST

START_TEST(test_user_platform)
{
    /* tests/data/user-platform.xml: 3 GPU hosts named out of order + 1 CPU host. */
    struct scenario sc;
    struct dmlsim_error err = {0};
    ck_assert_msg(scenario_load("tests/data/user.xml", &sc, &err) == DMLSIM_OK, "%s", err.msg);
    ck_assert(!sc.has_cluster);
    struct platform *pf = test_load(&sc);
    ck_assert_uint_eq(pf->ngpus, 3);
    ck_assert_str_eq(sg_host_get_name(pf->gpus[0]), "gpu2");
    ck_assert_str_eq(sg_host_get_name(pf->gpus[1]), "gpu10");
    ck_assert_str_eq(sg_host_get_name(pf->gpus[2]), "gpu11");
    ck_assert_ptr_eq(pf->models[1], catalog_gpu("v100"));
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_link_class_names)
{
    char buf[64], route[128];
    ck_assert_str_eq(platform_link_class("node0.gpu1.nvlink4_UP", buf, sizeof buf), "nvlink4");
    ck_assert_str_eq(platform_link_class("leaf0-spine1.ib-ndr_DOWN", buf, sizeof buf), "ib-ndr");
    ck_assert_str_eq(platform_link_class("switch.ib-ndr", buf, sizeof buf), "ib-ndr");
    ck_assert_str_eq(platform_link_class("plainlink", buf, sizeof buf), "plainlink");
    ck_assert_int_lt(platform_name_cmp("node2.gpu0", "node10.gpu0"), 0);
    ck_assert_int_gt(platform_name_cmp("node1.gpu10", "node1.gpu9"), 0);
    ck_assert_int_eq(platform_name_cmp("a1", "a1"), 0);
    (void)route;
}
END_TEST

static Suite *platform_suite(void)
{
    Suite *s = suite_create("platform");
    TCase *tc = tcase_create("routes");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_nvlink_node_routes);
    tcase_add_test(tc, test_pcie_only_server);
    tcase_add_test(tc, test_fat_tree);
    tcase_add_test(tc, test_user_platform);
    tcase_add_test(tc, test_link_class_names);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(platform_suite());
}
