/* scenario.c - scenario XML to struct scenario (see scenario.h).
 *
 * Order of checks, each stopping at the first problem: well-formed XML (libxml2's parser), unknown
 * elements and attributes (our own walk over the tree, so the message can list what is allowed),
 * the DTD (libxml2's validator, for structure and enumerations), then values (units, ranges,
 * catalog names, cross-field rules), each message carrying the line of the element at fault.
 */
#include "scenario.h"

#include "mem.h"
#include "units.h"
#include "xmldoc.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Generated at configure time from scenarios/scenario.dtd (see CMakeLists.txt). */
extern const unsigned char dmlsim_scenario_dtd[];
extern const size_t dmlsim_scenario_dtd_len;

#define DEFAULT_SEED           1UL
#define DEFAULT_FACTOR         2.0
#define DEFAULT_TIMEOUT_S      3600.0
#define DEFAULT_SPINES         2
#define DEFAULT_NODES_PER_LEAF 16
#define DEFAULT_CHUNKS         8
#define DEFAULT_RDZV_S         1.0 /* rendezvous wait for survivors to report */
#define DEFAULT_LAUNCH_S KCOST_LAUNCH_S
#define DEFAULT_BUCKET_S      DEFAULT_LAUNCH_S /* a bucket's collective is one more kernel launch */
#define DEFAULT_MAX_RESTARTS  200   /* memberships after the first before a job gives up */
#define MAX_JITTER_SIGMA 4 /* lognormal compute jitter: larger spreads are not a cluster */
#define DEFAULT_REPLACEMENT_S 600.0 /* policy wait: how long to wait for a crashed worker */
#define DEFAULT_STEPS         10
#define DEFAULT_BUCKET_B      (25.0 * 1024 * 1024) /* PyTorch DDP bucket_cap_mb = 25 (MiB) */
#define MAX_BENCH_SIZES       1000 /* rows per pair; more is a typo in factor, not a benchmark */

struct reader {
    const char *path;         /* file name used in messages */
    struct dmlsim_error *err; /* where the first failure goes */
    xmlDtdPtr dtd;            /* the built-in scenario DTD */
};

/* ---- messages ----------------------------------------------------------------------------- */

static long node_line(xmlNodePtr n)
{
    return n ? xmlGetLineNo(n) : 0;
}

static enum dmlsim_err failv(struct reader *r, enum dmlsim_err code, long line, const char *fmt,
                             va_list ap)
{
    char what[3072];
    vsnprintf(what, sizeof what, fmt, ap);
    return dmlsim_fail(r->err, code, "%s:%ld: %s", r->path, line, what);
}

static enum dmlsim_err fail_schema(struct reader *r, xmlNodePtr n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static enum dmlsim_err fail_schema(struct reader *r, xmlNodePtr n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum dmlsim_err rc = failv(r, DMLSIM_ESCHEMA, node_line(n), fmt, ap);
    va_end(ap);
    return rc;
}

static enum dmlsim_err fail_at(struct reader *r, xmlNodePtr n, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static enum dmlsim_err fail_at(struct reader *r, xmlNodePtr n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum dmlsim_err rc = failv(r, DMLSIM_EVALUE, node_line(n), fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- attributes --------------------------------------------------------------------------- */

/* Returns a copy of the attribute (caller frees with free) or NULL if absent. */
static char *attr_dup(xmlNodePtr n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (v == NULL) return NULL;
    char *s = mem_strdup((const char *)v);
    xmlFree(v);
    return s;
}

/* Whether attribute `name` is present and equal to `value`. */
static bool attr_is(xmlNodePtr n, const char *name, const char *value)
{
    char *a = attr_dup(n, name);
    bool is = a && strcmp(a, value) == 0;
    free(a);
    return is;
}

static enum dmlsim_err attr_quantity(struct reader *r, xmlNodePtr n, const char *name,
                                     enum unit_kind kind, enum unit_bound bound, double def,
                                     double *out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) {
        *out = def;
        return DMLSIM_OK;
    }
    static const char *const si[] = {[UNIT_BANDWIDTH] = "Bps", [UNIT_TIME] = "s",
                                      [UNIT_SIZE] = "B", [UNIT_FLOPRATE] = "f"};
    enum unit_status st = units_parse(v, kind, bound, out);
    if (st == UNIT_ECEILING)
        rc = fail_at(r, n, "<%s %s=\"%s\">: above the ceiling; expected at most %g%s",
                     (const char *)n->name, name, v, units_ceiling(kind), si[kind]);
    else if (st != UNIT_OK)
        rc = fail_at(r, n, "<%s %s=\"%s\">: %s; expected %s", (const char *)n->name, name, v,
                     units_status_str(st), units_expected(kind));
    free(v);
    return rc;
}

static enum dmlsim_err attr_int(struct reader *r, xmlNodePtr n, const char *name, long min,
                                long max, long def, long *out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) {
        *out = def;
        return DMLSIM_OK;
    }
    if (units_parse_long(v, min, max, out) != 0)
        rc = fail_at(r, n, "<%s %s=\"%s\">: expected an integer from %ld to %ld",
                     (const char *)n->name, name, v, min, max);
    free(v);
    return rc;
}

static enum dmlsim_err attr_real(struct reader *r, xmlNodePtr n, const char *name, double min,
                                 bool min_inclusive, double def, double *out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) {
        *out = def;
        return DMLSIM_OK;
    }
    if (units_parse_real(v, out) != 0 || (min_inclusive ? *out < min : *out <= min) ||
        *out > UNITS_REAL_CEILING)
        rc = fail_at(r, n, "<%s %s=\"%s\">: expected a number %s %g and at most %g",
                     (const char *)n->name, name, v, min_inclusive ? ">=" : ">", min,
                     UNITS_REAL_CEILING);
    free(v);
    return rc;
}

/* kinds: bit mask of (1 << enum link_kind) accepted; `what` names them in the message. */
static enum dmlsim_err attr_link(struct reader *r, xmlNodePtr n, const char *name, unsigned kinds,
                                 const char *what, const struct link_class **out)
{
    char *v = attr_dup(n, name);
    enum dmlsim_err rc = DMLSIM_OK;
    if (v == NULL) return DMLSIM_OK; /* *out keeps the caller's default */
    const struct link_class *lc = catalog_link(v);
    if (lc == NULL || !(kinds & (1u << lc->kind))) {
        char names[512];
        size_t count, used = 0;
        const struct link_class *all = catalog_links(&count);
        names[0] = '\0';
        for (size_t i = 0; i < count; i++) {
            if (!(kinds & (1u << all[i].kind))) continue;
            int k = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                             all[i].name);
            if (k > 0 && (size_t)k < sizeof names - used) used += (size_t)k;
        }
        rc = fail_at(r, n, "<%s %s=\"%s\">: %s link class; expected %s: %s", (const char *)n->name,
                     name, v, lc ? "wrong" : "unknown", what, names);
    } else {
        *out = lc;
    }
    free(v);
    return rc;
}

/* ---- structure: unknown elements and attributes ------------------------------------------- */

static void content_names(xmlElementContentPtr c, char *buf, size_t len, size_t *used)
{
    if (c == NULL) return;
    if (c->type == XML_ELEMENT_CONTENT_ELEMENT) {
        int k = snprintf(buf + *used, len - *used, "%s<%s>", *used ? ", " : "", c->name);
        if (k > 0 && (size_t)k < len - *used) *used += (size_t)k;
        return;
    }
    content_names(c->c1, buf, len, used);
    content_names(c->c2, buf, len, used);
}

/* An attribute's value holds no control character (a &#10; or &#27; reference would reach the
 * terminal and break the outputs' "#" header lines). */
static enum dmlsim_err check_printable(struct reader *r, xmlNodePtr n, xmlAttrPtr a)
{
    xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
    int bad = -1;
    for (const xmlChar *p = v; p && *p && bad < 0; p++)
        if (*p < 0x20 || *p == 0x7f) bad = *p;
    xmlFree(v);
    if (bad < 0) return DMLSIM_OK;
    return fail_schema(r, n, "attribute %s on <%s> holds control character 0x%02x; expected "
                       "printable text", (const char *)a->name, (const char *)n->name, bad);
}

/* A DOCTYPE may name the DTD, but declarations inside it (an internal subset) would change
 * defaults or define entities: refused, never applied. */
static enum dmlsim_err check_doctype(struct reader *r, xmlDocPtr doc)
{
    if (doc->intSubset == NULL || doc->intSubset->children == NULL) return DMLSIM_OK;
    int line = 1; /* the line of <!DOCTYPE, for the message */
    char buf[4096];
    FILE *f = fopen(r->path, "r");
    for (int ln = 1; f && ln < 100000 && fgets(buf, sizeof buf, f); ln += strchr(buf, '\n') != NULL)
        if (strstr(buf, "<!DOCTYPE ")) {
            line = ln;
            break;
        }
    if (f) fclose(f);
    return dmlsim_fail(r->err, DMLSIM_ESCHEMA,
                       "%s:%d: <!DOCTYPE> with an internal subset [...]: its declarations would "
                       "change defaults or define entities, and are not read; expected "
                       "<!DOCTYPE scenario SYSTEM \"scenario.dtd\"> or none",
                       r->path, line);
}

static enum dmlsim_err check_names(struct reader *r, xmlNodePtr parent)
{
    for (xmlNodePtr n = parent->children; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        xmlElementPtr decl = xmlGetDtdElementDesc(r->dtd, n->name);
        if (decl == NULL) {
            char allowed[256] = "nothing";
            size_t used = 0;
            xmlElementPtr pdecl = parent->type == XML_ELEMENT_NODE
                                          ? xmlGetDtdElementDesc(r->dtd, parent->name)
                                          : NULL;
            if (pdecl != NULL && pdecl->content != NULL)
                content_names(pdecl->content, allowed, sizeof allowed, &used);
            if (parent->type != XML_ELEMENT_NODE) snprintf(allowed, sizeof allowed, "<scenario>");
            return fail_schema(r, n, "unknown element <%s>; expected %s", (const char *)n->name,
                               allowed);
        }
        for (xmlAttrPtr a = n->properties; a != NULL; a = a->next) {
            enum dmlsim_err rc = check_printable(r, n, a);
            if (rc != DMLSIM_OK) return rc;
            if (xmlGetDtdAttrDesc(r->dtd, n->name, a->name) != NULL) continue;
            char allowed[512];
            size_t used = 0;
            allowed[0] = '\0';
            for (xmlAttributePtr ad = decl->attributes; ad != NULL; ad = ad->nexth) {
                int k = snprintf(allowed + used, sizeof allowed - used, "%s%s", used ? ", " : "",
                                 (const char *)ad->name);
                if (k > 0 && (size_t)k < sizeof allowed - used) used += (size_t)k;
            }
            return fail_schema(r, n, "unknown attribute %s on <%s>; expected one of: %s",
                               (const char *)a->name, (const char *)n->name,
                               used ? allowed : "(no attributes)");
        }
        enum dmlsim_err rc = check_names(r, n);
        if (rc != DMLSIM_OK) return rc;
    }
    return DMLSIM_OK;
}

