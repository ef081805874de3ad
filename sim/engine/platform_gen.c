/* platform_gen.c - the generated platform: a scenario's <cluster> written as SimGrid platform
 * XML (nodes, flat clusters, stars, fat-trees, NICs, partitions) and the network model it is
 * written for (see platform.h for the node anatomy and the model; platform_gen.h). */
#include "platform_gen.h"

#include "platform.h"
#include "platform_store.h"
#include "sgcfg.h"
#include "xmldoc.h"

#include <xbt/config.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- generator ---------------------------------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define STR_(x)  #x
#define STR(x)   STR_(x)

/* SimGrid 3.32's LV08 factors ("Configuring SimGrid", network/model: "slow-start modeled by
 * multiplying latency by 13.01, bandwidth by .97"), which a generated cluster applies to its
 * TCP-class links only (see platform.h). */
#define LV08_LAT_FACTOR 13.01
#define LV08_BW_FACTOR  0.97

/* TCP-gamma (SimGrid's TCP window, bytes) that bounds no flow (platform_configure). */
#define TCP_GAMMA_OFF_B 1e30

/* Speed of a node's NVSwitch host: it runs nothing that is modelled (the switch's reductions are
 * part of the NVLS transfer times), so any work put on it by mistake should not take time. A
 * modelling choice, not a hardware figure. */
#define NVS_SPEED_FLOPS 1e18

/* Machines up to which a star is routed pair by pair (a Full zone, write_full_routes), and
 * beyond which by SimGrid's Dijkstra (write_star_routes). SimGrid 3.32's Dijkstra zones number
 * their graph's vertices only when the platform is sealed, at the start of the simulation
 * (DijkstraZone::do_seal sets GraphNodeData::graph_id_), so a program that asks a route before
 * (sg_host_get_route_latency right after loading, as SimGrid's C API allows) reads vertex
 * UINT_MAX and aborts ("dynar is not that long. You asked -1"); a Full zone's routes are its
 * table, readable as soon as it is loaded. 256 machines (255 nodes of 8 GPUs and the store) are
 * 65,280 explicit routes, a 21 MB file that SimGrid loads in 1.9 s against 1.2 s as a star
 * (measured here); above, the quadratic file and load time win over being queryable before the
 * run (such a platform says so in its header comment). A modelling-tool choice, not a figure. */
#define FULL_ROUTED_MAX_ZONES 256

/* A link of class lc as written into the platform: exact, except that a scenario asking for LV08
 * gets LV08's factors on its TCP-class links. */
static bool lv08_scales(const struct scenario *sc, const struct link_class *lc)
{
    return sc->net_model == NET_LV08 && lc->kind == LINK_TCP;
}

static double wire_bw(const struct scenario *sc, const struct link_class *lc, double bw_Bps)
{
    return lv08_scales(sc, lc) ? bw_Bps * LV08_BW_FACTOR : bw_Bps;
}

static double wire_lat(const struct scenario *sc, const struct link_class *lc, double lat_s)
{
    return lv08_scales(sc, lc) ? lat_s * LV08_LAT_FACTOR : lat_s;
}

/* One link element of class lc. Numbers are written with 17 significant digits so SimGrid reads
 * back exactly the catalog's doubles. */
static void write_link(FILE *out, const struct scenario *sc, const struct link_class *lc,
                       const char *indent, const char *id, double bw_Bps, double lat_s)
{
    fprintf(out,
            "%s<link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
            "sharing_policy=\"SPLITDUPLEX\"/>\n",
            indent, id, wire_bw(sc, lc, bw_Bps), wire_lat(sc, lc, lat_s));
}

/* A route made of link halves, e.g. {"node0.gpu0.nvlink4", "UP"}, {"node0.gpu1.nvlink4", "DOWN"}.
 */
struct hop {
    char id[96];
    const char *dir;
};

static void write_route(FILE *out, const char *tag, const char *src, const char *dst,
                        const char *gw_src, const char *gw_dst, const struct hop *hops, int n)
{
    fprintf(out, "    <%s src=\"%s\" dst=\"%s\"", tag, src, dst);
    if (gw_src != NULL) fprintf(out, " gw_src=\"%s\" gw_dst=\"%s\"", gw_src, gw_dst);
    fprintf(out, " symmetrical=\"NO\">");
    for (int i = 0; i < n; i++)
        fprintf(out, "<link_ctn id=\"%s\" direction=\"%s\"/>", hops[i].id, hops[i].dir);
    fprintf(out, "</%s>\n", tag);
}

static void set_hop(struct hop *h, const char *dir, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void set_hop(struct hop *h, const char *dir, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->id, sizeof h->id, fmt, ap);
    va_end(ap);
    h->dir = dir;
}

/* The DGX-1 hybrid cube mesh: the GPUs sit at the corners of a cube whose 12 edges and the
 * diagonals of two opposite faces (GPUs 0-3 and 4-7) are NVLinks: 16 pairs, 4 neighbours per GPU
 * (NVIDIA DGX-1 System Architecture white paper WP-08437-001 §3.1; the DGX-1 with Tesla V100
 * white paper: "all twelve edges connected through NVLink (some edges have two NVLink
 * connections), and with two of the six faces having their diagonals connected"). Link counts
 * are those `nvidia-smi topo -m` prints (NV1/NV2) on an 8 x V100 SXM2 hybrid-cube-mesh server,
 * Oneflow-Inc/DLPerf OneFlow/BERT/bert_base_oneflow_v0.3_report_1202.md; GPU 0's 1, 1, 2, 2
 * links to GPUs 1, 2, 3, 4 match a DGX-1V NCCL topology dump (NVIDIA/nccl issue #671). A V100
 * spends its 6 NVLinks so; a P100 has 4 (P100 white paper), one per connected pair. Pairs not in
 * the table (SYS in topo -m) have no NVLink. */
