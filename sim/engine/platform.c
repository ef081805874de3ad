/* platform.c - cluster generator, platform loading, host and link maps (see platform.h). */
#include "platform.h"

#include "route.h"
#include "sgcfg.h"
#include "units.h"
#include "xmldoc.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/config.h>
#include <xbt/dynar.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

static void write_node_hosts(FILE *out, const struct cluster_spec *c, int n)
{
    for (int j = 0; j < c->gpus_per_node; j++)
        fprintf(out,
                "    <host id=\"node%d.gpu%d\" speed=\"%.17gf\" core=\"1\"><prop id=\"gpu\" "
                "value=\"%s\"/><prop id=\"node\" value=\"%d\"/></host>\n",
                n, j, c->gpu->peak_flops[DTYPE_FP32], c->gpu->name, n);
    fprintf(out,
            "    <host id=\"node%d.cpu\" speed=\"%.17gf\" core=\"1\"><prop id=\"role\" "
            "value=\"cpu\"/><prop id=\"node\" value=\"%d\"/><disk id=\"nvme\" "
            "read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/></host>\n",
            n, CATALOG_CPU_FLOPS, n, CATALOG_NVME_BPS, CATALOG_NVME_BPS);
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
    write_node_hosts(out, c, n);
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

/* The links of a machine with one CPU host and one NIC (write_cpu_zone): its PCIe and its NIC. */
static void write_cpu_links(FILE *out, const struct scenario *sc, const char *zone)
{
    const struct cluster_spec *c = &sc->cluster;
    char id[96];
    snprintf(id, sizeof id, "%s.cpu.%s", zone, c->pcie->name);
    write_link(out, sc, c->pcie, "    ", id, c->pcie->bw_Bps, c->pcie->hop_lat_s / 2);
    snprintf(id, sizeof id, "%s.nic0.%s", zone, c->nic->name);
    write_link(out, sc, c->nic, "    ", id, c->nic->bw_Bps, c->nic->hop_lat_s / 2);
}

/* A machine with one CPU host and one NIC, attached to the network like a node: zone NAME, host
 * "NAME.cpu" (property role=ROLE), its PCIe link, one NIC of the cluster's class, and
 * gateway "NAME.net". Dedicated parameter servers ("psI", role ps) and the checkpoint store and
 * rendezvous host ("storage", role storage, with a disk) are such machines. */
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
    if (disk)
        fprintf(out, "<disk id=\"store\" read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/>",
                CATALOG_STORE_BPS, CATALOG_STORE_BPS);
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
 * joined by a Dijkstra-routed star, star_routed). */
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
        fprintf(out, " (%d NICs per GPU, each GPU's as one link nodeN.nicA-B of %d times the "
                     "rate)", nics_per_gpu(c), nics_per_gpu(c));
    if (c->topology == TOPO_FATTREE)
        fprintf(out, " (%d nodes per leaf, %d spines, oversubscription %g)", c->nodes_per_leaf,
                c->spines, c->oversubscription);
    if (c->ps_nodes > 0) fprintf(out, ", %d parameter-server node(s)", c->ps_nodes);
    fprintf(out, ".\n     Link bandwidths are effective per-direction rates; each link carries half a "
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
    if (lv08)
        fprintf(out, "\n     network-model LV08: TCP-class links carry LV08's factors (latency "
                     "x" STR(LV08_LAT_FACTOR) ", bandwidth x" STR(LV08_BW_FACTOR) ").");
    if (star)
        fprintf(out, "\n     Machines are joined by a Dijkstra-routed star (over %d machines): "
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
        int ga = scenario_partition_group(parts[p], za), gb = scenario_partition_group(parts[p], zb);
        for (int i = 0; i < 2 && ga != gb; i++) {
            char id[80];
            scenario_partition_link(parts[p], i ? gb : ga, id, sizeof id);
            set_hop(&hops[h++], "NONE", "%s.%s", id, nic);
        }
    }
    return h;
}