/* ---- elements ----------------------------------------------------------------------------- */

#define KIND(k) (1u << (k))

/* What is inside a node of a <cluster>: gpu, intra and pcie, and whether they fit together. */
static enum dmlsim_err read_cluster_node(struct reader *r, xmlNodePtr n, struct cluster_spec *c)
{
    enum dmlsim_err rc = DMLSIM_OK;
    char *gpu = attr_dup(n, "gpu");
    c->gpu = gpu ? catalog_gpu(gpu) : NULL;
    if (c->gpu == NULL) {
        char names[256];
        rc = fail_at(r, n, "<cluster gpu=\"%s\">: unknown gpu; expected one of: %s", gpu ? gpu : "",
                     catalog_gpu_names(names, sizeof names));
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
        rc = fail_at(r, n,
                     "<cluster intra=\"%s\" pcie=\"%s\">: a pcie intra class is the GPUs' "
                     "host interface; expected pcie=\"%s\" or no pcie attribute",
                     c->intra->name, c->pcie->name, c->intra->name);
        goto out;
    }
    if (c->intra->fabric == FABRIC_MESH && c->gpus_per_node > CATALOG_MESH_MAX_GPUS) {
        rc = fail_at(r, n,
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

static enum dmlsim_err read_cluster(struct reader *r, xmlNodePtr n, struct cluster_spec *c)
{
    enum dmlsim_err rc;
    long v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "nodes", 1, 1L << 20, 1, &v), out);
    c->nodes = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "gpus-per-node", 1, 256, 1, &v), out);
    c->gpus_per_node = (int)v;

    c->nic = NULL;
    DMLSIM_CHECK_GOTO(rc, read_cluster_node(r, n, c), out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_link(r, n, "nic", KIND(LINK_IB) | KIND(LINK_ROCE) | KIND(LINK_TCP),
                                "a network class", &c->nic),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "ps-nodes", 0, 4096, 0, &v), out);
    c->ps_nodes = (int)v;
    if (c->nic == NULL && c->nodes + c->ps_nodes > 1) {
        rc = fail_at(r, n,
                     "<cluster nodes=\"%d\">: a cluster of several nodes needs nic=\"...\"; "
                     "expected a network class such as ib-ndr or tcp-25g",
                     c->nodes + c->ps_nodes);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "nics-per-node", 1, 64, 1, &v), out);
    c->nics_per_node = (int)v;

    char *topo = attr_dup(n, "topology"); /* the DTD allows only the names topology_name gives */
    c->topology = TOPO_STAR;
    for (enum topology t = TOPO_STAR; topo && t <= TOPO_FLAT; t++)
        if (strcmp(topo, topology_name(t)) == 0) c->topology = t;
    free(topo);
    if (c->topology == TOPO_FLAT && (c->gpus_per_node != 1 || c->ps_nodes != 0 || !c->nic)) {
        rc = fail_at(r, n,
                     "<cluster topology=\"flat\">: a flat cluster has one GPU per node, no "
                     "ps-nodes and a nic; expected gpus-per-node=\"1\", no ps-nodes and "
                     "nic=\"...\"");
        goto out;
    }
    if (c->topology != TOPO_FATTREE) {
        static const char *const ft_only[] = {"nodes-per-leaf", "spines", "oversubscription"};
        for (size_t i = 0; i < sizeof ft_only / sizeof ft_only[0]; i++)
            if (xmlHasProp(n, (const xmlChar *)ft_only[i])) {
                rc = fail_at(r, n, "<cluster %s>: only meaningful with topology=\"fat-tree\"",
                             ft_only[i]);
                goto out;
            }
    }
    long def_npl = c->nodes < DEFAULT_NODES_PER_LEAF ? c->nodes : DEFAULT_NODES_PER_LEAF;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "nodes-per-leaf", 1, c->nodes + c->ps_nodes, def_npl, &v),
                      out);
    c->nodes_per_leaf = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "spines", 1, 1024, DEFAULT_SPINES, &v), out);
    c->spines = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "oversubscription", 1.0, true, 1.0, &c->oversubscription),
                      out);
    char *sharp = attr_dup(n, "sharp"), *sw = attr_dup(n, "switch");
    c->sharp = sharp && strcmp(sharp, "yes") == 0;
    c->fatpipe_switch = sw && strcmp(sw, "fatpipe") == 0; /* the DTD allows port | fatpipe */
    free(sharp);
    free(sw);
    if (c->sharp && (c->nic == NULL || c->nic->kind != LINK_IB || c->topology == TOPO_FLAT))
        rc = fail_at(r, n,
                     "<cluster sharp=\"yes\">: in-network reduction (SHARP) is an InfiniBand "
                     "switch feature; expected an ib-* nic and a star or fat-tree topology");
out:
    return rc;
}

/* A path as written in the scenario: absolute, or relative to the scenario's folder (a new
 * string). */
static char *resolve_path(const struct reader *r, const char *file)
{
    if (file[0] == '/') return mem_strdup(file);
    const char *slash = strrchr(r->path, '/');
    int dirlen = slash ? (int)(slash - r->path) : 1;
    return mem_printf("%.*s/%s", dirlen, slash ? r->path : ".", file);
}

static enum dmlsim_err read_platform(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    char *file = attr_dup(n, "file");
    enum dmlsim_err rc = DMLSIM_OK;
    if (file == NULL || file[0] == '\0') {
        rc = fail_at(r, n, "<platform file=\"\">: expected the path of a SimGrid platform file");
        goto out;
    }
    sc->platform_file = resolve_path(r, file);
    if (access(sc->platform_file, R_OK) != 0) {
        char why[128];
        xmldoc_strerror(errno, why, sizeof why);
        rc = fail_at(r, n,
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

static enum dmlsim_err read_coll_attrs(struct reader *r, xmlNodePtr n, enum coll_op op,
                                       enum coll_algo_id *algo, struct nccl_opts *nccl,
                                       enum coll_level *level, int *gpus, int *chunks);

static enum dmlsim_err read_benchmark(struct reader *r, xmlNodePtr n, struct scenario *sc)
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
    b->line = (int)node_line(n);
    b->level = COLL_MESSAGE;
    DMLSIM_CHECK_GOTO(
            rc, read_coll_attrs(r, n, b->op, &b->algo, &b->nccl, &b->level, &b->gpus, &b->chunks),
            out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "begin", UNIT_SIZE, UNIT_POSITIVE, 0, &b->begin_B),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "end", UNIT_SIZE, UNIT_POSITIVE, 0, &b->end_B), out);
    if (b->end_B < b->begin_B) {
        rc = fail_at(r, n,
                     "<benchmark end=\"...\">: end (%.0f B) is below begin (%.0f B); "
                     "expected end >= begin",
                     b->end_B, b->begin_B);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "factor", 1.0, false, DEFAULT_FACTOR, &b->factor), out);
    if (b->end_B / b->begin_B > 1 && b->end_B > b->begin_B &&
        1 + log(b->end_B / b->begin_B) / log(b->factor) > MAX_BENCH_SIZES) {
        rc = fail_at(r, n,
                     "<benchmark factor=\"%g\">: gives more than %d sizes from begin to end; "
                     "expected a larger factor",
                     b->factor, MAX_BENCH_SIZES);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "timeout", UNIT_TIME, UNIT_POSITIVE, DEFAULT_TIMEOUT_S,
                                    &b->timeout_s),
                      out);
    for (xmlNodePtr p = n->children; p != NULL; p = p->next) {
        if (p->type != XML_ELEMENT_NODE) continue;
        if (b->kind != BENCH_P2P) {
            rc = fail_at(r, p,
                         "<pair> belongs to kind=\"p2p\" benchmarks; expected no children "
                         "in a collective benchmark");
            goto out;
        }
        b->pairs = mem_realloc(b->pairs, (b->npairs + 1) * sizeof *b->pairs);
        struct bench_pair *bp = &b->pairs[b->npairs++];
        bp->src = attr_dup(p, "src");
        bp->dst = attr_dup(p, "dst");
        bp->line = (int)node_line(p);
        if (strcmp(bp->src, bp->dst) == 0) {
            rc = fail_at(r, p, "<pair src=\"%s\" dst=\"%s\">: expected two different hosts",
                         bp->src, bp->dst);
            goto out;
        }
        const char *ends[2] = {bp->src, bp->dst};
        for (int e = 0; e < 2 && sc->has_cluster; e++)
            if (!cluster_has_host(&sc->cluster, ends[e])) {
                rc = fail_at(r, p,
                             "<pair %s=\"%s\">: no such host; expected nodeN.gpuJ or "
                             "nodeN.cpu with N < %d and J < %d",
                             e ? "dst" : "src", ends[e], sc->cluster.nodes,
                             sc->cluster.gpus_per_node);
                goto out;
            }
    }
    if (b->kind == BENCH_P2P && b->npairs == 0)
        rc = fail_at(r, n,
                     "<benchmark kind=\"p2p\">: no endpoints; expected <pair src=\"...\" "
                     "dst=\"...\"/> children");
out:
    return rc;
}

/* algo, nccl-algo, proto, channels, level, gpus, chunks: shared by collective benchmarks and
 * training. The algorithm's table row says which operations and levels it has. */