static const struct mesh_pair {
    int a, b;       /* GPUs, a < b */
    int v100_links; /* NVLinks between them on a DGX-1 with V100 */
} dgx1_mesh[] = {
        {0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
        {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2},
};
#define DGX1_V100_LINKS 6 /* NVLinks of a V100 (DGX-1 with Tesla V100 white paper) */

/* NVLinks between GPUs a and b (a != b) of a mesh node of class lc; 0: they meet over PCIe. */
static int mesh_links(const struct link_class *lc, int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (size_t i = 0; i < COUNT(dgx1_mesh); i++)
        if (dgx1_mesh[i].a == lo && dgx1_mesh[i].b == hi)
            return lc->links >= DGX1_V100_LINKS ? dgx1_mesh[i].v100_links : 1;
    return 0;
}

/* Every GPU of a full mesh of class lc uses exactly its lc->links NVLinks (for assert only). */
__attribute__((unused)) static bool mesh_is_sane(const struct link_class *lc)
{
    for (int g = 0; g < CATALOG_MESH_MAX_GPUS; g++) {
        int used = 0;
        for (int o = 0; o < CATALOG_MESH_MAX_GPUS; o++)
            used += o == g ? 0 : mesh_links(lc, g, o);
        if (used != lc->links) return false;
    }
    return true;
}

/* Endpoint p of node n: 0..G-1 are GPUs, G the CPU, G+1 the network gateway. */
static void point_name(const struct cluster_spec *c, int n, int p, char *buf, size_t len)
{
    if (p < c->gpus_per_node)
        snprintf(buf, len, "node%d.gpu%d", n, p);
    else if (p == c->gpus_per_node)
        snprintf(buf, len, "node%d.cpu", n);
    else
        snprintf(buf, len, "node%d.net", n);
}

/* NICs per GPU: nics-per-node / gpus-per-node when that is a whole number above 1, else 1 (the
 * GPUs share the node's NICs, GPU j on NIC j mod nics-per-node). */
static int nics_per_gpu(const struct cluster_spec *c)
{
    int G = c->gpus_per_node, K = c->nics_per_node;
    return K > G && K % G == 0 ? K / G : 1;
}

/* The NIC link that GPU g of node n (or, for g = G, the CPU) reaches the network through, into
 * buf: "nodeN.nicK.<nic>", or with k > 1 NICs per GPU the group of GPU g's NICs
 * "nodeN.nicA-B.<nic>" (A = g k, B = A + k - 1; the CPU uses GPU 0's). */
static void nic_link(const struct cluster_spec *c, int n, int g, char *buf, size_t len)
{
    int k = nics_per_gpu(c), j = g < c->gpus_per_node ? g : 0;
    if (k > 1)
        snprintf(buf, len, "node%d.nic%d-%d.%s", n, j * k, j * k + k - 1, c->nic->name);
    else
        snprintf(buf, len, "node%d.nic%d.%s", n, j % c->nics_per_node, c->nic->name);
}

/* The links from endpoint p up to its switch side, in "UP" direction (reverse with "DOWN"). */
static int point_uplinks(const struct cluster_spec *c, int n, int p, bool to_gpu_fabric,
                         const char *dir, struct hop *hops)
{
    int G = c->gpus_per_node;
    if (p < G && to_gpu_fabric) {
        set_hop(&hops[0], dir, "node%d.gpu%d.%s", n, p, c->intra->name);
        return 1;
    }
    if (p < G) {
        set_hop(&hops[0], dir, "node%d.gpu%d.%s", n, p, c->pcie->name);
        return 1;
    }
    if (p == G) {
        set_hop(&hops[0], dir, "node%d.cpu.%s", n, c->pcie->name);
        return 1;
    }
    return 0; /* the gateway: its NIC link depends on the peer, see node_hops */
}

/* The route from endpoint s to endpoint d of node n, into hops (at most 4); returns its length.
 * Two GPUs of a mesh node take their direct NVLink (UP from the lower-numbered GPU), or PCIe
 * when the table gives them none: in a DGX-1 that path also crosses the CPU sockets (SYS in
 * topo -m), here it is the node's PCIe switch, like every PCIe path. */
static int node_hops(const struct cluster_spec *c, int n, int s, int d, struct hop *hops)
{
    int G = c->gpus_per_node, h = 0;
    bool gpu_pair = s < G && d < G;
    bool mesh = c->intra->fabric == FABRIC_MESH;
    if (gpu_pair && mesh && mesh_links(c->intra, s, d) > 0) {
        set_hop(&hops[0], s < d ? "UP" : "DOWN", "node%d.gpu%d-gpu%d.%s", n, s < d ? s : d,
                s < d ? d : s, c->intra->name);
        return 1;
    }
    h += point_uplinks(c, n, s, gpu_pair && !mesh, "UP", hops + h);
    char nic[96];
    if (s == G + 1) { /* from the network: in through the NIC serving the destination */
        nic_link(c, n, d, nic, sizeof nic);
        set_hop(&hops[h++], "DOWN", "%s", nic);
    }
    if (d == G + 1) { /* to the network: out through the NIC serving the source */
        nic_link(c, n, s, nic, sizeof nic);
        set_hop(&hops[h++], "UP", "%s", nic);
    }
    h += point_uplinks(c, n, d, gpu_pair && !mesh, "DOWN", hops + h);
    return h;
}

static void write_node_hosts(FILE *out, const struct scenario *sc, int n)
{
    const struct cluster_spec *c = &sc->cluster;
    double nvme_r, nvme_w;
    platform_store_nvme(sc, &nvme_r, &nvme_w);
    for (int j = 0; j < c->gpus_per_node; j++)
        fprintf(out,
                "    <host id=\"node%d.gpu%d\" speed=\"%.17gf\" core=\"1\"><prop id=\"gpu\" "
                "value=\"%s\"/><prop id=\"node\" value=\"%d\"/></host>\n",
                n, j, c->gpu->peak_flops[DTYPE_FP32], c->gpu->name, n);
    fprintf(out,
            "    <host id=\"node%d.cpu\" speed=\"%.17gf\" core=\"1\"><prop id=\"role\" "
            "value=\"cpu\"/><prop id=\"node\" value=\"%d\"/><disk id=\"nvme\" "
            "read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/></host>\n",
            n, CATALOG_CPU_FLOPS, n, nvme_r, nvme_w);
    if (c->intra->fabric == FABRIC_SHARP)
        fprintf(out,
                "    <host id=\"node%d.nvs\" speed=\"%.17gf\" core=\"1\"><prop id=\"role\" "
                "value=\"nvswitch\"/><prop id=\"node\" value=\"%d\"/></host>\n",
                n, NVS_SPEED_FLOPS, n);
    if (c->nic != NULL) fprintf(out, "    <router id=\"node%d.net\"/>\n", n);
}

/* PCIe links of the GPUs and the CPU, the GPUs' NVLinks (one per GPU into the NVSwitches, or one
 * per connected pair of a mesh: k NVLinks' rate, the whole hop's latency), the NICs. */
static void write_node_links(FILE *out, const struct scenario *sc, int n)
{
    const struct cluster_spec *c = &sc->cluster;
    const struct link_class *nv = c->intra;
    int G = c->gpus_per_node;
    char id[96];
    for (int j = 0; j < G; j++) {
        snprintf(id, sizeof id, "node%d.gpu%d.%s", n, j, c->pcie->name);
        write_link(out, sc, c->pcie, "    ", id, c->pcie->bw_Bps, c->pcie->hop_lat_s / 2);
        if (nv->kind == LINK_NVLINK && nv->fabric != FABRIC_MESH) {
            snprintf(id, sizeof id, "node%d.gpu%d.%s", n, j, nv->name);
            write_link(out, sc, nv, "    ", id, nv->bw_Bps, nv->hop_lat_s / 2);
        }
        for (int k = j + 1; nv->fabric == FABRIC_MESH && k < G; k++) {
            int links = mesh_links(nv, j, k);
            if (links == 0) continue;
            snprintf(id, sizeof id, "node%d.gpu%d-gpu%d.%s", n, j, k, nv->name);
            write_link(out, sc, nv, "    ", id, links * nv->bw_Bps, nv->hop_lat_s);
        }
    }
    snprintf(id, sizeof id, "node%d.cpu.%s", n, c->pcie->name);
    write_link(out, sc, c->pcie, "    ", id, c->pcie->bw_Bps, c->pcie->hop_lat_s / 2);
    int k = c->nic != NULL ? nics_per_gpu(c) : 0, links = k > 1 ? G : c->nics_per_node;
    for (int i = 0; c->nic != NULL && i < links; i++) { /* one NIC each, or a GPU's group */
        nic_link(c, n, i, id, sizeof id);
        write_link(out, sc, c->nic, "    ", id, k * c->nic->bw_Bps, c->nic->hop_lat_s / 2);
    }
}

static void write_node(FILE *out, const struct scenario *sc, int n)
{
    const struct cluster_spec *c = &sc->cluster;
    int G = c->gpus_per_node;
    int points = G + 1 + (c->nic != NULL ? 1 : 0);
    char a[64], b[64];
    struct hop hops[4];

    assert(c->intra->fabric != FABRIC_MESH ||
           (G <= CATALOG_MESH_MAX_GPUS && mesh_is_sane(c->intra)));
    fprintf(out, "  <zone id=\"node%d\" routing=\"Full\">\n", n);
    write_node_hosts(out, sc, n);
    for (int s = 0; s < points; s++) {
        for (int d = 0; d < points; d++) {
            if (s == d) continue;
            int h = node_hops(c, n, s, d, hops);
            point_name(c, n, s, a, sizeof a);
            point_name(c, n, d, b, sizeof b);
            write_route(out, "route", a, b, NULL, NULL, hops, h);
        }
    }
    /* The NVSwitch host is reached over the GPU's own NVLink, the first half of a GPU-to-GPU
     * route through the switches. */
    for (int j = 0; c->intra->fabric == FABRIC_SHARP && j < G; j++) {
        point_name(c, n, j, a, sizeof a);
        snprintf(b, sizeof b, "node%d.nvs", n);
        set_hop(&hops[0], "UP", "node%d.gpu%d.%s", n, j, c->intra->name);
        write_route(out, "route", a, b, NULL, NULL, hops, 1);
        set_hop(&hops[0], "DOWN", "node%d.gpu%d.%s", n, j, c->intra->name);
        write_route(out, "route", b, a, NULL, NULL, hops, 1);
    }
    fprintf(out, "  </zone>\n");
}

/* Whether zone is the checkpoint store's machine with <cluster store-bw> given, or stores
 * (platform_store.h). */
static bool store_scaled(const struct scenario *sc, const char *zone)
{
    return platform_store_side_Bps(sc) > 0 && strcmp(zone, "storage") == 0;
}

/* The links of a machine with one CPU host and one NIC (write_cpu_zone): its PCIe and its NIC.
 * With store-bw, the store's carry that rate (write_cpu_zone says why); their latencies stay the
 * classes'. */
static void write_cpu_links(FILE *out, const struct scenario *sc, const char *zone)
{
    const struct cluster_spec *c = &sc->cluster;
    bool scaled = store_scaled(sc, zone);
    double side = platform_store_side_Bps(sc);
    char id[96];
    snprintf(id, sizeof id, "%s.cpu.%s", zone, c->pcie->name);
    write_link(out, sc, c->pcie, "    ", id, scaled ? side : c->pcie->bw_Bps,
               c->pcie->hop_lat_s / 2);
    snprintf(id, sizeof id, "%s.nic0.%s", zone, c->nic->name);
    write_link(out, sc, c->nic, "    ", id, scaled ? side : c->nic->bw_Bps,
               c->nic->hop_lat_s / 2);
}

/* A machine with one CPU host and one NIC, attached to the network like a node: zone NAME, host
 * "NAME.cpu" (property role=ROLE), its PCIe link, one NIC of the cluster's class, and
 * gateway "NAME.net". Dedicated parameter servers ("psI", role ps) and the checkpoint store and
 * rendezvous host ("storage", role storage, with a disk) are such machines.
 * The store's disk reads and writes at CATALOG_STORE_BPS, one SSD. <cluster store-bw> makes it a
 * parallel file system of a given aggregate sustained rate (Llama 3's Tectonic: "a sustainable
 * throughput of 2 TB/s and a peak throughput of 7 TB/s", Llama 3 Herd of Models,
 * arXiv:2407.21783 sec. 3.3.1): its many servers, their disks and their network stand as this one
 * machine, whose disk (read and write), PCIe, NIC and switch port each carry the aggregate rate,
 * so the store's side of every route to it runs at that rate and the writers' own links, the
 * fabric and the rate itself are what limit a checkpoint. The servers' own latencies are not
 * modelled apart (the classes' are kept). */
static void write_cpu_zone(FILE *out, const struct scenario *sc, const char *zone, const char *host,
                           const char *role, bool disk)
{
    const struct cluster_spec *c = &sc->cluster;
    char gw[48];
    fprintf(out, "  <zone id=\"%s\" routing=\"Full\">\n", zone);
    fprintf(out,
            "    <host id=\"%s\" speed=\"%.17gf\" core=\"1\"><prop id=\"role\" "
            "value=\"%s\"/>",
            host, CATALOG_CPU_FLOPS, role);
    double disk_Bps = c->store_bw_Bps > 0 ? c->store_bw_Bps : CATALOG_STORE_BPS;
    if (disk)
        fprintf(out, "<disk id=\"store\" read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/>", disk_Bps,
                disk_Bps);
    if (disk) platform_store_disks(out, sc);
    fprintf(out, "</host>\n    <router id=\"%s.net\"/>\n", zone);
    struct hop up[2], down[2];
    set_hop(&up[0], "UP", "%s.cpu.%s", zone, c->pcie->name);
    set_hop(&up[1], "UP", "%s.nic0.%s", zone, c->nic->name);
    set_hop(&down[0], "DOWN", "%s.nic0.%s", zone, c->nic->name);
    set_hop(&down[1], "DOWN", "%s.cpu.%s", zone, c->pcie->name);
    snprintf(gw, sizeof gw, "%s.net", zone);
    write_route(out, "route", host, gw, NULL, NULL, up, 2);
    write_route(out, "route", gw, host, NULL, NULL, down, 2);
    fprintf(out, "  </zone>\n");
}

/* SHARP (sharp="yes"): the switches' aggregation as a host "sharp.switch" (role sharp) on the
 * network, behind a FATPIPE link of the NIC line rate and a switch's port-to-port latency, so
 * every node's flows into it go at their own NIC's rate (Mellanox SHARP: the reduction runs in
 * the switch ASIC at line rate; Graham et al., COMHPC 2016). */
static void write_sharp_zone(FILE *out, const struct cluster_spec *c)
{
    char id[96];
    fprintf(out, "  <zone id=\"sharp\" routing=\"Full\">\n");
    fprintf(out,
            "    <host id=\"sharp.switch\" speed=\"%.17gf\" core=\"1\"><prop id=\"role\" "
            "value=\"sharp\"/></host>\n    <router id=\"sharp.net\"/>\n",
            CATALOG_CPU_FLOPS);
    snprintf(id, sizeof id, "sharp.agg.%s", c->nic->name);
    fprintf(out,
            "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
            "sharing_policy=\"FATPIPE\"/>\n",
            id, c->nic->line_bw_Bps, CATALOG_SWITCH_LAT_S);
    struct hop h[1];
    set_hop(&h[0], "NONE", "%s", id);
    write_route(out, "route", "sharp.switch", "sharp.net", NULL, NULL, h, 1);
    write_route(out, "route", "sharp.net", "sharp.switch", NULL, NULL, h, 1);
    fprintf(out, "  </zone>\n");
}

/* Zone z of the cluster: worker nodes first, then parameter-server machines, then the store, then
 * the SHARP switch. */
static void zone_name(const struct cluster_spec *c, int z, char *buf, size_t len)
{
    if (z < c->nodes)
        snprintf(buf, len, "node%d", z);
    else if (z < c->nodes + c->ps_nodes)
        snprintf(buf, len, "ps%d", z - c->nodes);
    else if (z == c->nodes + c->ps_nodes)
        snprintf(buf, len, "storage");
    else
        snprintf(buf, len, "sharp");
}

static double fattree_uplink_bw(const struct cluster_spec *c)
{
    double down_Bps = (double)c->nodes_per_leaf * c->nics_per_node * c->nic->bw_Bps;
    return down_Bps / (c->oversubscription * c->spines);
}

/* Name of the switch of node n's network side: "switch" (star) or "leafL" (fat-tree). */
static void switch_name(const struct cluster_spec *c, int n, char *buf, size_t len)
{
    if (c->topology == TOPO_STAR)
        snprintf(buf, len, "switch");
    else
        snprintf(buf, len, "leaf%d", n / c->nodes_per_leaf);
}

/* A flat cluster: SimGrid's own <cluster> (hosts node0.gpu0 ... with a private link each). The
 * private link stands for the GPU's PCIe, its NIC and its switch port: the smaller of the PCIe
 * and NIC rates, half of each hop's latency and half the switch's. The switch is non-blocking
 * and no NIC class is faster than its line rate (check_platform), so it never limits a flow and
 * needs no link of its own. Routes are those of a star with one GPU per node: PCIe hop + NIC hop
 * + switch. With LV08 and a TCP NIC, the NIC's share and the switch's get LV08's factors, the
 * PCIe share not. switch="fatpipe" writes the switch as the cluster's FATPIPE backbone instead,
 * which SimGrid 3.32's solver handles in time quadratic in the flows crossing it. */
static void write_flat(const struct scenario *sc, FILE *out)
{
    const struct cluster_spec *c = &sc->cluster;
    double bw = fmin(c->pcie->bw_Bps, wire_bw(sc, c->nic, c->nic->bw_Bps));
    double lat = (c->pcie->hop_lat_s + wire_lat(sc, c->nic, c->nic->hop_lat_s)) / 2;
    double sw = wire_lat(sc, c->nic, CATALOG_SWITCH_LAT_S);
    fprintf(out,
            "<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<!-- Generated by dmlsim from %s: flat, %d x %s, pcie %s, nic %s. -->\n"
            "<platform version=\"4.1\">\n",
            sc->path, c->nodes, c->gpu->name, c->pcie->name, c->nic->name);
    fprintf(out,
            "<cluster id=\"%s\" prefix=\"node\" suffix=\".gpu0\" radical=\"0-%d\" "
            "speed=\"%.17gf\" bw=\"%.17gBps\" ",
            c->nic->name, c->nodes - 1, c->gpu->peak_flops[DTYPE_FP32], bw);
    if (c->fatpipe_switch)
        fprintf(out,
                "lat=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\" bb_bw=\"%.17gBps\" "
                "bb_lat=\"%.17gs\" bb_sharing_policy=\"FATPIPE\"/>\n",
                lat, wire_bw(sc, c->nic, c->nic->line_bw_Bps), sw);
    else
        fprintf(out, "lat=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n", lat + sw / 2);
    fprintf(out, "</platform>\n");
}

/* The XML prolog and a comment saying what was generated from what (star: the machines are
 * joined by a Dijkstra-routed star, platform_gen_star_routed). */
static void write_header(const struct scenario *sc, FILE *out, bool star)
{
    const struct cluster_spec *c = &sc->cluster;
    fprintf(out, "<?xml version='1.0'?>\n"
                 "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(out, "<!-- Generated by dmlsim from %s: %d node(s) x %d %s, intra %s, pcie %s",
            sc->path, c->nodes, c->gpus_per_node, c->gpu->name, c->intra->name, c->pcie->name);
    if (c->nic)
        fprintf(out, ", %d x %s per node, %s", c->nics_per_node, c->nic->name,
                topology_name(c->topology));
    if (c->nic && nics_per_gpu(c) > 1)
        fprintf(out,
                " (%d NICs per GPU, each GPU's as one link nodeN.nicA-B of %d times the "
                "rate)",
                nics_per_gpu(c), nics_per_gpu(c));
    if (c->topology == TOPO_FATTREE)
        fprintf(out, " (%d nodes per leaf, %d spines, oversubscription %g)", c->nodes_per_leaf,
                c->spines, c->oversubscription);
    if (c->ps_nodes > 0) fprintf(out, ", %d parameter-server node(s)", c->ps_nodes);
    fprintf(out,
            ".\n     Link bandwidths are effective per-direction rates; each link carries half a "
            "hop's latency;\n     %s Sources: `dmlsim catalog`.",
            c->fatpipe_switch ? "switches are FATPIPE links (non-blocking, port-to-port latency)."
                              : "each machine's switch port (ZONE.port.NIC_UP into the switch, "
                                "_DOWN out of it)\n     carries its NICs' line rate, the way in "
                                "the switch's port-to-port latency; the\n     switches are "
                                "non-blocking.");
    bool mesh = c->intra->fabric == FABRIC_MESH, nvs = c->intra->fabric == FABRIC_SHARP;
    bool lv08 = sc->net_model == NET_LV08 && c->nic != NULL && c->nic->kind == LINK_TCP;
    if (mesh)
        fprintf(out, "\n     GPU pairs of the hybrid cube mesh have direct NVLinks (a whole hop "
                     "each), the others go over PCIe.");
    if (nvs)
        fprintf(out, "\n     Host nodeN.nvs (role nvswitch) stands for the node's NVSwitches, "
                     "reached over each GPU's NVLink.");
    if (c->nic && c->store_bw_Bps > 0)
        fprintf(out,
                "\n     store-bw: storage.cpu stands for a parallel file system; its disk (read "
                "and write), PCIe,\n     NIC and switch port each carry the aggregate %.17g B/s.",
                c->store_bw_Bps);
    if (lv08)
        fprintf(out, "\n     network-model LV08: TCP-class links carry LV08's factors (latency "
                     "x" STR(LV08_LAT_FACTOR) ", bandwidth x" STR(LV08_BW_FACTOR) ").");
    if (star)
        fprintf(out,
                "\n     Machines are joined by a Dijkstra-routed star (over %d machines): "
                "SimGrid 3.32 routes it\n     once the platform is sealed, so ask routes "
                "after the simulation starts (C: simgrid_run_until(0);\n     C++: "
                "Engine::seal_platform()).",
                FULL_ROUTED_MAX_ZONES);
    fprintf(out, " -->\n");
}

/* The scenario's <partition> elements (into parts, at most sc->nfaults); returns how many. */
static int partitions(const struct scenario *sc, const struct fault_spec **parts)
{
    int n = 0;
    for (size_t i = 0; i < sc->nfaults; i++)
        if (sc->faults[i].kind == FS_PARTITION) parts[n++] = &sc->faults[i];
    return n;
}

/* Each partition's group links: a FATPIPE at the switch's line rate with no latency, so that a
 * route through it is as fast as without it; down, it cuts the routes between its group and the
 * others, and only those. */
static void write_partition_links(FILE *out, const struct scenario *sc,
                                  const struct fault_spec *const *parts, int np)
{
    const struct link_class *nic = sc->cluster.nic;
    for (int p = 0; p < np; p++)
        for (int g = 0; g < scenario_partition_groups(parts[p]); g++) {
            char id[80];
            scenario_partition_link(parts[p], g, id, sizeof id);
            fprintf(out,
                    "  <link id=\"%s.%s\" bandwidth=\"%.17gBps\" latency=\"0s\" "
                    "sharing_policy=\"FATPIPE\"/>\n",
                    id, nic->name, wire_bw(sc, nic, nic->line_bw_Bps));
        }
}

/* The partition links of the route from zone a to zone b: for each partition that puts them
 * in different groups, a's group link and b's. */
static int partition_hops(const struct fault_spec *const *parts, int np, const char *nic,
                          const char *za, const char *zb, struct hop *hops)
{
    int h = 0;
    for (int p = 0; p < np; p++) {
        int ga = scenario_partition_group(parts[p], za),
            gb = scenario_partition_group(parts[p], zb);
        for (int i = 0; i < 2 && ga != gb; i++) {
            char id[80];
            scenario_partition_link(parts[p], i ? gb : ga, id, sizeof id);
            set_hop(&hops[h++], "NONE", "%s.%s", id, nic);
        }
    }
    return h;
}

/* The cluster's machines as zones: nodes, parameter servers, storage (with a network), SHARP. */
int platform_gen_zone_count(const struct cluster_spec *c)
{
    return c->nodes + c->ps_nodes + (c->nic ? 1 : 0) + (c->sharp ? 1 : 0);
}

/* Each machine's port on its switch (switch="port"): two links, "ZONE.port.NIC_UP" into the
 * switch, carrying the switch's port-to-port latency, and "ZONE.port.NIC_DOWN" out of it, carrying
 * none, so that a route's latency adds up in the same order, to the last bit, as through one
 * FATPIPE switch link. Each has the machine's NICs' line rate: every inter-machine flow leaves
 * and enters through a NIC of the machine, and no NIC class is faster than its line rate
 * (check_platform), so a port never limits a flow; unlike a FATPIPE switch it is shared only by
 * its own machine's flows. The SHARP aggregation's ports are FATPIPEs: every node's flow into the
 * switch ASIC runs at its own line rate (as sharp.agg). */
static void write_ports(FILE *out, const struct scenario *sc)
{
    const struct cluster_spec *c = &sc->cluster;
    double line = wire_bw(sc, c->nic, c->nic->line_bw_Bps);
    for (int z = 0; z < platform_gen_zone_count(c); z++) {
        char zone[32];
        zone_name(c, z, zone, sizeof zone);
        bool sharp = strcmp(zone, "sharp") == 0;
        int nics = z < c->nodes ? c->nics_per_node : 1;
        double port = store_scaled(sc, zone) ? wire_bw(sc, c->nic, platform_store_side_Bps(sc))
                                             : nics * line;
        for (int up = 1; up >= 0; up--)
            fprintf(out,
                    "  <link id=\"%s.port.%s_%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
                    "sharing_policy=\"%s\"/>\n",
                    zone, c->nic->name, up ? "UP" : "DOWN", port,
                    up ? wire_lat(sc, c->nic, CATALOG_SWITCH_LAT_S) : 0.0,
                    sharp ? "FATPIPE" : "SHARED");
    }
}

/* The switches as FATPIPE links (switch="fatpipe"): every flow through one gets up to a port's
 * line rate, none shares. */
static void write_fatpipe_switches(FILE *out, const struct scenario *sc, int leaves)
{
    const struct cluster_spec *c = &sc->cluster;
    char id[96];
    for (int l = 0; l < leaves; l++) {
        switch_name(c, l * c->nodes_per_leaf, id, sizeof id);
        fprintf(out,
                "  <link id=\"%s.%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
                "sharing_policy=\"FATPIPE\"/>\n",
                id, c->nic->name, wire_bw(sc, c->nic, c->nic->line_bw_Bps),
                wire_lat(sc, c->nic, CATALOG_SWITCH_LAT_S));
    }
}

/* Leaf-spine links of a fat-tree: the spine's latency, split between the link up and the link
 * down; with switch ports, also half a leaf's on each (the ports carry only one leaf's). */
static void write_uplinks(FILE *out, const struct scenario *sc, int leaves)
{
    const struct cluster_spec *c = &sc->cluster;
    double lat = c->fatpipe_switch ? CATALOG_SWITCH_LAT_S / 2 : CATALOG_SWITCH_LAT_S;
    char id[96];
    for (int l = 0; l < leaves && leaves > 1; l++)
        for (int s = 0; s < c->spines; s++) {
            snprintf(id, sizeof id, "leaf%d-spine%d.%s", l, s, c->nic->name);
            write_link(out, sc, c->nic, "  ", id, fattree_uplink_bw(c), lat);
        }
}

/* Zone a's side of a route through the switches: its port (or its leaf's FATPIPE switch). */
static void switch_hop(const struct cluster_spec *c, int z, const char *dir, struct hop *h)
{
    char name[32];
    if (c->fatpipe_switch) {
        switch_name(c, z, name, sizeof name);
        set_hop(h, "NONE", "%s.%s", name, c->nic->name);
    } else {
        zone_name(c, z, name, sizeof name);
        set_hop(h, "NONE", "%s.port.%s_%s", name, c->nic->name, dir);
    }
}

/* The hops of the route from zone a to zone b (a != b): a's switch side, the spines when their
 * leaves differ, b's switch side, the partitions' group links; returns how many. */
static int zone_hops(const struct cluster_spec *c, const struct fault_spec *const *parts, int np,
                     int a, int b, struct hop *hops)
{
    char za[32], zb[32];
    int h = 0, la = a / c->nodes_per_leaf, lb = b / c->nodes_per_leaf;
    bool cross = c->topology == TOPO_FATTREE && la != lb;
    switch_hop(c, a, "UP", &hops[h++]);
    if (cross) {
        int s = (a + b) % c->spines;
        set_hop(&hops[h++], "UP", "leaf%d-spine%d.%s", la, s, c->nic->name);
        set_hop(&hops[h++], "DOWN", "leaf%d-spine%d.%s", lb, s, c->nic->name);
    }
    if (!c->fatpipe_switch || cross) switch_hop(c, b, "DOWN", &hops[h++]);
    zone_name(c, a, za, sizeof za);
    zone_name(c, b, zb, sizeof zb);
    return h + partition_hops(parts, np, c->nic->name, za, zb, hops + h);
}

/* Every pair of zones routed explicitly (a Full zone): quadratic in the machines, needed when
 * the route between two machines depends on both (a fat-tree's spine, a partition's groups). */
static void write_full_routes(FILE *out, const struct scenario *sc,
                              const struct fault_spec *const *parts, int np)
{
    const struct cluster_spec *c = &sc->cluster;
    struct hop *hops = xbt_new0(struct hop, 4 + 2 * (size_t)np);
    for (int a = 0; a < platform_gen_zone_count(c); a++)
        for (int b = 0; b < platform_gen_zone_count(c); b++) {
            if (a == b) continue;
            char za[32], zb[32], ga[48], gb[48];
            int h = zone_hops(c, parts, np, a, b, hops);
            zone_name(c, a, za, sizeof za);
            zone_name(c, b, zb, sizeof zb);
            snprintf(ga, sizeof ga, "%s.net", za);
            snprintf(gb, sizeof gb, "%s.net", zb);
            write_route(out, "zoneRoute", za, zb, ga, gb, hops, h);
        }
    free(hops);
}

/* Whether the machines of cluster c, with np partitions, are joined by a Dijkstra-routed star. */
bool platform_gen_star_routed(const struct cluster_spec *c, int np)
{
    int zones = platform_gen_zone_count(c);
    return c->nic && zones > FULL_ROUTED_MAX_ZONES && !c->fatpipe_switch &&
           c->topology == TOPO_STAR && np == 0;
}

/* A star routed by SimGrid (a DijkstraCache zone): a zone "switch" whose router switch.net is the
 * centre, and two routes per machine, to the centre through its port going up and back going
 * down; SimGrid joins them into the machine-to-machine route. Linear in the machines. */
static void write_star_routes(FILE *out, const struct scenario *sc)
{
    const struct cluster_spec *c = &sc->cluster;
    fprintf(out, "  <zone id=\"switch\" routing=\"None\"><router id=\"switch.net\"/></zone>\n");
    for (int z = 0; z < platform_gen_zone_count(c); z++) {
        char zone[32], gw[48];
        struct hop h[1];
        zone_name(c, z, zone, sizeof zone);
        snprintf(gw, sizeof gw, "%s.net", zone);
        switch_hop(c, z, "UP", &h[0]);
        write_route(out, "zoneRoute", zone, "switch", gw, "switch.net", h, 1);
        switch_hop(c, z, "DOWN", &h[0]);
        write_route(out, "zoneRoute", "switch", zone, "switch.net", gw, h, 1);
    }
}

void platform_write(const struct scenario *sc, FILE *out)
{
    const struct cluster_spec *c = &sc->cluster;
    if (c->topology == TOPO_FLAT) {
        write_flat(sc, out);
        return;
    }
    int zones = platform_gen_zone_count(c);
    int leaves = c->topology == TOPO_STAR ? 1 : (zones + c->nodes_per_leaf - 1) / c->nodes_per_leaf;
    const struct fault_spec **parts = xbt_new0(const struct fault_spec *, sc->nfaults + 1);
    int np = c->nic ? partitions(sc, parts) : 0;
    bool star = platform_gen_star_routed(c, np);
    write_header(sc, out, star);
    fprintf(out, "<platform version=\"4.1\">\n<zone id=\"cluster\" routing=\"%s\">\n",
            star ? "DijkstraCache" : "Full");
    /* The machines' links sit in a first zone "links": SimGrid 3.32 resolves each link name of a
     * route from the top zone down through every child zone in turn, so links kept in the
     * machines' own zones made loading quadratic in the machines. (Its DTD puts a zone's child
     * zones before its links.) */
    fprintf(out, "  <zone id=\"links\" routing=\"None\">\n");
    for (int z = 0; z < c->nodes + c->ps_nodes + (c->nic ? 1 : 0); z++) {
        char zone[32];
        zone_name(c, z, zone, sizeof zone);
        if (z < c->nodes)
            write_node_links(out, sc, z);
        else
            write_cpu_links(out, sc, zone);
    }
    fprintf(out, "  </zone>\n");
    for (int n = 0; n < c->nodes; n++)
        write_node(out, sc, n);
    for (int i = 0; i < c->ps_nodes; i++) {
        char zone[32], host[48];
        snprintf(zone, sizeof zone, "ps%d", i);
        snprintf(host, sizeof host, "ps%d.cpu", i);
        write_cpu_zone(out, sc, zone, host, "ps", false);
    }
    if (c->nic) write_cpu_zone(out, sc, "storage", "storage.cpu", "storage", true);
    if (c->sharp) write_sharp_zone(out, c);
    write_partition_links(out, sc, parts, np);
    if (c->nic != NULL && zones > 1) {
        if (c->fatpipe_switch)
            write_fatpipe_switches(out, sc, leaves);
        else
            write_ports(out, sc);
        write_uplinks(out, sc, leaves);
        if (star)
            write_star_routes(out, sc);
        else
            write_full_routes(out, sc, parts, np);
    }
    fprintf(out, "</zone>\n</platform>\n");
    free(parts);
}

enum dmlsim_err platform_write_file(const struct scenario *sc, const char *path,
                                    struct dmlsim_error *err)
{
    char *tmp = bprintf("%s.tmp.XXXXXX", path);
    char why[128];
    enum dmlsim_err rc = DMLSIM_OK;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot write: %s", path,
                         xmldoc_strerror(errno, why, sizeof why));
        goto out_free_tmp;
    }
    FILE *out = fdopen(fd, "w");
    platform_write(sc, out);
    if (ferror(out) | fclose(out)) {
        rc = dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot write: %s", path,
                         xmldoc_strerror(errno, why, sizeof why));
        unlink(tmp);
        goto out_free_tmp;
    }
    if (chmod(tmp, 0644) != 0 || rename(tmp, path) != 0) {
        rc = dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot write: %s", path,
                         xmldoc_strerror(errno, why, sizeof why));
        unlink(tmp);
    }
