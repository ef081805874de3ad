/* nccl_topo.c - the communicator as the nccl family lays it out (see nccl_topo.h). */
#include "nccl_topo.h"

#include "catalog.h"
#include "nccl_socket.h"
#include "route.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TREE_CHUNK_B 524288 /* Simple FIFO slot: 4 MiB NCCL_BUFFSIZE / NCCL_STEPS 8 */
#define MAX_CHUNKS   64     /* bound on pipeline chunks per channel */
#define CYCLE_SEARCH 100000 /* bound on the Hamiltonian-cycle search's expansions */

/* ---- what the platform is ---------------------------------------------------------------- */

static const struct link_class *class_of(sg_link_t l)
{
    char buf[64];
    return catalog_link(route_link_class(sg_link_get_name(l), buf, sizeof buf));
}

/* Route facts between two hosts: every link NVLink?, the smallest bandwidth, the first network
 * link (the sender's NIC), or NULL. */
static void route_facts(sg_host_t a, sg_host_t b, bool *all_nvlink, double *bw, sg_link_t *nic)
{
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(a, b, links);
    unsigned i;
    sg_link_t l;
    *all_nvlink = xbt_dynar_length(links) > 0;
    *bw = INFINITY;
    *nic = NULL;
    xbt_dynar_foreach (links, i, l) {
        const struct link_class *lc = class_of(l);
        if (!lc || lc->kind != LINK_NVLINK) *all_nvlink = false;
        if (sg_link_get_bandwidth(l) < *bw) *bw = sg_link_get_bandwidth(l);
        if (*nic == NULL && lc && catalog_link_is_network(lc)) *nic = l;
    }
    xbt_dynar_free(&links);
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Depth-first search for a cycle through all g GPUs of a node over pairs of capacity >= 1. */
static bool cycle_dfs(const int *cap, int g, int *path, int len, bool *used, long *budget)
{
    if (--*budget < 0) return false;
    if (len == g) return cap[path[g - 1] * g + path[0]] > 0;
    for (int want = 2; want >= 1; want--) /* doubled links first: they can carry two rings */
        for (int v = 0; v < g; v++) {
            int c = cap[path[len - 1] * g + v];
            if (used[v] || c <= 0 || (want == 2 ? c < 2 : c >= 2)) continue;
            used[v] = true;
            path[len] = v;
            if (cycle_dfs(cap, g, path, len + 1, used, budget)) return true;
            used[v] = false;
        }
    return false;
}

/* Link units between the node's GPUs i and j: 0 unless the route is NVLink only, else its
 * bandwidth in units of `unit` (1 or 2 NVLinks on a DGX-1). */
static void mesh_capacity(const struct coll_world *w, const int *m, int g, int *cap, bool *all)
{
    double *bw = xbt_new0(double, g *g), unit = INFINITY;
    bool nv;
    sg_link_t nic;
    *all = true;
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            if (i == j) continue;
            route_facts(w->hosts[m[i]], w->hosts[m[j]], &nv, &bw[i * g + j], &nic);
            if (!nv) bw[i * g + j] = 0, *all = false;
            if (nv) unit = fmin(unit, bw[i * g + j]);
        }
    for (int i = 0; i < g * g; i++)
        cap[i] = bw[i] > 0 ? (int)lround(bw[i] / unit) : 0;
    free(bw);
}

/* A ring in rank order over members m[0..g): NVLink only?, its slowest pair's bandwidth. */
static void rank_ring_facts(const struct coll_world *w, const int *m, int g, bool *nvlink,
                            double *ring_bw)
{
    bool nv;
    double bw;
    sg_link_t nic;
    *nvlink = g > 1;
    *ring_bw = INFINITY;
    for (int i = 0; i < g && g > 1; i++) {
        route_facts(w->hosts[m[i]], w->hosts[m[(i + 1) % g]], &nv, &bw, &nic);
        *nvlink = *nvlink && nv;
        *ring_bw = fmin(*ring_bw, bw);
    }
}