static enum dmlsim_err read_coll_attrs(struct reader *r, xmlNodePtr n, enum coll_op op,
                                       enum coll_algo_id *algo, struct nccl_opts *nccl,
                                       enum coll_level *level, int *gpus, int *chunks)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    const char *el = (const char *)n->name;
    char *name = attr_dup(n, "algo"), *lv = attr_dup(n, "level");
    char *na = attr_dup(n, "nccl-algo"), *pr = attr_dup(n, "proto");
    bool known = true;
    *algo = COLL_ALGO_DEFAULT;
    if (name) known = coll_algo_find(name, algo);
    if (lv) /* the DTD admits "auto" for <training> only */
        *level = strcmp(lv, "flow") == 0 ? COLL_FLOW
                 : strcmp(lv, "auto") == 0 ? COLL_AUTO
                                           : COLL_MESSAGE;
    *nccl = (struct nccl_opts){.algo = -1, .proto = -1, .max_channels = 0};
    if (!known)
        rc = fail_at(r, n, "<%s algo=\"%s\">: unknown algorithm; expected one of: %s", el, name,
                     coll_algo_names());
    else if (!(coll_algo_ops(*algo) & COLL_OP_BIT(op)))
        rc = fail_at(r, n, "<%s algo=\"%s\">: does not implement %s; expected one of: %s", el, name,
                     collective_op_name(op), coll_algo_names_for(op, false));
    else if (*level == COLL_FLOW && !coll_algo_has_flow(*algo))
        rc = fail_at(r, n,
                     "<%s level=\"flow\">: %s has no flow level; expected algo one of: %s, or "
                     "level=\"message\"",
                     el, coll_algo_name(*algo), coll_algo_names_for(op, true));
    else if (na && !nccl_algo_parse(na, &nccl->algo))
        rc = fail_at(r, n,
                     "<%s nccl-algo=\"%s\">: unknown; expected auto, ring, tree, nvls, nvlstree or "
                     "collnet",
                     el, na);
    else if (pr && !nccl_proto_parse(pr, &nccl->proto))
        rc = fail_at(r, n, "<%s proto=\"%s\">: unknown; expected auto, LL, LL128 or Simple", el,
                     pr);
    else if ((na || pr || xmlHasProp(n, (const xmlChar *)"channels")) && *algo != COLL_ALGO_NCCL)
        rc = fail_at(r, n,
                     "<%s>: nccl-algo, proto and channels belong to algo=\"nccl\"; expected "
                     "algo=\"nccl\" or none of them",
                     el);
    free(name);
    free(lv);
    free(na);
    free(pr);
    if (rc != DMLSIM_OK) return rc;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "channels", 1, 32, 0, &v), out);
    nccl->max_channels = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "gpus", 1, 1L << 24, 0, &v), out);
    *gpus = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "chunks", 1, 4096, DEFAULT_CHUNKS, &v), out);
    *chunks = (int)v;
out:
    return rc;
}

/* <model attention> (transformers), <model head> (bert-large), <model layout> (CNNs). */
static enum dmlsim_err read_model_impl(struct reader *r, xmlNodePtr n, struct model_spec *ms,
                                       bool transformer)
{
    char *at = attr_dup(n, "attention"), *hd = attr_dup(n, "head"), *ly = attr_dup(n, "layout");
    enum dmlsim_err rc = DMLSIM_OK;
    if (ly && (!ms->preset || transformer))
        rc = fail_at(r, n, "<model layout>: only meaningful with a convolutional preset");
    else if (at && !transformer)
        rc = fail_at(r, n, "<model attention>: only meaningful with a transformer preset");
    else if (hd && (!ms->preset || strcmp(ms->preset, "bert-large") != 0))
        rc = fail_at(r, n, "<model head>: only meaningful with preset=\"bert-large\"");
    ms->attn_set = at != NULL;
    ms->gpt.attention = at && strcmp(at, "materialised") == 0 ? ATTN_MATERIALISED : ATTN_FLASH;
    ms->gpt.head = !hd                              ? BERT_HEAD_NONE
                   : strcmp(hd, "pretraining") == 0 ? BERT_HEAD_PRETRAINING
                   : strcmp(hd, "squad") == 0       ? BERT_HEAD_SQUAD
                                                    : BERT_HEAD_NONE;
    ms->gpt.layout = !ly                       ? LAYOUT_AUTO
                     : strcmp(ly, "nchw") == 0 ? LAYOUT_NCHW
                                               : LAYOUT_NHWC;
    free(at);
    free(hd);
    free(ly);
    return rc;
}

static enum dmlsim_err read_model(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct model_spec *ms = &sc->model;
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    ms->present = true;
    ms->line = (int)node_line(n);
    ms->preset = attr_dup(n, "preset");
    ms->gpt = model_gpt_defaults();
    char *name = attr_dup(n, "name");
    model_init(&ms->explicit_, name ? name : (ms->preset ? ms->preset : "model"));
    free(name);
    bool has_children = false;
    for (xmlNodePtr c = n->children; c != NULL; c = c->next)
        has_children |= c->type == XML_ELEMENT_NODE;
    if (ms->preset != NULL) {
        struct model probe;
        if (model_preset(ms->preset, NULL, DTYPE_FP32, &probe) != 0)
            return fail_at(r, n, "<model preset=\"%s\">: unknown preset; expected one of: %s",
                           ms->preset, model_preset_names());
        model_release(&probe);
        if (has_children)
            return fail_at(r, n,
                           "<model preset=\"%s\">: a preset has no <layer> children; "
                           "expected either a preset or layers",
                           ms->preset);
    } else if (!has_children) {
        return fail_at(r, n,
                       "<model>: no preset and no layers; expected preset=\"...\" (%s) or "
                       "<layer> children",
                       model_preset_names());
    }
    static const char *const shape[] = {"layers", "hidden", "heads", "seq", "vocab"};
    int *field[] = {&ms->gpt.layers, &ms->gpt.hidden, &ms->gpt.heads, &ms->gpt.seq, &ms->gpt.vocab};
    /* a transformer's shape (bert-large: its maximum sequence length, 512) */
    bool transformer = ms->preset && model_transformer_shape(ms->preset, &ms->gpt);
    for (int i = 0; i < 5; i++) {
        if (!xmlHasProp(n, (const xmlChar *)shape[i])) continue;
        bool ok = ms->preset && (strcmp(ms->preset, "gpt") == 0 || (transformer && i == 3));
        if (!ok)
            return fail_at(r, n, "<model %s>: only meaningful with preset=\"gpt\"%s", shape[i],
                           i == 3 ? " or another transformer preset" : "");
        DMLSIM_CHECK_GOTO(rc, attr_int(r, n, shape[i], 1, 1L << 24, 0, &v), out);
        *field[i] = (int)v;
    }
    DMLSIM_CHECK_GOTO(rc, read_model_impl(r, n, ms, transformer), out);
    if (ms->gpt.hidden % ms->gpt.heads != 0)
        return fail_at(r, n,
                       "<model hidden=\"%d\" heads=\"%d\">: expected hidden divisible by "
                       "heads",
                       ms->gpt.hidden, ms->gpt.heads);
    for (xmlNodePtr c = n->children; c != NULL; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        double params, flops, bwd = -1, act;
        char *lname = attr_dup(c, "name");
        static const char *const num[] = {"params", "flops", "backward-flops"};
        double *dst[] = {&params, &flops, &bwd};
        for (int i = 0; i < 3 && rc == DMLSIM_OK; i++) {
            char *val = attr_dup(c, num[i]);
            if (val && (units_parse_real(val, dst[i]) != 0 || *dst[i] < 0 ||
                        *dst[i] > UNITS_REAL_CEILING))
                rc = fail_at(r, c,
                             "<layer %s=\"%s\">: expected a number in [0, %g] (a count, such "
                             "as 2.5e9)",
                             num[i], val, UNITS_REAL_CEILING);
            free(val);
        }
        if (rc == DMLSIM_OK)
            rc = attr_quantity(r, c, "activation", UNIT_SIZE, UNIT_NONNEG, 0, &act);
        if (rc == DMLSIM_OK) model_add(&ms->explicit_, lname, params, flops, bwd, act);
        free(lname);
        if (rc != DMLSIM_OK) goto out;
    }
out:
    return rc;
}

/* How a worker's parameters and gradients travel: prefetch, RPCs, push, local aggregation. Needs
 * ps->mode (and backup-workers read from the element). */
static enum dmlsim_err read_ps_paths(struct reader *r, xmlNodePtr n, struct ps_spec *ps)
{
    ps->prefetch = attr_is(n, "prefetch", "yes");
    if (ps->prefetch && ps->mode == PS_ASYNC)
        return fail_at(r, n,
                       "<ps prefetch=\"yes\">: only with mode=\"sync\" (async workers take "
                       "each shard's verdict on the mailbox the parameters come on)");
    ps->per_tensor_rpc = attr_is(n, "rpc", "per-tensor");
    ps->push_during = attr_is(n, "push", "during-backward");
    ps->local_agg = attr_is(n, "local-aggregation", "yes");
    if (!ps->local_agg) return DMLSIM_OK;
    if (ps->mode == PS_ASYNC || ps->push_during)
        return fail_at(r, n,
                       "<ps local-aggregation=\"yes\">: a node reduces whole gradients before "
                       "its one push; expected mode=\"sync\" and push=\"after-backward\"");
    if (xmlHasProp(n, (const xmlChar *)"backup-workers"))
        return fail_at(r, n,
                       "<ps local-aggregation=\"yes\">: every node's push is waited for; "
                       "expected no backup-workers");
    return DMLSIM_OK;
}

static enum dmlsim_err read_ps(struct reader *r, xmlNodePtr n, struct ps_spec *ps)
{
    enum dmlsim_err rc;
    long v;
    ps->line = (int)node_line(n);
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "shards", 1, 4096, 1, &v), out);
    ps->shards = (int)v;
    char *a = attr_dup(n, "placement");
    ps->dedicated = a && strcmp(a, "dedicated") == 0;
    free(a);
    a = attr_dup(n, "split");
    ps->split_bytes = !a || strcmp(a, "bytes") == 0;
    free(a);
    a = attr_dup(n, "mode");
    ps->mode = a && strcmp(a, "async") == 0 ? PS_ASYNC : PS_SYNC;
    free(a);
    a = attr_dup(n, "coordinator");
    ps->coordinator = a && (strcmp(a, "yes") == 0 || strcmp(a, "enforce") == 0);
    ps->enforce = a && strcmp(a, "enforce") == 0;
    free(a);
    if (ps->mode == PS_SYNC && xmlHasProp(n, (const xmlChar *)"staleness")) {
        rc = fail_at(r, n, "<ps staleness>: only meaningful with mode=\"async\"");
        goto out;
    }
    if (ps->mode == PS_ASYNC && xmlHasProp(n, (const xmlChar *)"backup-workers")) {
        rc = fail_at(r, n, "<ps backup-workers>: only meaningful with mode=\"sync\"");
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "staleness", 0, 1000000, 0, &v), out);
    ps->staleness = (int)v;
    a = attr_dup(n, "consistency");
    ps->bounded = a && strcmp(a, "bounded") == 0;
    free(a);
    DMLSIM_CHECK_GOTO(rc, read_ps_paths(r, n, ps), out);
    a = attr_dup(n, "transport");
    ps->transport = catalog_transport(a ? a : "ideal");
    if (ps->transport == NULL) {
        rc = fail_at(r, n, "<ps transport=\"%s\">: unknown; expected one of: %s", a,
                     catalog_transport_names());
        free(a);
        goto out;
    }
    free(a);
    if (ps->mode == PS_SYNC && xmlHasProp(n, (const xmlChar *)"consistency")) {
        rc = fail_at(r, n, "<ps consistency>: only meaningful with mode=\"async\"");
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "backup-workers", 0, 1L << 20, 0, &v), out);
    ps->backup = (int)v;
