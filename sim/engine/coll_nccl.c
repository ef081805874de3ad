/* coll_nccl.c - the nccl family: collectives as NCCL runs them, simulated with messages.
 *
 * For every call the ranks make NCCL's plan (nccl_tune.h: algorithm x protocol x channels from
 * NCCL 2.28.3's own tuning model) and then run it as messages:
 *   - channels: nc rings (or trees) at once, each carrying S / nc, on their own mailboxes. A
 *     channel's ring visits the nodes in order and, inside each node, the GPUs in the node's ring
 *     order rotated by the channel: channel c enters a node at its GPU c (mod G) and leaves it
 *     from GPU c - 1, so with G channels every GPU, and therefore every NIC of a rail-aligned
 *     node (GPU j on NIC j), sends one channel's traffic across and receives another's: all NICs
 *     carry traffic, as NCCL's topology search arranges it. The node's ring order is rank order
 *     behind an NVSwitch, and a Hamiltonian cycle over direct NVLink pairs otherwise (DGX-1).
 *   - ring: all-reduce in 2(P - 1) steps of S / (nc P) per channel, reduce-scatter and all-gather
 *     in P - 1, broadcast as a pipelined chain from rank 0 along each channel's ring.
 *   - tree (all-reduce): NCCL's double binary tree: even channels use a binary tree over the
 *     nodes, odd channels the same tree over the nodes in reverse order (so a node interior in
 *     one is a leaf in the other); inside each node a chain from the channel's head GPU. Chunks
 *     climb and descend at once (the schedule of coll_tree.c), 512 KiB each (a Simple FIFO
 *     slot: 4 MiB buffer / NCCL_STEPS 8), at most 64 per channel.
 *   - protocols: LL sends 2 bytes per byte of data (8-byte flag per 8 bytes), LL128 128 per 120
 *     (NCCL's 0.92), Simple 1; every hop costs NCCL's per-hop latency of that protocol
 *     (hwLatencies), of which the link's own latency is part: a rank sleeps what the protocol
 *     adds beyond the route's latency after each step; each call first pays NCCL's base latency
 *     (the per-call floor that makes many small collectives cost what they cost); and a channel
 *     cannot move data faster than the SM-side limit of NCCL's model (LL's llMaxBw, LL128's and
 *     the tree's per-channel maxima): a call ends no earlier than S over that limit, scaled to
 *     the channels it uses.
 * Timing comes from SimGrid's transfers plus these sleeps. At flow level each ring phase is one
 * flow per channel with the step latencies slept. A calibration (netcal.h) dilates a call of its
 * scope: bytes on the wire and the protocol's latencies scale by the fitted factor of that size.
 * Data: the ring carries it (each channel a slice of the buffer); a call with data uses the ring.
 */
#include "catalog.h"
#include "collective.h"
#include "coll_replay.h"
#include "netcal.h"
#include "platform.h"
#include "route.h"

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/dynar.h>
#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CH       32     /* NCCL's MAXCHANNELS */
#define TREE_CHUNK_B 524288 /* Simple FIFO slot: 4 MiB NCCL_BUFFSIZE / NCCL_STEPS 8 */
#define MAX_CHUNKS   64     /* bound on pipeline chunks per channel */
#define CYCLE_SEARCH 100000 /* bound on the Hamiltonian-cycle search's expansions */
#define MAX_CYC      3      /* edge-disjoint cycles looked for in an NVLink mesh */

