/* check_platform.c - generated platforms: routes cross the expected links in the expected
 * directions, and SimGrid's route latency and bandwidth equal the catalog's values.
 *
 * Expected routes follow the node anatomy in platform.h: GPU-GPU in a node = the source GPU's
 * intra link up + the destination's down; across nodes = GPU PCIe up, NIC up, switch, NIC down,
 * GPU PCIe down; host-GPU = CPU PCIe up, GPU PCIe down. Expected latency = sum of the links'
 * latencies (each link = half its class's hop latency, a switch = its port-to-port latency);
 * expected bandwidth = the smallest on the route. DGX-1 nodes (nvlink1, nvlink2): a connected GPU
 * pair is one direct link of k NVLinks (k from the topology table below), one whole hop; others
 * go over PCIe. NVLink SHARP nodes (nvlink4, nvlink5) have a host nodeN.nvs one GPU link away.
 * LV08 on a generated cluster: TCP-class links carry LV08's factors, nothing else does. */
#include "bench.h"
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
    /* Across nodes: the GPU's PCIe, its NIC, its node's switch port, the peer's port, NIC, PCIe
     * (routed pair by pair up to FULL_ROUTED_MAX_ZONES machines, platform_gen.c; beyond, SimGrid
     * computes it through the star's centre, switch.net, and tests/smpi_route.sh checks one). */
    const char *across[] = {"node0.gpu6.pcie-gen5_UP", "node0.nic2.ib-ndr_UP",
                            "node0.port.ib-ndr_UP",    "node1.port.ib-ndr_DOWN",
                            "node1.nic1.ib-ndr_DOWN",  "node1.gpu1.pcie-gen5_DOWN"};
    assert_route("node0.gpu6", "node1.gpu1", across, 6);
    const char *across_back[] = {"node1.gpu1.pcie-gen5_UP", "node1.nic1.ib-ndr_UP",
                                 "node1.port.ib-ndr_UP",    "node0.port.ib-ndr_DOWN",
                                 "node0.nic2.ib-ndr_DOWN",  "node0.gpu6.pcie-gen5_DOWN"};
    assert_route("node1.gpu1", "node0.gpu6", across_back, 6);
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
    const char *cpu_remote[] = {"node0.cpu.pcie-gen5_UP", "node0.nic0.ib-ndr_UP",
                                "node0.port.ib-ndr_UP",   "node1.port.ib-ndr_DOWN",
                                "node1.nic3.ib-ndr_DOWN", "node1.gpu7.pcie-gen5_DOWN"};
    assert_route("node0.cpu", "node1.gpu7", cpu_remote, 6);

    /* GPU ranks follow natural name order; speed is the FP32 peak. */
    ck_assert_uint_eq(pf->ngpus, 16);
    ck_assert_str_eq(sg_host_get_name(pf->gpus[9]), "node1.gpu1");
    ck_assert_ptr_eq(pf->models[9], catalog_gpu("h100"));
    ck_assert_double_eq(sg_host_get_speed(pf->gpus[0]),
                        catalog_gpu("h100")->peak_flops[DTYPE_FP32]);
    platform_free(pf);
    scenario_release(&sc);
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
    scenario_release(&sc);
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

    /* Same leaf (nodes 0 and 1): through the leaf switch, from one port to the other. */
    const char *same[] = {"node0.gpu0.pcie-gen3_UP",  "node0.nic0.tcp-100g_UP",
                          "node0.port.tcp-100g_UP",   "node1.port.tcp-100g_DOWN",
                          "node1.nic0.tcp-100g_DOWN", "node1.gpu1.pcie-gen3_DOWN"};
    assert_route("node0.gpu0", "node1.gpu1", same, 6);
    /* Nodes 1 (leaf 0) and 6 (leaf 3): spine (1 + 6) mod 2 = 1. */
    const char *cross[] = {"node1.gpu0.pcie-gen3_UP",    "node1.nic0.tcp-100g_UP",
                           "node1.port.tcp-100g_UP",     "leaf0-spine1.tcp-100g_UP",
                           "leaf3-spine1.tcp-100g_DOWN", "node6.port.tcp-100g_DOWN",
                           "node6.nic0.tcp-100g_DOWN",   "node6.gpu0.pcie-gen3_DOWN"};
    assert_route("node1.gpu0", "node6.gpu0", cross, 8);
    sg_host_t a = sg_host_by_name("node1.gpu0"), b = sg_host_by_name("node6.gpu0");
    double uplink = 2 * 1 * tcp->bw_Bps / (2.0 * 2);
    assert_close(sg_host_get_route_bandwidth(a, b), fmin(fmin(pcie->bw_Bps, tcp->bw_Bps), uplink),
                 "fat-tree bandwidth");
    assert_close(sg_host_get_route_latency(a, b),
                 pcie->hop_lat_s + tcp->hop_lat_s + 3 * CATALOG_SWITCH_LAT_S, "fat-tree latency");
    platform_free(pf);
    scenario_release(&sc);
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
    ck_assert_str_eq(route_link_class("node0.gpu1.nvlink4_UP", buf, sizeof buf), "nvlink4");
    ck_assert_str_eq(route_link_class("leaf0-spine1.ib-ndr_DOWN", buf, sizeof buf), "ib-ndr");
    ck_assert_str_eq(route_link_class("switch.ib-ndr", buf, sizeof buf), "ib-ndr");
    ck_assert_str_eq(route_link_class("plainlink", buf, sizeof buf), "plainlink");
    ck_assert_int_lt(platform_name_cmp("node2.gpu0", "node10.gpu0"), 0);
    ck_assert_int_gt(platform_name_cmp("node1.gpu10", "node1.gpu9"), 0);
    ck_assert_int_eq(platform_name_cmp("a1", "a1"), 0);
    (void)route;
}
END_TEST