out:
    return rc;
}

/* FlashAttention needs compute capability 8.0 and FP16 or BF16 inputs (Dao-AILab/flash-attention
 * README, "Installation and features"; FP8 training runs it in BF16): a transformer uses it by
 * default where it can, the materialised path elsewhere; asking for it elsewhere is an error. A
 * <platform> file's GPUs are not known here: it gets FlashAttention unless the scenario says
 * attention="materialised" (README, Compute). BERT's heads are not among the hybrid strategy's
 * stages: refused there. */
static enum dmlsim_err resolve_attention(struct reader *r, struct scenario *sc)
{
    struct model_spec *ms = &sc->model;
    const struct gpu_model *g = sc->has_cluster ? sc->cluster.gpu : NULL;
    enum gpu_dtype dt = sc->train.dtype;
    bool can = (g == NULL || g->sm >= 80) && model_dtype_bytes(dt) <= 2;
    if (!ms->present || ms->preset == NULL) return DMLSIM_OK;
    if (ms->gpt.head != BERT_HEAD_NONE && sc->train.strategy == STRAT_HYBRID)
        return dmlsim_fail(r->err, DMLSIM_EVALUE,
                           "%s:%d: <model head>: the hybrid strategy's stages hold the encoder "
                           "only; expected no head with strategy=\"hybrid\"",
                           r->path, ms->line);
    if (!ms->attn_set) {
        ms->gpt.attention = can ? ATTN_FLASH : ATTN_MATERIALISED;
        return DMLSIM_OK;
    }
    if (ms->gpt.attention != ATTN_FLASH || can) return DMLSIM_OK;
    return dmlsim_fail(r->err, DMLSIM_EVALUE,
                       "%s:%d: <model attention=\"flash\">: FlashAttention needs compute "
                       "capability 8.0 or later and fp16, bf16 or fp8 training (here %s, %s); "
                       "expected attention=\"materialised\"",
                       r->path, ms->line, g ? g->name : "?", catalog_dtype_name(dt));
}

/* The framework's costs: kernel launch, per bucket, per step; the optimizer's kernels. */
static enum dmlsim_err read_costs(struct reader *r, xmlNodePtr n, struct train_spec *t)
{
    enum dmlsim_err rc;
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "kernel-launch", UNIT_TIME, UNIT_NONNEG, DEFAULT_LAUNCH_S,
                                    &t->kernel_launch_s),
                      out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "bucket-overhead", UNIT_TIME, UNIT_NONNEG,
                                    DEFAULT_BUCKET_S, &t->bucket_overhead_s),
                      out);
    DMLSIM_CHECK_GOTO(
            rc,
            attr_quantity(r, n, "step-overhead", UNIT_TIME, UNIT_NONNEG, 0, &t->step_overhead_s),
            out);
    char *ok = attr_dup(n, "optimizer-kernels");
    t->per_tensor_opt = ok && strcmp(ok, "per-tensor") == 0;
    free(ok);
    char *amp = attr_dup(n, "amp");
    t->autocast = amp && strcmp(amp, "autocast") == 0;
    free(amp);
    char *ho = attr_dup(n, "host");
    t->host = !ho ? HOST_EAGER : strcmp(ho, "graphs") == 0 ? HOST_GRAPHS
            : strcmp(ho, "compiled") == 0                ? HOST_COMPILED
                                                         : HOST_EAGER;
    free(ho);
    /* PyTorch DDP syncs the module's state from rank 0 at construction (torch/nn/parallel/
     * distributed.py, _sync_module_states) */
    char *bc = attr_dup(n, "broadcast");
    t->broadcast = !bc || strcmp(bc, "yes") == 0;
    free(bc);
    char *fu = attr_dup(n, "fusion");
    t->horovod = fu && strcmp(fu, "horovod") == 0;
    free(fu);
    /* Horovod >= 0.21 defaults: 1 ms cycle, 128 MiB fusion buffer (horovod/horovod #2468,
     * horovod/common/operations.cc) */
    DMLSIM_CHECK_GOTO(
            rc, attr_quantity(r, n, "cycle-time", UNIT_TIME, UNIT_POSITIVE, 1e-3, &t->cycle_s),
            out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "fusion-threshold", UNIT_SIZE, UNIT_POSITIVE,
                                    128 * 1048576.0, &t->fusion_B),
                      out);
out:
    return rc;
}

/* hidden="256,128": comma-separated unit counts ("" or absent: none). */
static enum dmlsim_err read_hidden(struct reader *r, xmlNodePtr n, struct numerics_spec *nm)
{
    char *h = attr_dup(n, "hidden");
    enum dmlsim_err rc = DMLSIM_OK;
    char *save = NULL;
    for (char *t = h ? strtok_r(h, ",", &save) : NULL; t && rc == DMLSIM_OK;
         t = strtok_r(NULL, ",", &save)) {
        long v;
        if (nm->nhidden == NUMERICS_MAX_HIDDEN || units_parse_long(t, 1, 100000, &v) != 0)
            rc = fail_at(r, n, "<numerics hidden=\"%s\">: expected up to %d comma-separated unit "
                         "counts of 1 to 100000, such as \"256,128\"", t, NUMERICS_MAX_HIDDEN);
        else
            nm->hidden[nm->nhidden++] = (int)v;
    }
    free(h);
    return rc;
}

/* Debian's dataset-fashion-mnist package */
#define FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"

static enum dmlsim_err read_numerics(struct reader *r, xmlNodePtr n, struct numerics_spec *nm)
{
    enum dmlsim_err rc;
    long v;
    nm->present = true;
    nm->line = (int)node_line(n);
    char *dir = attr_dup(n, "dir");
    if (dir == NULL && attr_is(n, "dataset", "idx")) {
        rc = fail_at(r, n, "<numerics dataset=\"idx\">: expected dir=\"FOLDER\" of its IDX files");
        goto out;
    }
    nm->dir = dir ? resolve_path(r, dir) : mem_strdup(FASHION_MNIST_DIR);
    free(dir);
    DMLSIM_CHECK_GOTO(rc, read_hidden(r, n, nm), out);
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "lr", 0, false, 0.05, &nm->lr), out);
    nm->lr_linear = attr_is(n, "lr-scaling", "linear");
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "warmup", 0, 100000000, 0, &v), out);
    nm->warmup = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "target-accuracy", 0, true, 0, &nm->target), out);
    if (nm->target > 1) {
        rc = fail_at(r, n, "<numerics target-accuracy=\"%g\">: expected a fraction in [0, 1]",
                     nm->target);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "eval-every", 1, 1000000, 20, &v), out);
    nm->eval_every = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "train-examples", 1, 10000000, 0, &v), out);
    nm->train_n = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "test-examples", 1, 10000000, 0, &v), out);
    nm->test_n = (int)v;
    nm->cost_model = attr_dup(n, "cost-model");
    struct model probe;
    if (nm->cost_model && model_preset(nm->cost_model, NULL, DTYPE_FP32, &probe) != 0) {
        rc = fail_at(r, n, "<numerics cost-model=\"%s\">: unknown preset; expected one of: %s",
                     nm->cost_model, model_preset_names());
        goto out;
    }
    if (nm->cost_model) model_release(&probe);
out:
    return rc;
}

/* <data preset>: the dataset's defaults, or the sizes given (a sample of 1 B, free to decode). */
static enum dmlsim_err data_dataset(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    enum dmlsim_err rc = DMLSIM_OK;
    char *p = attr_dup(n, "preset");
    const struct dataset *ds = p ? catalog_dataset(p) : NULL;
    if (p && ds == NULL)
        rc = fail_at(r, n, "<data preset=\"%s\">: unknown dataset; expected one of: %s", p,
                     catalog_dataset_names());
    free(p);
    if (rc != DMLSIM_OK) return rc;
    long v;
    DMLSIM_CHECK_GOTO(rc,
                      attr_int(r, n, "samples", 1, 1L << 40, ds ? (long)ds->samples : 1L << 20, &v),
                      out);
    d->samples = (double)v;
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "sample-size", UNIT_SIZE, UNIT_POSITIVE,
                                   ds ? ds->sample_B : 1, &d->sample_B), out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "decoded-size", UNIT_SIZE, UNIT_POSITIVE,
                                   ds ? ds->decoded_B : d->sample_B, &d->decoded_B), out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "decode", UNIT_TIME, UNIT_NONNEG, ds ? ds->decode_s : 0,
                                   &d->decode_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "sample-sigma", 0, true, 0, &d->sample_sigma), out);
    if (d->sample_sigma > MAX_JITTER_SIGMA)
        rc = fail_at(r, n, "<data sample-sigma=\"%g\">: expected at most %g (the mean of the "
                     "largest of a batch's samples grows as e^(sigma^2))",
                     d->sample_sigma, (double)MAX_JITTER_SIGMA);
out:
    return rc;
}

#define N_OF(a) (sizeof(a) / sizeof(a)[0])

/* Which of names[0..n) attribute `name` is (the DTD admits no other), or 0 when absent. */
static int attr_choice(xmlNodePtr n, const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (attr_is(n, name, names[i])) return (int)i;
    return 0;
}

static const char *const data_formats[] = {"idx", "webdataset", "mds", "parquet"};
static const char *const data_sources[] = {"local-nvme", "remote", "memory"};
static const char *const data_caches[] = {"none", "memory", "nvme"};
static const char *const data_shuffles[] = {"none", "epoch", "buffer"}; /* enum data_shuffle */

const char *scenario_data_format_name(enum data_format f)
{
    return data_formats[f];
}

const char *scenario_data_source_name(enum data_source s)
{
    return data_sources[s];
}

const char *scenario_data_cache_name(enum data_cache c)
{
    return data_caches[c];
}