/* Node n's rings: members m[0..g) in rank order; cycles out[k][0..g). Returns how many (>= 1);
 * *nvlink says whether they run over NVLink only, *ring_bw the bandwidth a GPU's rings get
 * (each cycle's slowest pair, both directions in a mesh; the switch link behind a switch). */
static int node_cycles(const struct coll_world *w, const int *m, int g, int out[][16], bool *nvlink,
                       bool *mesh, double *ring_bw)
{
    int *cap = xbt_new0(int, g *g), *path = xbt_new0(int, g), n = 0;
    bool *used = xbt_new0(bool, g), all = false, nv;
    double bw;
    sg_link_t nic;
    for (int i = 0; i < g; i++)
        out[0][i] = m[i];
    if (g <= 16) mesh_capacity(w, m, g, cap, &all);
    *mesh = !all && g <= 16;
    *ring_bw = 0;
    for (long budget = CYCLE_SEARCH; *mesh && n < NCCL_TOPO_MAX_CYC;
         n++) { /* edge-disjoint, greedily */
        memset(used, 0, (size_t)g * sizeof *used);
        used[0] = true;
        if (!cycle_dfs(cap, g, path, 1, used, &budget)) break;
        double cyc_bw = INFINITY;
        for (int i = 0; i < g; i++) {
            int a = path[i], b = path[(i + 1) % g];
            cap[a * g + b]--, cap[b * g + a]--;
            out[n][i] = m[a];
            route_facts(w->hosts[m[a]], w->hosts[m[b]], &nv, &bw, &nic);
            cyc_bw = fmin(cyc_bw, bw);
        }
        *ring_bw += 2 * cyc_bw;
    }
    *nvlink = all || n > 0;
    if (n == 0) { /* behind a switch, or no NVLink cycle: one ring in rank order */
        bool rank_nv;
        rank_ring_facts(w, m, g, &rank_nv, ring_bw);
        *mesh = false;
        n = 1;
    }
    free(cap);
    free(path);
    free(used);
    return n;
}

/* Node n's place in tree tt: tree 0 in node order, tree 1 in reverse order. */
static int tree_index(int n, int N, int tt)
{
    return tt == 0 ? n : N - 1 - n;
}

/* The NICs a network link stands for: its bandwidth in NICs of its class, at least 1 (a GPU's
 * group of k NICs is one link of k times the rate, platform.h). */
static int nic_count(sg_link_t nic)
{
    const struct link_class *lc = class_of(nic);
    long k = lc && lc->bw_Bps > 0 ? lround(sg_link_get_bandwidth(nic) / lc->bw_Bps) : 1;
    return k < 1 ? 1 : (int)k;
}

/* The smallest PCIe bandwidth on the route from a to b (INFINITY: none). */
static double route_pcie_bw(sg_host_t a, sg_host_t b)
{
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg_host_get_route(a, b, links);
    unsigned i;
    sg_link_t l;
    double bw = INFINITY;
    xbt_dynar_foreach (links, i, l) {
        const struct link_class *lc = class_of(l);
        if (lc && lc->kind == LINK_PCIE) bw = fmin(bw, sg_link_get_bandwidth(l));
    }
    xbt_dynar_free(&links);
    return bw;
}

/* The socket transport's facts (nccl_socket.h): when node 0's first GPU reaches node 1 through a
 * TCP NIC, its stream rate and the GPU's PCIe rate (the route's, else the NIC's: a flat cluster's
 * private link stands for both). */
static void socket_facts(const struct coll_world *w, struct nccl_topo *t)
{
    t->nsocks = nccl_socket_count(&w->nccl);
    t->stream_Bps = 0;
    if (t->nnodes < 2) return;
    sg_host_t a = w->hosts[t->order[t->node_start[0]]], b = w->hosts[t->order[t->node_start[1]]];
    bool nv;
    double bw;
    sg_link_t nic;
    route_facts(a, b, &nv, &bw, &nic);
    const struct link_class *lc = nic ? class_of(nic) : NULL;
    if (lc == NULL || lc->kind != LINK_TCP || lc->stream_Bps <= 0) return;
    t->stream_Bps = lc->stream_Bps;
    t->stage_pcie_Bps = route_pcie_bw(a, b);
    if (!isfinite(t->stage_pcie_Bps)) t->stage_pcie_Bps = bw;
}