struct nccl_topo {
    struct nccl_system sys; /* what NCCL's model knows of the communicator */
    int nnodes;             /* nodes */
    int *node_start;        /* node -> index of its first entry in `order` (nnodes + 1) */
    int *order;             /* ranks node by node, each node's in its ring order */
    int *node;              /* rank -> node */
    int *lpos;              /* rank -> position in its node's ring order (cycle 0) */
    int *ncyc;              /* node -> its rings: 1 (behind a switch), or the edge-disjoint
                               Hamiltonian cycles of its NVLink mesh (each run both ways) */
    int *cyc[MAX_CYC];      /* cycle k: ranks node by node in that cycle's order */
    int *cpos[MAX_CYC];     /* cycle k: rank -> its position in it */
    bool mesh;              /* nodes are NVLink meshes (rings also run in reverse) */
    int depth_max[2];       /* deepest rank of tree 0 / tree 1 (head at chain position 0) */
    sg_host_t *nvs;         /* node -> its NVSwitch host ("nodeN.nvs"), or NULL */
    sg_host_t sharp;        /* the network's SHARP aggregation host ("sharp.switch"), or NULL */
    int gmax;               /* GPUs of the largest node */
    double ring_lat[MAX_CH][2]; /* channel c's representative ring hops' route latencies, in a
                                   node and across nodes (ring_mean); NAN until computed */
    double ring_bw[2];          /* channel 0's representative hops' route bandwidths, B/s */
    struct coll_gate gate;      /* flow-level NVLS and CollNet: ranks wait for the last here */
};

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
    for (long budget = CYCLE_SEARCH; *mesh && n < MAX_CYC; n++) { /* edge-disjoint, greedily */
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
        sg_link_t seen[MAX_CH];
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
            if (!dup && ns < MAX_CH) {
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
    for (int k = 0; k < MAX_CYC; k++) {
        t->cyc[k] = xbt_new(int, P);
        t->cpos[k] = xbt_new(int, P);
    }
    for (int n = 0; n < t->nnodes; n++) {
        int g = t->node_start[n + 1] - t->node_start[n], out[MAX_CYC][16], s0 = t->node_start[n];
        bool nv, mesh;
        t->ncyc[n] = g <= 16 ? node_cycles(w, t->order + s0, g, out, &nv, &mesh, &bw) : 1;
        if (g > 16) rank_ring_facts(w, t->order + s0, g, &nv, &bw), mesh = false;
        if (g >= 2 && !decided) nvlink = nv, t->mesh = mesh, decided = true;
        if (g >= 2) intra_bw = fmin(intra_bw, bw);
        for (int k = 0; k < MAX_CYC; k++)
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
    for (int c = 0; c < MAX_CH; c++)
        t->ring_lat[c][0] = t->ring_lat[c][1] = NAN;
    return t;
}

void coll_nccl_topo_free(struct nccl_topo *t)
{
    if (t == NULL) return;
    free(t->node_start);
    free(t->order);
    free(t->node);
    free(t->lpos);
    free(t->nvs);
    free(t->ncyc);
    coll_gate_free(&t->gate);
    for (int k = 0; k < MAX_CYC; k++) {
        free(t->cyc[k]);
        free(t->cpos[k]);
    }
    free(t);
}

static const struct nccl_topo *topo_of(const struct coll_world *w)
{
    if (w->topo == NULL) ((struct coll_world *)w)->topo = topo_build(w); /* the world's cache */
    return w->topo;
}

/* ---- rings -------------------------------------------------------------------------------- */

static int node_size(const struct nccl_topo *t, int n)
{
    return t->node_start[n + 1] - t->node_start[n];
}

static int member(const struct nccl_topo *t, int n, int k)
{
    int g = node_size(t, n);
    return t->order[t->node_start[n] + ((k % g) + g) % g];
}

/* GPU i of node n in channel c's ring order: cycle (c / 2) mod the node's cycles, and in a mesh
 * the odd channels go round it the other way (the other halves of the same links). */
static int ring_member(const struct nccl_topo *t, int n, int c, int i)
{
    int g = node_size(t, n), k = (c / 2) % t->ncyc[n];
    i = ((i % g) + g) % g;
    if (t->mesh && c % 2) i = (g - i) % g;
    return t->cyc[k][t->node_start[n] + i];
}

static int ring_index(const struct nccl_topo *t, int r, int c)
{
    int n = t->node[r], g = node_size(t, n), k = (c / 2) % t->ncyc[n], i = t->cpos[k][r];
    return t->mesh && c % 2 ? (g - i) % g : i;
}

/* Channel c's ring around rank r: its right and left neighbours and r's position. Channel c
 * enters node n at its GPU c of the ring order and leaves it from GPU c - 1. */
static void ring_of(const struct nccl_topo *t, int r, int c, int *right, int *left, int *pos)
{
    int n = t->node[r], g = node_size(t, n), i = ring_index(t, r, c), q = ((i - c) % g + g) % g;
    int N = t->nnodes, nn = (n + 1) % N, pn = (n + N - 1) % N;
    *right = q < g - 1 ? ring_member(t, n, c, i + 1) : ring_member(t, nn, c, c);
    *left = q > 0 ? ring_member(t, n, c, i - 1) : ring_member(t, pn, c, c - 1);
    *pos = t->node_start[n] + q;
}

/* What a hop from a to b costs beyond its route's latency under plan p. */
/* The host of rank r, or of the SHARP switch when r is P (CollNet's root). */
static sg_host_t host_of(const struct coll_world *w, int r)
{
    return r == w->nranks ? w->topo->sharp : w->hosts[r];
}

static double hop_extra(const struct coll_world *w, const struct nccl_topo *t,
                        const struct nccl_plan *p, int a, int b)
{
    bool inside = a < w->nranks && b < w->nranks && t->node[a] == t->node[b];
    double hop = inside ? p->intra_hop_s : p->inter_hop_s;
    return fmax(0, hop - sg_host_get_route_latency(host_of(w, a), host_of(w, b)));
}

/* One channel of one call on one rank: what its program needs. Channels run in actors of their
 * own (the rank's actor runs channel 0), so a channel waits only on its own neighbours, as
 * NCCL's channels (one CUDA block each) do. */
struct chan {
    const struct coll_world *w;
    const struct nccl_plan *p;
    enum coll_op op;
    int rank, c;        /* rank and channel */
    double size_B;      /* the call's size */
    float *data;        /* the rank's buffer, or NULL */
    double dil;         /* calibration dilation */
    enum net_status st; /* result */
    sg_sem_t done;      /* released when a helper channel ends */
};

/* Posts the receive of a step (before the protocol's latency is slept), then the send, and
 * waits for the receive only: sends are buffered, as NCCL's FIFO slots are, and are waited for
 * at the end of the program (sends[] collects them). */
/* The protocol latency a ring step pays, beyond the routes' own: the mean over the channel's
 * ring of its hops' (N across nodes, P - N inside). Every rank sleeps the same before each send,
 * so a step's chain of dependencies adds up the ring's hops as NCCL's latency model does (the
 * sum along the path) instead of making every step wait for the slowest hop. The routes are
 * those of node 0's ring into node 1 (representative of a regular cluster). */
static double ring_mean(const struct coll_world *w, struct nccl_topo *t,
                        const struct nccl_plan *p, int c, bool route)
{
    int P = w->nranks, N = t->nnodes, n = 0;
    if (isnan(t->ring_lat[c][0])) { /* the routes' latencies, once per channel */
        while (n < N && node_size(t, n) < 2)
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
        inter = N > 1 ? fmax(0, p->inter_hop_s - inter) : 0;
    }
    return ((P - N) * intra + N * inter) / P;
}

static double ring_extra(const struct coll_world *w, struct nccl_topo *t,
                         const struct nccl_plan *p, int c)
{
    return ring_mean(w, t, p, c, false);
}

/* The representative routes' bandwidths inside a node and across nodes (ring_mean fills them;
 * INFINITY where there is no such route). */
static void route_bws(const struct nccl_topo *t, double *bi, double *bx)
{
    *bi = t->ring_bw[0] > 0 ? t->ring_bw[0] : INFINITY;
    *bx = t->ring_bw[1] > 0 ? t->ring_bw[1] : INFINITY;
}

struct step_io {
    sg_comm_t *sends; /* posted sends */
    void **payloads;  /* their data payloads (NULL: timing only), freed if a send fails */
    int nsends, cap;  /* count and capacity */
};

static void keep_send(struct step_io *io, sg_comm_t c, void *payload)
{
    if (io->nsends == io->cap) {
        io->cap = io->cap ? 2 * io->cap : 16;
        io->sends = xbt_realloc(io->sends, (size_t)io->cap * sizeof *io->sends);
        io->payloads = xbt_realloc(io->payloads, (size_t)io->cap * sizeof *io->payloads);
    }
    io->payloads[io->nsends] = payload;
    io->sends[io->nsends++] = c;
}

static enum net_status finish_sends(const struct coll_world *w, struct step_io *io,
                                    enum net_status st)
{
    /* after a failure the peers have given up their receives: release at once, so the failure
     * is reported when it is seen, not one more timeout later */
    double end = simgrid_get_clock() + (st == NET_OK ? w->timeout_s : 0);
    for (int i = 0; i < io->nsends; i++) { /* every handle is waited on, so every one is freed */
        enum net_status x = net_wait(io->sends[i], end);
        if (x != NET_OK) free(io->payloads[i]); /* undelivered: still the sender's */
        if (x > st) st = x;
    }
    free(io->sends);
    free(io->payloads);
    return st;
}

static sg_comm_t chan_send(const struct chan *ch, int to, double size_B, void *payload)
{
    const struct coll_world *w = ch->w;
    return coll_post_send(w, ch->rank, host_of(w, ch->rank), host_of(w, to),
                          coll_mailbox(w, ch->rank, to, ch->c), payload, size_B);
}

static int chunks_for(double bytes)
{
    int k = (int)ceil(bytes / TREE_CHUNK_B);
    return k < 1 ? 1 : k > MAX_CHUNKS ? MAX_CHUNKS : k;
}

/* The data of a ring step: the block this rank sends (copied into a payload) and where the one
 * it receives goes; blocks of channel c's slice, by ring position. */
static void *step_payload(const struct chan *ch, int pos, int s, bool reduce, size_t *rf,
                          size_t *rl)
{
    int P = ch->w->nranks, shift = reduce ? 0 : 1;
    size_t f0, n0, sf, sl;
    coll_ring_block(coll_data_count(ch->w, ch->size_B), ch->p->nchannels, ch->c, &f0, &n0);
    coll_ring_block(n0, P, ((pos + shift - s) % P + P) % P, &sf, &sl);
    coll_ring_block(n0, P, ((pos + shift - s - 1) % P + P) % P, rf, rl);
    *rf += f0;
    return coll_block_new(ch->data + f0 + sf, sl);
}

/* One ring phase of channel ch: P - 1 steps (or one flow). */
/* The receives of a ring program: all posted when it starts, so a transfer starts when its
 * sender posts it (NCCL's FIFO slots are free) - also across the reduce-scatter / all-gather
 * boundary; messages from one sender match in order. */
struct ring_recvs {
    sg_comm_t *rc; /* handles */
    void **got;    /* payloads */
    int n, next;   /* posted, next to wait for */
};

static void ring_recvs_post(struct chan *ch, int left, int n, struct ring_recvs *r)
{
    r->rc = xbt_new(sg_comm_t, n);
    r->got = xbt_new0(void *, n);
    r->n = n;
    r->next = 0;
    for (int s = 0; s < n; s++)
        r->rc[s] = net_irecv(coll_mailbox(ch->w, left, ch->rank, ch->c), &r->got[s]);
}

static void ring_recvs_release(struct ring_recvs *r)
{
    for (; r->next < r->n; r->next++) /* after a failure: release the receives still posted */
        if (net_wait(r->rc[r->next], simgrid_get_clock()) == NET_OK)
            coll_payload_free(r->got[r->next]);
    free(r->rc);
    free(r->got);
}

/* The steps of one phase in a ring program (P - 1 of them, or one flow). */
static int phase_steps(const struct chan *ch)
{
    return ch->w->level == COLL_FLOW && ch->data == NULL ? 1 : ch->w->nranks - 1;
}

static enum net_status ring_phase(struct chan *ch, int right, int left, int pos, bool reduce,
                                  struct ring_recvs *rv, struct step_io *io)
{
    const struct coll_world *w = ch->w;
    int P = w->nranks, steps = phase_steps(ch);
    double step_B = ch->size_B / ((double)ch->p->nchannels * P) * ch->p->wire_factor * ch->dil;
    double extra = ring_extra(w, w->topo, ch->p, ch->c) * ch->dil;
    bool flow = steps == 1 && P > 2;
    enum net_status st = NET_OK;
    for (int s = 0; s < steps && st == NET_OK; s++) {
        size_t rf = 0, rl = 0;
        void *payload = ch->data ? step_payload(ch, pos, s, reduce, &rf, &rl) : NULL;
        if (extra > 0) sg_actor_sleep_for(flow ? (P - 1) * extra : extra);
        keep_send(io, chan_send(ch, right, flow ? (P - 1) * step_B : step_B, payload), payload);
        int k = rv->next++;
        st = net_wait(rv->rc[k], simgrid_get_clock() + w->timeout_s);
        if (st == NET_OK && ch->data == NULL)
            coll_payload_free(rv->got[k]);
        else if (st == NET_OK && !coll_block_take(rv->got[k], ch->data + rf, rl, reduce))
            st = NET_FAILURE; /* not this step's block (collective.h): the step failed */
        if (st == NET_OK && flow)
            sg_actor_sleep_for((P - 2) *
                               sg_host_get_route_latency(w->hosts[left], w->hosts[ch->rank]));
    }
    return st;
}

/* Broadcast from rank 0 along channel ch's ring, in chunks: at step s a rank receives chunk s
 * from its predecessor and forwards chunk s - 1. */
static enum net_status ring_broadcast(struct chan *ch, int right, int left, int pos,
                                      struct step_io *io)
{
    const struct coll_world *w = ch->w;
    int P = w->nranks, k = chunks_for(ch->size_B / ch->p->nchannels), a, b, root;
    ring_of(w->topo, 0, ch->c, &a, &b, &root);
    int q = ((pos - root) % P + P) % P;
    double chunk_B = ch->size_B / ch->p->nchannels / k * ch->p->wire_factor * ch->dil;
    double extra = hop_extra(w, w->topo, ch->p, ch->rank, right) * ch->dil;
    enum net_status st = NET_OK;
    for (int s = 0; s <= k && st == NET_OK; s++) {
        void *got;
        sg_comm_t rc =
                q > 0 && s < k ? net_irecv(coll_mailbox(w, left, ch->rank, ch->c), &got) : NULL;
        if (q < P - 1 && s >= 1) { /* forward chunk s - 1 (the root has it from the start) */
            if (extra > 0) sg_actor_sleep_for(extra);
            keep_send(io, chan_send(ch, right, chunk_B, NULL), NULL);
        }
        if (rc && (st = net_wait(rc, simgrid_get_clock() + w->timeout_s)) == NET_OK)
            coll_payload_free(got); /* a chunk carries no data */
    }
    return st;
}

static enum net_status ring_program(struct chan *ch)
{
    int right, left, pos;
    ring_of(ch->w->topo, ch->rank, ch->c, &right, &left, &pos);
    struct step_io io = {0};
    if (ch->op == COLL_BROADCAST)
        return finish_sends(ch->w, &io, ring_broadcast(ch, right, left, pos, &io));
    bool rs = ch->op == COLL_ALLREDUCE || ch->op == COLL_REDUCESCATTER;
    bool ag = ch->op == COLL_ALLREDUCE || ch->op == COLL_ALLGATHER;
    struct ring_recvs rv;
    ring_recvs_post(ch, left, phase_steps(ch) * (rs + ag), &rv);
    enum net_status st = NET_OK;
    if (rs) st = ring_phase(ch, right, left, pos, true, &rv, &io);
    if (st == NET_OK && ag) st = ring_phase(ch, right, left, pos, false, &rv, &io);
    ring_recvs_release(&rv);
    return finish_sends(ch->w, &io, st);
}

/* ---- trees -------------------------------------------------------------------------------- */

/* Channel c's tree around rank r: parent (-1 at the root), children, depth. Tree c % 2 over the
 * nodes; inside a node a chain from the head, the GPU at ring position c / 2. */
static void tree_of(const struct nccl_topo *t, int r, int c, int *parent, int *kids, int *nk,
                    int *depth)
{
    int n = t->node[r], g = node_size(t, n), N = t->nnodes, tt = c % 2, h = c / 2;
    int k = ((t->lpos[r] - h) % g + g) % g, m = tree_index(n, N, tt);
    *nk = 0;
    *depth = coll_heap_depth(m) + k;
    if (k > 0) {
        *parent = member(t, n, h + k - 1);
        if (k < g - 1) kids[(*nk)++] = member(t, n, h + k + 1);
        return;
    }
    *parent = m == 0 ? -1 : member(t, tree_index((m - 1) / 2, N, tt), h);
    if (g > 1) kids[(*nk)++] = member(t, n, h + 1);
    for (int cm = 2 * m + 1; cm <= 2 * m + 2 && cm < N; cm++)
        kids[(*nk)++] = member(t, tree_index(cm, N, tt), h);
}

/* Channel c's CollNet chain around rank r: inside each node a chain from its head, the GPU at
 * ring position c (so channels spread over the rails); the heads' parent is the SHARP switch,
 * "rank" P, at depth 0. */
static void collnet_of(const struct coll_world *w, int r, int c, int *parent, int *kids, int *nk,
                       int *depth)
{
    const struct nccl_topo *t = w->topo;
    int n = t->node[r], g = node_size(t, n), k = ((t->lpos[r] - c) % g + g) % g;
    *nk = 0;
    *depth = 1 + k;
    *parent = k > 0 ? member(t, n, c + k - 1) : w->nranks;
    if (k < g - 1) kids[(*nk)++] = member(t, n, c + k + 1);
}

/* The shape of channel c's tree for rank r under plan p: NCCL's double binary tree, or CollNet's
 * chains under the switch; D, the deepest rank's depth. */
static void tree_shape(const struct coll_world *w, const struct nccl_plan *p, int r, int c,
                       int *par, int *kids, int *nk, int *d, int *D)
{
    if (p->algo == NCCL_ALGO_COLLNET_CHAIN) {
        collnet_of(w, r, c, par, kids, nk, d);
        *D = w->topo->gmax;
        return;
    }
    tree_of(w->topo, r, c, par, kids, nk, d);
    *D = w->topo->depth_max[c % 2];
}

/* Channel ch's tree, in the schedule of the textbook tree (coll_tree.c): step s receives chunk
 * s - D + d from the children and s - D - d from the parent, sends chunk s - D + d - 1 up and
 * s - D - d - 1 down; receives are waited for, sends buffered. */
static enum net_status tree_program(struct chan *ch)
{
    const struct coll_world *w = ch->w;
    const struct nccl_topo *t = w->topo;
    int par, kids[3], nk, d, D;
    tree_shape(w, ch->p, ch->rank, ch->c, &par, kids, &nk, &d, &D);
    int chunks = chunks_for(ch->size_B / ch->p->nchannels);
    double chunk_B = ch->size_B / ch->p->nchannels / chunks * ch->p->wire_factor * ch->dil;
    double up = par >= 0 ? hop_extra(w, t, ch->p, ch->rank, par) * ch->dil : 0, down = 0;
    for (int i = 0; i < nk; i++)
        down = fmax(down, hop_extra(w, t, ch->p, ch->rank, kids[i]) * ch->dil);
    struct step_io io = {0};
    enum net_status st = NET_OK;
    for (int s = 0; s <= chunks + 2 * D - 1 && st == NET_OK; s++) {
        sg_comm_t rc[4];
        int nr = 0;
        void *got;
        if (coll_in_range(s - D + d, chunks))
            for (int i = 0; i < nk; i++)
                rc[nr++] = net_irecv(coll_mailbox(w, kids[i], ch->rank, ch->c), &got);
        if (par >= 0 && coll_in_range(s - D - d, chunks))
            rc[nr++] = net_irecv(coll_mailbox(w, par, ch->rank, ch->c), &got);
        bool send_up = par >= 0 && coll_in_range(s - D + d - 1, chunks);
        bool send_down = coll_in_range(s - D - d - 1, chunks) && nk > 0;
        double extra = fmax(send_up ? up : 0, send_down ? down : 0);
        if (extra > 0) sg_actor_sleep_for(extra);
        if (send_up) keep_send(&io, chan_send(ch, par, chunk_B, NULL), NULL);
        for (int i = 0; send_down && i < nk; i++)
            keep_send(&io, chan_send(ch, kids[i], chunk_B, NULL), NULL);
        double end = simgrid_get_clock() + w->timeout_s;
        for (int i = 0; i < nr; i++) {
            enum net_status x = net_wait(rc[i], end);
            if (x > st) st = x;
        }
    }
    return finish_sends(w, &io, st);
}

static void chan_actor(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct chan *ch = sg_actor_self_get_data();
    ch->st = ch->p->algo == NCCL_ALGO_RING ? ring_program(ch) : tree_program(ch);
    sg_sem_release(ch->done);
}

/* The SHARP switch's side of a CollNet call, "rank" P, the root of every channel's chains: at
 * step s it receives chunk s - D from every node's head and sends chunk s - D - 1 back down
 * (reduced in the switch at line rate), all channels at once. Started by rank 0 for the call. */
struct sharp_call {
    const struct coll_world *w;
    struct nccl_plan p;
    double size_B, dil;
};

static void sharp_switch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct sharp_call *sc = sg_actor_self_get_data();
    const struct coll_world *w = sc->w;
    const struct nccl_topo *t = w->topo;
    int P = w->nranks, N = t->nnodes, nc = sc->p.nchannels, D = t->gmax;
    int chunks = chunks_for(sc->size_B / nc);
    double chunk_B = sc->size_B / nc / chunks * sc->p.wire_factor * sc->dil;
    struct chan ch = {.w = w, .p = &sc->p, .rank = P};
    sg_comm_t *rc = xbt_new(sg_comm_t, (size_t)N * nc);
    struct step_io io = {0};
    enum net_status st = NET_OK;
    for (int s = 0; s <= chunks + 2 * D - 1 && st == NET_OK; s++) {
        int nr = 0;
        void *got;
        for (int c = 0; c < nc; c++)
            for (int n = 0; n < N; n++) {
                int head = member(t, n, c);
                ch.c = c;
                if (coll_in_range(s - D, chunks))
                    rc[nr++] = net_irecv(coll_mailbox(w, head, P, c), &got);
                /* the heads pay the hop's protocol latency (NCCL counts it once) on the way up */
                if (coll_in_range(s - D - 1, chunks))
                    keep_send(&io, chan_send(&ch, head, chunk_B, NULL), NULL);
            }
        double end = simgrid_get_clock() + w->timeout_s;
        for (int i = 0; i < nr; i++) {
            enum net_status x = net_wait(rc[i], end);
            if (x > st) st = x;
        }
    }
    finish_sends(w, &io, st);
    free(rc);
    free(sc);
}

static void start_sharp(const struct coll_world *w, const struct nccl_plan *p, double size_B,
                        double dil)
{
    struct sharp_call *sc = xbt_new(struct sharp_call, 1);
    *sc = (struct sharp_call){w, *p, size_B, dil};
    sg_actor_t a = sg_actor_init("sharp", w->topo->sharp);
    sg_actor_set_data(a, sc);
    sg_actor_start(a, sharp_switch, 0, NULL);
}

/* Runs the plan's channels: helpers for channels 1.., this actor for channel 0. */
static enum net_status run_channels(const struct coll_world *w, const struct nccl_plan *p,
                                    enum coll_op op, int rank, double size_B, float *data,
                                    double dil)
{
    int nc = p->nchannels;
    if (p->algo == NCCL_ALGO_COLLNET_CHAIN && rank == 0) start_sharp(w, p, size_B, dil);
    struct chan *chs = xbt_new0(struct chan, nc);
    sg_sem_t done = sg_sem_init(0);
    for (int c = nc - 1; c >= 0; c--) {
        chs[c] = (struct chan){w, p, op, rank, c, size_B, data, dil, NET_OK, done};
        if (c == 0) break;
        char name[40];
        snprintf(name, sizeof name, "rank%d-ch%d", rank, c);
        sg_actor_t a = sg_actor_init(name, w->hosts[rank]);
        sg_actor_set_data(a, &chs[c]);
        sg_actor_start(a, chan_actor, 0, NULL);
    }
    enum net_status st = p->algo == NCCL_ALGO_RING ? ring_program(&chs[0]) : tree_program(&chs[0]);
    for (int c = 1; c < nc; c++)
        sg_sem_acquire(done);
    for (int c = 1; c < nc; c++)
        if (chs[c].st > st) st = chs[c].st;
    sg_sem_destroy(done);
    free(chs);
    return st;
}

/* ---- NVLS: the NVSwitch reduces ---------------------------------------------------------- */

/* NVLS all-reduce of S on a node of G GPUs, in K chunks pipelined over 4 stages (one step
 * each): A: every GPU sends chunk k (S / K) into the switch; B: the switch returns to GPU i the
 * reduced i-th part of it (S / (K G), multimem.ld_reduce); C: GPU i stores that part back
 * (S / (K G), multimem.st); D: the switch multicasts it, so every GPU receives S / K. Each
 * GPU's link carries S (1 + 1 / G) each way, against 2 (G - 1) S / G for the ring. With two
 * nodes (NVLS tree) a stage X between B and C exchanges the reduced part with the same GPU of
 * the other node over the network. The switch's side runs in an actor on the node's switch host,
 * started for the call by the node's first GPU. Mailboxes are per pair and epoch: both sides post
 * in the same order, call after call, so messages match in order. */
struct nvls_call {
    const struct coll_world *w;
    int node;      /* the node */
    int K;         /* chunks */
    int X;         /* 1 with the network stage, else 0 */
    double up_B;   /* stage A and D bytes (S / K, on the wire) */
    double part_B; /* stage B and C bytes */
};

static sg_mailbox_t nvls_box(const struct nvls_call *v, int from, int to)
{
    char name[64];
    snprintf(name, sizeof name, "v%d:%d:%d>%d", v->w->epoch, v->node, from, to);
    return sg_mailbox_by_name(name);
}

static void nvls_switch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct nvls_call *v = sg_actor_self_get_data();
    const struct nccl_topo *t = v->w->topo;
    int g = node_size(t, v->node), first = t->node_start[v->node];
    sg_comm_t *c = xbt_new(sg_comm_t, 4 * g);
    enum net_status st = NET_OK;
    for (int s = 0; s < v->K + 3 + v->X && st == NET_OK; s++) {
        int nc = 0;
        void *p;
        double end = simgrid_get_clock() + v->w->timeout_s;
        for (int i = 0; i < g; i++) {
            int r = t->order[first + i];
            if (coll_in_range(s, v->K)) c[nc++] = net_irecv(nvls_box(v, r, -1), &p);
            if (coll_in_range(s - 1, v->K))
                c[nc++] = coll_post_send(v->w, -1, NULL, NULL, nvls_box(v, -1, r), NULL, v->part_B);
            if (coll_in_range(s - 2 - v->X, v->K)) c[nc++] = net_irecv(nvls_box(v, r, -1), &p);
            if (coll_in_range(s - 3 - v->X, v->K))
                c[nc++] = coll_post_send(v->w, -1, NULL, NULL, nvls_box(v, -1, r), NULL, v->up_B);
        }
        for (int i = 0; i < nc; i++) {
            enum net_status x = net_wait(c[i], end); /* every handle is waited on and freed */
            if (x > st) st = x;
        }
    }
    free(c);
    free(v);
}