/* <data cache>: a tier in front of the remote store, with its capacity. */
static enum dmlsim_err data_cache(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    enum dmlsim_err rc = DMLSIM_OK;
    d->cache = (enum data_cache)attr_choice(n, "cache", data_caches, N_OF(data_caches));
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "cache-capacity", UNIT_SIZE, UNIT_NONNEG, 0,
                                        &d->cache_B), out);
    if (d->cache != CACHE_NONE && d->source != DATA_REMOTE)
        rc = fail_at(r, n, "<data cache=\"%s\">: a cache tier sits in front of the remote store; "
                     "expected source=\"remote\"", data_caches[d->cache]);
    else if (d->cache != CACHE_NONE && d->cache_B <= 0)
        rc = fail_at(r, n, "<data cache=\"%s\">: expected cache-capacity=\"SIZE\" > 0",
                     data_caches[d->cache]);
    else if (d->cache != CACHE_NONE && d->samples > DATA_CACHE_MAX_SAMPLES)
        rc = fail_at(r, n, "<data samples=\"%.0f\">: a cache tracks at most %.0f samples; expected "
                     "fewer samples, or no cache", d->samples, (double)DATA_CACHE_MAX_SAMPLES);
out:
    return rc;
}

/* A shard's samples when its writer closes it at `limit` bytes, samples of S bytes each:
 * WebDataset's ShardWriter starts a new shard once the size reached maxsize (the sample that
 * crosses it stays: ceil), MosaicML's MDSWriter and parquet-mr's row groups before a sample
 * would pass the limit (floor); at least one. */
static double shard_of_bytes(enum data_format f, double limit, double S)
{
    double k = f == DATA_WEBDATASET ? ceil(limit / S) : floor(limit / S);
    return k < 1 ? 1 : k;
}

/* <data shard-samples | shard-bytes>: how the writer cut the dataset into shards (row groups). */
static enum dmlsim_err data_shards(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    bool by_samples = xmlHasProp(n, (const xmlChar *)"shard-samples") != NULL;
    if (by_samples && xmlHasProp(n, (const xmlChar *)"shard-bytes"))
        return fail_at(r, n, "<data>: a shard is cut by samples or by bytes; expected one of "
                       "shard-samples and shard-bytes");
    /* MDS: MDSWriter's size_limit, 1 << 26 B (mosaicml/streaming, "Dataset Conversion Guide") */
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "shard-bytes", UNIT_SIZE, UNIT_POSITIVE,
                                        d->format == DATA_MDS && !by_samples ? 67108864.0 : 0,
                                        &d->shard_B), out);
    /* webdataset: 5,000 samples a shard (the seed notes' SHARD_SIZE); parquet: pyarrow's row
     * group of 1 Mi rows (apache/arrow #34280) */
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "shard-samples", 1, 1L << 40,
                              d->format == DATA_PARQUET ? 1L << 20 : 5000, &v), out);
    d->shard_samples = d->shard_B > 0 ? shard_of_bytes(d->format, d->shard_B, d->sample_B)
                                      : (double)v;
    if (d->shard_B > 0 && d->format == DATA_IDX)
        rc = fail_at(r, n, "<data shard-bytes>: an IDX file is one file, not shards; expected "
                     "format=\"webdataset\", \"mds\" or \"parquet\"");
out:
    return rc;
}

bool data_sample_corrupt(const struct data_spec *d, long long i)
{
    long long shard = (long long)((double)i / d->shard_samples);
    for (int k = 0; k < d->ncorrupt; k++)
        if (d->corrupt_shards[k] == shard) return true;
    return false;
}

static const char *const pp_schedules[] = {"1f1b", "gpipe", "interleaved"}; /* pp_schedule */
static const char *const recomputes[] = {"none", "selective", "full"}; /* enum recompute */

/* <parallel>: the dimensions and how the state is split over them. */
static enum dmlsim_err read_parallel(struct reader *r, xmlNodePtr n, struct parallel_spec *p)
{
    enum dmlsim_err rc;
    long v[4];
    static const char *const dims[] = {"tp", "pp", "dp", "microbatches"};
    for (int i = 0; i < 4; i++)
        DMLSIM_CHECK_GOTO(rc, attr_int(r, n, dims[i], 1, 1L << 20, 1, &v[i]), out);
    p->tp = (int)v[0];
    p->pp = (int)v[1];
    p->dp = (int)v[2];
    p->microbatches = (int)v[3];
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "ep", 1, 1L << 20, 1, &v[0]), out);
    p->ep = (int)v[0];
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "zero", 0, 3, 0, &v[0]), out);
    p->zero = (int)v[0];
    p->schedule = (enum pp_schedule)attr_choice(n, "schedule", pp_schedules, N_OF(pp_schedules));
    bool interleaved = p->schedule == PP_INTERLEAVED;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "virtual-stages", 1, 1L << 10, interleaved ? 2 : 1, &v[0]),
                      out);
    p->vstages = (int)v[0];
    if (p->vstages > 1 && !interleaved) {
        rc = fail_at(r, n, "<parallel virtual-stages=\"%d\">: model chunks a rank are the "
                     "interleaved schedule's; expected schedule=\"interleaved\"", p->vstages);
        goto out;
    }
    if (interleaved && (p->vstages < 2 || p->pp < 2)) {
        rc = fail_at(r, n, "<parallel schedule=\"interleaved\">: model chunks over pipeline "
                     "stages; expected pp of 2 or more and virtual-stages of 2 or more");
        goto out;
    }
    if (interleaved && p->microbatches % p->pp != 0) {
        rc = fail_at(r, n, "<parallel schedule=\"interleaved\" microbatches=\"%d\">: expected "
                     "a multiple of pp (%d), as Megatron's", p->microbatches, p->pp);
        goto out;
    }
    p->recompute = (enum recompute)attr_choice(n, "recompute", recomputes, N_OF(recomputes));
    p->sp = attr_is(n, "sequence-parallel", "yes");
    p->no_prefetch = attr_is(n, "prefetch", "no");
    p->dp_outer = attr_is(n, "order", "tp-pp-dp");
    p->line = (int)node_line(n);
    if (p->sp && p->tp < 2)
        rc = fail_at(r, n, "<parallel sequence-parallel=\"yes\">: it splits the sequence over "
                     "the tensor-parallel ranks; expected tp of 2 or more");
out:
    return rc;
}

const char *scenario_pp_schedule_name(enum pp_schedule s)
{
    return pp_schedules[s];
}

const char *scenario_recompute_name(enum recompute r)
{
    return recomputes[r];
}

/* <data>: the format's access pattern, where it lives, and the loader. */
static enum dmlsim_err read_data(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct data_spec *d = &sc->train.data;
    enum dmlsim_err rc;
    long v;
    d->present = true;
    d->seed = sc->seed;
    d->line = (int)node_line(n);
    DMLSIM_CHECK_GOTO(rc, data_dataset(r, n, d), out);
    d->format = (enum data_format)attr_choice(n, "format", data_formats, N_OF(data_formats));
    d->source = (enum data_source)attr_choice(n, "source", data_sources, N_OF(data_sources));
    DMLSIM_CHECK_GOTO(rc, data_shards(r, n, d), out);
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "columns", 0, false, 1, &d->columns), out);
    if (d->columns > 1) {
        rc = fail_at(r, n, "<data columns=\"%g\">: expected the selected columns' share of a "
                       "row's bytes, in (0, 1]", d->columns);
        goto out;
    }
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "request-latency", UNIT_TIME, UNIT_NONNEG,
                                   d->source == DATA_REMOTE ? CATALOG_OBJECT_REQUEST_S
                                   : d->source == DATA_LOCAL_NVME ? CATALOG_NVME_REQUEST_S
                                                                  : 0,
                                   &d->request_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "connection-rate", UNIT_BANDWIDTH, UNIT_POSITIVE,
                                   CATALOG_OBJECT_CONN_BPS, &d->conn_Bps), out);
    DMLSIM_CHECK_GOTO(rc, data_cache(r, n, d), out);
    d->shuffle = attr_choice(n, "shuffle", data_shuffles, N_OF(data_shuffles));
    d->by_class = attr_is(n, "layout", "by-class");
    /* WebDataset's default buffer: _shuffle(data, bufsize=1000, ...), webdataset/filters.py */
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "shuffle-buffer", 1, 1L << 24, 1000, &v), out);
    d->shuffle_buffer = (int)v;
    /* PyTorch's DataLoader defaults: num_workers 0 (in the training loop), prefetch_factor 2 */
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "loader-workers", 0, 1024, 0, &v), out);
    d->workers = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "prefetch", 1, 1024, 2, &v), out);
    d->prefetch = (int)v;
    d->pinned = attr_is(n, "pin-memory", "yes");
    d->gds = attr_is(n, "gds", "yes");
    if (d->gds && (d->source != DATA_LOCAL_NVME || d->decode_s > 0))
        rc = fail_at(r, n, "<data gds=\"yes\">: GPUDirect Storage reads a node's NVMe into GPU "
                       "memory, where no CPU decodes; expected source=\"local-nvme\" and "
                       "decode=\"0s\" (stored tensors)");
out:
    return rc;
}

/* What is trained: a <model> (timings only), or the <numerics> network, which is then also the
 * simulated model, so the two exclude each other; numerics needs fp32 (its gradients are the
 * floats the collectives carry). */
static enum dmlsim_err check_model_source(struct reader *r, xmlNodePtr n, const struct scenario *sc)
{
    const struct train_spec *t = &sc->train;
    if (!sc->model.present && !t->numerics.present)
        return fail_at(r, n, "<training>: nothing to train; expected a <model> before it, or a "
                       "<numerics> in it");
    if (sc->model.present && t->numerics.present)
        return fail_at(r, n, "<training>: <numerics> trains its own network, which is also the "
                       "simulated model; expected no <model>");
    if (t->numerics.present && t->dtype != DTYPE_FP32)
        return fail_at(r, n, "<training dtype=\"%s\">: <numerics> trains in fp32; expected "
                       "dtype=\"fp32\"", catalog_dtype_name(t->dtype));
    return DMLSIM_OK;
}

/* A child of <training>: <ps>, <parallel>, <data> or <numerics> (the DTD admits no other). */
static enum dmlsim_err read_training_child(struct reader *r, xmlNodePtr c, struct scenario *sc)
{
    struct train_spec *t = &sc->train;
    const char *name = (const char *)c->name;
    if (strcmp(name, "ps") == 0) return read_ps(r, c, &t->ps);
    if (strcmp(name, "parallel") == 0) return read_parallel(r, c, &t->par);
    if (strcmp(name, "data") == 0) return read_data(r, c, sc);
    return read_numerics(r, c, &t->numerics);
}