double nccl_topo_conn_Bps(const struct nccl_topo *t, int a, int b, double msg_B)
{
    if (t->stream_Bps <= 0 || b >= t->sys.nranks || t->node[a] == t->node[b]) return 0;
    return nccl_socket_conn_Bps(t->nsocks, t->stream_Bps, msg_B);
}

double nccl_topo_stage_s(const struct nccl_topo *t, double msg_B)
{
    return t->stream_Bps > 0 ? nccl_socket_stage_s(msg_B, t->stage_pcie_Bps) : 0;
}

static void system_facts(const struct coll_world *w, struct nccl_topo *t, double intra_bw)
{
    struct nccl_system *s = &t->sys;
    s->nranks = w->nranks;
    s->nnodes = t->nnodes;
    s->sm = 1000;
    for (int r = 0; r < w->nranks; r++) {
        const char *name = sg_host_get_property_value(w->hosts[r], "gpu");
        const struct gpu_model *g = name ? catalog_gpu(name) : NULL;
        int sm = g ? g->sm : 80;
        if (sm < s->sm) s->sm = sm;
    }
    s->intra_Bps = intra_bw;
    s->rails = 1;
    s->inter_Bps = intra_bw;
    if (t->nnodes > 1) { /* node 0's GPUs towards node 1: their distinct NICs are the rails */
        sg_link_t seen[NCCL_TOPO_MAX_CH];
        int ns = 0, rails = 0;
        double total = 0, bw;
        bool nv;
        sg_host_t peer = w->hosts[t->order[t->node_start[1]]];
        for (int i = t->node_start[0]; i < t->node_start[1]; i++) {
            sg_link_t nic;
            route_facts(w->hosts[t->order[i]], peer, &nv, &bw, &nic);
            bool dup = nic == NULL;
            for (int k = 0; k < ns && !dup; k++)
                dup = seen[k] == nic;
            if (!dup && ns < NCCL_TOPO_MAX_CH) {
                seen[ns++] = nic, total += sg_link_get_bandwidth(nic);
                rails += nic_count(nic);
            }
            if (ns == 0 && i == t->node_start[1] - 1) total = bw; /* no NIC named: the route */
        }
        s->rails = rails > 0 ? rails : 1;
        s->inter_Bps = total;
        if (!isfinite(s->intra_Bps)) s->intra_Bps = s->inter_Bps;
    }
    s->collnet = t->sharp != NULL;
    s->nvls = true; /* NVLS needs the switch host on every node, and nodes of one size */
    for (int n = 0; n < t->nnodes; n++)
        s->nvls = s->nvls && t->nvs[n] != NULL &&
                  t->node_start[n + 1] - t->node_start[n] == t->node_start[1] - t->node_start[0];
    nccl_system_init(s);
}

/* The NVSwitch host of node `node` ("nodeN.nvs"), or with node -1 the SHARP switch
 * ("sharp.switch"); NULL if the platform has none. SimGrid's name lookup walks the zones, so
 * every world of a run looking up its nodes' switches cost O(P) each (5.8% of a 16,352-GPU
 * step); the answers are kept for the process's one platform. */
static sg_host_t switch_host(int node)
{
    static sg_host_t *cache, sharp;
    static signed char *known; /* 0 not looked up, 1 looked up */
    static int cap, sharp_known;
    if (node < 0) {
        if (!sharp_known) sharp = sg_host_by_name("sharp.switch"), sharp_known = 1;
        return sharp;
    }
    if (node >= cap) {
        int ncap = cap ? cap : 64;
        while (ncap <= node)
            ncap *= 2;
        cache = xbt_realloc(cache, (size_t)ncap * sizeof *cache);
        known = xbt_realloc(known, (size_t)ncap);
        memset(known + cap, 0, (size_t)(ncap - cap));
        cap = ncap;
    }
    if (!known[node]) {
        char name[48];
        snprintf(name, sizeof name, "node%d.nvs", node);
        cache[node] = sg_host_by_name(name);
        known[node] = 1;
    }
    return cache[node];
}

