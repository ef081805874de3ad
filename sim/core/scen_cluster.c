/* scen_cluster.c - <cluster>, <platform> and <benchmark>, and the collective attributes (see
 * scen_cluster.h). */
#include "scen_cluster.h"

#include "mem.h"
#include "nccl_socket.h"
#include "units.h"
#include "xmldoc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BENCH_SIZES 1000 /* rows per pair; more is a typo in factor, not a benchmark */

#define KIND(k) (1u << (k))

/* What is inside a node of a <cluster>: gpu, intra and pcie, and whether they fit together. */
static enum dmlsim_err read_cluster_node(struct reader *r, xmlNodePtr n, struct cluster_spec *c)
{
    enum dmlsim_err rc = DMLSIM_OK;
    char *gpu = attr_dup(n, "gpu");
    c->gpu = gpu ? catalog_gpu(gpu) : NULL;
    if (c->gpu == NULL) {
        char names[256];
        rc = attr_fail(r, n, "<cluster gpu=\"%s\">: unknown gpu; expected one of: %s",
                       gpu ? gpu : "", catalog_gpu_names(names, sizeof names));
        free(gpu);
        goto out;
    }
    free(gpu);

    /* intra defaults to the GPU's own GPU-to-GPU class (its form factor: NVLink for SXM boards,
     * PCIe for cards), the one `dmlsim validate` assumes for the same GPU; a PCIe intra is the
     * GPUs' host interface too. */
    c->intra = catalog_link(c->gpu->intra);
    DMLSIM_CHECK_GOTO(rc,
                      attr_link(r, n, "intra", KIND(LINK_PCIE) | KIND(LINK_NVLINK),
                                "an nvlink or pcie class", &c->intra),
                      out);
    c->pcie = c->intra->kind == LINK_PCIE ? c->intra : catalog_link(c->gpu->pcie);
    DMLSIM_CHECK_GOTO(rc, attr_link(r, n, "pcie", KIND(LINK_PCIE), "a pcie class", &c->pcie), out);
    if (c->intra->kind == LINK_PCIE && c->pcie != c->intra) {
        rc = attr_fail(r, n,
                       "<cluster intra=\"%s\" pcie=\"%s\">: a pcie intra class is the GPUs' "
                       "host interface; expected pcie=\"%s\" or no pcie attribute",
                       c->intra->name, c->pcie->name, c->intra->name);
        goto out;
    }
    if (c->intra->fabric == FABRIC_MESH && c->gpus_per_node > CATALOG_MESH_MAX_GPUS) {
        rc = attr_fail(r, n,
                       "<cluster gpus-per-node=\"%d\" intra=\"%s\">: %s GPUs are wired in a DGX-1 "
                       "hybrid cube mesh of at most %d; expected gpus-per-node=\"%d\" or fewer, or "
                       "an NVSwitch class such as nvlink3",
                       c->gpus_per_node, c->intra->name, c->intra->name, CATALOG_MESH_MAX_GPUS,
                       CATALOG_MESH_MAX_GPUS);
        goto out;
    }
out:
    return rc;
}

/* store-bw: the checkpoint store's aggregate sustained rate (0 when absent: today's store). The
 * store is a machine on the cluster's network, which a cluster without a NIC or a flat one
 * (a SimGrid <cluster> of GPUs alone) does not have. */
static enum dmlsim_err read_cluster_store(struct reader *r, xmlNodePtr n, struct cluster_spec *c)
{
    enum dmlsim_err rc;
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "store-bw", &c->store_bw_Bps), out);
    if (c->store_bw_Bps > 0 && (c->nic == NULL || c->topology == TOPO_FLAT))
        rc = attr_fail(r, n,
                       "<cluster store-bw>: the checkpoint store is a machine on the cluster's "
                       "network; expected a nic and a star or fat-tree topology");
out:
    return rc;
}