static enum dmlsim_err read_training(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct train_spec *t = &sc->train;
    enum dmlsim_err rc;
    long v;
    char *strat = attr_dup(n, "strategy");
    t->strategy = STRAT_ALLREDUCE; /* the DTD's default */
    for (int id = STRAT_NONE + 1; strat && id < STRAT_COUNT; id++)
        if (strcmp(strat, strategy_name((enum strategy_id)id)) == 0) t->strategy = id;
    free(strat);
    t->line = (int)node_line(n);
    t->par = (struct parallel_spec){.tp = 1, .pp = 1, .dp = 1, .ep = 1, .microbatches = 1,
                                    .vstages = 1,
                                    .line = t->line};
    t->ps = (struct ps_spec){.shards = 1,
                             .dedicated = false,
                             .split_bytes = true,
                             .mode = PS_SYNC,
                             .staleness = 0,
                             .backup = 0,
                             .line = t->line};
    for (xmlNodePtr c = n->children; c != NULL; c = c->next)
        if (c->type == XML_ELEMENT_NODE) DMLSIM_CHECK_GOTO(rc, read_training_child(r, c, sc), out);
    t->level = COLL_AUTO;
    DMLSIM_CHECK_GOTO(rc,
                      read_coll_attrs(r, n, COLL_ALLREDUCE, &t->algo, &t->nccl, &t->level, &t->gpus,
                                      &t->chunks),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "batch-per-gpu", 1, 1L << 24, 1, &v), out);
    t->batch = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "steps", 1, 1000000, DEFAULT_STEPS, &v), out);
    t->steps = (int)v;
    char *dt = attr_dup(n, "dtype");
    t->dtype = DTYPE_FP32;
    for (int d = 0; dt && d < DTYPE_COUNT; d++)
        if (strcmp(dt, catalog_dtype_name((enum gpu_dtype)d)) == 0) t->dtype = (enum gpu_dtype)d;
    free(dt);
    char *opt = attr_dup(n, "optimizer");
    t->opt = !opt || strcmp(opt, "momentum") == 0 ? OPT_MOMENTUM
             : strcmp(opt, "adam") == 0           ? OPT_ADAM
                                                  : OPT_SGD;
    free(opt);
    DMLSIM_CHECK_GOTO(
            rc,
            attr_quantity(r, n, "bucket", UNIT_SIZE, UNIT_POSITIVE, DEFAULT_BUCKET_B, &t->bucket_B),
            out);
    char *ov = attr_dup(n, "overlap"), *rp = attr_dup(n, "replay");
    t->overlap = !ov || strcmp(ov, "yes") == 0;
    t->replay = !rp || strcmp(rp, "yes") == 0;
    free(ov);
    free(rp);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "timeout", UNIT_TIME, UNIT_POSITIVE, DEFAULT_TIMEOUT_S,
                                    &t->timeout_s),
                      out);
    DMLSIM_CHECK_GOTO(rc, read_costs(r, n, t), out);
    DMLSIM_CHECK_GOTO(rc, resolve_attention(r, sc), out);
    rc = check_model_source(r, n, sc);
    /* what needs the platform (GPU count, dtype support, memory, placement hosts, backup
     * workers) is checked once, against the loaded platform, by the strategy (strategy.h) */
out:
    return rc;
}

/* A time attribute that may be absent (-1). */
static enum dmlsim_err opt_time(struct reader *r, xmlNodePtr n, const char *name,
                                enum unit_bound bound, double *out)
{
    return attr_quantity(r, n, name, UNIT_TIME, bound, -1, out);
}

static enum dmlsim_err read_checkpoint(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct checkpoint_spec *c = &sc->ckpt;
    enum dmlsim_err rc = DMLSIM_OK;
    c->present = true;
    c->line = (int)node_line(n);
    char *every = attr_dup(n, "every"), *num_end = NULL;
    long steps = strtol(every, &num_end, 10);
    while (num_end && *num_end == ' ')
        num_end++;
    if (num_end && num_end != every && strcmp(num_end, "steps") == 0 && steps >= 1) {
        c->every_steps = (int)steps;
    } else if (units_parse(every, UNIT_TIME, UNIT_POSITIVE, &c->every_s) != UNIT_OK) {
        rc = fail_at(r, n, "<checkpoint every=\"%s\">: expected \"N steps\" with N >= 1 or %s",
                     every, units_expected(UNIT_TIME));
    }
    free(every);
    char *a = attr_dup(n, "mode");
    c->async = a && strcmp(a, "async") == 0;
    free(a);
    a = attr_dup(n, "target");
    c->target = !a || strcmp(a, "remote") == 0 ? CKPT_REMOTE
                : strcmp(a, "cache") == 0      ? CKPT_CACHE
                                               : CKPT_LOCAL_NVME;
    free(a);
    return rc;
}

static enum dmlsim_err read_recovery(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    struct recovery_spec *rs = &sc->rec;
    enum dmlsim_err rc;
    long v;
    rs->line = (int)node_line(n);
    char *a = attr_dup(n, "policy");
    rs->elastic = !a || strcmp(a, "elastic") == 0;
    free(a);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "rendezvous-timeout", UNIT_TIME, UNIT_POSITIVE,
                                    rs->rendezvous_s, &rs->rendezvous_s),
                      out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_quantity(r, n, "replacement-timeout", UNIT_TIME, UNIT_POSITIVE,
                                    rs->replacement_s, &rs->replacement_s),
                      out);
    DMLSIM_CHECK_GOTO(rc,
                      attr_real(r, n, "straggler-threshold", 1.0, false, rs->straggler_threshold,
                                &rs->straggler_threshold),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "straggler-steps", 0, 1000000, 0, &v), out);
    rs->straggler_steps = (int)v;
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "max-restarts", 0, 1000000, DEFAULT_MAX_RESTARTS, &v),
                      out);
    rs->max_restarts = (int)v;
    rs->from_survivor = attr_is(n, "restore-from", "survivor");
    rs->skip_lost = attr_is(n, "lost-batches", "skip");
    rs->per_side = attr_is(n, "rendezvous", "per-side");
out:
    return rc;
}

static enum dmlsim_err read_straggler(struct reader *r, xmlNodePtr n, struct fault_spec *f)
{
    enum dmlsim_err rc;
    double until = -1, from = -1;
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "sigma", 0, false, 0, &f->sigma), out);
    if (xmlHasProp(n, (const xmlChar *)"jitter")) {
        /* sigma 4: the mean slow-down factor is already e^8 ~ 3000 (jitter's mean, README) */
        if (f->sigma <= 0 || f->sigma > MAX_JITTER_SIGMA)
            return fail_at(r, n, "<straggler jitter=\"lognormal\" sigma=\"%g\">: expected sigma in "
                           "(0, %g]", f->sigma, (double)MAX_JITTER_SIGMA);
        return DMLSIM_OK;
    }
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "factor", 1, false, 0, &f->factor), out);
    if (f->host == NULL || f->factor <= 1)
        return fail_at(r, n,
                       "<straggler>: expected host=\"...\" and factor > 1, or "
                       "jitter=\"lognormal\" sigma=\"...\"");
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "from", UNIT_NONNEG, &from), out);
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "until", UNIT_NONNEG, &until), out);
    f->at_s = from < 0 ? 0 : from;
    if (until >= 0 && until <= f->at_s)
        return fail_at(r, n, "<straggler until=\"...\">: expected until after from");
    f->for_s = until < 0 ? -1 : until - f->at_s;
out:
    return rc;
}

static enum dmlsim_err read_link_fault(struct reader *r, xmlNodePtr n, struct fault_spec *f)
{
    enum dmlsim_err rc;
    if ((f->link == NULL) == (f->node == NULL))
        return fail_at(r, n, "<%s>: expected exactly one of link=\"NAME\" and node=\"NAME\"",
                       (const char *)n->name);
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "for", UNIT_POSITIVE, &f->for_s), out);
    if (f->kind == FS_DEGRADE) {
        DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "factor", 0, false, 1, &f->factor), out);
        if (f->factor > 1)
            return fail_at(r, n, "<degrade factor=\"%g\">: expected a bandwidth factor in (0, 1]",
                           f->factor);
    }
out:
    return rc;
}

static enum dmlsim_err read_mtbf(struct reader *r, xmlNodePtr n, struct fault_spec *f)
{
    enum dmlsim_err rc;
    char *d = attr_dup(n, "distribution");
    f->weibull = d && strcmp(d, "weibull") == 0;
    free(d);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "mtbf", UNIT_TIME, UNIT_POSITIVE, 0, &f->mtbf_s),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "repair", UNIT_TIME, UNIT_NONNEG, 0, &f->restart_s),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_quantity(r, n, "until", UNIT_TIME, UNIT_POSITIVE, 0, &f->until_s),
                      out);
    DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "shape", 0, false, 1, &f->shape), out);
out:
    return rc;
}

/* Does one name contain the other ("node1" holds "node1.gpu0"), or are they equal? */
static bool names_overlap(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b), n = na < nb ? na : nb;
    return strncmp(a, b, n) == 0 && (na == nb || (na < nb ? b : a)[n] == '.');
}

/* Partition groups: two or more, separated by |, each a non-empty comma list of names, no name
 * in two places. */
static enum dmlsim_err check_groups(struct reader *r, xmlNodePtr n, const char *groups)
{
    char *copy = mem_strdup(groups), *names[256];
    int ngroups = 1, nnames = 0;
    const char *why = NULL;
    for (char *p = copy, *grp = copy; grp && !why; grp = p) {
        p = strchr(grp, '|');
        if (p) *p++ = '\0', ngroups++;
        for (char *q = grp, *name = grp; name && !why; name = q) {
            q = strchr(name, ',');
            if (q) *q++ = '\0';
            if (name[0] == '\0') why = "an empty group or name";
            for (int i = 0; i < nnames && !why; i++)
                if (names_overlap(names[i], name)) why = "a name in two places";
            if (!why && nnames == (int)(sizeof names / sizeof names[0])) why = "over 256 names";
            if (!why) names[nnames++] = name;
        }
    }
    if (!why && ngroups < 2) why = "one group";
    enum dmlsim_err rc = DMLSIM_OK;
    if (why)
        rc = fail_at(r, n,
                     "<partition groups=\"%s\">: %s; expected two or more groups of distinct "
                     "names separated by |, such as \"node0,node1|node2\"",
                     groups, why);
    free(copy);
    return rc;
}