/* A GPU's message of the NVLS protocol: posted, recorded. */
static sg_comm_t nvls_send(const struct nvls_call *v, int rank, sg_mailbox_t mb, sg_host_t to,
                           double size_B)
{
    return coll_post_send(v->w, rank, v->w->hosts[rank], to, mb, NULL, size_B);
}

static sg_mailbox_t cross_box(const struct nvls_call *v, int from, int to)
{
    char name[64];
    snprintf(name, sizeof name, "v%d:x:%d>%d", v->w->epoch, from, to);
    return sg_mailbox_by_name(name);
}

static enum net_status nccl_nvls(const struct coll_world *w, const struct nccl_plan *p, int rank,
                                 double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int n = t->node[rank], g = node_size(t, n), K = chunks_for(size_B / 16);
    struct nvls_call v = {.w = w,
                          .node = n,
                          .K = K,
                          .X = p->algo == NCCL_ALGO_NVLS_TREE,
                          .up_B = size_B / K * p->wire_factor * dil,
                          .part_B = size_B / K / g * p->wire_factor * dil};
    int peer = v.X ? member(t, 1 - n, t->lpos[rank]) : -1;
    if (t->lpos[rank] == 0) { /* the node's first GPU starts the switch's side of the call */
        struct nvls_call *copy = xbt_new(struct nvls_call, 1);
        *copy = v;
        sg_actor_t a = sg_actor_init("nvswitch", t->nvs[n]);
        sg_actor_set_data(a, copy);
        sg_actor_start(a, nvls_switch, 0, NULL);
    }
    sg_host_t sw = t->nvs[n];
    enum net_status st = NET_OK;
    for (int s = 0; s < K + 3 + v.X && st == NET_OK; s++) {
        sg_comm_t c[6]; /* up, down, the cross pair, part up, part down can overlap */
        int nc = 0;
        void *pl;
        double end = simgrid_get_clock() + w->timeout_s;
        if (coll_in_range(s, K)) c[nc++] = nvls_send(&v, rank, nvls_box(&v, rank, -1), sw, v.up_B);
        if (coll_in_range(s - 1, K)) c[nc++] = net_irecv(nvls_box(&v, -1, rank), &pl);
        if (v.X && coll_in_range(s - 2, K)) { /* the reduced part crosses to the other node */
            c[nc++] = net_irecv(cross_box(&v, peer, rank), &pl);
            c[nc++] = nvls_send(&v, rank, cross_box(&v, rank, peer), w->hosts[peer],
                                size_B / K / g * dil);
        }
        if (coll_in_range(s - 2 - v.X, K))
            c[nc++] = nvls_send(&v, rank, nvls_box(&v, rank, -1), sw, v.part_B);
        if (coll_in_range(s - 3 - v.X, K)) c[nc++] = net_irecv(nvls_box(&v, -1, rank), &pl);
        for (int i = 0; i < nc; i++) {
            enum net_status x = net_wait(c[i], end);
            if (x > st) st = x;
        }
    }
    return st;
}
/* ---- the call ----------------------------------------------------------------------------- */