enum dmlsim_err scen_cluster_read(struct reader *r, xmlNodePtr n, struct cluster_spec *c)
{
    enum dmlsim_err rc;
    long v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "nodes", &v), out);
    c->nodes = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "gpus-per-node", &v), out);
    c->gpus_per_node = (int)v;

    c->nic = NULL;
    DMLSIM_CHECK_GOTO(rc, read_cluster_node(r, n, c), out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_link(r, n, "nic", KIND(LINK_IB) | KIND(LINK_ROCE) | KIND(LINK_TCP),
                                "a network class", &c->nic),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "ps-nodes", &v), out);
    c->ps_nodes = (int)v;
    if (c->nic == NULL && c->nodes + c->ps_nodes > 1) {
        rc = attr_fail(r, n,
                       "<cluster nodes=\"%d\">: a cluster of several nodes needs nic=\"...\"; "
                       "expected a network class such as ib-ndr or tcp-25g",
                       c->nodes + c->ps_nodes);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "nics-per-node", &v), out);
    c->nics_per_node = (int)v;

    c->topology = TOPO_STAR; /* the DTD allows only the names topology_name gives */
    for (enum topology t = TOPO_STAR; t <= TOPO_FLAT; t++)
        if (attr_get_is(n, "topology", topology_name(t))) c->topology = t;
    if (c->topology == TOPO_FLAT && (c->gpus_per_node != 1 || c->ps_nodes != 0 || !c->nic)) {
        rc = attr_fail(r, n,
                       "<cluster topology=\"flat\">: a flat cluster has one GPU per node, no "
                       "ps-nodes and a nic; expected gpus-per-node=\"1\", no ps-nodes and "
                       "nic=\"...\"");
        goto out;
    }
    if (c->topology != TOPO_FATTREE) {
        static const char *const ft_only[] = {"nodes-per-leaf", "spines", "oversubscription"};
        for (size_t i = 0; i < sizeof ft_only / sizeof ft_only[0]; i++)
            if (xmlHasProp(n, (const xmlChar *)ft_only[i])) {
                rc = attr_fail(r, n, "<cluster %s>: only meaningful with topology=\"fat-tree\"",
                               ft_only[i]);
                goto out;
            }
    }
    long leaf = (long)attr_spec_get("cluster", "nodes-per-leaf")->def,
         def_npl = c->nodes < leaf ? c->nodes : leaf;
    DMLSIM_CHECK_GOTO(
            rc, attr_get_int_within(r, n, "nodes-per-leaf", c->nodes + c->ps_nodes, def_npl, &v),
            out);
    c->nodes_per_leaf = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "spines", &v), out);
    c->spines = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "oversubscription", &c->oversubscription), out);
    c->sharp = attr_get_is(n, "sharp", "yes");
    c->fatpipe_switch = attr_get_is(n, "switch", "fatpipe"); /* the DTD allows port | fatpipe */
    if (c->sharp && (c->nic == NULL || c->nic->kind != LINK_IB || c->topology == TOPO_FLAT))
        rc = attr_fail(r, n,
                       "<cluster sharp=\"yes\">: in-network reduction (SHARP) is an InfiniBand "
                       "switch feature; expected an ib-* nic and a star or fat-tree topology");
    if (rc == DMLSIM_OK) rc = read_cluster_store(r, n, c);
out:
    return rc;
}

enum dmlsim_err scen_cluster_read_platform(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    char *file = attr_dup(n, "file");
    enum dmlsim_err rc = DMLSIM_OK;
    if (file == NULL || file[0] == '\0') {
        rc = attr_fail(r, n, "<platform file=\"\">: expected the path of a SimGrid platform file");
        goto out;
    }
    sc->platform_file = attr_path(r, file);
    if (access(sc->platform_file, R_OK) != 0) {
        char why[128];
        xmldoc_strerror(errno, why, sizeof why);
        rc = attr_fail(r, n,
                       "<platform file=\"%s\">: cannot read %s: %s; expected a readable "
                       "SimGrid platform file (relative to the scenario's folder)",
                       file, sc->platform_file, why);
        free(sc->platform_file);
        free(sc->calib_file);
        sc->platform_file = NULL;
    }
out:
    free(file);
    return rc;
}

/* Does `host` name a host of the generated cluster: nodeN.gpuJ or nodeN.cpu? */
static bool cluster_has_host(const struct cluster_spec *c, const char *host)
{
    int node, gpu, used = 0;
    if (sscanf(host, "node%d.gpu%d%n", &node, &gpu, &used) == 2 && host[used] == '\0')
        return node >= 0 && node < c->nodes && gpu >= 0 && gpu < c->gpus_per_node;
    used = 0;
    if (sscanf(host, "node%d.cpu%n", &node, &used) == 1 && used > 0 && host[used] == '\0')
        return node >= 0 && node < c->nodes;
    return false;
}