out_free_tmp:
    free(tmp);
    return rc;
}

/* ---- network model -------------------------------------------------------------------------- */

void platform_configure(const struct scenario *sc)
{
    /* A generated cluster writes LV08's factors into its TCP-class links itself (platform_write)
     * and keeps the exact model for the rest; only a user's platform gets SimGrid's LV08. */
    bool cm02 = sc->net_model == NET_CM02 || sc->has_cluster;
    if (!sgcfg_user_set("network/model"))
        sg_cfg_set_string("network/model", cm02 ? "CM02" : "LV08");
    if (cm02 && !sgcfg_user_set("network/crosstraffic"))
        sg_cfg_set_boolean("network/crosstraffic", "no");
    /* TCP-gamma off: SimGrid 3.32's CM02 bounds a flow at min(its rate, gamma / (2 latency)) and
     * reads a bound of 0 as none, so gamma 0 would also drop a transfer's own rate bound (NCCL's
     * socket connections, net_isend_bounded); a window of 1e30 B bounds nothing at any latency
     * (1e30 / 2 ns = 5e38 B/s) and leaves the rate bound in force. */
    if (cm02 && !sgcfg_user_set("network/TCP-gamma"))
        sg_cfg_set_double("network/TCP-gamma", TCP_GAMMA_OFF_B);
}