/* The calibration's dilation for this call (1 without one). */
static double dilation(const struct coll_world *w, const struct nccl_topo *t, enum coll_op op,
                       double size_B)
{
    return w->netcal ? netcal_factor(w->netcal, (int)op, t->nnodes, size_B) : 1.0;
}

/* Channels whose edges join the same two ranks are one flow carrying their sum: peer[0..n) (a
 * channel's neighbour) becomes the distinct neighbours in order of first appearance, tag[i] the
 * first channel on that edge (both ends compute the same, as they see the same channels on it)
 * and mult[i] (if not NULL) how many channels it carries. Returns the distinct count. Exact when
 * the edge's links carry nothing else: k flows of B on one route, started together, share it
 * equally and end together, as one flow of k B does; against other traffic the merged flow gets
 * one max-min share where k flows got k (README, Collectives). */
static int merge_edges(int *peer, int *tag, int *mult, int n)
{
    int m = 0;
    for (int c = 0; c < n; c++) {
        int i = 0;
        while (i < m && peer[i] != peer[c])
            i++;
        if (i == m) {
            peer[m] = peer[c], tag[m] = tag[c];
            if (mult) mult[m] = 0;
            m++;
        }
        if (mult) mult[i]++;
    }
    return m;
}

/* Flow level: each ring phase is one flow per edge of the channels' rings (channels sharing an
 * edge merged, merge_edges), all posted at once by the rank's own actor, then the step
 * latencies they stand for. */
