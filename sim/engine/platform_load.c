/* platform_load.c - opening, loading and sealing a platform: the generated or user document
 * checked and sized, written into the run's folder with the fault plan's profiles, loaded into
 * SimGrid, its hosts sorted into the rank maps (see platform.h: platform_open, platform_load,
 * platform_setup, platform_close). */
#include "platform.h"

#include "platform_fault.h"
#include "platform_mem.h"
#include "platform_route.h"
#include "platform_rundir.h"
#include "platform_user.h"
#include "platform_xml.h"
#include "xmldoc.h"

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        platform_mem_generated_size(sc, &d->size);
    else if (rc == DMLSIM_OK)
        rc = platform_user_check(sc->platform_file, &d->size, err);
    if (rc == DMLSIM_OK) rc = platform_mem_check(sc, &d->size, err);
    if (rc == DMLSIM_OK) rc = platform_rundir_make(sc, d->dir, sizeof d->dir, err);
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
            struct platform_fault_copy cc = {from, d->dir};
            platform_xml_walk(xmlDocGetRootElement(d->doc), platform_fault_copy_profiles, &cc);
            free(from);
        }
    }
    free(path);
    if (rc == DMLSIM_OK && d->doc) {
        platform_xml_walk(xmlDocGetRootElement(d->doc), platform_fault_collect_names, names);
        qsort(names->gpus, names->ngpus, sizeof *names->gpus, platform_fault_name_cmp);
    }
    return rc;
}

void platform_close(struct platform_doc *d)
{
    if (d == NULL) return;
    xmlFreeDoc(d->doc);
    platform_rundir_release(d->dir);
    free(d);
}

enum dmlsim_err platform_load(const struct scenario *sc, struct platform_doc *d,
                              const struct fault_plan *plan, struct platform **out,
                              struct dmlsim_error *err)
{
    char *path = bprintf("%s/platform.xml", d->dir);
    *out = NULL;
    if (d->doc) {
        platform_fault_write_plan(xmlDocGetRootElement(d->doc), d->dir, plan);
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
    enum dmlsim_err rc = sc->has_cluster ? DMLSIM_OK : platform_route_check(sc, pf, err);
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
    if (rc == DMLSIM_OK) rc = platform_mem_choose_guard_pages(sc, doc->size.gpus, err);
    if (rc == DMLSIM_OK) rc = fault_plan_build(sc, &names, plan, err);
    if (rc == DMLSIM_OK) rc = platform_load(sc, doc, plan, pf, err);
    platform_names_release(&names);
    platform_close(doc);
    return rc;
}