/* The cluster's machines as zones: nodes, parameter servers, storage (with a network), SHARP. */
static int zone_count(const struct cluster_spec *c)
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
    for (int z = 0; z < zone_count(c); z++) {
        char zone[32];
        zone_name(c, z, zone, sizeof zone);
        bool sharp = strcmp(zone, "sharp") == 0;
        int nics = z < c->nodes ? c->nics_per_node : 1;
        for (int up = 1; up >= 0; up--)
            fprintf(out,
                    "  <link id=\"%s.port.%s_%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" "
                    "sharing_policy=\"%s\"/>\n",
                    zone, c->nic->name, up ? "UP" : "DOWN", nics * line,
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
    for (int a = 0; a < zone_count(c); a++)
        for (int b = 0; b < zone_count(c); b++) {
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
static bool star_routed(const struct cluster_spec *c, int np)
{
    int zones = zone_count(c);
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
    for (int z = 0; z < zone_count(c); z++) {
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
    int zones = zone_count(c);
    int leaves = c->topology == TOPO_STAR ? 1 : (zones + c->nodes_per_leaf - 1) / c->nodes_per_leaf;
    const struct fault_spec **parts = xbt_new0(const struct fault_spec *, sc->nfaults + 1);
    int np = c->nic ? partitions(sc, parts) : 0;
    bool star = star_routed(c, np);
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

/* ---- loading ------------------------------------------------------------------------------ */

void platform_configure(const struct scenario *sc)
{
    /* A generated cluster writes LV08's factors into its TCP-class links itself (platform_write)
     * and keeps the exact model for the rest; only a user's platform gets SimGrid's LV08. */
    bool cm02 = sc->net_model == NET_CM02 || sc->has_cluster;
    if (!sgcfg_user_set("network/model")) sg_cfg_set_string("network/model", cm02 ? "CM02" : "LV08");
    if (cm02 && !sgcfg_user_set("network/crosstraffic"))
        sg_cfg_set_boolean("network/crosstraffic", "no");
    if (cm02 && !sgcfg_user_set("network/TCP-gamma")) sg_cfg_set_double("network/TCP-gamma", 0.0);
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

/* ---- resource bounds ---------------------------------------------------------------------- */

/* What a platform holds once SimGrid has loaded it, for the memory estimate (doubles: a cluster
 * of 2^20 nodes x 256 GPUs is counted without overflow, and nothing is generated to count it). */
struct pf_size {
    double gpus;   /* GPU hosts */
    double hosts;  /* hosts and routers */
    double links;  /* links (a SPLITDUPLEX link counts once) */
    double zones;  /* zones */
    double routes; /* routes and zone routes */
    double hops;   /* link_ctn elements of the routes */
    double file_B; /* the platform file's bytes (generated: estimated) */
};

/* Host memory per element of a loaded platform, fitted on generated platforms (peak RSS of `run
 * --fault-plan`, SimGrid 3.32 with jemalloc; star 8 GPUs x 512 and 2,048 nodes, star 1 GPU x
 * 4,096 and 16,384 nodes, fat-tree 512 nodes, one node of 256 GPUs, flat 65,536 GPUs: each
 * within 25% of the measured RSS, the fat-tree's routes overestimated most), and what a process
 * holds before it loads anything. */
#define MEM_BASE_B  40e6   /* SimGrid, libxml2 and dmlsim started, nothing loaded: 38 MB */
#define MEM_HOST_B  1536.0 /* a host or router (flat: 3.05 KB a GPU with its private link) */
#define MEM_LINK_B  1536.0 /* a link */
#define MEM_ZONE_B  1024.0 /* a zone */
#define MEM_ROUTE_B 48.0   /* a route of a Full or Dijkstra zone */
#define MEM_HOP_B   16.0   /* a link of a route */
/* An actor: its context and the stack pages it touches (SimGrid maps a whole stack, 8 MiB by
 * default, but only touched pages are resident): 161,000 mostly idle actors of a PS with 800
 * workers and 200 shards took 3.1 GB, 19 KB each; 16 KiB is a floor. */
#define MEM_ACTOR_B 16384.0
/* libxml2's tree of a platform document, per byte of the file (the generated platform is read
 * back when the scenario has faults: 545 MB for a 48 MB file, 2,048 nodes of 8 GPUs). */
#define MEM_DOM_PER_B 10.0

/* The generated platform's size: the counts platform_write's loops make (hops of a node's
 * routes taken as 3 on average, of a zone route as 3), without writing anything. */
static void generated_size(const struct scenario *sc, struct pf_size *z)
{
    const struct cluster_spec *c = &sc->cluster;
    double N = c->nodes, G = c->gpus_per_node, K = c->nic ? c->nics_per_node : 0;
    memset(z, 0, sizeof *z);
    z->gpus = N * G;
    if (c->topology == TOPO_FLAT) { /* SimGrid's <cluster>: a host and a private link each */
        z->hosts = z->links = N;
        z->zones = 1;
        z->file_B = 1024;
        return;
    }
    bool sharp_nvs = c->intra->fabric == FABRIC_SHARP, mesh = c->intra->fabric == FABRIC_MESH;
    bool nvlink = c->intra->kind == LINK_NVLINK && !mesh;
    double machines = c->ps_nodes + (c->nic ? 1 : 0), zones = zone_count(c);
    double points = G + 1 + (c->nic ? 1 : 0), node_routes = points * (points - 1);
    double leaves = c->topology == TOPO_FATTREE ? ceil(zones / c->nodes_per_leaf) : 1;
    bool star = star_routed(c, 0);
    double top_routes = zones <= 1 || !c->nic ? 0 : star ? 2 * zones : zones * (zones - 1);
    z->hosts = N * (G + 1 + (sharp_nvs ? 1 : 0) + (c->nic ? 1 : 0)) + 2 * machines +
               (c->sharp ? 2 : 0) + 1;
    z->links = N * (G * (nvlink ? 2 : 1) + (mesh ? 16 : 0) + 1 + K) + 2 * machines +
               (c->sharp ? 1 : 0) + (c->nic && zones > 1 ? 2 * zones : 0) +
               (leaves > 1 ? leaves * c->spines : 0);
    z->zones = zones + 2;
    z->routes = N * (node_routes + (sharp_nvs ? 2 * G : 0)) + 2 * machines + top_routes;
    z->hops = 3 * N * node_routes + 2 * N * G * sharp_nvs + 4 * machines + 3 * top_routes;
    z->file_B = 200 * z->hosts + 130 * z->links + 70 * z->routes + 55 * z->hops;
}

/* A generous count of the actors the run will start (engine daemons, then the strategy's or the
 * benchmark's, then the input pipeline's), from the scenario alone: the guard pages' mappings and
 * the memory estimate need it before any actor exists. P: the workers, from the platform's
 * GPUs unless <training gpus>. */
static double actor_estimate(const struct scenario *sc, double ngpus)
{
    const struct train_spec *ts = &sc->train;
    const struct benchmark *b = &sc->bench;
    double P = ts->gpus > 0 ? ts->gpus : ngpus, n = 16; /* injector, rendezvous, watchdog, ... */
    /* NCCL's helper actors: one per channel after the first, MAXCHANNELS 32, at message level
     * or when the collective carries data (nccl_chan.c, nccl_chan_run) */
    bool helpers =
            ts->algo == COLL_ALGO_NCCL && (ts->level == COLL_MESSAGE || ts->numerics.present);
    double chans = helpers ? 31 : 0;
    switch (ts->strategy) {
    case STRAT_ALLREDUCE: /* compute and comm actors */
        n += P * (2 + chans);
        break;
    case STRAT_PS: { /* worker, puller, pusher; shards; ports */
        double K = ts->ps.shards > 0 ? ts->ps.shards : 1;
        n += 4 * P + K + K * P;
        break;
    }
    case STRAT_HYBRID: /* a rank and its prefetch */
        n += 2 * P;
        break;
    default:
        if (b->kind == BENCH_P2P) n += 2 * (double)b->npairs;
        if (b->kind == BENCH_COLLECTIVE)
            n += (b->gpus > 0 ? b->gpus : ngpus) *
                 (1 + (b->algo == COLL_ALGO_NCCL && b->level == COLL_MESSAGE ? 31 : 0));
        break;
    }
    if (ts->data.present) n += P * (ts->data.workers + 3); /* loaders, copier, h2d, fetch */
    return n;
}

/* This machine's physical memory (sysconf), or 0 when it cannot be told. */
static double physical_memory_B(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* The host memory the simulation will take, estimated before anything is generated or loaded
 * (platform, the fault plan's copy of the platform document, actors), against this machine's
 * physical memory: beyond it the run would be killed for memory, or take hours in swap, after
 * minutes of set-up, so it is refused at the <cluster> or <platform> element. */
static enum dmlsim_err check_memory(const struct scenario *sc, const struct pf_size *z,
                                    struct dmlsim_error *err)
{
    double limit = physical_memory_B();
    double platform = MEM_BASE_B + MEM_HOST_B * z->hosts + MEM_LINK_B * z->links +
                      MEM_ZONE_B * z->zones + MEM_ROUTE_B * z->routes + MEM_HOP_B * z->hops;
    double dom = sc->nfaults > 0 ? MEM_DOM_PER_B * z->file_B : 0;
    double actors = actor_estimate(sc, z->gpus), total = platform + dom + MEM_ACTOR_B * actors;
    if (limit <= 0 || total <= limit) return DMLSIM_OK;
    char doc[96] = "";
    if (dom > 0) snprintf(doc, sizeof doc, ", its document for the fault plan %.1f GB", dom / 1e9);
    return dmlsim_fail(err, DMLSIM_EVALUE,
                       "%s:%d: <%s>: the simulation needs about %.1f GB of host memory (a platform "
                       "of %.0f GPU(s), %.0f host(s) and %.0f link(s) %.1f GB%s, about %.0f "
                       "actor(s) %.1f GB), more than this machine's %.1f GB; expected a smaller "
                       "platform or fewer workers",
                       sc->path, sc->cluster_line, sc->has_cluster ? "cluster" : "platform",
                       total / 1e9, z->gpus, z->hosts, z->links, platform / 1e9, doc, actors,
                       MEM_ACTOR_B * actors / 1e9, limit / 1e9);
}

/* Memory mappings in use by this process (lines of /proc/self/maps), or 0. */
static long mappings_in_use(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int ch;
    while (f && (ch = getc(f)) != EOF)
        n += ch == '\n';
    if (f) fclose(f);
    return n;
}

/* vm.max_map_count, or Linux's default 65,530 when it cannot be read. */
static long max_map_count(void)
{
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long v = 0;
    if (f == NULL || fscanf(f, "%ld", &v) != 1 || v <= 0) v = 65530;
    if (f) fclose(f);
    return v;
}

/* Mappings beyond the actors' stacks and what is mapped now: allocations of a run that glibc or
 * jemalloc serve with mmaps of their own. */
#define MAP_SLACK 4096

/* Stack guard pages, decided before any actor starts. SimGrid maps each actor's stack with a
 * PROT_NONE guard page below it: two memory mappings an actor (the two protections never merge
 * with a neighbour's), and past vm.max_map_count (65,530 by default) mprotect fails and SimGrid
 * aborts ("Failed to protect stack"), e.g. a parameter server of 800 workers and 200 shards
 * (160,000 port actors). When the estimated actors need more mappings than the limit leaves,
 * the run goes without guard pages (contexts/guard-size:0, one line on stderr), unless the user
 * set contexts/guard-size: then a guard size above 0 is refused here, at <training>. */
static enum dmlsim_err choose_guard_pages(const struct scenario *sc, double ngpus,
                                          struct dmlsim_error *err)
{
    double actors = actor_estimate(sc, ngpus);
    long limit = max_map_count(), used = mappings_in_use();
    bool over = 2 * actors + (double)used + MAP_SLACK > (double)limit;
    bool user = sgcfg_user_set("contexts/guard-size");
    if (over && user && sg_cfg_get_int("contexts/guard-size") > 0)
        return dmlsim_fail(err, DMLSIM_EVALUE,
                           "%s:%d: about %.0f actors with stack guard pages need %.0f memory "
                           "mappings, more than vm.max_map_count allows (%ld, %ld in use); "
                           "expected --cfg=contexts/guard-size:0 or a larger vm.max_map_count",
                           sc->path, sc->train.line, actors, 2 * actors, limit, used);
    bool no_guard = over && !user;
#ifdef DMLSIM_SANITIZE
    /* Under ASan no guard pages either: LeakSanitizer crashes (SEGV in its tracer) when it scans
     * a SimGrid stack kept at exit by a dead actor, at its PROT_NONE guard page. */
    no_guard = !user;
#endif
    if (over && !user)
        fprintf(stderr,
                "dmlsim: about %.0f actors would need %.0f memory mappings with stack guard "
                "pages, more than vm.max_map_count allows (%ld): running without guard pages "
                "(contexts/guard-size:0)\n",
                actors, 2 * actors, limit);
    if (no_guard) sg_cfg_set_int("contexts/guard-size", 0);
    /* Without guard pages (set here or by --cfg) SimGrid callocs each actor's stack. glibc
     * serves a calloc that large with a fresh mmap (zero pages, touched only as used) up to
     * M_MMAP_MAX = 65,536 mappings, and from the heap after that, where calloc clears the whole
     * stack: at P = 65,536 (two actors a rank) RSS jumped from 1.4 GB at 32,768 to 10.8 GB.
     * Lifting the count and pinning the threshold (a freed stack would raise it past the stack
     * size) keeps every stack an mmap; the kernel merges the adjacent ones, so vm.max_map_count
     * is not reached. Measured: 2.7 GB and 23 s instead of 10.8 GB and 55 s (README,
     * Performance). */
    if (sg_cfg_get_int("contexts/guard-size") == 0) {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024); /* glibc's default threshold */
        mallopt(M_MMAP_MAX, INT_MAX);
    }
    return DMLSIM_OK;
}

/* ---- a user's platform file ------------------------------------------------------------ */

/* An id of the platform, in its namespace: SimGrid refuses a second host or router (one
 * namespace, its netpoints), a second zone or a second link of a name, with an exception that
 * aborts the load. */
enum id_space { ID_NETPOINT, ID_ZONE, ID_LINK };

struct user_id {
    const char *name;    /* the id (owned by the document) */
    enum id_space space; /* its namespace */
    const char *tag;     /* the element ("host", "router", "zone", "cluster", "link") */
    long line;           /* its line */
};

struct user_check {
    const char *path;
    struct dmlsim_error *err;
    char **links; /* the ids of its <link>s */
    size_t nlinks;
    struct user_id *ids; /* every id, for duplicates */
    size_t nids, cap;
    struct pf_size *size; /* what the file holds, for the memory estimate */
    enum dmlsim_err rc;   /* the first failure */
};

static bool is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static void push_name(char ***arr, size_t *n, const xmlChar *name)
{
    *arr = xbt_realloc(*arr, (*n + 1) * sizeof **arr);
    (*arr)[(*n)++] = xbt_strdup((const char *)name);
}

/* Calls fn on every element of the document, depth first. */
static void walk(xmlNodePtr n, void (*fn)(xmlNodePtr, void *), void *data)
{
    for (; n != NULL; n = n->next)
        if (n->type == XML_ELEMENT_NODE) {
            fn(n, data);
            walk(n->children, fn, data);
        }
}

static void collect_link(xmlNodePtr n, void *data)
{
    struct user_check *u = data;
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (id && is_elem(n, "link")) push_name(&u->links, &u->nlinks, id);
    xmlFree(id);
}

/* Attribute `attr` of n, when present, is a quantity of `kind` that is > 0 (or >= 0); a host's
 * speed may list pstates, "1Gf,500Mf". */
static enum dmlsim_err check_quantity(struct user_check *u, xmlNodePtr n, const char *attr,
                                      enum unit_kind kind, enum unit_bound bound)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
    if (v == NULL) return DMLSIM_OK;
    char *copy = xbt_strdup((const char *)v), *save = NULL;
    enum unit_status st = UNIT_OK;
    double x;
    for (char *t = strtok_r(copy, ",", &save); t && st == UNIT_OK; t = strtok_r(NULL, ",", &save))
        st = units_parse(t, kind, bound, &x);
    enum dmlsim_err rc = DMLSIM_OK;
    if (st != UNIT_OK)
        rc = dmlsim_fail(u->err, DMLSIM_EPLATFORM, "%s:%ld: <%s %s=\"%s\">: %s; expected %s%s",
                         u->path, xmlGetLineNo(n), (const char *)n->name, attr,
                         (const char *)v, units_status_str(st), units_expected(kind),
                         bound == UNIT_POSITIVE ? ", > 0" : "");
    free(copy);
    xmlFree(v);
    return rc;
}

/* One element: a GPU property names a catalog GPU; speeds and bandwidths are > 0, latencies
 * >= 0; a route's <link_ctn> names a declared link (SimGrid would abort on it). */
static enum dmlsim_err check_element(struct user_check *u, xmlNodePtr n)
{
    enum dmlsim_err rc = DMLSIM_OK;
    if (is_elem(n, "host") || is_elem(n, "cluster"))
        rc = check_quantity(u, n, "speed", UNIT_FLOPRATE, UNIT_POSITIVE);
    if (rc == DMLSIM_OK && is_elem(n, "cluster")) {
        rc = check_quantity(u, n, "bw", UNIT_BANDWIDTH, UNIT_POSITIVE);
        return rc ? rc : check_quantity(u, n, "lat", UNIT_TIME, UNIT_NONNEG);
    }
    if (rc != DMLSIM_OK || is_elem(n, "host")) return rc;
    if (is_elem(n, "link")) {
        rc = check_quantity(u, n, "bandwidth", UNIT_BANDWIDTH, UNIT_POSITIVE);
        return rc ? rc : check_quantity(u, n, "latency", UNIT_TIME, UNIT_NONNEG);
    }
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (is_elem(n, "link_ctn") && id) {
        bool known = false;
        for (size_t i = 0; i < u->nlinks && !known; i++)
            known = strcmp(u->links[i], (const char *)id) == 0;
        if (!known)
            rc = dmlsim_fail(u->err, DMLSIM_EPLATFORM,
                             "%s:%ld: <link_ctn id=\"%s\">: no such link; expected the id of a "
                             "<link> of the platform",
                             u->path, xmlGetLineNo(n), (const char *)id);
    } else if (is_elem(n, "prop") && n->parent && is_elem(n->parent, "host") && id &&
               strcmp((const char *)id, "gpu") == 0) {
        xmlChar *val = xmlGetProp(n, (const xmlChar *)"value");
        char names[256];
        if (val == NULL || catalog_gpu((const char *)val) == NULL)
            rc = dmlsim_fail(u->err, DMLSIM_EPLATFORM,
                             "%s:%ld: <prop id=\"gpu\" value=\"%s\">: unknown gpu; expected one "
                             "of: %s",
                             u->path, xmlGetLineNo(n), val ? (const char *)val : "",
                             catalog_gpu_names(names, sizeof names));
        xmlFree(val);
    }
    xmlFree(id);
    return rc;
}

static void check_each(xmlNodePtr n, void *data)
{
    struct user_check *u = data;
    if (u->rc == DMLSIM_OK) u->rc = check_element(u, n);
}

/* Hosts a <cluster radical="0-99,200"> makes: the sum of its ranges (0 if unreadable). */
static double radical_count(const char *r)
{
    double n = 0;
    while (r && *r) {
        char *end;
        long a = strtol(r, &end, 10), b = a;
        if (end == r) return n;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        n += b >= a ? (double)(b - a + 1) : 0;
        r = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* Counts what SimGrid will hold (pf_size) and records every id with its namespace. */
static void collect_ids(xmlNodePtr n, void *data)
{
    struct user_check *u = data;
    const char *tag = (const char *)n->name;
    struct pf_size *sz = u->size;
    if (is_elem(n, "host") || is_elem(n, "router")) {
        sz->hosts++;
        for (xmlNodePtr p = n->children; is_elem(n, "host") && p; p = p->next) {
            xmlChar *pid =
                    p->type == XML_ELEMENT_NODE ? xmlGetProp(p, (const xmlChar *)"id") : NULL;
            if (pid && is_elem(p, "prop") && strcmp((const char *)pid, "gpu") == 0) sz->gpus++;
            xmlFree(pid);
        }
    } else if (is_elem(n, "cluster")) {
        xmlChar *r = xmlGetProp(n, (const xmlChar *)"radical");
        double k = radical_count((const char *)r);
        sz->hosts += k, sz->links += k, sz->zones++;
        xmlFree(r);
    } else if (is_elem(n, "link")) {
        sz->links++;
    } else if (is_elem(n, "link_ctn")) {
        sz->hops++;
    } else if (strstr(tag, "oute") != NULL) { /* route, zoneRoute, ASroute, bypass... */
        sz->routes++;
    } else if (is_elem(n, "zone") || is_elem(n, "AS")) {
        sz->zones++;
    }
    bool zone = is_elem(n, "zone") || is_elem(n, "AS") || is_elem(n, "cluster");
    int space = is_elem(n, "link")                           ? ID_LINK
                : is_elem(n, "host") || is_elem(n, "router") ? ID_NETPOINT
                : zone                                       ? ID_ZONE
                                                             : -1;
    xmlChar *id = space >= 0 ? xmlGetProp(n, (const xmlChar *)"id") : NULL;
    if (id == NULL) return;
    if (u->nids == u->cap) {
        u->cap = u->cap ? 2 * u->cap : 64;
        u->ids = xbt_realloc(u->ids, u->cap * sizeof *u->ids);
    }
    u->ids[u->nids++] =
            (struct user_id){(const char *)id, (enum id_space)space, tag, xmlGetLineNo(n)};
}

static int id_cmp(const void *x, const void *y)
{
    const struct user_id *a = x, *b = y;
    if (a->space != b->space) return a->space < b->space ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* The first id (in file order) given a second time in its namespace, as a FILE:LINE error. */
static enum dmlsim_err check_duplicates(struct user_check *u)
{
    qsort(u->ids, u->nids, sizeof *u->ids, id_cmp);
    const struct user_id *first = NULL, *second = NULL;
    for (size_t i = 0, j; i < u->nids; i = j) { /* runs of one id, each in line order */
        for (j = i + 1; j < u->nids && u->ids[j].space == u->ids[i].space &&
                        strcmp(u->ids[j].name, u->ids[i].name) == 0;
             j++) {
        }
        if (j - i > 1 && (second == NULL || u->ids[i + 1].line < second->line))
            first = &u->ids[i], second = &u->ids[i + 1];
    }
    if (second == NULL) return DMLSIM_OK;
    static const char *const what[] = {"host or router", "zone", "link"};
    return dmlsim_fail(u->err, DMLSIM_EPLATFORM,
                       "%s:%ld: <%s id=\"%s\">: a second %s named \"%s\" (the first is <%s> at "
                       "line %ld); expected every %s id once",
                       u->path, second->line, second->tag, second->name, what[second->space],
                       second->name, first->tag, first->line, what[second->space]);
}

/* Checks a user's platform file before SimGrid sees it: well-formed, a <platform> root, no id
 * given twice in its namespace, and every element as check_element says; counts what it holds
 * into *size. SimGrid's own checks (its DTD) come at load, and the routes between the hosts
 * dmlsim uses after it (check_routes). */
static enum dmlsim_err check_user_platform(const char *path, struct pf_size *size,
                                           struct dmlsim_error *err)
{
    xmlDocPtr doc;
    memset(size, 0, sizeof *size);
    enum dmlsim_err rc = xmldoc_read(path, &doc, err);
    if (rc != DMLSIM_OK) return rc;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    struct user_check u = {.path = path, .err = err, .size = size};
    struct stat st;
    size->file_B = stat(path, &st) == 0 ? (double)st.st_size : 0;
    if (root == NULL || strcmp((const char *)root->name, "platform") != 0) {
        rc = dmlsim_fail(err, DMLSIM_EPLATFORM, "%s:%ld: root element <%s>; expected <platform>",
                         path, root ? xmlGetLineNo(root) : 0L,
                         root ? (const char *)root->name : "");
    } else {
        walk(root, collect_link, &u);
        walk(root, collect_ids, &u);
        rc = check_duplicates(&u);
        if (rc == DMLSIM_OK) walk(root, check_each, &u);
        rc = rc ? rc : u.rc;
    }
    for (size_t i = 0; i < u.nlinks; i++)
        free(u.links[i]);
    for (size_t i = 0; i < u.nids; i++)
        xmlFree((xmlChar *)u.ids[i].name);
    free(u.links);
    free(u.ids);
    xmlFreeDoc(doc);
    return rc;
}

int platform_name_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long long va = strtoull(a, &ea, 10), vb = strtoull(b, &eb, 10);
            if (va != vb) return va < vb ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int host_cmp(const void *x, const void *y)
{
    return platform_name_cmp(sg_host_get_name(*(const sg_host_t *)x),
                             sg_host_get_name(*(const sg_host_t *)y));
}

static char *describe(const struct scenario *sc)
{
    const struct cluster_spec *c = &sc->cluster;
    if (!sc->has_cluster) return bprintf("file %s", sc->platform_file);
    char *nic = c->nic ? bprintf(", nic %d x %s, %s", c->nics_per_node, c->nic->name,
                                 topology_name(c->topology))
                       : xbt_strdup("");
    char *d = bprintf("generated, %d node(s) x %d %s, intra %s, pcie %s%s%s", c->nodes,
                      c->gpus_per_node, c->gpu->name, c->intra->name, c->pcie->name, nic,
                      c->ps_nodes ? ", + parameter-server nodes" : "");
    free(nic);
    return d;
}

/* ---- fault profiles ----------------------------------------------------------------------- */


static int str_natural_cmp(const void *x, const void *y)
{
    return platform_name_cmp(*(char *const *)x, *(char *const *)y);
}

static void collect_names(xmlNodePtr n, void *data)
{
    struct fault_names *d = data;
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (id == NULL) return;
    if (is_elem(n, "host")) {
        push_name(&d->hosts, &d->nhosts, id);
        for (xmlNodePtr p = n->children; p; p = p->next) {
            xmlChar *pid =
                    p->type == XML_ELEMENT_NODE ? xmlGetProp(p, (const xmlChar *)"id") : NULL;
            if (pid && strcmp((const char *)pid, "gpu") == 0) push_name(&d->gpus, &d->ngpus, id);
            xmlFree(pid);
        }
    } else if (is_elem(n, "link")) {
        push_name(&d->links, &d->nlinks, id);
    }
    xmlFree(id);
}

void platform_names_release(struct fault_names *d)
{
    for (size_t i = 0; i < d->ngpus; i++)
        free(d->gpus[i]);
    for (size_t i = 0; i < d->nhosts; i++)
        free(d->hosts[i]);
    for (size_t i = 0; i < d->nlinks; i++)
        free(d->links[i]);
    free(d->gpus);
    free(d->hosts);
    free(d->links);
    memset(d, 0, sizeof *d);
}

static xmlNodePtr find_by_id(xmlNodePtr n, const char *tag, const char *id)
{
    for (; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (is_elem(n, tag)) {
            xmlChar *v = xmlGetProp(n, (const xmlChar *)"id");
            bool hit = v && strcmp((const char *)v, id) == 0;
            xmlFree(v);
            if (hit) return n;
        }
        xmlNodePtr found = find_by_id(n->children, tag, id);
        if (found) return found;
    }
    return NULL;
}

/* Writes a profile file "dir/name" from (time, value) pairs. */
static void write_profile(const char *dir, const char *name, const double *t, const double *v,
                          size_t n)
{
    char *path = bprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    for (size_t i = 0; f && i < n; i++)
        fprintf(f, "%.17g %.17g\n", t[i], v[i]);
    if (f) fclose(f);
    free(path);
}

struct retarget {
    const char *link; /* the split link */
};

static void retarget_ctn(xmlNodePtr n, void *data)
{
    struct retarget *r = data;
    if (!is_elem(n, "link_ctn")) return;
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (id && strcmp((const char *)id, r->link) == 0) {
        xmlChar *dir = xmlGetProp(n, (const xmlChar *)"direction");
        char *half = bprintf("%s_%s", r->link,
                             dir && strcmp((const char *)dir, "DOWN") == 0 ? "DOWN" : "UP");
        xmlSetProp(n, (const xmlChar *)"id", (const xmlChar *)half);
        xmlUnsetProp(n, (const xmlChar *)"direction");
        free(half);
        xmlFree(dir);
    }
    xmlFree(id);
}

/* SimGrid 3.32 aborts ("Unknown event!") on a state profile of a SPLITDUPLEX link, so such a
 * link becomes its two halves as separate SHARED links named as SimGrid names them (NAME_UP,
 * NAME_DOWN), each with the profiles, and every route element is pointed at its half. The
 * network behaves the same: a SPLITDUPLEX link is two independent links. Returns the UP half. */
static xmlNodePtr split_duplex(xmlNodePtr root, xmlNodePtr n, const char *link)
{
    xmlChar *pol = xmlGetProp(n, (const xmlChar *)"sharing_policy");
    bool split = pol && strcmp((const char *)pol, "SPLITDUPLEX") == 0;
    xmlFree(pol);
    if (!split) return n;
    xmlNodePtr up = xmlCopyNode(n, 1), down = xmlCopyNode(n, 1);
    char *uname = bprintf("%s_UP", link), *dname = bprintf("%s_DOWN", link);
    xmlSetProp(up, (const xmlChar *)"id", (const xmlChar *)uname);
    xmlSetProp(down, (const xmlChar *)"id", (const xmlChar *)dname);
    xmlSetProp(up, (const xmlChar *)"sharing_policy", (const xmlChar *)"SHARED");
    xmlSetProp(down, (const xmlChar *)"sharing_policy", (const xmlChar *)"SHARED");
    xmlAddNextSibling(n, down);
    xmlAddNextSibling(n, up);
    xmlUnlinkNode(n);
    xmlFreeNode(n);
    struct retarget r = {link};
    walk(root, retarget_ctn, &r);
    free(uname);
    free(dname);
    return up;
}

/* For one link: the state or bandwidth profile of its fault windows, in time order. */
static void link_profiles(xmlNodePtr root, const char *dir, const struct fault_plan *plan,
                          const char *link, int *seq)
{
    xmlNodePtr n = find_by_id(root, "link", link);
    if (n == NULL) return;
    double t[256], v[256], bt[256], bv[256], bw = 0;
    size_t ns = 0, nb = 0;
    xmlChar *bws = xmlGetProp(n, (const xmlChar *)"bandwidth");
    units_parse((const char *)bws, UNIT_BANDWIDTH, UNIT_POSITIVE, &bw);
    xmlFree(bws);
    t[ns] = 0, v[ns++] = 1;
    bt[nb] = 0, bv[nb++] = bw;
    for (size_t i = 0; i < plan->n && ns < 255 && nb < 255; i++) {
        const struct fault_event *e = &plan->ev[i];
        if (strcmp(e->target, link) != 0) continue;
        if (e->kind == FAULT_LINK_DOWN || e->kind == FAULT_LINK_UP)
            t[ns] = e->t_s, v[ns++] = e->kind == FAULT_LINK_UP;
        else if (e->kind == FAULT_DEGRADE || e->kind == FAULT_DEGRADE_END)
            bt[nb] = e->t_s, bv[nb++] = e->kind == FAULT_DEGRADE ? bw * e->factor : bw;
    }
    /* a state profile needs the link split in two halves (see split_duplex); every half gets
     * profile files of its own, since SimGrid refuses one file for two links */
    xmlNodePtr halves[2] = {ns > 1 ? split_duplex(root, n, link) : n, NULL};
    if (halves[0] != n && halves[0]->next && is_elem(halves[0]->next, "link"))
        halves[1] = halves[0]->next;
    for (int h = 0; h < 2 && halves[h]; h++) {
        char name[64];
        if (ns > 1) {
            snprintf(name, sizeof name, "state-%d.txt", (*seq)++);
            write_profile(dir, name, t, v, ns);
            xmlSetProp(halves[h], (const xmlChar *)"state_file", (const xmlChar *)name);
        }
        if (nb > 1) {
            snprintf(name, sizeof name, "bandwidth-%d.txt", (*seq)++);
            write_profile(dir, name, bt, bv, nb);
            xmlSetProp(halves[h], (const xmlChar *)"bandwidth_file", (const xmlChar *)name);
        }
    }
}

/* Straggler windows become extra pstates of the host: speed / factor, one per slow event in plan
 * order (fault_plan_pstate says which the injector switches to). */
static void host_pstates(xmlNodePtr root, const struct fault_plan *plan, const char *host)
{
    xmlNodePtr n = find_by_id(root, "host", host);
    if (n == NULL) return;
    xmlChar *sp = xmlGetProp(n, (const xmlChar *)"speed");
    if (sp == NULL) return;
    char *list = xbt_strdup((const char *)sp);
    xmlFree(sp);
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(list, ","), list);
    double base = 0;
    units_parse(first, UNIT_FLOPRATE, UNIT_POSITIVE, &base);
    for (size_t i = 0; i < plan->n; i++) {
        const struct fault_event *e = &plan->ev[i];
        if (e->kind != FAULT_SLOW || strcmp(e->target, host) != 0) continue;
        char *longer = bprintf("%s,%.17gf", list, base / e->factor);
        free(list);
        list = longer;
    }
    xmlSetProp(n, (const xmlChar *)"speed", (const xmlChar *)list);
    free(list);
}

/* A user platform's own profile files (*_file attributes) are copied next to the rewritten
 * platform, since SimGrid looks them up beside the platform file. */
struct copy_ctx {
    const char *from_dir, *to_dir;
};

static void copy_profiles(xmlNodePtr n, void *data)
{
    struct copy_ctx *c = data;
    for (xmlAttrPtr a = n->properties; a; a = a->next) {
        size_t len = strlen((const char *)a->name);
        if (len < 5 || strcmp((const char *)a->name + len - 5, "_file") != 0) continue;
        xmlChar *v = xmlGetProp(n, a->name);
        char *src = bprintf("%s/%s", c->from_dir, (const char *)v);
        const char *base = strrchr((const char *)v, '/');
        char *dst = bprintf("%s/%s", c->to_dir, base ? base + 1 : (const char *)v);
        FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
        char buf[4096];
        size_t k;
        while (out && (k = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, k, out);
        if (in) fclose(in);
        if (out) fclose(out);
        xmlSetProp(n, a->name, (const xmlChar *)(base ? base + 1 : (const char *)v));
        xmlFree(v);
        free(src);
        free(dst);
    }
}

/* ---- the run's temporary folder ----------------------------------------------------------- */

/* The rewritten platform and its profiles live in $TMPDIR/dmlsim-run-PID-XXXXXX from
 * platform_open to platform_close. An interrupt (SIGINT, SIGTERM) may come at any moment of a
 * set-up that takes minutes on a large platform, so signals are held only around the folder's
 * creation and registration; the CLI's handler removes it (platform_interrupt). A run killed
 * outright (SIGKILL, the OOM killer) cannot: the next run removes every dmlsim-run-PID-* folder
 * of this user whose process is gone. */
static char live_dir[512];                 /* the folder to remove on an interrupt */
static volatile sig_atomic_t live_dir_set; /* whether live_dir names one */

static void hold_interrupts(sigset_t *old)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, old);
}

/* Removes the files of folder `dir` and the folder (the run's folders hold plain files only).
 * Async-signal-safe: open, getdents64, unlinkat, rmdir. */
static void remove_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    long long buf[1024]; /* aligned for the records */
    long n;
    while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const char *rec = (const char *)buf + off;
            unsigned short len;
            memcpy(&len, rec + 16, sizeof len); /* d_ino 8, d_off 8, d_reclen 2, d_type 1 */
            const char *name = rec + 19;
            if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) unlinkat(fd, name, 0);
            off += len;
        }
    if (fd >= 0) close(fd);
    rmdir(dir);
}

void platform_interrupt(void)
{
    if (live_dir_set) remove_dir(live_dir);
}

/* Removes the run folders in tmpdir left by dmlsim processes that no longer exist (this user's
 * only; a folder of a live process, or of another user, is left alone). */
static void remove_stale_dirs(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        long pid;
        int end = 0;
        if (sscanf(e->d_name, "dmlsim-run-%ld-%n", &pid, &end) != 1 || end == 0 ||
            strlen(e->d_name + end) != 6 || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours */
        char *path = bprintf("%s/%s", tmpdir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
            remove_dir(path);
        free(path);
    }
    if (d) closedir(d);
}

/* Creates the run's folder in $TMPDIR (else /tmp) into dir, registered for platform_interrupt;
 * removes stale ones first. */
static enum dmlsim_err make_run_dir(const struct scenario *sc, char *dir, size_t len,
                                    struct dmlsim_error *err)
{
    const char *tmpdir = getenv("TMPDIR"); /* as the sweep's folder */
    if (tmpdir == NULL || tmpdir[0] == '\0') tmpdir = "/tmp";
    int n = snprintf(dir, len, "%s/dmlsim-run-%ld-XXXXXX", tmpdir, (long)getpid());
    if (n < 0 || (size_t)n >= len) {
        tmpdir = "/tmp";
        snprintf(dir, len, "/tmp/dmlsim-run-%ld-XXXXXX", (long)getpid());
    }
    remove_stale_dirs(tmpdir);
    sigset_t old;
    hold_interrupts(&old);
    bool made = mkdtemp(dir) != NULL;
    if (made && strlen(dir) < sizeof live_dir) {
        memcpy(live_dir, dir, strlen(dir) + 1);
        live_dir_set = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (made) return DMLSIM_OK;
    dir[0] = '\0';
    return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot create a temporary folder", sc->path);
}

/* ---- loading ------------------------------------------------------------------------------ */

/* Only the links and hosts the plan names get profiles or pstates (each done once). */
static void write_fault_plan(xmlNodePtr root, const char *dir, const struct fault_plan *plan)
{
    int seq = 0;
    for (size_t i = 0; i < plan->n; i++) {
        const struct fault_event *e = &plan->ev[i];
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(plan->ev[j].target, e->target) != 0 ||
                    (plan->ev[j].kind == FAULT_SLOW) != (e->kind == FAULT_SLOW);
        if (!first) continue;
        if (e->kind == FAULT_LINK_DOWN || e->kind == FAULT_DEGRADE)
            link_profiles(root, dir, plan, e->target, &seq);
        else if (e->kind == FAULT_SLOW)
            host_pstates(root, plan, e->target);
    }
}

/* SimGrid's <cluster> gives its hosts no properties: mark the GPUs of a flat cluster here. */
static void mark_flat_gpus(const struct scenario *sc)
{
    for (int i = 0; i < sc->cluster.nodes; i++) {
        char name[48], node[16];
        snprintf(name, sizeof name, "node%d.gpu0", i);
        snprintf(node, sizeof node, "%d", i);
        sg_host_t h = sg_host_by_name(name);
        sg_host_set_property_value(h, "gpu", sc->cluster.gpu->name);
        sg_host_set_property_value(h, "node", node);
    }
}

/* The "node" property of host h as an index, or -1. */
static long host_node(sg_host_t h)
{
    const char *v = sg_host_get_property_value(h, "node");
    char *end;
    long n = v ? strtol(v, &end, 10) : -1;
    return v && end != v && *end == '\0' && n >= 0 ? n : -1;
}

/* Sorts the loaded hosts into the platform's maps by their properties: gpu=... makes a GPU;
 * role=ps, cpu, storage or nvswitch the others. Nodes are counted from the node properties of
 * GPU, CPU and NVSwitch hosts. */
static void classify_hosts(struct platform *pf)
{
    size_t nhosts = sg_host_count(), nnvs = 0;
    sg_host_t *hosts = sg_host_list();
    sg_host_t *nvs = xbt_new0(sg_host_t, nhosts ? nhosts : 1);
    long last_node = -1;
    pf->gpus = xbt_new0(sg_host_t, nhosts ? nhosts : 1);
    pf->ps_hosts = xbt_new0(sg_host_t, nhosts ? nhosts : 1);
    pf->cpu_hosts = xbt_new0(sg_host_t, nhosts ? nhosts : 1);
    for (size_t i = 0; i < nhosts; i++) {
        const char *role = sg_host_get_property_value(hosts[i], "role");
        bool gpu = sg_host_get_property_value(hosts[i], "gpu") != NULL;
        bool cpu = role && strcmp(role, "cpu") == 0, sw = role && strcmp(role, "nvswitch") == 0;
        if (gpu) pf->gpus[pf->ngpus++] = hosts[i];
        if (role && strcmp(role, "ps") == 0)
            pf->ps_hosts[pf->nps++] = hosts[i];
        else if (cpu)
            pf->cpu_hosts[pf->ncpus++] = hosts[i];
        else if (role && strcmp(role, "storage") == 0 && pf->storage == NULL)
            pf->storage = hosts[i];
        else if (sw)
            nvs[nnvs++] = hosts[i];
        if ((gpu || cpu || sw) && host_node(hosts[i]) > last_node) last_node = host_node(hosts[i]);
    }
    pf->nnodes = (size_t)(last_node + 1);
    pf->nvswitch = xbt_new0(sg_host_t, pf->nnodes ? pf->nnodes : 1);
    for (size_t i = 0; i < nnvs; i++)
        if (host_node(nvs[i]) >= 0) pf->nvswitch[host_node(nvs[i])] = nvs[i];
    free(nvs);
    free(hosts);
    qsort(pf->gpus, pf->ngpus, sizeof *pf->gpus, host_cmp);
    pf->models = xbt_new0(const struct gpu_model *, pf->ngpus ? pf->ngpus : 1);
    for (size_t i = 0; i < pf->ngpus; i++)
        pf->models[i] = catalog_gpu(sg_host_get_property_value(pf->gpus[i], "gpu"));
    qsort(pf->ps_hosts, pf->nps, sizeof *pf->ps_hosts, host_cmp);
    qsort(pf->cpu_hosts, pf->ncpus, sizeof *pf->cpu_hosts, host_cmp);
}

struct platform_doc {
    xmlDocPtr doc;       /* the document to load, or NULL: load the file as it is (no faults) */
    char dir[512];       /* temporary folder of the rewritten platform and its profiles */
    struct pf_size size; /* what the platform holds (generated: counted from the scenario) */
};

const char *platform_nics_problem(const struct cluster_spec *c, char *buf, size_t len)
{
    int G = c->gpus_per_node, K = c->nics_per_node;
    if (c->nic == NULL || G % K == 0 || K % G == 0) return NULL;
    snprintf(buf, len, "%d NICs on %d GPUs per node; expected a divisor or a multiple of %d", K,
             G, G);
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

enum dmlsim_err platform_open(const struct scenario *sc, struct platform_doc **out,
                              struct fault_names *names, struct dmlsim_error *err)
{
    enum dmlsim_err rc = DMLSIM_OK;
    struct platform_doc *d = xbt_new0(struct platform_doc, 1);
    memset(names, 0, sizeof *names);
    *out = d;
    /* checked before anything is written: a platform too large for this machine is refused
     * before minutes of generating and loading it */
    if (sc->has_cluster) rc = platform_check_cluster(sc, err);
    if (rc == DMLSIM_OK && sc->has_cluster)
        generated_size(sc, &d->size);
    else if (rc == DMLSIM_OK)
        rc = check_user_platform(sc->platform_file, &d->size, err);
    if (rc == DMLSIM_OK) rc = check_memory(sc, &d->size, err);
    if (rc == DMLSIM_OK) rc = make_run_dir(sc, d->dir, sizeof d->dir, err);
    if (rc != DMLSIM_OK) return rc;
    char *path = bprintf("%s/platform.xml", d->dir);
    if (sc->has_cluster) {
        FILE *f = fopen(path, "w");
        platform_write(sc, f);
        fclose(f);
        if (sc->nfaults > 0) rc = xmldoc_read(path, &d->doc, err);
    } else {
        if (sc->nfaults > 0) rc = xmldoc_read(sc->platform_file, &d->doc, err);
        if (rc == DMLSIM_OK && d->doc) {
            const char *slash = strrchr(sc->platform_file, '/');
            char *from = slash ? bprintf("%.*s", (int)(slash - sc->platform_file), sc->platform_file)
                               : xbt_strdup(".");
            struct copy_ctx cc = {from, d->dir};
            walk(xmlDocGetRootElement(d->doc), copy_profiles, &cc);
            free(from);
        }
    }
    free(path);
    if (rc == DMLSIM_OK && d->doc) {
        walk(xmlDocGetRootElement(d->doc), collect_names, names);
        qsort(names->gpus, names->ngpus, sizeof *names->gpus, str_natural_cmp);
    }
    return rc;
}

void platform_close(struct platform_doc *d)
{
    if (d == NULL) return;
    xmlFreeDoc(d->doc);
    if (d->dir[0]) remove_dir(d->dir);
    live_dir_set = 0;
    free(d);
}

/* ---- routes of a user's platform ----------------------------------------------------------- */

/* The pairs of GPUs whose routes are checked: every ordered pair up to this many workers; beyond
 * it (the check is quadratic) each worker with the first, the next, the previous and the one
 * half-way round (a hub and the rings the collectives use). */
#define ROUTE_ALL_PAIRS_MAX 512

/* The routes to check, as pairs of hosts (src, dst). */
struct route_pairs {
    sg_host_t (*v)[2];
    size_t n, cap;
};

static void add_pair(struct route_pairs *rp, sg_host_t a, sg_host_t b)
{
    if (a == NULL || b == NULL || a == b) return;
    if (rp->n == rp->cap) {
        rp->cap = rp->cap ? 2 * rp->cap : 256;
        rp->v = xbt_realloc(rp->v, rp->cap * sizeof *rp->v);
    }
    rp->v[rp->n][0] = a;
    rp->v[rp->n++][1] = b;
}

/* Both ways between a and b. */
static void add_both(struct route_pairs *rp, sg_host_t a, sg_host_t b)
{
    add_pair(rp, a, b);
    add_pair(rp, b, a);
}

/* What the scenario will send over a user's platform: between the workers (all-reduce, hybrid
 * and the collective benchmark: any two, as memberships change and algorithms differ), between
 * each worker and the parameter servers (their role=ps hosts, else the CPU hosts they run on),
 * between each worker and the store (faults and checkpoints: the storage host, else the first
 * CPU host) and its node's CPU host (the input pipeline, local checkpoints), and each p2p pair. */
static void route_pairs_of(const struct scenario *sc, const struct platform *pf,
                           struct route_pairs *rp)
{
    const struct train_spec *ts = &sc->train;
    long P = ts->strategy != STRAT_NONE ? (ts->gpus > 0 ? ts->gpus : (long)pf->ngpus)
             : sc->bench.kind == BENCH_COLLECTIVE
                     ? (sc->bench.gpus > 0 ? sc->bench.gpus : (long)pf->ngpus)
                     : 0;
    if (P > (long)pf->ngpus) P = (long)pf->ngpus; /* the strategy's check says more */
    bool peers = ts->strategy == STRAT_ALLREDUCE || ts->strategy == STRAT_HYBRID ||
                 (ts->strategy == STRAT_NONE && sc->bench.kind == BENCH_COLLECTIVE);
    for (long a = 0; peers && a < P; a++) {
        long hub[4] = {0, (a + 1) % P, (a + P - 1) % P, (a + P / 2) % P};
        bool all = P <= ROUTE_ALL_PAIRS_MAX;
        for (long k = 0; k < (all ? P : 4); k++)
            add_pair(rp, pf->gpus[a], pf->gpus[all ? k : hub[k]]);
    }
    bool store = sc->nfaults > 0 || sc->ckpt.present;
    sg_host_t store_host = pf->storage ? pf->storage : pf->ncpus ? pf->cpu_hosts[0] : NULL;
    bool local = ts->data.present || sc->ckpt.present;
    for (long a = 0; ts->strategy != STRAT_NONE && a < P; a++) {
        sg_host_t g = pf->gpus[a];
        if (ts->strategy == STRAT_PS && pf->nps > 0)
            for (size_t i = 0; i < pf->nps; i++)
                add_both(rp, g, pf->ps_hosts[i]);
        else if (ts->strategy == STRAT_PS)
            for (size_t i = 0; i < pf->ncpus; i++)
                add_both(rp, g, pf->cpu_hosts[i]);
        if (store) add_both(rp, g, store_host);
        if (local) add_both(rp, g, platform_node_cpu(pf, g));
    }
    for (size_t i = 0; sc->bench.kind == BENCH_P2P && i < sc->bench.npairs; i++)
        add_pair(rp, sg_host_by_name(sc->bench.pairs[i].src),
                 sg_host_by_name(sc->bench.pairs[i].dst));
}

/* Where the probe is, in memory shared with the child: the pair being asked, and whether its
 * route was found empty. */
struct route_probe {
    volatile size_t at; /* the pair being asked */
    volatile int empty; /* 1: its route is empty with no latency */
};

/* The child: asks SimGrid for each pair's route, as a transfer would (network_cm02.cpp: an empty
 * route with no latency aborts "there is no connecting path"; a Dijkstra or Floyd zone without a
 * path crashes or throws while looking, which the parent sees as the child's death). Exits 0
 * when every route exists. */
static void probe_crashed(int sig)
{
    _exit(128 + sig);
}

static void probe_routes(const struct route_pairs *rp, struct route_probe *pr)
{
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, STDERR_FILENO); /* SimGrid's own report of a crash is not ours */
    /* A crash while looking is the expected answer "no route", not a defect: the child leaves
     * at once, before a sanitizer's handler would report it as one. */
    signal(SIGSEGV, probe_crashed);
    signal(SIGBUS, probe_crashed);
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    for (size_t i = 0; i < rp->n; i++) {
        pr->at = i;
        xbt_dynar_reset(links);
        sg_host_get_route(rp->v[i][0], rp->v[i][1], links);
        if (xbt_dynar_length(links) == 0 &&
            sg_host_get_route_latency(rp->v[i][0], rp->v[i][1]) <= 0) {
            pr->empty = 1;
            _exit(1);
        }
    }
    _exit(0);
}

/* The line of <host id="name"> in the user's platform file, or 0. */
static long host_line(const char *path, const char *name)
{
    xmlDocPtr doc;
    struct dmlsim_error ignored;
    if (xmldoc_read(path, &doc, &ignored) != DMLSIM_OK) return 0;
    xmlNodePtr n = find_by_id(xmlDocGetRootElement(doc), "host", name);
    long line = n ? xmlGetLineNo(n) : 0;
    xmlFreeDoc(doc);
    return line;
}

/* A user's platform must route what the scenario sends (route_pairs_of): without a route, the
 * first transfer aborts inside SimGrid. The routes are asked of the loaded platform in a child
 * process, so the answer is SimGrid's own whatever the zones' routing, and a crash while looking
 * (some routings crash on a missing path) costs only the child. */
static enum dmlsim_err check_routes(const struct scenario *sc, const struct platform *pf,
                                    struct dmlsim_error *err)
{
    struct route_pairs rp = {0};
    route_pairs_of(sc, pf, &rp);
    struct route_probe *pr = rp.n == 0 ? MAP_FAILED
                                       : mmap(NULL, sizeof *pr, PROT_READ | PROT_WRITE,
                                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    enum dmlsim_err rc = DMLSIM_OK;
    fflush(NULL);
    pid_t pid = pr == MAP_FAILED ? -1 : fork();
    if (pid == 0) probe_routes(&rp, pr);
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid &&
        !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        const char *from = sg_host_get_name(rp.v[pr->at][0]),
                   *to = sg_host_get_name(rp.v[pr->at][1]);
        rc = dmlsim_fail(err, DMLSIM_EPLATFORM,
                         "%s:%ld: <host id=\"%s\">: no route from %s to it%s; expected a route "
                         "(or zone route) wherever the scenario sends: between its GPUs, and "
                         "from each to the parameter-server, storage and node CPU hosts it uses",
                         sc->platform_file, host_line(sc->platform_file, to), to, from,
                         pr->empty ? "" : " (SimGrid failed looking for one)");
    }
    if (pr != MAP_FAILED) munmap(pr, sizeof *pr);
    free(rp.v);
    return rc;
}

enum dmlsim_err platform_load(const struct scenario *sc, struct platform_doc *d,
                              const struct fault_plan *plan, struct platform **out,
                              struct dmlsim_error *err)
{
    char *path = bprintf("%s/platform.xml", d->dir);
    *out = NULL;
    if (d->doc) {
        write_fault_plan(xmlDocGetRootElement(d->doc), d->dir, plan);
        if (xmlSaveFile(path, d->doc) < 0) {
            free(path);
            return dmlsim_fail(err, DMLSIM_EIO, "%s:0: cannot write the platform to %s", sc->path,
                               d->dir);
        }
    }
    simgrid_load_platform(d->doc || sc->has_cluster ? path : sc->platform_file);
    /* SimGrid 3.32 seals the zones when the simulation starts, and a Dijkstra zone cannot route
     * before: running to time 0 with no actor yet seals them (Engine::seal_platform has no C
     * binding), so routes can be asked before the actors start. */
    simgrid_run_until(0.0);
    free(path);
    struct platform *pf = xbt_new0(struct platform, 1);
    if (sc->has_cluster && sc->cluster.topology == TOPO_FLAT) mark_flat_gpus(sc);
    classify_hosts(pf);
    pf->description = describe(sc);
    enum dmlsim_err rc = sc->has_cluster ? DMLSIM_OK : check_routes(sc, pf, err);
    if (rc != DMLSIM_OK) {
        platform_free(pf);
        return rc;
    }
    *out = pf;
    return DMLSIM_OK;
}

enum dmlsim_err platform_setup(const struct scenario *sc, struct fault_plan *plan,
                               struct platform **pf, struct dmlsim_error *err)
{
    struct platform_doc *doc = NULL;
    struct fault_names names;
    *pf = NULL;
    enum dmlsim_err rc = platform_open(sc, &doc, &names, err);
    if (rc == DMLSIM_OK) rc = choose_guard_pages(sc, doc->size.gpus, err);
    if (rc == DMLSIM_OK) rc = fault_plan_build(sc, &names, plan, err);
    if (rc == DMLSIM_OK) rc = platform_load(sc, doc, plan, pf, err);
    platform_names_release(&names);
    platform_close(doc);
    return rc;
}

void platform_free(struct platform *pf)
{
    if (pf == NULL) return;
    free(pf->gpus);
    free(pf->models);
    free(pf->ps_hosts);
    free(pf->cpu_hosts);
    free(pf->nvswitch);
    free(pf->description);
    free(pf);
}

sg_host_t platform_node_cpu(const struct platform *pf, sg_host_t gpu)
{
    const char *node = sg_host_get_property_value(gpu, "node");
    for (size_t i = 0; node && i < pf->ncpus; i++) {
        const char *n = sg_host_get_property_value(pf->cpu_hosts[i], "node");
        if (n && strcmp(n, node) == 0) return pf->cpu_hosts[i];
    }
    return NULL;
}

sg_disk_t platform_host_disk(sg_host_t h)
{
    unsigned int n = 0;
    sg_disk_t *disks = NULL;
    sg_host_get_disks(h, &n, &disks);
    sg_disk_t d = n > 0 ? disks[0] : NULL;
    free(disks);
    return d;
}