static enum net_status ring_flow(const struct coll_world *w, const struct nccl_plan *p,
                                 enum coll_op op, int rank, double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int P = w->nranks, N = t->nnodes, nc = p->nchannels, right[MAX_CH], left[MAX_CH], tag[MAX_CH];
    int pos;
    double chain = 0; /* P - 1 mean hops (route and protocol latency, a step's bytes on idle
                         routes): the dependency chain of a phase's steps */
    double step_B = size_B / ((double)nc * P) * p->wire_factor * dil;
    for (int c = 0; c < nc; c++) {
        ring_of(t, rank, c, &right[c], &left[c], &pos);
        tag[c] = c;
        chain = fmax(chain, (P - 1) * (ring_mean(w, t, p, c, true) + ring_extra(w, t, p, c) * dil));
    }
    double bi, bx;
    route_bws(t, &bi, &bx);
    chain += (P - 1) * ((P - N) * step_B / bi + N * step_B / bx) / P;
    double phase_B = (P - 1) * step_B, to_B[MAX_CH];
    int from_tag[MAX_CH], mult[MAX_CH];
    memcpy(from_tag, tag, sizeof from_tag);
    int nto = merge_edges(right, tag, mult, nc), nfrom = merge_edges(left, from_tag, NULL, nc);
    for (int i = 0; i < nto; i++)
        to_B[i] = mult[i] * phase_B;
    int phases = op == COLL_ALLREDUCE ? 2 : 1;
    enum net_status st = NET_OK;
    for (int ph = 0; ph < phases && st == NET_OK; ph++) {
        double t0 = simgrid_get_clock();
        st = coll_exchange_sized(w, rank, right, tag, to_B, nto, left, from_tag, nfrom);
        double wait = chain - (simgrid_get_clock() - t0);
        if (st == NET_OK && wait > 0) sg_actor_sleep_for(wait);
    }
    return st;
}