enum dmlsim_err scen_cluster_read_benchmark(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct benchmark *b = &sc->bench;
    enum dmlsim_err rc;
    char *kind = attr_dup(n, "kind");
    b->kind = strcmp(kind, "p2p") == 0 ? BENCH_P2P : BENCH_COLLECTIVE;
    b->op = strcmp(kind, "allgather") == 0       ? COLL_ALLGATHER
            : strcmp(kind, "reducescatter") == 0 ? COLL_REDUCESCATTER
            : strcmp(kind, "broadcast") == 0     ? COLL_BROADCAST
            : strcmp(kind, "alltoall") == 0      ? COLL_ALLTOALL
                                                 : COLL_ALLREDUCE;
    free(kind);
    b->line = (int)attr_line(n);
    DMLSIM_CHECK_GOTO(rc,
                      scen_cluster_coll_attrs(r, n, b->op, &b->algo, &b->nccl, &b->level, &b->gpus,
                                              &b->chunks),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "begin", &b->begin_B), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "end", &b->end_B), out);
    if (b->end_B < b->begin_B) {
        rc = attr_fail(r, n,
                       "<benchmark end=\"...\">: end (%.0f B) is below begin (%.0f B); "
                       "expected end >= begin",
                       b->end_B, b->begin_B);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_real(r, n, "factor", &b->factor), out);
    if (b->end_B / b->begin_B > 1 && b->end_B > b->begin_B &&
        1 + log(b->end_B / b->begin_B) / log(b->factor) > MAX_BENCH_SIZES) {
        rc = attr_fail(r, n,
                       "<benchmark factor=\"%g\">: gives more than %d sizes from begin to end; "
                       "expected a larger factor",
                       b->factor, MAX_BENCH_SIZES);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_get_quantity(r, n, "timeout", &b->timeout_s), out);
    for (xmlNodePtr p = n->children; p != NULL; p = p->next) {
        if (p->type != XML_ELEMENT_NODE) continue;
        if (b->kind != BENCH_P2P) {
            rc = attr_fail(r, p,
                           "<pair> belongs to kind=\"p2p\" benchmarks; expected no children "
                           "in a collective benchmark");
            goto out;
        }
        b->pairs = mem_realloc(b->pairs, (b->npairs + 1) * sizeof *b->pairs);
        struct bench_pair *bp = &b->pairs[b->npairs++];
        bp->src = attr_dup(p, "src");
        bp->dst = attr_dup(p, "dst");
        bp->line = (int)attr_line(p);
        if (strcmp(bp->src, bp->dst) == 0) {
            rc = attr_fail(r, p, "<pair src=\"%s\" dst=\"%s\">: expected two different hosts",
                           bp->src, bp->dst);
            goto out;
        }
        const char *ends[2] = {bp->src, bp->dst};
        for (int e = 0; e < 2 && sc->has_cluster; e++)
            if (!cluster_has_host(&sc->cluster, ends[e])) {
                rc = attr_fail(r, p,
                               "<pair %s=\"%s\">: no such host; expected nodeN.gpuJ or "
                               "nodeN.cpu with N < %d and J < %d",
                               e ? "dst" : "src", ends[e], sc->cluster.nodes,
                               sc->cluster.gpus_per_node);
                goto out;
            }
    }
    if (b->kind == BENCH_P2P && b->npairs == 0)
        rc = attr_fail(r, n,
                       "<benchmark kind=\"p2p\">: no endpoints; expected <pair src=\"...\" "
                       "dst=\"...\"/> children");
out:
    return rc;
}

/* nccl-socket-nthreads and nccl-nsocks-perthread (NCCL_SOCKET_NTHREADS, NCCL_NSOCKS_PERTHREAD:
 * nccl_socket.h): 1..16 threads, their product at most 64 sockets; absent, NCCL's auto-detect. */
