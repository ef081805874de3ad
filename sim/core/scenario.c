/* scenario.c - scenario XML to struct scenario (see scenario.h).
 *
 * Order of checks, each stopping at the first problem: well-formed XML (libxml2's parser), unknown
 * elements and attributes (our own walk over the tree, so the message can list what is allowed),
 * the DTD (libxml2's validator, for structure and enumerations), then values (units, ranges,
 * catalog names, cross-field rules), each message carrying the line of the element at fault.
 */
#include "scenario.h"

#include "attr.h"
#include "mem.h"
#include "model_recsys.h"
#include "scen_campaign.h"
#include "scen_emb.h"
#include "scen_store.h"
#include "scen_check.h"
#include "scen_cluster.h"
#include "scen_fault.h"
#include "scen_train.h"
#include "units.h"
#include "xmldoc.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Generated at configure time from scenarios/scenario.dtd (see CMakeLists.txt). */
extern const unsigned char dmlsim_scenario_dtd[];
extern const size_t dmlsim_scenario_dtd_len;


/* ---- elements ----------------------------------------------------------------------------- */

/* <recovery>'s defaults (attr_spec.c), which apply when a scenario has none. */
static struct recovery_spec recovery_defaults(int line)
{
    static const char *const num[] = {"rendezvous-timeout", "replacement-timeout",
                                       "straggler-threshold", "straggler-steps", "max-restarts",
                                       "restart-time"};
    double d[6];
    for (int i = 0; i < 6; i++)
        d[i] = attr_spec_get("recovery", num[i])->def;
    return (struct recovery_spec){
            .elastic = strcmp(attr_spec_get("recovery", "policy")->def_text, "elastic") == 0,
            .rendezvous_s = d[0],
            .replacement_s = d[1],
            .straggler_threshold = d[2],
            .straggler_steps = (int)d[3],
            .max_restarts = (int)d[4],
            .restart_s = d[5],
            .line = line};
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
    const struct attr_spec *ss = attr_spec_get("scenario", "seed");
    long s = (long)ss->def;
    if (seed != NULL && units_parse_long(seed, (long)ss->min, LONG_MAX, &s) != 0)
        rc = attr_fail(r, root, "<scenario seed=\"%s\">: expected an integer >= 0", seed);
    free(seed);
    if (rc != DMLSIM_OK) return rc;
    sc->seed = (unsigned long)s;
    sc->rec = recovery_defaults((int)attr_line(root));
    sc->net_model = attr_get_is(root, "network-model", "LV08") ? NET_LV08 : NET_CM02;

    for (xmlNodePtr n = root->children; n != NULL; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        const char *name = (const char *)n->name;
        if (strcmp(name, "cluster") == 0) {
            sc->has_cluster = true;
            sc->cluster_line = (int)attr_line(n);
            rc = scen_cluster_read(r, n, &sc->cluster);
        } else if (strcmp(name, "platform") == 0) {
            sc->cluster_line = (int)attr_line(n);
            rc = scen_cluster_read_platform(r, n, sc);
        } else if (strcmp(name, "storage") == 0) {
            rc = scen_store_read(r, n, sc);
        } else if (strcmp(name, "benchmark") == 0) {
            rc = scen_cluster_read_benchmark(r, n, sc);
        } else if (strcmp(name, "model") == 0) {
            rc = scen_train_read_model(r, n, sc);
        } else if (strcmp(name, "training") == 0) {
            rc = scen_train_read(r, n, sc);
        } else if (strcmp(name, "calib") == 0) {
            char *file = attr_dup(n, "file");
            const char *slash = strrchr(r->path, '/');
            sc->calib_file = file[0] == '/' || !slash
                                     ? mem_strdup(file)
                                     : mem_printf("%.*s/%s", (int)(slash - r->path), r->path, file);
            free(file);
        } else if (strcmp(name, "checkpoint") == 0) {
            rc = scen_fault_read_checkpoint(r, n, sc);
        } else if (strcmp(name, "recovery") == 0) {
            rc = scen_fault_read_recovery(r, n, sc);
        } else if (strcmp(name, "campaign") == 0) {
            rc = scen_campaign_read(r, n, sc);
        } else if (strcmp(name, "expect") == 0) {
            rc = scen_fault_read_expect(r, n, sc);
        } else if (strcmp(name, "faults") == 0) {
            for (xmlNodePtr f = n->children; f != NULL && rc == DMLSIM_OK; f = f->next)
                if (f->type == XML_ELEMENT_NODE) rc = scen_fault_read(r, f, sc);
        }
        if (rc != DMLSIM_OK) return rc;
        /* the DTD puts <cluster> first, so its topology is known here */
        if (sc->has_cluster && sc->cluster.topology == TOPO_FLAT &&
            (strcmp(name, "faults") == 0 || strcmp(name, "checkpoint") == 0))
            return attr_fail(r, n,
                           "<%s>: a flat cluster has no per-node links, CPU hosts or storage to "
                           "fail or write to; expected topology=\"star\" for faults and "
                           "checkpoints",
                           name);
    }
    return scen_emb_check(r, sc);
}

/* ---- load --------------------------------------------------------------------------------- */

xmlDtdPtr scenario_dtd_parse(void)
{
    xmlParserInputBufferPtr buf =
            xmlParserInputBufferCreateMem((const char *)dmlsim_scenario_dtd,
                                          (int)dmlsim_scenario_dtd_len, XML_CHAR_ENCODING_NONE);
    return buf ? xmlIOParseDTD(NULL, buf, XML_CHAR_ENCODING_NONE) : NULL;
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
    xmlNodePtr n = xmldoc_find(root, elem);
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

enum dmlsim_err scenario_override_doc(const char *path, struct _xmlDoc *doc,
                                      const struct scenario_override *ov, size_t nov,
                                      struct dmlsim_error *err)
{
    struct reader r = {.path = path, .err = err, .dtd = NULL};
    return apply_overrides(&r, xmlDocGetRootElement(doc), ov, nov);
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
                         path, attr_line(root), root ? (const char *)root->name : "");
        goto out_free_dtd;
    }
    DMLSIM_CHECK_GOTO(rc, apply_overrides(&r, root, ov, nov), out_free_dtd);
    DMLSIM_CHECK_GOTO(rc, scen_check_doctype(&r, doc), out_free_dtd);
    DMLSIM_CHECK_GOTO(rc, scen_check_names(&r, (xmlNodePtr)doc), out_free_dtd);

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
        model_preset_any(ms->preset, &g, dt, m);
        return;
    }
    model_init(m, ms->explicit_.name);
    for (size_t i = 0; i < ms->explicit_.nlayers; i++) {
        const struct layer *l = &ms->explicit_.layers[i];
        model_add(m, l->name, l->params, l->fwd_flops, l->bwd_flops, l->act_B);
        m->layers[m->nlayers - 1] = *l; /* with its GEMM shape and kernels, if any */
    }
    if (ms->explicit_.ntables > 0) { /* the layers' emb indices name these */
        m->tables = mem_realloc(NULL, ms->explicit_.ntables * sizeof *m->tables);
        memcpy(m->tables, ms->explicit_.tables, ms->explicit_.ntables * sizeof *m->tables);
        m->ntables = ms->explicit_.ntables;
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
    scen_emb_release(&sc->model);
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