/* NVLinks between GPUs i and j of a DGX-1 with V100, as `nvidia-smi topo -m` prints them (NV1,
 * NV2; 0 = SYS, no NVLink) on an 8 x V100 SXM2 hybrid-cube-mesh server: Oneflow-Inc/DLPerf,
 * OneFlow/BERT/bert_base_oneflow_v0.3_report_1202.md. A DGX-1 with P100 wires the same pairs
 * with one NVLink each (4 links per P100, NVIDIA DGX-1 white paper). */
static const int dgx1v_links[8][8] = {
        {0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0},
        {2, 1, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
        {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0},
};

/* Every ordered pair of GPUs 0..G-1 of node 0: a pair with k NVLinks is one direct link named
 * "node0.gpuA-gpuB.<cls>" (A < B; UP from A), k x the class's per-link rate, one hop's latency;
 * a pair without is PCIe up + PCIe down (one PCIe hop). p100: k = 1 wherever V100 has k > 0. */
static void check_mesh(int G, const char *cls, bool p100)
{
    const struct link_class *nv = catalog_link(cls), *pcie = catalog_link("pcie-gen3");
    char name[2][64], cls_route[64];
    for (int i = 0; i < G; i++) {
        for (int j = 0; j < G; j++) {
            if (i == j) continue;
            int k = dgx1v_links[i][j] > 0 && p100 ? 1 : dgx1v_links[i][j];
            char src[32], dst[32];
            snprintf(src, sizeof src, "node0.gpu%d", i);
            snprintf(dst, sizeof dst, "node0.gpu%d", j);
            sg_host_t a = sg_host_by_name(src), b = sg_host_by_name(dst);
            if (k > 0) {
                snprintf(name[0], sizeof name[0], "node0.gpu%d-gpu%d.%s_%s", i < j ? i : j,
                         i < j ? j : i, cls, i < j ? "UP" : "DOWN");
                const char *route[] = {name[0]};
                assert_route(src, dst, route, 1);
                assert_close(sg_host_get_route_bandwidth(a, b), k * nv->bw_Bps, "mesh bandwidth");
                assert_close(sg_host_get_route_latency(a, b), nv->hop_lat_s, "mesh latency");
                ck_assert_str_eq(route_classes(a, b, cls_route, sizeof cls_route), cls);
            } else {
                snprintf(name[0], sizeof name[0], "node0.gpu%d.pcie-gen3_UP", i);
                snprintf(name[1], sizeof name[1], "node0.gpu%d.pcie-gen3_DOWN", j);
                const char *route[] = {name[0], name[1]};
                assert_route(src, dst, route, 2);
                assert_close(sg_host_get_route_bandwidth(a, b), pcie->bw_Bps, "pcie bandwidth");
                assert_close(sg_host_get_route_latency(a, b), pcie->hop_lat_s, "pcie latency");
            }
        }
    }
}

START_TEST(test_dgx1_v100_mesh)
{
    struct scenario sc = test_cluster(2, 8, "v100", "nvlink2", "ib-edr", 4);
    struct platform *pf = test_load(&sc);
    check_mesh(8, "nvlink2", false);
    /* Leaving the node is unchanged: GPU PCIe, its NIC (5 mod 4 = 1), the switch ports. */
    const char *across[] = {"node0.gpu5.pcie-gen3_UP", "node0.nic1.ib-edr_UP",
                            "node0.port.ib-edr_UP",    "node1.port.ib-edr_DOWN",
                            "node1.nic2.ib-edr_DOWN",  "node1.gpu2.pcie-gen3_DOWN"};
    assert_route("node0.gpu5", "node1.gpu2", across, 6);
    ck_assert_uint_eq(pf->ngpus, 16);
    ck_assert_ptr_null(pf->nvswitch[0]); /* no NVSwitch in a DGX-1 */
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_dgx1_p100_mesh)
{
    struct scenario sc = test_cluster(1, 8, "p100", "nvlink1", NULL, 1);
    struct platform *pf = test_load(&sc);
    check_mesh(8, "nvlink1", true);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_sub_mesh)
{
    /* G = 4 takes GPUs 0..3 of the cube: the face 0-1-3-2 and its diagonals, all connected;
     * G = 6 adds GPUs 4 and 5, leaving e.g. 2-4 and 3-5 to PCIe. */
    int G = _i == 0 ? 4 : 6;
    struct scenario sc = test_cluster(1, G, "v100", "nvlink2", NULL, 1);
    struct platform *pf = test_load(&sc);
    check_mesh(G, "nvlink2", false);
    ck_assert_uint_eq(pf->ngpus, (size_t)G);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_nvswitch_hosts)
{
    struct scenario sc = test_cluster(2, 8, "h100", "nvlink4", "ib-ndr", 8);
    struct platform *pf = test_load(&sc);
    const struct link_class *nv = catalog_link("nvlink4");
    for (int n = 0; n < 2; n++) {
        char nvs[32], gpu[32], up[64], down[64];
        snprintf(nvs, sizeof nvs, "node%d.nvs", n);
        sg_host_t h = sg_host_by_name(nvs);
        ck_assert_ptr_nonnull(h);
        ck_assert_str_eq(sg_host_get_property_value(h, "role"), "nvswitch");
        ck_assert_str_eq(sg_host_get_property_value(h, "node"), n ? "1" : "0");
        ck_assert_ptr_null(sg_host_get_property_value(h, "gpu"));
        ck_assert_ptr_eq(pf->nvswitch[n], h);
        for (int j = 0; j < 8; j++) {
            snprintf(gpu, sizeof gpu, "node%d.gpu%d", n, j);
            snprintf(up, sizeof up, "node%d.gpu%d.nvlink4_UP", n, j);
            snprintf(down, sizeof down, "node%d.gpu%d.nvlink4_DOWN", n, j);
            const char *to[] = {up}, *from[] = {down};
            assert_route(gpu, nvs, to, 1);
            assert_route(nvs, gpu, from, 1);
            /* half a hop each way: the GPU's own link into the switches */
            assert_close(sg_host_get_route_latency(sg_host_by_name(gpu), h), nv->hop_lat_s / 2,
                         "gpu-nvs latency");
            assert_close(sg_host_get_route_bandwidth(h, sg_host_by_name(gpu)), nv->bw_Bps,
                         "nvs-gpu bandwidth");
        }
    }
    /* Not a GPU, not a CPU: ranks and CPU hosts are as before. */
    ck_assert_uint_eq(pf->nnodes, 2);
    ck_assert_uint_eq(pf->ngpus, 16);
    ck_assert_uint_eq(pf->ncpus, 2);
    for (size_t i = 0; i < pf->ngpus; i++)
        ck_assert_ptr_null(strstr(sg_host_get_name(pf->gpus[i]), "nvs"));
    ck_assert_str_eq(sg_host_get_name(pf->cpu_hosts[1]), "node1.cpu");
    /* GPU to GPU still goes up one GPU's link and down the other's. */
    const char *intra[] = {"node1.gpu2.nvlink4_UP", "node1.gpu7.nvlink4_DOWN"};
    assert_route("node1.gpu2", "node1.gpu7", intra, 2);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

/* The partition links of the route src -> dst, by name (comma-joined into buf). */
static const char *partition_links(const char *src, const char *dst, char *buf, size_t len)
{
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(sg_host_by_name(src), sg_host_by_name(dst), links);
    buf[0] = '\0';
    unsigned i;
    sg_link_t l;
    xbt_dynar_foreach (links, i, l)
        if (strncmp(sg_link_get_name(l), "partition.", 10) == 0)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
                     sg_link_get_name(l));
    xbt_dynar_free(&links);
    return buf;
}

/* groups="node0,node1|node2,node3": the routes between the groups, and only those, cross both
 * groups' partition links (the plan takes both down for the window), so node2 and node3 still
 * reach each other; the store (in no group: the first) is on node0's side. */
START_TEST(test_partition_cuts_between_groups)
{
    struct scenario sc = test_cluster(4, 1, "h100", "pcie-gen5", "ib-ndr", 1);
    sc.faults = calloc(1, sizeof *sc.faults);
    sc.nfaults = 1;
    sc.faults[0] = (struct fault_spec){.kind = FS_PARTITION,
                                       .groups = strdup("node0,node1|node2,node3"),
                                       .at_s = 0.5,
                                       .step = -1,
                                       .for_s = 1,
                                       .restart_s = -1,
                                       .line = 7};
    struct platform *pf = test_load(&sc);
    char buf[256];
    ck_assert_str_eq(partition_links("node2.gpu0", "node3.gpu0", buf, sizeof buf), "");
    ck_assert_str_eq(partition_links("node0.gpu0", "node1.gpu0", buf, sizeof buf), "");
    ck_assert_str_eq(partition_links("node0.gpu0", "storage.cpu", buf, sizeof buf), "");
    ck_assert_str_eq(partition_links("node1.gpu0", "node2.gpu0", buf, sizeof buf),
                     "partition.line7.g0.ib-ndr,partition.line7.g1.ib-ndr");
    ck_assert_str_eq(partition_links("node3.gpu0", "storage.cpu", buf, sizeof buf),
                     "partition.line7.g1.ib-ndr,partition.line7.g0.ib-ndr");
    ck_assert_uint_eq(test_plan.n, 4); /* both links down at 0.5 s, up at 1.5 s */
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(test_plan.ev[i].kind, i < 2 ? FAULT_LINK_DOWN : FAULT_LINK_UP);
        ck_assert_double_eq(test_plan.ev[i].t_s, i < 2 ? 0.5 : 1.5);
        ck_assert(strncmp(test_plan.ev[i].target, "partition.line7.g", 17) == 0);
    }
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_no_nvswitch_host_without_sharp)
{
    /* NVLink3 switches do not reduce (no NVLS on A100), and PCIe servers have no NVSwitch. */
    struct scenario sc =
            test_cluster(1, 8, _i ? "a100" : "h100", _i ? "nvlink3" : "pcie-gen5", NULL, 1);
    struct platform *pf = test_load(&sc);
    ck_assert_ptr_null(sg_host_by_name("node0.nvs"));
    ck_assert_uint_eq(pf->nnodes, 1);
    ck_assert_ptr_null(pf->nvswitch[0]);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

/* SimGrid 3.32's LV08 factors ("Configuring SimGrid", network/model: "multiplying latency by
 * 13.01, bandwidth by .97"). */
#define LV08_LAT 13.01
#define LV08_BW  0.97

START_TEST(test_lv08_tcp_links_only)
{
    /* Two P100 nodes on 25 GbE TCP: the NIC links and the switch carry LV08's factors, the PCIe
     * links do not, and the model stays exact alpha-beta (CM02): a message of S bytes takes
     *   pcie hop + 13.01 x (tcp hop + switch latency) + S / min(pcie, 0.97 x tcp, 0.97 x line).
     * SimGrid's own LV08 would also scale the PCIe latency (and cap by TCP-gamma). */
    struct scenario sc = test_cluster(2, 1, "p100", "pcie-gen3", "tcp-25g", 1);
    sc.net_model = NET_LV08;
    sc.bench.kind = BENCH_P2P;
    sc.bench.begin_B = 8;
    sc.bench.end_B = 1 << 30;
    sc.bench.factor = 1 << 9;
    sc.bench.timeout_s = 3600;
    sc.bench.npairs = 1;
    sc.bench.pairs = calloc(1, sizeof *sc.bench.pairs);
    sc.bench.pairs[0].src = strdup("node0.gpu0");
    sc.bench.pairs[0].dst = strdup("node1.gpu0");
    struct platform *pf = test_load(&sc);
    const struct link_class *tcp = catalog_link("tcp-25g"), *pcie = catalog_link("pcie-gen3");
    double lat = pcie->hop_lat_s + LV08_LAT * (tcp->hop_lat_s + CATALOG_SWITCH_LAT_S);
    double bw = fmin(pcie->bw_Bps, fmin(LV08_BW * tcp->bw_Bps, LV08_BW * tcp->line_bw_Bps));
    sg_host_t a = sg_host_by_name("node0.gpu0"), b = sg_host_by_name("node1.gpu0");
    assert_close(sg_host_get_route_latency(a, b), lat, "lv08 route latency");
    assert_close(sg_host_get_route_bandwidth(a, b), bw, "lv08 route bandwidth");
    assert_close(sg_link_get_latency(sg_link_by_name("node0.gpu0.pcie-gen3_UP")),
                 pcie->hop_lat_s / 2, "pcie link latency");
    assert_close(sg_link_get_bandwidth(sg_link_by_name("node0.nic0.tcp-25g_UP")),
                 LV08_BW * tcp->bw_Bps, "tcp link bandwidth");
    struct p2p_result res;
    struct dmlsim_error err = {0};
    ck_assert_msg(bench_check_hosts(&sc, &err) == DMLSIM_OK, "%s", err.msg);
    bench_p2p_run(&sc, &res);
    ck_assert_uint_eq(res.nrows, 4); /* 8 B x 512^k <= 2^30 B, k = 0..3 */
    for (size_t i = 0; i < res.nrows; i++)
        assert_close(res.rows[i].time_s, lat + res.rows[i].size_B / bw, "lv08 transfer time");
    bench_p2p_release(&res);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_lv08_leaves_rdma_exact)
{
    struct scenario sc = test_cluster(2, 1, "h100", "nvlink4", "ib-ndr", 1);
    sc.net_model = NET_LV08;
    struct platform *pf = test_load(&sc);
    const struct link_class *ndr = catalog_link("ib-ndr"), *pcie = catalog_link("pcie-gen5");
    sg_host_t a = sg_host_by_name("node0.gpu0"), b = sg_host_by_name("node1.gpu0");
    assert_close(sg_host_get_route_latency(a, b),
                 pcie->hop_lat_s + ndr->hop_lat_s + CATALOG_SWITCH_LAT_S, "rdma latency");
    assert_close(sg_host_get_route_bandwidth(a, b), fmin(pcie->bw_Bps, ndr->bw_Bps),
                 "rdma bandwidth");
    ck_assert_ptr_nonnull(strstr(platform_network_model(&sc), "TCP-class links only"));
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

START_TEST(test_gpu_match)
{
    static const struct {
        const char *device, *gpu; /* gpu NULL: no catalog entry */
    } cases[] = {
            {"NVIDIA H100 80GB HBM3", "h100"},
            {"NVIDIA H100", "h100"},
            {"NVIDIA H100 PCIe", "h100-pcie"},
            {"NVIDIA H100 NVL", NULL}, /* 94 GB at 3.9 TB/s: neither H100 entry */
            {"NVIDIA H200", "h200"},
            {"NVIDIA A100-SXM4-80GB", "a100"},
            {"NVIDIA A100-SXM-80GB", "a100"},
            {"NVIDIA A100 80GB PCIe", "a100"},
            {"NVIDIA A100-SXM4-40GB", "a100-40gb"},
            {"A100-SXM4-40GB", "a100-40gb"},
            {"A100-SXM-40GB", "a100-40gb"},
            {"Tesla V100-SXM2-32GB", "v100"},
            {"Tesla V100-SXM2-16GB", "v100"},
            {"Tesla P100-SXM2-16GB", "p100"},
            {"Tesla K80", "k80"},
            {"NVIDIA B200", "b200"},
            {"  nvidia   h100  80gb hbm3 ", "h100"}, /* case and blanks do not matter */
            {"NVIDIA H100 SXM5 80GB", "h100"},       /* the catalog's own long name */
            {"NVIDIA GH200 480GB", NULL},
            {"NVIDIA H100 80GB HBM3 MIG 1g.10gb", NULL},
            {"Tesla V100-PCIE-16GB", NULL},
            {"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct gpu_model *g = catalog_gpu_match(cases[i].device);
        ck_assert_msg(g == (cases[i].gpu ? catalog_gpu(cases[i].gpu) : NULL), "%s -> %s",
                      cases[i].device, g ? g->name : "NULL");
    }
    /* Every entry's long name and device names lead back to it (no name is claimed twice). */
    size_t n;
    const struct gpu_model *all = catalog_gpus(&n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_ptr_eq(catalog_gpu_match(all[i].long_name), &all[i]);
        for (size_t k = 0; k < 4 && all[i].device[k]; k++)
            ck_assert_ptr_eq(catalog_gpu_match(all[i].device[k]), &all[i]);
        ck_assert_ptr_nonnull(catalog_link(all[i].intra));
        ck_assert_int_gt(all[i].sm, 0);
    }
}
END_TEST

/* A switch port (switch="port", the default) carries its machine's NICs' line rate and the old
 * FATPIPE switch the line rate of one NIC: neither may limit a flow below the NIC's effective rate,
 * or the ports would not stand in for a non-blocking switch. So every network class's effective
 * rate is at most its line rate (LV08 scales both alike). */
START_TEST(test_switch_never_limits)
{
    size_t n, networks = 0;
    const struct link_class *lc = catalog_links(&n);
    for (size_t i = 0; i < n; i++) {
        if (!catalog_link_is_network(&lc[i])) continue;
        networks++;
        ck_assert_msg(lc[i].bw_Bps <= lc[i].line_bw_Bps, "%s: effective %g B/s > line rate %g B/s",
                      lc[i].name, lc[i].bw_Bps, lc[i].line_bw_Bps);
    }
    ck_assert_uint_gt(networks, 5);
    /* and the generated port: 8 NICs' line rate, the whole switch latency going in */
    struct scenario sc = test_cluster(2, 8, "h100", "nvlink4", "ib-ndr", 8);
    struct platform *pf = test_load(&sc);
    sg_link_t up = sg_link_by_name("node1.port.ib-ndr_UP");
    sg_link_t down = sg_link_by_name("node1.port.ib-ndr_DOWN");
    ck_assert_ptr_nonnull(up);
    ck_assert_ptr_nonnull(down);
    assert_close(sg_link_get_bandwidth(up), 8 * catalog_link("ib-ndr")->line_bw_Bps, "port rate");
    assert_close(sg_link_get_latency(up), CATALOG_SWITCH_LAT_S, "port latency in");
    ck_assert_double_eq(sg_link_get_latency(down), 0);
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

/* Two NICs per GPU (16 on an 8-GPU node): GPU j's pair, NICs 2j and 2j + 1, is one link of
 * twice the class's rate that its traffic crosses both ways; 8 NICs on 8 GPUs keep one NIC of
 * the class's rate per GPU (GPU j on NIC j), as before. */
START_TEST(test_two_nics_per_gpu_routes)
{
    const struct link_class *nic = catalog_link("roce-100g");
    struct scenario sc = test_cluster(2, 8, "h100", "nvlink4", "roce-100g", _i ? 16 : 8);
    struct platform *pf = test_load(&sc);
    const char *two[] = {"node0.gpu3.pcie-gen5_UP",       "node0.nic6-7.roce-100g_UP",
                         "node0.port.roce-100g_UP",       "node1.port.roce-100g_DOWN",
                         "node1.nic10-11.roce-100g_DOWN", "node1.gpu5.pcie-gen5_DOWN"};
    const char *one[] = {"node0.gpu3.pcie-gen5_UP",   "node0.nic3.roce-100g_UP",
                         "node0.port.roce-100g_UP",   "node1.port.roce-100g_DOWN",
                         "node1.nic5.roce-100g_DOWN", "node1.gpu5.pcie-gen5_DOWN"};
    assert_route("node0.gpu3", "node1.gpu5", _i ? two : one, 6);
    sg_link_t l = sg_link_by_name(_i ? "node0.nic6-7.roce-100g_UP" : "node0.nic3.roce-100g_UP");
    ck_assert_ptr_nonnull(l);
    assert_close(sg_link_get_bandwidth(l), (_i ? 2 : 1) * nic->bw_Bps, "a GPU's NIC rate");
    assert_close(sg_link_get_latency(l), nic->hop_lat_s / 2, "a GPU's NIC latency");
    platform_free(pf);
    scenario_release(&sc);
}
END_TEST

/* All-reduce of 1 GiB at flow level and 256 MiB at message level, NCCL's ring (Simple), across
 * 2 nodes of 8 H100 whose NICs (RoCE 100 Gb,
 * effective R = 11.7 GB/s) are the bottleneck (PCIe Gen5 52.8 GB/s and NVLink 370 GB/s per GPU
 * are not, even at 2R per GPU). Closed form: every channel's ring crosses from node 0 to node 1
 * once, each crossing carrying 2(P - 1)/P S / nc, so node 0's NICs carry 2(P - 1)/P S in all at
 * their total rate nics R: busbw = 2(P - 1)/P x S / t = nics x R = G x (NICs per GPU) x R,
 * 93.6 GB/s with 8 NICs, 187.2 GB/s with 16 (the step latencies, 30 x a few us against 2.7 ms
 * or more, within the 3% allowed). The code before issue 29 gave 16 NICs the 8-NIC figure. */
START_TEST(test_two_nics_per_gpu_busbw)
{
    int nics = _i & 1 ? 16 : 8, P = 16;
    bool message = _i & 2;
    double S = message ? 1 << 28 : 1 << 30, R = catalog_link("roce-100g")->bw_Bps;
    struct scenario sc = test_cluster(2, 8, "h100", "nvlink4", "roce-100g", nics);
    sc.bench.op = COLL_ALLREDUCE;
    sc.bench.algo = COLL_ALGO_NCCL;
    sc.bench.nccl = (struct nccl_opts){NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 0, 0, 0};
    sc.bench.level = message ? COLL_MESSAGE : COLL_FLOW;
    sc.bench.chunks = 1;
    double t = test_coll_time(&sc, S, NULL);
    double busbw = 2.0 * (P - 1) / P * S / t;
    ck_assert_msg(fabs(busbw - nics * R) <= 0.03 * nics * R,
                  "%d NICs, %s level: busbw %.4g GB/s, closed form nics x R = %.4g GB/s", nics,
                  message ? "message" : "flow", busbw / 1e9, nics * R / 1e9);
    scenario_release(&sc);
}
END_TEST

/* NICs that are neither a divisor nor a multiple of the GPUs cannot be placed: one FILE:LINE
 * error at <cluster>, before anything is generated. */
START_TEST(test_nics_neither_divisor_nor_multiple)
{
    struct scenario sc = test_cluster(2, 8, "h100", "nvlink4", "ib-ndr", 12);
    sc.cluster_line = 3;
    struct dmlsim_error err = {0};
    ck_assert_int_eq(platform_check_cluster(&sc, &err), DMLSIM_EVALUE);
    ck_assert_str_eq(err.msg, "test.xml:3: <cluster nics-per-node=\"12\">: 12 NICs on 8 GPUs per "
                              "node; expected a divisor or a multiple of 8");
    char why[128];
    sc.cluster.nics_per_node = 4; /* a divisor, a multiple, one per GPU: placed */
    ck_assert_ptr_null(platform_nics_problem(&sc.cluster, why, sizeof why));
    sc.cluster.nics_per_node = 24;
    ck_assert_ptr_null(platform_nics_problem(&sc.cluster, why, sizeof why));
    scenario_release(&sc);
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
    tcase_add_test(tc, test_dgx1_v100_mesh);
    tcase_add_test(tc, test_dgx1_p100_mesh);
    tcase_add_loop_test(tc, test_sub_mesh, 0, 2);
    tcase_add_test(tc, test_nvswitch_hosts);
    tcase_add_loop_test(tc, test_no_nvswitch_host_without_sharp, 0, 2);
    tcase_add_test(tc, test_lv08_tcp_links_only);
    tcase_add_test(tc, test_lv08_leaves_rdma_exact);
    tcase_add_test(tc, test_gpu_match);
    tcase_add_test(tc, test_partition_cuts_between_groups);
    tcase_add_test(tc, test_switch_never_limits);
    tcase_add_loop_test(tc, test_two_nics_per_gpu_routes, 0, 2);
    tcase_add_loop_test(tc, test_two_nics_per_gpu_busbw, 0, 4);
    tcase_add_test(tc, test_nics_neither_divisor_nor_multiple);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(platform_suite());
}