/* ---- flow level: trees, NVLS and CollNet without helper actors ---------------------------- */

/* Every rank of the world has come to this call: flow-level NVLS and CollNet, whose switch
 * reduces only what every rank sent, start their flows then (at message level the switch's
 * actor waits for every rank's chunk). NET_TIMEOUT if one does not come by the deadline. */
static enum net_status world_gate(const struct coll_world *w, struct nccl_topo *t)
{
    return coll_gate_pass(&t->gate, w->nranks, w->timeout_s) ? NET_OK : NET_TIMEOUT;
}

/* What a pipelined tree's message-level schedule costs beyond its flows (tree_flow): K chunks
 * through the deepest path of `in` hops inside nodes and `ac` across (each way) take K - 1
 * steps of the slowest hop plus the path up and down, every hop at its protocol's latency
 * (hi, hx: the larger of NCCL's hop latency and the route's); their bytes cross the path's hops
 * (at bi inside nodes, bx across) one chunk at a time, of which the flows already carried the slowest hop's; the flows paid the
 * route latency lat_f once. */
static double tree_tail(int K, int in, int ac, double hi, double hx, double bi, double bx,
                        double chunk_B, double lat_f)
{
    double hop = fmax(in > 0 ? hi : 0, ac > 0 ? hx : 0), path = in * hi + ac * hx;
    double fill = 2 * (in * chunk_B / bi + ac * chunk_B / bx) -
                  chunk_B / fmin(in > 0 ? bi : INFINITY, ac > 0 ? bx : INFINITY);
    return fmax(0, (K - 1) * hop + 2 * path + fill - lat_f);
}

