/* route.c - link classes of links and routes (see route.h). */
#include "route.h"

#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>

#include <stdio.h>
#include <string.h>

const char *route_link_class(const char *link_name, char *buf, size_t len)
{
    const char *dot = strrchr(link_name, '.');
    snprintf(buf, len, "%s", dot ? dot + 1 : link_name);
    size_t n = strlen(buf);
    if (n > 3 && strcmp(buf + n - 3, "_UP") == 0)
        buf[n - 3] = '\0';
    else if (n > 5 && strcmp(buf + n - 5, "_DOWN") == 0)
        buf[n - 5] = '\0';
    /* links of a SimGrid <cluster> named after its class: CLASS_link_N, CLASS_backbone */
    char *k = strstr(buf, "_link_");
    if (k != NULL && k[6] != '\0' && strspn(k + 6, "0123456789") == strlen(k + 6)) *k = '\0';
    n = strlen(buf);
    if (n > 9 && strcmp(buf + n - 9, "_backbone") == 0) buf[n - 9] = '\0';
    return buf;
}

const char *route_classes(sg_host_t a, sg_host_t b, char *buf, size_t len)
{
    xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
    size_t used = 0;
    char prev[64] = "", cls[64];
    unsigned int i;
    sg_link_t link;

    buf[0] = '\0';
    sg_host_get_route(a, b, links);
    xbt_dynar_foreach (links, i, link) {
        route_link_class(sg_link_get_name(link), cls, sizeof cls);
        if (strcmp(cls, prev) == 0) continue;
        int k = snprintf(buf + used, len - used, "%s%s", used ? ">" : "", cls);
        if (k > 0 && (size_t)k < len - used) used += (size_t)k;
        snprintf(prev, sizeof prev, "%s", cls);
    }
    xbt_dynar_free(&links);
    if (used == 0) snprintf(buf, len, "local");
    return buf;
}