static struct nccl_topo *topo_build(const struct coll_world *w)
{
    int P = w->nranks;
    struct nccl_topo *t = xbt_new0(struct nccl_topo, 1);
    int *pairs = xbt_new(int, 2 * P);
    for (int r = 0; r < P; r++)
        pairs[2 * r] = w->node_of[r], pairs[2 * r + 1] = r;
    qsort(pairs, (size_t)P, 2 * sizeof *pairs, cmp_pair);
    t->order = xbt_new(int, P);
    t->node = xbt_new(int, P);
    t->lpos = xbt_new(int, P);
    t->node_start = xbt_new(int, P + 1);
    for (int i = 0; i < P; i++) {
        if (i == 0 || pairs[2 * i] != pairs[2 * i - 2]) t->node_start[t->nnodes++] = i;
        t->order[i] = pairs[2 * i + 1];
    }
    t->node_start[t->nnodes] = P;
    free(pairs);
    t->nvs = xbt_new0(sg_host_t, t->nnodes);
    t->sharp = switch_host(-1);
    for (int n = 0; n < t->nnodes; n++)
        if (t->node_start[n + 1] - t->node_start[n] > t->gmax)
            t->gmax = t->node_start[n + 1] - t->node_start[n];
    for (int n = 0; n < t->nnodes; n++) {
        const char *id = sg_host_get_property_value(w->hosts[t->order[t->node_start[n]]], "node");
        t->nvs[n] = id ? switch_host(atoi(id)) : NULL;
    }
    double intra_bw = INFINITY, bw;
    bool nvlink = false, decided = false;
    t->ncyc = xbt_new0(int, t->nnodes);
    for (int k = 0; k < NCCL_TOPO_MAX_CYC; k++) {
        t->cyc[k] = xbt_new(int, P);
        t->cpos[k] = xbt_new(int, P);
    }
    for (int n = 0; n < t->nnodes; n++) {
        int g = t->node_start[n + 1] - t->node_start[n], out[NCCL_TOPO_MAX_CYC][16],
            s0 = t->node_start[n];
        bool nv, mesh;
        t->ncyc[n] = g <= 16 ? node_cycles(w, t->order + s0, g, out, &nv, &mesh, &bw) : 1;
        if (g > 16) rank_ring_facts(w, t->order + s0, g, &nv, &bw), mesh = false;
        if (g >= 2 && !decided) nvlink = nv, t->mesh = mesh, decided = true;
        if (g >= 2) intra_bw = fmin(intra_bw, bw);
        for (int k = 0; k < NCCL_TOPO_MAX_CYC; k++)
            for (int i = 0; i < g; i++) {
                int r = k < t->ncyc[n] && g <= 16 ? out[k][i] : t->order[s0 + i];
                t->cyc[k][s0 + i] = r;
                t->cpos[k][r] = i;
            }
        memcpy(t->order + s0, t->cyc[0] + s0, (size_t)g * sizeof *t->order);
        for (int i = 0; i < g; i++) {
            int r = t->order[s0 + i];
            t->node[r] = n;
            t->lpos[r] = i;
        }
        for (int tt = 0; tt < 2; tt++) {
            int d = coll_heap_depth(tree_index(n, t->nnodes, tt)) + g - 1;
            if (d > t->depth_max[tt]) t->depth_max[tt] = d;
        }
    }
    t->sys.nvlink = nvlink;
    system_facts(w, t, intra_bw);
    socket_facts(w, t);
    for (int c = 0; c < NCCL_TOPO_MAX_CH; c++)
        t->ring_lat[c][0] = t->ring_lat[c][1] = NAN;
    return t;
}

