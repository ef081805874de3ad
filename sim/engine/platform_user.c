/* platform_user.c - checking a user's platform file before SimGrid reads it (see
 * platform_user.h). */
#include "platform_user.h"

#include "catalog.h"
#include "platform_xml.h"
#include "units.h"
#include "xmldoc.h"

#include <xbt/sysdep.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static void collect_link(xmlNodePtr n, void *data)
{
    struct user_check *u = data;
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (id && platform_xml_is_elem(n, "link")) platform_xml_push_name(&u->links, &u->nlinks, id);
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
    if (platform_xml_is_elem(n, "host") || platform_xml_is_elem(n, "cluster"))
        rc = check_quantity(u, n, "speed", UNIT_FLOPRATE, UNIT_POSITIVE);
    if (rc == DMLSIM_OK && platform_xml_is_elem(n, "cluster")) {
        rc = check_quantity(u, n, "bw", UNIT_BANDWIDTH, UNIT_POSITIVE);
        return rc ? rc : check_quantity(u, n, "lat", UNIT_TIME, UNIT_NONNEG);
    }
    if (rc != DMLSIM_OK || platform_xml_is_elem(n, "host")) return rc;
    if (platform_xml_is_elem(n, "link")) {
        rc = check_quantity(u, n, "bandwidth", UNIT_BANDWIDTH, UNIT_POSITIVE);
        return rc ? rc : check_quantity(u, n, "latency", UNIT_TIME, UNIT_NONNEG);
    }
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (platform_xml_is_elem(n, "link_ctn") && id) {
        bool known = false;
        for (size_t i = 0; i < u->nlinks && !known; i++)
            known = strcmp(u->links[i], (const char *)id) == 0;
        if (!known)
            rc = dmlsim_fail(u->err, DMLSIM_EPLATFORM,
                             "%s:%ld: <link_ctn id=\"%s\">: no such link; expected the id of a "
                             "<link> of the platform",
                             u->path, xmlGetLineNo(n), (const char *)id);
    } else if (platform_xml_is_elem(n, "prop") && n->parent &&
               platform_xml_is_elem(n->parent, "host") && id &&
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
    if (platform_xml_is_elem(n, "host") || platform_xml_is_elem(n, "router")) {
        sz->hosts++;
        for (xmlNodePtr p = n->children; platform_xml_is_elem(n, "host") && p; p = p->next) {
            xmlChar *pid =
                    p->type == XML_ELEMENT_NODE ? xmlGetProp(p, (const xmlChar *)"id") : NULL;
            if (pid && platform_xml_is_elem(p, "prop") && strcmp((const char *)pid, "gpu") == 0)
                sz->gpus++;
            xmlFree(pid);
        }
    } else if (platform_xml_is_elem(n, "cluster")) {
        xmlChar *r = xmlGetProp(n, (const xmlChar *)"radical");
        double k = radical_count((const char *)r);
        sz->hosts += k, sz->links += k, sz->zones++;
        xmlFree(r);
    } else if (platform_xml_is_elem(n, "link")) {
        sz->links++;
    } else if (platform_xml_is_elem(n, "link_ctn")) {
        sz->hops++;
    } else if (strstr(tag, "oute") != NULL) { /* route, zoneRoute, ASroute, bypass... */
        sz->routes++;
    } else if (platform_xml_is_elem(n, "zone") || platform_xml_is_elem(n, "AS")) {
        sz->zones++;
    }
    bool zone = platform_xml_is_elem(n, "zone") || platform_xml_is_elem(n, "AS") ||
                platform_xml_is_elem(n, "cluster");
    int space = platform_xml_is_elem(n, "link")                                        ? ID_LINK
                : platform_xml_is_elem(n, "host") || platform_xml_is_elem(n, "router") ? ID_NETPOINT
                : zone                                                                 ? ID_ZONE
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
 * dmlsim uses after it (platform_route_check, platform_route.h). */
enum dmlsim_err platform_user_check(const char *path, struct pf_size *size,
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
        platform_xml_walk(root, collect_link, &u);
        platform_xml_walk(root, collect_ids, &u);
        rc = check_duplicates(&u);
        if (rc == DMLSIM_OK) platform_xml_walk(root, check_each, &u);
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