const char *platform_network_model(const struct scenario *sc)
{
    if (sc->net_model == NET_CM02)
        return "CM02, crosstraffic off, TCP-gamma off (exact alpha-beta)";
    if (sc->has_cluster)
        return "CM02 exact alpha-beta; LV08 factors on TCP-class links only (latency x" STR(
                LV08_LAT_FACTOR) ", bandwidth x" STR(LV08_BW_FACTOR) ")";
    return "LV08 on every link (SimGrid TCP realism: latency x" STR(
            LV08_LAT_FACTOR) ", bandwidth x" STR(LV08_BW_FACTOR) ", crosstraffic)";
}

/* ---- NIC placement -------------------------------------------------------------------------- */

const char *platform_nics_problem(const struct cluster_spec *c, char *buf, size_t len)
{
    int G = c->gpus_per_node, K = c->nics_per_node;
    if (c->nic == NULL || G % K == 0 || K % G == 0) return NULL;
    snprintf(buf, len, "%d NICs on %d GPUs per node; expected a divisor or a multiple of %d", K, G,
             G);
    return buf;
}

enum dmlsim_err platform_check_cluster(const struct scenario *sc, struct dmlsim_error *err)
{
    char why[128];
    if (!sc->has_cluster || platform_nics_problem(&sc->cluster, why, sizeof why) == NULL)
        return DMLSIM_OK;
    return dmlsim_fail(err, DMLSIM_EVALUE, "%s:%d: <cluster nics-per-node=\"%d\">: %s", sc->path,
                       sc->cluster_line, sc->cluster.nics_per_node, why);
}