void nccl_topo_free(struct nccl_topo *t)
{
    if (t == NULL) return;
    free(t->node_start);
    free(t->order);
    free(t->node);
    free(t->lpos);
    free(t->nvs);
    free(t->ncyc);
    coll_gate_free(&t->gate);
    for (int k = 0; k < NCCL_TOPO_MAX_CYC; k++) {
        free(t->cyc[k]);
        free(t->cpos[k]);
    }
    free(t);
}

const struct nccl_topo *nccl_topo_of(const struct coll_world *w)
{
    if (w->topo == NULL) ((struct coll_world *)w)->topo = topo_build(w); /* the world's cache */
    return w->topo;
}

/* ---- rings -------------------------------------------------------------------------------- */

int nccl_topo_node_size(const struct nccl_topo *t, int n)
{
    return t->node_start[n + 1] - t->node_start[n];
}

int nccl_topo_member(const struct nccl_topo *t, int n, int k)
{
    int g = nccl_topo_node_size(t, n);
    return t->order[t->node_start[n] + ((k % g) + g) % g];
}

/* GPU i of node n in channel c's ring order: cycle (c / 2) mod the node's cycles, and in a mesh
 * the odd channels go round it the other way (the other halves of the same links). */
static int ring_member(const struct nccl_topo *t, int n, int c, int i)
{
    int g = nccl_topo_node_size(t, n), k = (c / 2) % t->ncyc[n];
    i = ((i % g) + g) % g;
    if (t->mesh && c % 2) i = (g - i) % g;
    return t->cyc[k][t->node_start[n] + i];
}

static int ring_index(const struct nccl_topo *t, int r, int c)
{
    int n = t->node[r], g = nccl_topo_node_size(t, n), k = (c / 2) % t->ncyc[n], i = t->cpos[k][r];
    return t->mesh && c % 2 ? (g - i) % g : i;
}

/* Channel c's ring around rank r: its right and left neighbours and r's position. Channel c
 * enters node n at its GPU c of the ring order and leaves it from GPU c - 1. */
void nccl_topo_ring_of(const struct nccl_topo *t, int r, int c, int *right, int *left, int *pos)
{
    int n = t->node[r], g = nccl_topo_node_size(t, n), i = ring_index(t, r, c),
        q = ((i - c) % g + g) % g;
    int N = t->nnodes, nn = (n + 1) % N, pn = (n + N - 1) % N;
    *right = q < g - 1 ? ring_member(t, n, c, i + 1) : ring_member(t, nn, c, c);
    *left = q > 0 ? ring_member(t, n, c, i - 1) : ring_member(t, pn, c, c - 1);
    *pos = t->node_start[n] + q;
}

/* The protocol latency a ring step pays, beyond the routes' own: the mean over the channel's
 * ring of its hops' (N across nodes, P - N inside). Every rank sleeps the same before each send,
 * so a step's chain of dependencies adds up the ring's hops as NCCL's latency model does (the
 * sum along the path) instead of making every step wait for the slowest hop. The routes are
 * those of node 0's ring into node 1 (representative of a regular cluster). */