/* The protocol's cost of one hop inside a node and one across (route latency included). */
static void hop_costs(const struct coll_world *w, struct nccl_topo *t, const struct nccl_plan *p,
                      double dil, double *hi, double *hx)
{
    ring_mean(w, t, p, 0, true); /* the representative routes' latencies, once */
    double li = t->ring_lat[0][0], lx = t->ring_lat[0][1];
    *hi = li + fmax(0, p->intra_hop_s - li) * dil;
    *hx = lx + fmax(0, p->inter_hop_s - lx) * dil;
}

/* Flow level, NCCL's double binary tree: every edge of every channel's tree is a flow each way
 * carrying the channel's whole share (channels on the same edge merged, merge_edges), posted at
 * once through the mailboxes, so a flow starts when both ends are there; then tree_tail. Exact
 * against the message level's closed form on idle links (check_nccl). */
static enum net_status tree_flow(const struct coll_world *w, const struct nccl_plan *p, int rank,
                                 double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int nc = p->nchannels, n = 0, D = 0, peer[4 * MAX_CH], tag[4 * MAX_CH], mult[4 * MAX_CH];
    for (int c = 0; c < nc; c++) {
        int par, kids[3], nk, d;
        tree_of(t, rank, c, &par, kids, &nk, &d);
        if (t->depth_max[c % 2] > D) D = t->depth_max[c % 2];
        if (par >= 0) peer[n] = par, tag[n++] = c;
        for (int i = 0; i < nk; i++)
            peer[n] = kids[i], tag[n++] = c;
    }
    n = merge_edges(peer, tag, mult, n);
    double edge_B = size_B / nc * p->wire_factor * dil, to_B[4 * MAX_CH], hi, hx;
    for (int i = 0; i < n; i++)
        to_B[i] = mult[i] * edge_B;
    enum net_status st = coll_exchange_sized(w, rank, peer, tag, to_B, n, peer, tag, n);
    if (st != NET_OK) return st;
    hop_costs(w, t, p, dil, &hi, &hx);
    int K = chunks_for(size_B / nc), in = t->gmax - 1;
    double lat_f = t->nnodes > 1 ? t->ring_lat[0][1] : t->ring_lat[0][0], bi, bx;
    route_bws(t, &bi, &bx);
    double tail = tree_tail(K, in, D - in, hi, hx, bi, bx, edge_B / K, lat_f);
    if (tail > 0) sg_actor_sleep_for(tail);
    return NET_OK;
}

/* Flow level, CollNet chain: inside each node the channel's chain is a flow each way between
 * neighbours (through the mailboxes), and a channel's head sends its share up to the SHARP
 * switch and receives the result down (host-to-host flows: no actor at the switch), once every
 * rank is there; then tree_tail over the deepest path, G - 1 hops inside and the switch's. */
static enum net_status collnet_flow(const struct coll_world *w, const struct nccl_plan *p,
                                    int rank, double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int nc = p->nchannels, n = 0, heads = 0, peer[2 * MAX_CH], tag[2 * MAX_CH], mult[2 * MAX_CH];
    for (int c = 0; c < nc; c++) {
        int par, kids[1], nk, d;
        collnet_of(w, rank, c, &par, kids, &nk, &d);
        if (par == w->nranks) heads++;
        else peer[n] = par, tag[n++] = c;
        if (nk > 0) peer[n] = kids[0], tag[n++] = c;
    }
    n = merge_edges(peer, tag, mult, n);
    double edge_B = size_B / nc * p->wire_factor * dil, to_B[2 * MAX_CH], hi, hx;
    for (int i = 0; i < n; i++)
        to_B[i] = mult[i] * edge_B;
    enum net_status st = world_gate(w, t);
    if (st != NET_OK) return st;
    sg_host_t me = w->hosts[rank];
    double end = simgrid_get_clock() + w->timeout_s;
    sg_comm_t up = heads ? coll_post_flow(w, rank, me, t->sharp, heads * edge_B) : NULL;
    sg_comm_t down = heads ? coll_post_flow(w, -1, t->sharp, me, heads * edge_B) : NULL;
    st = coll_exchange_sized(w, rank, peer, tag, to_B, n, peer, tag, n);
    if (up) st = net_worst(st, net_wait(up, end));
    if (down) st = net_worst(st, net_wait(down, end));
    if (st != NET_OK) return st;
    hop_costs(w, t, p, dil, &hi, &hx);
    double lsw = sg_host_get_route_latency(me, t->sharp);
    double up_s = lsw + fmax(0, p->inter_hop_s - lsw) * dil; /* the switch's sends pay none */
    int K = chunks_for(size_B / nc), in = t->gmax - 1;
    double bi, bx;
    route_bws(t, &bi, &bx);
    double tail = tree_tail(K, in, 1, hi, (up_s + lsw) / 2, bi,
                            sg_host_get_route_bandwidth(me, t->sharp), edge_B / K, lsw);
    if (tail > 0) sg_actor_sleep_for(tail);
    return NET_OK;
}

/* The message-level NVLS schedule's time on this GPU: its K + 3 + X steps, each one link
 * latency `lat` and the busier of the GPU's switch link (up: A [s < K] of u and C of u / G;
 * down: B of u / G and D of u, at b per u + u / G, the flows' own rate) and, with two nodes,
 * the network stage X (x: its latency and transfer beyond lat). */
static double nvls_schedule(int K, int g, int X, double lat, double b, double x)
{
    double v = 1.0 / g, sum = 0;
    for (int s = 0; s < K + 3 + X; s++) {
        double up = (s < K ? 1 : 0) + (s >= 2 + X && s < K + 2 + X ? v : 0);
        double down = (s >= 1 && s < K + 1 ? v : 0) + (s >= 3 + X && s < K + 3 + X ? 1 : 0);
        bool cross = X && s >= 2 && s < K + 2;
        sum += lat + fmax(fmax(up, down) * b / (1 + v), cross ? x : 0);
    }
    return sum;
}