/* The kind-specific attributes and rules of one <faults> child. */
static enum dmlsim_err read_fault_kind(struct reader *r, xmlNodePtr n, struct fault_spec *f)
{
    enum dmlsim_err rc = DMLSIM_OK;
    switch (f->kind) {
    case FS_CRASH:
        if ((f->at_s < 0) == (f->step < 0))
            return fail_at(r, n, "<crash>: expected exactly one of at=\"TIME\" and step=\"N\"");
        return DMLSIM_OK;
    case FS_STRAGGLER:
        return read_straggler(r, n, f);
    case FS_LINK_DOWN:
    case FS_DEGRADE:
        return read_link_fault(r, n, f);
    case FS_PARTITION:
        DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "heal-after", UNIT_POSITIVE, &f->for_s), out);
        return check_groups(r, n, f->groups);
    case FS_CORRUPT:
        DMLSIM_CHECK_GOTO(rc, attr_real(r, n, "probability", 0, true, 0, &f->probability), out);
        if (f->probability > 1 || ((f->step < 0 || f->host == NULL) && f->probability <= 0))
            return fail_at(r, n,
                           "<corrupt-batch>: expected host=\"...\" step=\"N\", or a "
                           "probability in (0, 1]");
        return DMLSIM_OK;
    case FS_MTBF:
        return read_mtbf(r, n, f);
    case FS_CORRUPT_SHARD:
    case FS_CACHE_CRASH:
        return DMLSIM_OK; /* read_data_fault, which needs the <data> */
    }
out:
    return rc;
}

/* The <faults> children, by kind. */
static const char *const fault_elements[] = {
        [FS_CRASH] = "crash",         [FS_STRAGGLER] = "straggler", [FS_LINK_DOWN] = "link-down",
        [FS_DEGRADE] = "degrade",     [FS_PARTITION] = "partition", [FS_CORRUPT] = "corrupt-batch",
        [FS_MTBF] = "mtbf",           [FS_CORRUPT_SHARD] = "corrupt-shard",
        [FS_CACHE_CRASH] = "cache-crash"};

const char *scenario_fault_element(enum fault_spec_kind k)
{
    return (size_t)k < sizeof fault_elements / sizeof fault_elements[0] ? fault_elements[k] : "?";
}

int scenario_partition_groups(const struct fault_spec *f)
{
    int n = 1;
    for (const char *p = f->groups; p && *p; p++)
        n += *p == '|';
    return n;
}

int scenario_partition_group(const struct fault_spec *f, const char *name)
{
    size_t len = strlen(name);
    int g = 0;
    for (const char *p = f->groups; p && *p;) {
        size_t n = strcspn(p, ",|");
        if (n == len && strncmp(p, name, len) == 0) return g;
        p += n;
        if (*p == '|') g++;
        if (*p) p++;
    }
    return 0;
}

void scenario_partition_link(const struct fault_spec *f, int g, char *buf, size_t len)
{
    snprintf(buf, len, "partition.line%d.g%d", f->line, g);
}

/* <corrupt-shard shard="K">: the pipeline's format has shards, and K is one of them. */
static enum dmlsim_err read_corrupt_shard(struct reader *r, xmlNodePtr n, struct data_spec *d)
{
    if (!d->present || d->format == DATA_IDX)
        return fail_at(r, n, "<corrupt-shard>: a shard of the input pipeline's files; expected a "
                       "<data format=\"webdataset\", \"mds\" or \"parquet\"> in <training>");
    long v, shards = (long)ceil(d->samples / d->shard_samples);
    enum dmlsim_err rc = attr_int(r, n, "shard", 0, shards - 1, 0, &v);
    if (rc != DMLSIM_OK) return rc;
    d->corrupt_shards = mem_realloc(d->corrupt_shards,
                                    (size_t)(d->ncorrupt + 1) * sizeof *d->corrupt_shards);
    d->corrupt_shards[d->ncorrupt++] = v;
    return DMLSIM_OK;
}

/* <cache-crash node at [restart-after]>: the pipeline has a cache tier. */
static enum dmlsim_err read_cache_crash(struct reader *r, xmlNodePtr n, struct data_spec *d,
                                        const struct fault_spec *f)
{
    if (!d->present || d->cache == CACHE_NONE)
        return fail_at(r, n, "<cache-crash>: the cache tier of the input pipeline; expected a "
                       "<data cache=\"memory\" or \"nvme\"> in <training>");
    if (f->at_s < 0 || f->node == NULL || strlen(f->node) >= sizeof d->cache_crashes->node)
        return fail_at(r, n, "<cache-crash>: expected node=\"NAME\" and at=\"TIME\"");
    d->cache_crashes = mem_realloc(d->cache_crashes,
                                   (size_t)(d->ncache_crashes + 1) * sizeof *d->cache_crashes);
    struct cache_crash *c = &d->cache_crashes[d->ncache_crashes++];
    *c = (struct cache_crash){.at_s = f->at_s, .down_s = f->restart_s > 0 ? f->restart_s : 0,
                              .line = f->line};
    snprintf(c->node, sizeof c->node, "%s", f->node);
    return DMLSIM_OK;
}

static enum dmlsim_err read_fault(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    enum dmlsim_err rc = DMLSIM_OK;
    long v;
    sc->faults = mem_realloc(sc->faults, (sc->nfaults + 1) * sizeof *sc->faults);
    struct fault_spec *f = &sc->faults[sc->nfaults++];
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < sizeof fault_elements / sizeof fault_elements[0]; i++)
        if (fault_elements[i] && strcmp((const char *)n->name, fault_elements[i]) == 0)
            f->kind = (enum fault_spec_kind)i;
    f->line = (int)node_line(n);
    f->host = attr_dup(n, "host");
    f->link = attr_dup(n, "link");
    f->node = attr_dup(n, "node");
    f->groups = attr_dup(n, "groups");
    f->step = -1;
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "at", UNIT_NONNEG, &f->at_s), out);
    DMLSIM_CHECK_GOTO(rc, attr_int(r, n, "step", 0, 100000000, -1, &v), out);
    f->step = (int)v;
    DMLSIM_CHECK_GOTO(rc, opt_time(r, n, "restart-after", UNIT_NONNEG, &f->restart_s), out);
    if (f->step >= 0 && sc->train.strategy != STRAT_NONE && f->step >= sc->train.steps)
        return fail_at(r, n, "<%s step=\"%d\">: the run has steps 0 to %d, so it would never "
                       "happen; expected a step below %d", (const char *)n->name, f->step,
                       sc->train.steps - 1, sc->train.steps);
    rc = read_fault_kind(r, n, f);
    if (rc == DMLSIM_OK && f->kind == FS_CORRUPT_SHARD)
        rc = read_corrupt_shard(r, n, &sc->train.data);
    else if (rc == DMLSIM_OK && f->kind == FS_CACHE_CRASH)
        rc = read_cache_crash(r, n, &sc->train.data, f);
out:
    return rc;
}

static enum dmlsim_err read_expect(struct reader *r, xmlNodePtr n, struct scenario *sc)
{
    sc->expects = mem_realloc(sc->expects, (sc->nexpects + 1) * sizeof *sc->expects);
    struct expect_spec *e = &sc->expects[sc->nexpects++];
    e->metric = attr_dup(n, "metric");
    e->line = (int)node_line(n);
    e->min = -INFINITY;
    e->max = INFINITY;
    if (sc->train.strategy == STRAT_NONE)
        return fail_at(r, n,
                       "<expect>: metrics describe training; expected a <training> in the "
                       "scenario");
    /* the metric's name: expect_validate (the strategies' metrics are above this layer) */
    static const char *const bound[] = {"min", "max"};
    double *dst[] = {&e->min, &e->max};
    for (int i = 0; i < 2; i++) {
        char *v = attr_dup(n, bound[i]);
        if (v && units_parse_real(v, dst[i]) != 0) {
            enum dmlsim_err rc =
                    fail_at(r, n, "<expect %s=\"%s\">: expected a plain number", bound[i], v);
            free(v);
            return rc;
        }
        free(v);
    }
    if (e->min == -INFINITY && e->max == INFINITY)
        return fail_at(r, n, "<expect metric=\"%s\">: expected min=\"...\" or max=\"...\"",
                       e->metric);
    if (e->min > e->max)
        return fail_at(r, n, "<expect metric=\"%s\" min=\"%g\" max=\"%g\">: empty range; expected "
                       "min <= max", e->metric, e->min, e->max);
    return DMLSIM_OK;
}

static enum dmlsim_err read_scenario(struct reader *r, xmlNodePtr root, struct scenario *sc)
{
    enum dmlsim_err rc = DMLSIM_OK;
    sc->name = attr_dup(root, "name");
    if (sc->name == NULL) {
        const char *base = strrchr(sc->path, '/');
        base = base ? base + 1 : sc->path;
        size_t len = strlen(base);
        if (len > 4 && strcmp(base + len - 4, ".xml") == 0) len -= 4;
        sc->name = mem_strdup(base);
        sc->name[len] = '\0';
    }
    char *seed = attr_dup(root, "seed");
    long s = (long)DEFAULT_SEED;
    if (seed != NULL && units_parse_long(seed, 0, LONG_MAX, &s) != 0)
        rc = fail_at(r, root, "<scenario seed=\"%s\">: expected an integer >= 0", seed);
    free(seed);
    if (rc != DMLSIM_OK) return rc;
    sc->seed = (unsigned long)s;
    sc->rec = (struct recovery_spec){.elastic = true,
                                     .rendezvous_s = DEFAULT_RDZV_S,
                                     .replacement_s = DEFAULT_REPLACEMENT_S,
                                     .straggler_threshold = 2,
                                     .straggler_steps = 0,
                                     .max_restarts = DEFAULT_MAX_RESTARTS,
                                     .line = (int)node_line(root)};
    char *model = attr_dup(root, "network-model");
    sc->net_model = (model && strcmp(model, "LV08") == 0) ? NET_LV08 : NET_CM02;
    free(model);