double nccl_topo_ring_mean(const struct coll_world *w, struct nccl_topo *t,
                           const struct nccl_plan *p, int c, bool route)
{
    int P = w->nranks, N = t->nnodes, n = 0;
    if (isnan(t->ring_lat[c][0])) { /* the routes' latencies, once per channel */
        while (n < N && nccl_topo_node_size(t, n) < 2)
            n++;
        t->ring_lat[c][0] = t->ring_lat[c][1] = 0;
        if (n < N)
            t->ring_lat[c][0] = sg_host_get_route_latency(w->hosts[ring_member(t, n, c, c)],
                                                          w->hosts[ring_member(t, n, c, c + 1)]);
        if (N > 1)
            t->ring_lat[c][1] = sg_host_get_route_latency(w->hosts[ring_member(t, 0, c, c - 1)],
                                                          w->hosts[ring_member(t, 1, c, c)]);
        if (c == 0 && n < N)
            t->ring_bw[0] = sg_host_get_route_bandwidth(w->hosts[ring_member(t, n, 0, 0)],
                                                        w->hosts[ring_member(t, n, 0, 1)]);
        if (c == 0 && N > 1)
            t->ring_bw[1] = sg_host_get_route_bandwidth(w->hosts[ring_member(t, 0, 0, -1)],
                                                        w->hosts[ring_member(t, 1, 0, 0)]);
    }
    double intra = t->ring_lat[c][0], inter = t->ring_lat[c][1];
    if (!route) { /* hop_extra of the same hops; none where there is no such hop */
        intra = P > N ? fmax(0, p->intra_hop_s - intra) : 0;
        inter = N > 1 ? fmax(0, p->inter_hop_s - inter) + p->net_stage_s : 0;
    }
    return ((P - N) * intra + N * inter) / P;
}

double nccl_topo_ring_extra(const struct coll_world *w, struct nccl_topo *t,
                            const struct nccl_plan *p, int c)
{
    return nccl_topo_ring_mean(w, t, p, c, false);
}

/* The representative routes' bandwidths inside a node and across nodes (nccl_topo_ring_mean fills
 * them; INFINITY where there is no such route). */
void nccl_topo_route_bws(const struct nccl_topo *t, double *bi, double *bx)
{
    *bi = t->ring_bw[0] > 0 ? t->ring_bw[0] : INFINITY;
    *bx = t->ring_bw[1] > 0 ? t->ring_bw[1] : INFINITY;
}

int nccl_topo_chunks_for(double bytes)
{
    int k = (int)ceil(bytes / TREE_CHUNK_B);
    return k < 1 ? 1 : k > MAX_CHUNKS ? MAX_CHUNKS : k;
}

/* ---- trees -------------------------------------------------------------------------------- */

/* Channel c's tree around rank r: parent (-1 at the root), children, depth. Tree c % 2 over the
 * nodes; inside a node a chain from the head, the GPU at ring position c / 2. */
void nccl_topo_tree_of(const struct nccl_topo *t, int r, int c, int *parent, int *kids, int *nk,
                       int *depth)
{
    int n = t->node[r], g = nccl_topo_node_size(t, n), N = t->nnodes, tt = c % 2, h = c / 2;
    int k = ((t->lpos[r] - h) % g + g) % g, m = tree_index(n, N, tt);
    *nk = 0;
    *depth = coll_heap_depth(m) + k;
    if (k > 0) {
        *parent = nccl_topo_member(t, n, h + k - 1);
        if (k < g - 1) kids[(*nk)++] = nccl_topo_member(t, n, h + k + 1);
        return;
    }
    *parent = m == 0 ? -1 : nccl_topo_member(t, tree_index((m - 1) / 2, N, tt), h);
    if (g > 1) kids[(*nk)++] = nccl_topo_member(t, n, h + 1);
    for (int cm = 2 * m + 1; cm <= 2 * m + 2 && cm < N; cm++)
        kids[(*nk)++] = nccl_topo_member(t, tree_index(cm, N, tt), h);
}

/* Channel c's CollNet chain around rank r: inside each node a chain from its head, the GPU at
 * ring position c (so channels spread over the rails); the heads' parent is the SHARP switch,
 * "rank" P, at depth 0. */
void nccl_topo_collnet_of(const struct coll_world *w, int r, int c, int *parent, int *kids, int *nk,
                          int *depth)
{
    const struct nccl_topo *t = w->topo;
    int n = t->node[r], g = nccl_topo_node_size(t, n), k = ((t->lpos[r] - c) % g + g) % g;
    *nk = 0;
    *depth = 1 + k;
    *parent = k > 0 ? nccl_topo_member(t, n, c + k - 1) : w->nranks;
    if (k < g - 1) kids[(*nk)++] = nccl_topo_member(t, n, c + k + 1);
}