/* Flow level, NVLS and NVLS tree: once every rank is there, each GPU's flows to and from its
 * node's NVSwitch carry the whole pipeline's bytes, K (u + v) each way (u = S / K on the wire,
 * v = u / G); with two nodes the reduced part (S / G) also crosses to the same GPU of the other
 * node, a flow each way. Then what the message-level schedule adds beyond them (nvls_schedule:
 * its steps' latencies, its partly loaded steps, the network stage) at the flows' own rate. */
static enum net_status nvls_flow(const struct coll_world *w, const struct nccl_plan *p, int rank,
                                 double size_B, double dil)
{
    struct nccl_topo *t = w->topo;
    int n = t->node[rank], g = node_size(t, n), K = chunks_for(size_B / 16);
    int X = p->algo == NCCL_ALGO_NVLS_TREE;
    double u = size_B / K * p->wire_factor * dil, v = u / g;
    enum net_status st = world_gate(w, t);
    if (st != NET_OK) return st;
    sg_host_t me = w->hosts[rank], sw = t->nvs[n];
    double t0 = simgrid_get_clock(), end = t0 + w->timeout_s, cross_B = size_B / g * dil;
    double lx = 0; /* with two nodes: a network step's latency and transfer of S / (K G) */
    sg_comm_t up = coll_post_flow(w, rank, me, sw, K * (u + v));
    sg_comm_t down = coll_post_flow(w, -1, sw, me, K * (u + v));
    sg_comm_t cross[2] = {NULL, NULL};
    if (X) { /* the same GPU of the other node: one flow each way */
        int peer = member(t, 1 - n, t->lpos[rank]);
        void *got;
        lx = sg_host_get_route_latency(me, w->hosts[peer]);
        cross[0] = net_irecv(coll_mailbox(w, peer, rank, MAX_CH), &got);
        cross[1] = coll_post_send(w, rank, me, w->hosts[peer], coll_mailbox(w, rank, peer, MAX_CH),
                                  NULL, cross_B);
        lx += cross_B / K / sg_host_get_route_bandwidth(me, w->hosts[peer]);
    }
    st = net_worst(st, net_wait(up, end));
    st = net_worst(st, net_wait(down, end));
    double tf = simgrid_get_clock() - t0; /* the NVLink flows' time */
    for (int i = 0; i < 2 && cross[i]; i++)
        st = net_worst(st, net_wait(cross[i], end));
    if (st != NET_OK) return st;
    double lat = sg_host_get_route_latency(me, sw);
    double b = fmax(0, tf - lat) / K, x = X ? lx - lat : 0;
    double tail = nvls_schedule(K, g, X, lat, b, x) - (simgrid_get_clock() - t0);
    if (tail > 0) sg_actor_sleep_for(tail);
    return NET_OK;
}

/* Message level runs an actor per rank and channel: bounded so SimGrid's stacks fit. */
#define MAX_MESSAGE_RANKS 2048

const char *coll_nccl_check(const struct coll_world *w)
{
    static char why[200];
    if (w->level == COLL_FLOW || w->nranks <= MAX_MESSAGE_RANKS) return NULL;
    snprintf(why, sizeof why,
             "nccl at message level runs an actor per rank and channel, at most %d ranks (%d "
             "here); expected level=\"flow\"",
             MAX_MESSAGE_RANKS, w->nranks);
    return why;
}

/* What a call can run: with data, the rings only (they carry the blocks); else everything, at
 * either level. */
static unsigned allowed_algos(const struct coll_world *w, const float *data)
{
    (void)w;
    return data != NULL ? NCCL_ALGO_BIT(NCCL_ALGO_RING) : NCCL_ALGOS_ALL;
}

static enum net_status nccl_call(const struct coll_world *w, enum coll_op op, int rank,
                                 double size_B, float *data);

enum net_status coll_nccl_run(const struct coll_world *w, enum coll_op op, int rank, double size_B,
                              float *data)
{
    if (w->nranks < 2) return NET_OK;
    if (!w->replay || w->level != COLL_FLOW || data != NULL)
        return nccl_call(w, op, rank, size_B, data);
    struct replay_world rw = {&((struct coll_world *)w)->rp, w->nranks, w->timeout_s, w->traffic,
                              w->sent_msgs}; /* the world's records: its cache */
    switch (coll_replay_enter(&rw, op, rank, size_B)) {
    case REPLAY_DONE:
        return NET_OK;
    case REPLAY_FAILED:
        return NET_TIMEOUT;
    default:
        break;
    }
    enum net_status st = nccl_call(w, op, rank, size_B, data);
    coll_replay_leave(w->rp, rank, st);
    return st;
}

/* One call of NCCL's plan, simulated. */
static enum net_status nccl_call(const struct coll_world *w, enum coll_op op, int rank,
                                 double size_B, float *data)
{
    const struct nccl_topo *t = topo_of(w);
    struct nccl_plan p;
    nccl_plan_call(&t->sys, (enum nccl_func)op, size_B, &w->nccl, allowed_algos(w, data), &p);
    double dil = dilation(w, t, op, size_B);
    if (p.base_s > 0) sg_actor_sleep_for(p.base_s * dil);
    if (p.nvls_hop_s > 0) sg_actor_sleep_for(p.nvls_hop_s * dil);
    bool nvls = p.algo == NCCL_ALGO_NVLS || p.algo == NCCL_ALGO_NVLS_TREE;
    bool flow = w->level == COLL_FLOW && data == NULL && op != COLL_BROADCAST;
    enum net_status st;
    if (flow)
        st = nvls                                 ? nvls_flow(w, &p, rank, size_B, dil)
             : p.algo == NCCL_ALGO_TREE           ? tree_flow(w, &p, rank, size_B, dil)
             : p.algo == NCCL_ALGO_COLLNET_CHAIN ? collnet_flow(w, &p, rank, size_B, dil)
                                                  : ring_flow(w, &p, op, rank, size_B, dil);
    else
        st = nvls ? nccl_nvls(w, &p, rank, size_B, dil)
                  : run_channels(w, &p, op, rank, size_B, data, dil);
    if (st == NET_OK && p.sm_extra_s > 0) sg_actor_sleep_for(p.sm_extra_s * dil);
    return st;
}

void coll_nccl_describe(const struct coll_world *w, enum coll_op op, double size_B, char *buf,
                        size_t len)
{
    if (w->nranks < 2) {
        snprintf(buf, len, "-");
        return;
    }
    const struct nccl_topo *t = topo_of(w);
    struct nccl_plan p;
    nccl_plan_call(&t->sys, (enum nccl_func)op, size_B, &w->nccl, allowed_algos(w, NULL), &p);
    snprintf(buf, len, "%s/%s/%d", nccl_algo_name(p.algo), nccl_proto_name(p.proto), p.nchannels);
}