    for (xmlNodePtr n = root->children; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        const char *name = (const char *)n->name;
        if (strcmp(name, "cluster") == 0) {
            sc->has_cluster = true;
            sc->cluster_line = (int)node_line(n);
            rc = read_cluster(r, n, &sc->cluster);
        } else if (strcmp(name, "platform") == 0) {
            sc->cluster_line = (int)node_line(n);
            rc = read_platform(r, n, sc);
        } else if (strcmp(name, "benchmark") == 0) {
            rc = read_benchmark(r, n, sc);
        } else if (strcmp(name, "model") == 0) {
            rc = read_model(r, n, sc);
        } else if (strcmp(name, "training") == 0) {
            rc = read_training(r, n, sc);
        } else if (strcmp(name, "calib") == 0) {
            char *file = attr_dup(n, "file");
            const char *slash = strrchr(r->path, '/');
            sc->calib_file = file[0] == '/' || !slash
                                     ? mem_strdup(file)
                                     : mem_printf("%.*s/%s", (int)(slash - r->path), r->path, file);
            free(file);
        } else if (strcmp(name, "checkpoint") == 0) {
            rc = read_checkpoint(r, n, sc);
        } else if (strcmp(name, "recovery") == 0) {
            rc = read_recovery(r, n, sc);
        } else if (strcmp(name, "expect") == 0) {
            rc = read_expect(r, n, sc);
        } else if (strcmp(name, "faults") == 0) {
            for (xmlNodePtr f = n->children; f != NULL && rc == DMLSIM_OK; f = f->next)
                if (f->type == XML_ELEMENT_NODE) rc = read_fault(r, f, sc);
        }
        if (rc != DMLSIM_OK) return rc;
        /* the DTD puts <cluster> first, so its topology is known here */
        if (sc->has_cluster && sc->cluster.topology == TOPO_FLAT &&
            (strcmp(name, "faults") == 0 || strcmp(name, "checkpoint") == 0))
            return fail_at(r, n,
                           "<%s>: a flat cluster has no per-node links, CPU hosts or storage to "
                           "fail or write to; expected topology=\"star\" for faults and "
                           "checkpoints",
                           name);
    }
    return DMLSIM_OK;
}

/* ---- load --------------------------------------------------------------------------------- */

xmlDtdPtr scenario_dtd_parse(void)
{
    xmlParserInputBufferPtr buf =
            xmlParserInputBufferCreateMem((const char *)dmlsim_scenario_dtd,
                                          (int)dmlsim_scenario_dtd_len, XML_CHAR_ENCODING_NONE);
    return buf ? xmlIOParseDTD(NULL, buf, XML_CHAR_ENCODING_NONE) : NULL;
}

/* First element called `name` in document order, or NULL. */
static xmlNodePtr find_element(xmlNodePtr n, const char *name)
{
    for (; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        if (strcmp((const char *)n->name, name) == 0) return n;
        xmlNodePtr found = find_element(n->children, name);
        if (found) return found;
    }
    return NULL;
}

/* Applies override o (value NULL: --unset, which removes the attribute) to its element. */
static enum dmlsim_err apply_override(struct reader *r, xmlNodePtr root,
                                      const struct scenario_override *o)
{
    const char *opt = o->value ? "--set" : "--unset", *dot = strchr(o->path, '.');
    char elem[64];
    if (dot == NULL || dot == o->path || dot[1] == '\0' || (size_t)(dot - o->path) >= sizeof elem)
        return dmlsim_fail(r->err, DMLSIM_EUSAGE,
                           "%s:0: %s %s: expected ELEMENT.ATTRIBUTE%s, such as training.gpus%s",
                           r->path, opt, o->path, o->value ? "=VALUE" : "", o->value ? "=8" : "");
    snprintf(elem, sizeof elem, "%.*s", (int)(dot - o->path), o->path);
    xmlNodePtr n = find_element(root, elem);
    if (n == NULL)
        return dmlsim_fail(r->err, DMLSIM_EUSAGE,
                           "%s:0: %s %s: the scenario has no <%s>; expected an element it has",
                           r->path, opt, o->path, elem);
    const xmlChar *attr = (const xmlChar *)(dot + 1);
    if (o->value != NULL)
        xmlSetProp(n, attr, (const xmlChar *)o->value);
    else if (xmlUnsetProp(n, attr) != 0)
        return dmlsim_fail(r->err, DMLSIM_EUSAGE,
                           "%s:%ld: --unset %s: <%s> has no attribute %s; expected one it has",
                           r->path, xmlGetLineNo(n), o->path, elem, dot + 1);
    return DMLSIM_OK;
}

static enum dmlsim_err apply_overrides(struct reader *r, xmlNodePtr root,
                                       const struct scenario_override *ov, size_t nov)
{
    for (size_t i = 0; i < nov; i++) {
        enum dmlsim_err rc = apply_override(r, root, &ov[i]);
        if (rc != DMLSIM_OK) return rc;
    }
    return DMLSIM_OK;
}

enum dmlsim_err scenario_load(const char *path, struct scenario *sc, struct dmlsim_error *err)
{
    return scenario_load_with(path, NULL, 0, sc, err);
}

enum dmlsim_err scenario_load_with(const char *path, const struct scenario_override *ov, size_t nov,
                                   struct scenario *sc, struct dmlsim_error *err)
{
    struct reader r = {.path = path, .err = err, .dtd = NULL};
    struct xml_capture cap = {0};
    enum dmlsim_err rc = DMLSIM_OK;
    xmlDocPtr doc = NULL;
    xmlValidCtxtPtr vctxt = NULL;

    memset(sc, 0, sizeof *sc);
    sc->path = mem_strdup(path);
    DMLSIM_CHECK_GOTO(rc, xmldoc_read(path, &doc, err), out);
    r.dtd = scenario_dtd_parse();
    if (r.dtd == NULL) { /* the DTD is compiled in: failing to parse it is a build bug */
        rc = dmlsim_fail(err, DMLSIM_ESCHEMA, "%s:0: internal error: bad built-in scenario dtd",
                         path);
        goto out_free_doc;
    }
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (root == NULL || strcmp((const char *)root->name, "scenario") != 0) {
        rc = dmlsim_fail(err, DMLSIM_ESCHEMA, "%s:%ld: root element <%s>; expected <scenario>",
                         path, node_line(root), root ? (const char *)root->name : "");
        goto out_free_dtd;
    }
    DMLSIM_CHECK_GOTO(rc, apply_overrides(&r, root, ov, nov), out_free_dtd);
    DMLSIM_CHECK_GOTO(rc, check_doctype(&r, doc), out_free_dtd);
    DMLSIM_CHECK_GOTO(rc, check_names(&r, (xmlNodePtr)doc), out_free_dtd);

    vctxt = xmlNewValidCtxt();
    xmldoc_capture_begin(&cap);
    int valid = xmlValidateDtd(vctxt, doc, r.dtd);
    xmldoc_capture_end();
    if (!valid || cap.have) {
        rc = dmlsim_fail(err, DMLSIM_ESCHEMA, "%s:%d: %s (see scenarios/scenario.dtd)", path,
                         cap.line, cap.have ? cap.msg : "does not match the scenario dtd");
        goto out_free_valid;
    }
    rc = read_scenario(&r, root, sc);
    if (rc != DMLSIM_OK && r.err) r.err->code = rc;

out_free_valid:
    xmlFreeValidCtxt(vctxt);
out_free_dtd:
    xmlFreeDtd(r.dtd);
out_free_doc:
    xmlFreeDoc(doc);
out:
    if (rc != DMLSIM_OK)
        scenario_release(sc);
    else
        assert(scenario_is_sane(sc));
    return rc;
}

void scenario_build_model(const struct scenario *sc, struct model *m)
{
    const struct model_spec *ms = &sc->model;
    enum gpu_dtype dt = sc->train.strategy != STRAT_NONE ? sc->train.dtype : DTYPE_FP32;
    if (ms->preset != NULL) {
        struct gpt_config g = ms->gpt;
        g.autocast = sc->train.autocast;
        model_preset(ms->preset, &g, dt, m);
        return;
    }
    model_init(m, ms->explicit_.name);
    for (size_t i = 0; i < ms->explicit_.nlayers; i++) {
        const struct layer *l = &ms->explicit_.layers[i];
        model_add(m, l->name, l->params, l->fwd_flops, l->bwd_flops, l->act_B);
        m->layers[m->nlayers - 1] = *l; /* with its GEMM shape and kernels, if any */
    }
}

void scenario_release(struct scenario *sc)
{
    free(sc->path);
    free(sc->name);
    free(sc->platform_file);
    free(sc->calib_file);
    for (size_t i = 0; i < sc->bench.npairs; i++) {
        free(sc->bench.pairs[i].src);
        free(sc->bench.pairs[i].dst);
    }
    free(sc->bench.pairs);
    free(sc->model.preset);
    free(sc->train.data.corrupt_shards);
    free(sc->train.data.cache_crashes);
    free(sc->train.numerics.dir);
    free(sc->train.numerics.cost_model);
    for (size_t i = 0; i < sc->nfaults; i++) {
        free(sc->faults[i].host);
        free(sc->faults[i].link);
        free(sc->faults[i].node);
        free(sc->faults[i].groups);
    }
    free(sc->faults);
    for (size_t i = 0; i < sc->nexpects; i++)
        free(sc->expects[i].metric);
    free(sc->expects);
    model_release(&sc->model.explicit_);
    memset(sc, 0, sizeof *sc);
}

const char *topology_name(enum topology t)
{
    static const char *const names[] = {
            [TOPO_STAR] = "star", [TOPO_FATTREE] = "fat-tree", [TOPO_FLAT] = "flat"};
    return names[t];
}

bool scenario_is_sane(const struct scenario *sc)
{
    if (sc->path == NULL || sc->name == NULL) return false;
    if (sc->has_cluster) {
        const struct cluster_spec *c = &sc->cluster;
        if (c->nodes < 1 || c->gpus_per_node < 1 || c->gpu == NULL || c->pcie == NULL ||
            c->intra == NULL || (c->nodes > 1 && c->nic == NULL) || c->nics_per_node < 1 ||
            c->nodes_per_leaf < 1 || c->spines < 1 || c->oversubscription < 1 || c->ps_nodes < 0)
            return false;
    } else if (sc->platform_file == NULL) {
        return false;
    }
    if (sc->bench.kind == BENCH_P2P && sc->bench.npairs == 0) return false;
    if (sc->bench.kind != BENCH_NONE &&
        (sc->bench.begin_B <= 0 || sc->bench.end_B < sc->bench.begin_B))
        return false;
    if (sc->train.strategy != STRAT_NONE &&
        (!sc->model.present || sc->train.algo >= COLL_NALGOS || sc->train.batch < 1 ||
         sc->train.steps < 1 || sc->train.bucket_B <= 0))
        return false;
    return true;
}

int cluster_gpu_count(const struct cluster_spec *c)
{
    return c->nodes * c->gpus_per_node;
}