static enum dmlsim_err socket_attrs(struct reader *r, xmlNodePtr n, struct nccl_opts *nccl)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "nccl-socket-nthreads", &v), out);
    nccl->socket_nthreads = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "nccl-nsocks-perthread", &v), out);
    nccl->nsocks_perthread = (int)v;
    if (nccl_socket_count(nccl) > NCCL_SOCKET_MAX_SOCKETS)
        rc = attr_fail(r, n,
                       "<%s nccl-socket-nthreads=\"%d\" nccl-nsocks-perthread=\"%d\">: %d sockets "
                       "per connection; expected threads x sockets per thread at most %d (NCCL's "
                       "MAX_SOCKETS)",
                       (const char *)n->name, nccl_socket_threads(nccl),
                       nccl_socket_per_thread(nccl), nccl_socket_count(nccl),
                       NCCL_SOCKET_MAX_SOCKETS);
out:
    return rc;
}

/* algo, nccl-algo, proto, channels, level, gpus, chunks: shared by collective benchmarks and
 * training. The algorithm's table row says which operations and levels it has. */
enum dmlsim_err scen_cluster_coll_attrs(struct reader *r, xmlNodePtr n, enum coll_op op,
                                        enum coll_algo_id *algo, struct nccl_opts *nccl,
                                        enum coll_level *level, int *gpus, int *chunks)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    const char *el = (const char *)n->name;
    static const char *const levels[] = {"message", "flow", "auto"}; /* enum coll_level's */
    char *name = attr_dup(n, "algo");
    char *na = attr_dup(n, "nccl-algo"), *pr = attr_dup(n, "proto");
    bool known = true;
    coll_algo_find(attr_spec_get(el, "algo")->def_text, algo); /* the row's default: nccl */
    if (name) known = coll_algo_find(name, algo);
    int lv = attr_get_choice(n, "level", levels, ATTR_N_OF(levels)); /* auto: <training> only */
    *level = lv == 1 ? COLL_FLOW : lv == 2 ? COLL_AUTO : COLL_MESSAGE;
    *nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
    if (!known)
        rc = attr_fail(r, n, "<%s algo=\"%s\">: unknown algorithm; expected one of: %s", el, name,
                       coll_algo_names());
    else if (!(coll_algo_ops(*algo) & COLL_OP_BIT(op)))
        rc = attr_fail(r, n, "<%s algo=\"%s\">: does not implement %s; expected one of: %s", el,
                       name, collective_op_name(op), coll_algo_names_for(op, false));
    else if (*level == COLL_FLOW && !coll_algo_has_flow(*algo))
        rc = attr_fail(r, n,
                       "<%s level=\"flow\">: %s has no flow level; expected algo one of: %s, or "
                       "level=\"message\"",
                       el, coll_algo_name(*algo), coll_algo_names_for(op, true));
    else if (na && !nccl_algo_parse(na, &nccl->algo))
        rc = attr_fail(
                r, n,
                "<%s nccl-algo=\"%s\">: unknown; expected auto, ring, tree, nvls, nvlstree or "
                "collnet",
                el, na);
    else if (pr && !nccl_proto_parse(pr, &nccl->proto))
        rc = attr_fail(r, n, "<%s proto=\"%s\">: unknown; expected auto, LL, LL128 or Simple", el,
                       pr);
    else if ((na || pr || xmlHasProp(n, (const xmlChar *)"channels") ||
              xmlHasProp(n, (const xmlChar *)"nccl-socket-nthreads") ||
              xmlHasProp(n, (const xmlChar *)"nccl-nsocks-perthread")) &&
             *algo != COLL_ALGO_NCCL)
        rc = attr_fail(r, n,
                       "<%s>: nccl-algo, proto, channels, nccl-socket-nthreads and "
                       "nccl-nsocks-perthread belong to algo=\"nccl\"; expected algo=\"nccl\" "
                       "or none of them",
                       el);
    free(name);
    free(na);
    free(pr);
    if (rc != DMLSIM_OK) return rc;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "channels", &v), out);
    nccl->max_channels = (int)v;
    DMLSIM_CHECK_GOTO(rc, socket_attrs(r, n, nccl), out);
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "gpus", &v), out);
    *gpus = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_get_int(r, n, "chunks", &v), out);
    *chunks = (int)v;
out:
    return rc;
}
