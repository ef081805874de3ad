/* platform_fault.c - a fault plan written into a platform document: link profiles, straggler
 * pstates, the names a plan may target (see platform_fault.h). */
#include "platform_fault.h"

#include "platform.h"
#include "platform_xml.h"
#include "units.h"

#include <xbt/misc.h>
#include <xbt/sysdep.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int platform_fault_name_cmp(const void *x, const void *y)
{
    return platform_name_cmp(*(char *const *)x, *(char *const *)y);
}

void platform_fault_collect_names(xmlNodePtr n, void *data)
{
    struct fault_names *d = data;
    xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
    if (id == NULL) return;
    if (platform_xml_is_elem(n, "host")) {
        platform_xml_push_name(&d->hosts, &d->nhosts, id);
        for (xmlNodePtr p = n->children; p; p = p->next) {
            xmlChar *pid =
                    p->type == XML_ELEMENT_NODE ? xmlGetProp(p, (const xmlChar *)"id") : NULL;
            if (pid && strcmp((const char *)pid, "gpu") == 0)
                platform_xml_push_name(&d->gpus, &d->ngpus, id);
            xmlFree(pid);
        }
    } else if (platform_xml_is_elem(n, "link")) {
        platform_xml_push_name(&d->links, &d->nlinks, id);
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
    if (!platform_xml_is_elem(n, "link_ctn")) return;
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
    platform_xml_walk(root, retarget_ctn, &r);
    free(uname);
    free(dname);
    return up;
}

/* For one link: the state or bandwidth profile of its fault windows, in time order. */
static void link_profiles(xmlNodePtr root, const char *dir, const struct fault_plan *plan,
                          const char *link, int *seq)
{
    xmlNodePtr n = platform_xml_find_by_id(root, "link", link);
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
    if (halves[0] != n && halves[0]->next && platform_xml_is_elem(halves[0]->next, "link"))
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
    xmlNodePtr n = platform_xml_find_by_id(root, "host", host);
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

void platform_fault_copy_profiles(xmlNodePtr n, void *data)
{
    struct platform_fault_copy *c = data;
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

/* Only the links and hosts the plan names get profiles or pstates (each done once). */
void platform_fault_write_plan(xmlNodePtr root, const char *dir,
                               const struct fault_plan *plan)
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
